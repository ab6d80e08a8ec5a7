// The ring all-reduce: ranks on a circle passing chunks step by step, beside what naive, ring and recursive doubling cost.
#include "core/cost/kernels/collectives.h"
#include "core/model/format.h"
#include "core/lessons/ring_allreduce.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace widgets {
namespace {

enum class LinkChoice { scale_up, scale_out, custom, dp_group };

struct RingPanelOptions {
    bool follow_scenario = true;               // n and the link are the scenario's DP group until the user moves one
    int rank_count = 8;                        // ranks in the ring; up to max_drawn_ranks are drawn one by one
    double seconds_per_step = 1.0;             // playback time one ring step takes on screen
    LinkChoice link_choice = LinkChoice::scale_up;  // eight ranks fit in one node: NVLink
    float custom_gb_per_s = 100.0f;            // custom link, decimal GB/s per direction
    float custom_latency_us = 5.0f;            // custom link, alpha in microseconds
    bool buffer_from_model = true;             // S = the gradients the scenario's DP group reduces (one GPU's TP x PP shard)
    float custom_buffer_gb = 1.0f;             // S otherwise, decimal GB
    int focus_rank = 0;                        // a ring too large to draw whole shows a window of ranks around this one
    int window_slots = 8;                      // that window: 7 ranks and the rest of the ring, on one circle
};

constexpr int max_drawn_ranks = 16;  // up to this every rank is drawn with all its chunks; beyond, a window of the ring
constexpr int curve_points_per_doubling = 4;

// The schedule of n = 1024 is 2046 steps of 1024 transfers: build it only when n or S changes; the view (its state after
// the steps done) only when the step or the window changes.
struct RingPanelState {
    RingPanelOptions options;
    core::RingSchedule schedule;
    core::RingView view;
    int view_steps_done = -1, view_focus = -1, view_slots = -1;
    double view_buffer_bytes = -1;
};

struct AlgorithmStyle {
    core::AllReduceAlgorithm algorithm;
    ImU32 color;
    MarkerShape marker;
};

// The ring's grey is neither phase colour of the progress arc (phase_color): blue and green there mean only the phases.
std::vector<AlgorithmStyle> algorithm_styles() {
    const Palette& colors = palette();
    return {{core::AllReduceAlgorithm::naive, colors.series[5], MarkerShape::square},
            {core::AllReduceAlgorithm::ring, colors.series[7], MarkerShape::circle},
            {core::AllReduceAlgorithm::recursive_doubling, colors.series[3], MarkerShape::diamond}};
}

ImU32 chunk_color(int chunk, int rank_count) {
    if (rank_count <= 8) return palette().series[chunk];
    const float value = current_theme() == Theme::dark ? 0.92f : 0.72f;
    return ImColor::HSV(static_cast<float>(chunk) / rank_count, 0.62f, value);
}

ImU32 phase_color(core::RingPhase phase) {
    return phase == core::RingPhase::all_gather ? palette().weights : palette().grads;
}

// The scenario's DP gradient reduction, if it has one (dp x cp > 1).
const core::AxisComm* dp_axis(const core::Report& report, int* index = nullptr) {
    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        if (report.comm.axes[i].axis != core::CommAxis::dp) continue;
        if (index) *index = static_cast<int>(i);
        return &report.comm.axes[i];
    }
    return nullptr;
}

// The gradient block the DP all-reduce moves (its index): the widest one when a recipe keeps two (bf16 and fp32 accumulation).
int gradient_block(const core::Report& report) {
    int widest = -1;
    const auto& blocks = report.memory.blocks;
    for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
        if (blocks[i].kind == core::MemoryKind::grads && (widest < 0 || blocks[i].whole_bytes > blocks[widest].whole_bytes)) widest = i;
    }
    return widest;
}

core::LinkSpec custom_link(const RingPanelOptions& options) {
    core::LinkSpec link;
    link.id = "custom";
    link.name = "custom";
    link.bytes_per_s = options.custom_gb_per_s * 1e9;
    link.latency_seconds = options.custom_latency_us * 1e-6;
    return link;
}

// The scenario's DP group as one link: the bus bandwidth NCCL reaches on its NVLink and NICs together (what the DP step's
// time uses), with the latency of the slowest link it crosses. Absent when the scenario has no DP group.
std::optional<core::LinkSpec> dp_group_link(const core::Scenario& scenario, const core::Report& report, const core::ReportText& text) {
    int index = -1;
    const core::AxisComm* dp = dp_axis(report, &index);
    if (!dp) return std::nullopt;
    core::LinkSpec link = dp->crosses_nodes ? scenario.cluster.scale_out : scenario.cluster.scale_up;
    link.id = "dp-group";
    link.name = "the scenario's DP group over " + text.axis_links[index];
    link.bytes_per_s = dp->bus_bytes_per_s;
    return link;
}

core::LinkSpec chosen_link(const RingPanelOptions& options, const core::Scenario& scenario, const std::optional<core::LinkSpec>& group) {
    switch (options.link_choice) {
        case LinkChoice::scale_up: return scenario.cluster.scale_up;
        case LinkChoice::scale_out: return scenario.cluster.scale_out;
        case LinkChoice::dp_group:
            if (group) return *group;
            return scenario.cluster.scale_up;
        case LinkChoice::custom: break;
    }
    return custom_link(options);
}

std::string link_label(const core::LinkSpec& link) {
    const char* per = link.id == "dp-group" ? " bus bandwidth, " : " per direction, ";  // a group's figure is NCCL's busbw
    return link.name + ", " + core::format_bandwidth(link.bytes_per_s) + per + core::format_seconds(link.latency_seconds) + " latency";
}

ImVec2 add(ImVec2 a, ImVec2 b) { return ImVec2(a.x + b.x, a.y + b.y); }
ImVec2 scaled(ImVec2 a, float k) { return ImVec2(a.x * k, a.y * k); }
ImVec2 lerp(ImVec2 a, ImVec2 b, float t) { return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }

// How far an axis-aligned box of half size (hx, hy) reaches from its centre along unit direction d.
float box_reach(ImVec2 half, ImVec2 d) { return std::abs(d.x) * half.x + std::abs(d.y) * half.y; }

// A chunk cell: its fill rises with the share of ranks whose contributions it sums; a complete chunk is outlined.
void draw_chunk_cell(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 color, const core::RingViewChunk& chunk, float em) {
    draw->AddRectFilled(min, max, with_alpha(color, 0.22f));
    const float share = static_cast<float>(std::clamp(chunk.contributor_share, 0.0, 1.0));
    draw->AddRectFilled(ImVec2(min.x, max.y - (max.y - min.y) * share), max, color);
    if (chunk.complete) draw->AddRect(min, max, palette().text, 0, 0, em * 0.08f);
}

// A drawn chunk's colour: by its place in the view's chunk order; the other chunks together in grey.
ImU32 view_chunk_color(const core::RingView& view, int chunk) {
    if (chunk < 0) return palette().text_dim;
    const auto at = std::find(view.chunk_order.begin(), view.chunk_order.end(), chunk);
    const int index = static_cast<int>(at - view.chunk_order.begin());
    return chunk_color(index, static_cast<int>(view.chunk_order.size()));
}

struct RankBox {
    ImVec2 center;
    ImVec2 half;
    ImVec2 outward;  // unit vector from the ring's centre
};

// Where each rank's name goes, as plain data before drawing. Against a side of its own box (the side facing the ring's
// middle, or outside for few ranks, first), never floating between two boxes, where every name then hides no box, link
// or other name; else, on a crowded ring, each straight toward the middle as one pattern.
std::vector<ImVec2> rank_label_centers(const std::vector<RankBox>& boxes, const std::vector<ImVec2>& text_sizes, bool outside,
                                       const std::vector<ImVec2>& link_start, const std::vector<ImVec2>& link_end, ImVec2 clip_min,
                                       ImVec2 clip_max, float em) {
    const float gap = em * 0.25f;
    const auto overlap = [](ImVec2 a_min, ImVec2 a_max, ImVec2 b_min, ImVec2 b_max) {
        const float w = std::min(a_max.x, b_max.x) - std::max(a_min.x, b_min.x);
        const float h = std::min(a_max.y, b_max.y) - std::max(a_min.y, b_min.y);
        return w > 0 && h > 0 ? w * h : 0.0f;
    };
    std::vector<ImVec2> attached, radial;
    std::vector<std::pair<ImVec2, ImVec2>> placed;
    bool attached_clear = true;
    for (std::size_t slot = 0; slot < boxes.size(); ++slot) {
        const RankBox& box = boxes[slot];
        const ImVec2 text_size = text_sizes[slot];
        const ImVec2 toward = scaled(box.outward, outside ? 1.0f : -1.0f);
        radial.push_back(add(box.center, scaled(toward, box_reach(box.half, toward) + box_reach(scaled(text_size, 0.5f), toward) + gap)));
        const ImVec2 vertical(0, (toward.y >= 0 ? 1.0f : -1.0f) * (box.half.y + text_size.y * 0.5f + gap));
        const ImVec2 horizontal((toward.x >= 0 ? 1.0f : -1.0f) * (box.half.x + text_size.x * 0.5f + gap), 0);
        const bool vertical_first = std::abs(toward.y) >= std::abs(toward.x);
        const ImVec2 sides[4] = {vertical_first ? vertical : horizontal, vertical_first ? horizontal : vertical,
                                 vertical_first ? scaled(horizontal, -1) : scaled(vertical, -1),
                                 vertical_first ? scaled(vertical, -1) : scaled(horizontal, -1)};
        float least = -1;
        ImVec2 best = add(box.center, sides[0]);
        for (const ImVec2& side : sides) {
            const ImVec2 center = add(box.center, side);
            const ImVec2 min = add(center, scaled(text_size, -0.5f)), max = add(center, scaled(text_size, 0.5f));
            float hidden = 0;  // pixels of link, and pixels squared of box or name, under the name
            for (std::size_t i = 0; i < link_start.size(); ++i) hidden += segment_length_inside(link_start[i], link_end[i], min, max);
            for (const RankBox& other : boxes) hidden += overlap(min, max, add(other.center, scaled(other.half, -1)), add(other.center, other.half));
            for (const auto& [name_min, name_max] : placed) hidden += overlap(min, max, name_min, name_max);
            hidden += text_size.x * text_size.y - overlap(min, max, clip_min, clip_max);  // what falls outside the view
            if (least < 0 || hidden < least) {
                least = hidden;
                best = center;
            }
            if (least == 0) break;
        }
        attached_clear = attached_clear && least == 0;
        attached.push_back(best);
        placed.push_back({add(best, scaled(text_size, -0.5f)), add(best, scaled(text_size, 0.5f))});
    }
    return attached_clear ? attached : radial;
}

// The view's slots clockwise from the top: each rank holds its chunk cells in rows of at most 8; the rest of the ring (a
// window's) is one box saying how many ranks it stands for.
void draw_ring_ranks(ImDrawList* draw, ImVec2 area_min, ImVec2 area, const core::RingView& view, const core::RingFrame& frame,
                     ImU32 link_color, float em) {
    const int slots = static_cast<int>(view.slots.size());
    const int cells = static_cast<int>(view.slots.front().chunks.size());
    const ImVec2 center(area_min.x + area.x * 0.5f, area_min.y + area.y * 0.5f);
    const int columns = std::min(cells, 8);
    const int rows = (cells + columns - 1) / columns;
    const float cell_height = rows == 1 ? em * 2.0f : em * 1.0f;
    const auto cell_width_at = [&](float radius) {
        return std::clamp(2.0f * radius * std::sin(std::numbers::pi_v<float> / slots) * 0.62f / columns, em * 0.35f, em * 1.2f);
    };
    const auto half_at = [&](float cell_width) {
        return ImVec2(cell_width * columns * 0.5f + em * 0.25f, cell_height * rows * 0.5f + em * 0.25f);
    };
    // Few ranks leave the middle empty: labels go outside; many ranks need the outside for the boxes themselves.
    const bool labels_outside = slots <= 4;
    const ImVec2 margin = labels_outside ? ImVec2(ImGui::CalcTextSize("GPU 0").x + em * 0.6f, em * 1.6f)
                                         : ImVec2(em * 0.4f, em * 0.4f);
    const float first_guess = std::min(area.x, area.y) * 0.5f - em * 3.0f;
    const ImVec2 guess_half = half_at(cell_width_at(first_guess));
    const float radius = std::max(em * 3.0f, std::min(area.x * 0.5f - guess_half.x - margin.x,
                                                      area.y * 0.5f - guess_half.y - margin.y));
    const float cell_width = cell_width_at(radius);
    const ImVec2 half = half_at(cell_width);

    std::vector<RankBox> boxes(slots);
    for (int slot = 0; slot < slots; ++slot) {
        const float angle = -std::numbers::pi_v<float> / 2 + 2 * std::numbers::pi_v<float> * slot / slots;
        const ImVec2 outward(std::cos(angle), std::sin(angle));
        boxes[slot] = {add(center, scaled(outward, radius)), half, outward};
    }

    // Links first, so boxes and travelling chunks sit on top; offset sideways so n = 2's two directions stay apart.
    std::vector<ImVec2> link_start(slots), link_end(slots);
    for (int slot = 0; slot < slots; ++slot) {
        const RankBox& from = boxes[slot];
        const RankBox& to = boxes[(slot + 1) % slots];
        ImVec2 d(to.center.x - from.center.x, to.center.y - from.center.y);
        const float length = std::sqrt(d.x * d.x + d.y * d.y);
        d = scaled(d, 1.0f / length);
        const ImVec2 side = scaled(ImVec2(-d.y, d.x), slots == 2 ? em * 1.2f : 0.0f);
        link_start[slot] = add(add(from.center, scaled(d, box_reach(half, d) + em * 0.3f)), side);
        link_end[slot] = add(add(to.center, scaled(d, -box_reach(half, d) - em * 0.3f)), side);
        draw->AddLine(link_start[slot], link_end[slot], with_alpha(link_color, 0.75f), em * 0.14f);
        const ImVec2 tip = link_end[slot];
        const ImVec2 back = add(tip, scaled(d, -em * 0.6f));
        const ImVec2 across = scaled(ImVec2(-d.y, d.x), em * 0.35f);
        draw->AddTriangleFilled(tip, add(back, across), add(back, scaled(across, -1)), link_color);
    }

    std::vector<std::string> names;
    std::vector<ImVec2> name_sizes;
    for (const core::RingViewSlot& shown : view.slots) {
        names.push_back(shown.rank >= 0 ? "GPU " + std::to_string(shown.rank) : std::string());
        name_sizes.push_back(ImGui::CalcTextSize(names.back().c_str()));
    }
    const std::vector<ImVec2> name_centers =
        rank_label_centers(boxes, name_sizes, labels_outside, link_start, link_end, draw->GetClipRectMin(), draw->GetClipRectMax(), em);
    for (int slot = 0; slot < slots; ++slot) {
        const RankBox& box = boxes[slot];
        const core::RingViewSlot& shown = view.slots[slot];
        const ImVec2 min = add(box.center, scaled(half, -1));
        const ImVec2 max = add(box.center, half);
        draw->AddRectFilled(min, max, palette().panel_background, em * 0.2f);
        draw->AddRect(min, max, shown.rank >= 0 ? palette().axis : palette().grid, em * 0.2f, 0, em * 0.06f);
        if (shown.rank < 0) {
            // The rest of the ring: how many ranks, in as many lines as the box needs.
            const std::string text = std::to_string(shown.hidden_ranks) + " more ranks";
            const float width = std::max(em, max.x - min.x - em * 0.4f);
            const ImVec2 size = wrapped_text_size(text, width);
            add_wrapped_text(draw, ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(box.center.x - size.x * 0.5f, box.center.y - size.y * 0.5f),
                             palette().text_dim, text, width);
            continue;
        }
        const ImVec2 cells_origin(box.center.x - cell_width * columns * 0.5f, min.y + em * 0.25f);
        for (int index = 0; index < cells; ++index) {
            const core::RingViewChunk& chunk = shown.chunks[index];
            const ImVec2 cell_min(cells_origin.x + (index % columns) * cell_width, cells_origin.y + (index / columns) * cell_height);
            const ImVec2 cell_max(cell_min.x + cell_width - std::max(1.0f, em * 0.06f),
                                  cell_min.y + cell_height - std::max(1.0f, em * 0.06f));
            draw_chunk_cell(draw, cell_min, cell_max, view_chunk_color(view, chunk.chunk), chunk, em);
            // The cells taking part in the step in flight: the one leaving and the one it lands on.
            if (chunk.in_step && !frame.done)
                draw->AddRect(add(cell_min, ImVec2(-1, -1)), add(cell_max, ImVec2(1, 1)), palette().warning, 0, 0, em * 0.1f);
        }
        draw->AddText(add(name_centers[slot], scaled(name_sizes[slot], -0.5f)), palette().text_dim, names[slot].c_str());
    }

    if (frame.done) return;
    // The chunks in flight: each carries its sender's holding, fill included, along the link.
    const float flight_width = std::max(cell_width, em * 0.7f);
    for (int slot = 0; slot < slots; ++slot) {
        const core::RingViewTransfer& transfer = view.transfers[slot];
        if (!transfer.moving) continue;
        const ImVec2 at = lerp(link_start[slot], link_end[slot], static_cast<float>(frame.transfer_fraction));
        const float flight_half_height = std::max(cell_height, em * 1.2f) * 0.5f;
        const ImVec2 min(at.x - flight_width * 0.5f, at.y - flight_half_height);
        const ImVec2 max(at.x + flight_width * 0.5f, at.y + flight_half_height);
        draw->AddRectFilled(add(min, ImVec2(-2, -2)), add(max, ImVec2(2, 2)), palette().panel_background);
        draw_chunk_cell(draw, min, max, view_chunk_color(view, transfer.chunk.chunk), transfer.chunk, em);
    }
}

void draw_ring_view(const core::RingView& view, const core::RingSchedule& schedule, const core::RingFrame& frame, ImU32 link_color,
                    ImVec2 size) {
    const float em = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::PushFont(fonts().large);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(frame.done ? palette().text : phase_color(frame.phase)));
    wrapped_text(frame.caption);
    ImGui::PopStyleColor();
    ImGui::PopFont();
    const bool window = view.drawn_ranks < view.rank_count;
    const std::string legend = "cell fill = share of the " + std::to_string(schedule.rank_count) + " ranks' gradients summed" +
                               (window ? "; grey: a rank's other chunks, their mean" : "");
    const std::string subtitle = "step " + std::to_string(std::min(frame.steps_done + 1, frame.step_count)) + " of " +
                                 std::to_string(frame.step_count) + "  |  one transfer = S/n = " +
                                 core::format_bytes(schedule.chunk_bytes) + "  |  " + legend;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_text(subtitle);
    if (window) wrapped_text("Shown: " + view.caption + ".");
    ImGui::PopStyleColor();
    const float header = ImGui::GetCursorScreenPos().y - origin.y;
    const ImVec2 area(size.x, std::max(em * 12.0f, size.y - header));
    const ImVec2 area_min = ImGui::GetCursorScreenPos();
    ImGui::Dummy(area);
    draw_ring_ranks(ImGui::GetWindowDrawList(), area_min, area, view, frame, link_color, em);
}

void draw_controls(RingPanelOptions& options, const core::Scenario& scenario, const core::Report& report,
                   const std::optional<core::LinkSpec>& group) {
    const float em = ImGui::GetFontSize();
    ImGui::SetNextItemWidth(em * 12.0f);
    if (slider_int("ranks n", &options.rank_count, core::ring_min_ranks, core::ring_max_ranks, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        options.follow_scenario = false;  // exploring: the scenario no longer moves the slider
    if (options.rank_count > max_drawn_ranks) {
        ImGui::SetNextItemWidth(em * 12.0f);
        slider_int("shown around rank", &options.focus_rank, 0, options.rank_count - 1, "%d", ImGuiSliderFlags_AlwaysClamp);
        explain_last_item("The ring is too large to draw rank by rank: the panel shows the ranks around this one; the others pass "
                          "their chunks the same way in the same step.");
    }
    const core::AxisComm* dp = dp_axis(report);
    if (dp && !options.follow_scenario) {
        const std::string use_dp = "back to this scenario's DP group (" + std::to_string(dp->degree) + ")";
        same_line_if_fits(ImGui::CalcTextSize(use_dp.c_str()).x + em, ImGui::GetStyle().ItemSpacing.x);
        if (ImGui::SmallButton(use_dp.c_str())) {
            options.follow_scenario = true;
            options.buffer_from_model = true;
        }
    }

    const std::string choices[] = {"inside a node: " + link_label(scenario.cluster.scale_up),
                                   "between nodes: " + link_label(scenario.cluster.scale_out),
                                   link_label(custom_link(options)),
                                   group ? link_label(*group) : std::string()};
    const int current = static_cast<int>(options.link_choice);
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x - em * 3.0f, em * 30.0f));
    if (ImGui::BeginCombo("link", fitted_preview(choices[current].c_str()).c_str())) {
        for (int choice = group ? 3 : 0, shown = 0; shown < (group ? 4 : 3); choice = (choice + 1) % 4, ++shown) {  // the group first
            if (ImGui::Selectable(choices[choice].c_str(), choice == current)) {
                options.link_choice = static_cast<LinkChoice>(choice);
                options.follow_scenario = false;
            }
        }
        ImGui::EndCombo();
    }
    if (options.link_choice == LinkChoice::custom) {
        ImGui::SetNextItemWidth(em * 9.0f);
        slider_float("GB/s per direction", &options.custom_gb_per_s, 1.0f, 2000.0f, "%.0f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em * 7.0f);
        slider_float("latency (us)", &options.custom_latency_us, 0.1f, 100.0f, "%.1f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    }

    if (ImGui::RadioButton("S = the scenario's DP gradients", options.buffer_from_model)) options.buffer_from_model = true;
    ImGui::SameLine();
    if (ImGui::RadioButton("S =", !options.buffer_from_model)) options.buffer_from_model = false;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em * 7.0f);
    if (slider_float("GB##buffer", &options.custom_buffer_gb, 0.001f, 1000.0f, "%.3g",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        options.buffer_from_model = false;
}

// "S = 2 B x 70.6 B params = 141 GB" and "each rank sends 2(n-1)/n x S": the seed's 2 x 2 x params, with its value.
void draw_buffer_figures(const core::Report& report, const core::ReportText& text, int gradient_index, bool buffer_from_model,
                         const core::AllReduceCost& ring) {
    const core::MemoryBlock* gradients = gradient_index >= 0 ? &report.memory.blocks[gradient_index] : nullptr;
    const double factor = core::busbw_factor(core::Collective::all_reduce, ring.rank_count);
    int dp_index = -1;
    const core::AxisComm* dp = dp_axis(report, &dp_index);
    if (buffer_from_model && dp) {
        figure("S, the DP gradient buffer:",
               "the gradients of the " + core::format_count(report.memory.params_per_gpu) + " parameters one GPU holds (tp " +
                   std::to_string(report.layout.tp) + ", pp " + std::to_string(report.layout.pp) + ") = " + core::format_bytes(ring.buffer_bytes),
               text.axis_formulas[dp_index].formula, text.axis_formulas[dp_index].source.c_str());
    } else if (buffer_from_model && gradients) {
        figure("S, one GPU's gradients:",
               core::format_bytes(ring.buffer_bytes) + " (dp 1: this scenario reduces no gradients over data parallelism)",
               text.block_per_gpu[gradient_index].formula, text.block_per_gpu[gradient_index].source.c_str());
    } else {
        figure("S, the buffer:", core::format_bytes(ring.buffer_bytes));
    }
    const char* why = "2(n-1) steps of S/n each; as n grows 2(n-1)/n -> 2, so a rank sends about 2S whatever n is.";
    figure("each rank sends (ring):",
           "2(n-1)/n x S = " + core::format_number(factor, 4) + " x " + core::format_bytes(ring.buffer_bytes) + " = " +
               core::format_bytes(ring.max_bytes_sent_by_a_rank),
           why, "Patarasuk and Yuan 2009, the bandwidth-optimal ring");
    const std::string limit = "2 x S = ";
    figure("for large n, about:", limit + core::format_bytes(core::ring_bytes_sent_per_rank_large_n(ring.buffer_bytes)) +
                                      " per rank, whatever n is",
           why, "Patarasuk and Yuan 2009");
}

void draw_cost_table(const std::vector<core::AllReduceCost>& costs, const std::vector<AlgorithmStyle>& styles) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("ring_costs", 4, flags)) return;
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    for (const core::AllReduceCost& cost : costs)
        ImGui::TableSetupColumn(core::all_reduce_algorithm_name(cost.algorithm), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("all-reduce of S");
    for (std::size_t i = 0; i < costs.size(); ++i) {
        ImGui::TableNextColumn();
        const std::string name = core::all_reduce_algorithm_name(costs[i].algorithm);
        const std::string shown = fit_variant({name, name == "recursive doubling" ? "rec. doubling" : name}, ImGui::GetContentRegionAvail().x);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(styles[i].color), "%s", shown.c_str());
    }
    struct Row {
        const char* label;
        const char* explanation;
        std::string (*value)(const core::AllReduceCost&);
    };
    const Row rows[] = {
        {"busiest link", "Bytes that cross the busiest link one after another. Naive: the root's link, 2(n-1) S. Ring: every link, "
                         "2(n-1)/n S. Recursive doubling: S per round, lg n rounds.",
         [](const core::AllReduceCost& c) { return core::format_bytes(c.busiest_link_bytes); }},
        {"sent by a rank", "Most bytes any one rank sends (naive: the root's broadcast; the others send S once).",
         [](const core::AllReduceCost& c) { return core::format_bytes(c.max_bytes_sent_by_a_rank); }},
        {"messages in a row", "Latency terms: how many alphas the critical path pays.",
         [](const core::AllReduceCost& c) { return std::to_string(c.latency_terms) + " alpha"; }},
        {"time", "alpha-beta: messages x alpha + busiest-link bytes / bandwidth.",
         [](const core::AllReduceCost& c) { return core::format_seconds(c.seconds); }},
        {"algbw", "nccl-tests: S / time.", [](const core::AllReduceCost& c) { return core::format_bandwidth(c.algbw_bytes_per_s); }},
        {"busbw", "nccl-tests: algbw x 2(n-1)/n, comparable with the link's own bandwidth.",
         [](const core::AllReduceCost& c) { return core::format_bandwidth(c.busbw_bytes_per_s); }},
    };
    for (const Row& row : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().text_dim), "%s", row.label);
        explain_last_item(row.explanation, "Thakur et al. 2005; NVIDIA nccl-tests, doc/PERFORMANCE.md");
        for (const core::AllReduceCost& cost : costs) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.value(cost).c_str());
        }
    }
    ImGui::EndTable();
}

// Decade-padded range of the positive values, for a log axis.
void log_range(const std::vector<const std::vector<double>*>& series, double& low, double& high) {
    low = 0;
    high = 0;
    for (const std::vector<double>* values : series) {
        for (double value : *values) {
            if (!(value > 0)) continue;
            low = low > 0 ? std::min(low, value) : value;
            high = std::max(high, value);
        }
    }
    if (!(low > 0)) low = high = 1;
    low = std::pow(10.0, std::floor(std::log10(low)));
    high = std::pow(10.0, std::ceil(std::log10(high) + 1e-9));
}

void draw_curve_plot(const char* id, const char* y_title, const core::AllReduceCurves& curves,
                     const std::vector<const std::vector<double>*>& series, const std::vector<double>& marked,
                     const std::vector<AlgorithmStyle>& styles, int rank_count, ImVec2 size, bool legend = true) {
    const std::string x_title = "ranks n (dashed: n = " + std::to_string(rank_count) + ")";
    LogPlotAxes axes;
    axes.x_title = x_title.c_str();
    axes.y_title = y_title;
    axes.x_min = curves.rank_counts.front();
    axes.x_max = curves.rank_counts.back();
    log_range(series, axes.y_min, axes.y_max);
    axes.legend = legend ? LegendCorner::top_left : LegendCorner::none;
    if (!BeginLogPlot(id, size, axes)) return;
    PlotVLine("##current n", rank_count, palette().text_dim, 0.06f, 0.3f);
    const int count = static_cast<int>(curves.rank_counts.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
        const char* name = core::all_reduce_algorithm_name(styles[i].algorithm);
        PlotLine(name, curves.rank_counts.data(), series[i]->data(), count, styles[i].color, 0.14f);
        PlotPoint("##now", rank_count, marked[i], styles[i].color, 0.35f, styles[i].marker);
    }
    EndLogPlot();
}

void draw_scenario_dp(const core::Report& report, const core::ReportText& text, const BaselineView* baseline) {
    // Against a pinned baseline: every axis's communication per step, compared (the ring's own figures are the sliders').
    if (baseline && !baseline->comparison->comm_text.empty()) dim_text("vs baseline: " + baseline->comparison->comm_text);
    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        const core::AxisComm& axis = report.comm.axes[i];
        if (axis.axis != core::CommAxis::dp) continue;
        figure("This scenario's DP step (NCCL model):",
               text.axis_collectives[i] + ", " + text.axis_groups[i] + " ranks on " + text.axis_links[i] + ": " +
                   core::format_bytes(axis.bytes_per_gpu) + " sent per GPU in " + core::format_seconds(axis.seconds) + ", busbw " +
                   core::format_bandwidth(axis.busbw_bytes_per_s),  // its own bytes: not always an all-reduce of S below
               text.axis_formulas[i].formula, text.axis_formulas[i].source.c_str());
        return;
    }
    figure("This scenario's DP step:", "no data parallelism (dp = 1), nothing to all-reduce");
}

void draw_ring_panel(RingPanelState& state, PanelContext& ctx) {
    RingPanelOptions& options = state.options;
    const float em = ImGui::GetFontSize();
    const int gradient_index = gradient_block(ctx.report);
    const core::MemoryBlock* gradients = gradient_index >= 0 ? &ctx.report.memory.blocks[gradient_index] : nullptr;
    const core::AxisComm* dp = dp_axis(ctx.report);
    if (options.follow_scenario && dp) {
        // The scenario's own DP group: its ranks, the link its traffic crosses, and its (TP- and PP-sharded) gradients.
        options.rank_count = dp->degree;
        options.link_choice = LinkChoice::dp_group;
    }
    const std::optional<core::LinkSpec> group = dp_group_link(ctx.scenario, ctx.report, ctx.text);
    if (options.link_choice == LinkChoice::dp_group && !group) options.link_choice = LinkChoice::scale_up;
    const double model_buffer = dp ? dp->message_bytes : gradients ? gradients->per_gpu_bytes : 0.0;
    const double buffer_bytes = options.buffer_from_model && model_buffer > 0 ? model_buffer : options.custom_buffer_gb * 1e9;
    options.rank_count = std::clamp(options.rank_count, core::ring_min_ranks, core::ring_max_ranks);
    if (state.schedule.rank_count != options.rank_count || state.schedule.buffer_bytes != buffer_bytes)
        state.schedule = core::make_ring_schedule(options.rank_count, buffer_bytes);
    const core::RingSchedule& schedule = state.schedule;

    ctx.playback.set_timeline({core::ring_animation_seconds(schedule, options.seconds_per_step), options.seconds_per_step});
    draw_transport(ctx.playback);
    const double t_seconds = std::isfinite(ctx.playback.t_seconds) ? std::max(0.0, ctx.playback.t_seconds) : 0.0;
    const core::RingFrame frame = core::ring_frame_at(schedule, t_seconds, options.seconds_per_step);

    const core::LinkSpec link = chosen_link(options, ctx.scenario, group);
    const bool over_network = options.link_choice == LinkChoice::scale_out || (options.link_choice == LinkChoice::dp_group && dp && dp->crosses_nodes);
    const ImU32 link_color = over_network                                   ? palette().infiniband
                             : options.link_choice == LinkChoice::custom    ? palette().axis
                                                                            : palette().nvlink;
    const std::vector<AlgorithmStyle> styles = algorithm_styles();
    std::vector<core::AllReduceCost> costs;
    for (const AlgorithmStyle& style : styles)
        costs.push_back(core::all_reduce_cost(style.algorithm, options.rank_count, buffer_bytes, link));
    const core::AllReduceCurves curves = core::all_reduce_curves(core::ring_min_ranks, core::ring_max_ranks, buffer_bytes, link,
                                                                 curve_points_per_doubling);

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side_width = std::clamp(avail.x * 0.5f, std::min(em * 36.0f, avail.x * 0.6f), em * 48.0f);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    // Beside the sidebar or zoomed the ring needs the whole width: the ring first, then the figures, scrolling in the panel.
    const bool one_column = avail.x - side_width - spacing < em * 24.0f;
    const ImVec2 view_size = one_column ? ImVec2(avail.x, std::max(avail.y * 0.8f, em * 26.0f)) : ImVec2(avail.x - side_width - spacing, avail.y);
    options.focus_rank = std::clamp(options.focus_rank, 0, schedule.rank_count - 1);
    const int slots = schedule.rank_count <= max_drawn_ranks ? max_drawn_ranks : options.window_slots;
    if (state.view_steps_done != frame.steps_done || state.view_focus != options.focus_rank || state.view_slots != slots ||
        state.view.rank_count != schedule.rank_count || state.view_buffer_bytes != schedule.buffer_bytes) {
        state.view = core::ring_view(schedule, frame.steps_done, options.focus_rank, slots);
        state.view_steps_done = frame.steps_done;
        state.view_focus = options.focus_rank;
        state.view_slots = slots;
        state.view_buffer_bytes = schedule.buffer_bytes;
    }
    ImGui::BeginChild("ring_view", view_size, false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_ring_view(state.view, schedule, frame, link_color, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    if (!one_column) {
        ImGui::SameLine();
        ImGui::BeginChild("ring_side", ImVec2(side_width, avail.y), false);
    }
    if (figure_mode()) dim_text(std::to_string(options.rank_count) + " ranks: " + link_label(link));  // what the controls would say
    else draw_controls(options, ctx.scenario, ctx.report, group);
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0.0f);  // long figures wrap inside the column instead of running off it
    draw_buffer_figures(ctx.report, ctx.text, gradient_index, options.buffer_from_model, costs[1]);
    if (options.follow_scenario && dp && dp->degree > core::ring_max_ranks)
        dim_text("The scenario's DP group has " + std::to_string(dp->degree) + " ranks; the ring shows at most " +
                 std::to_string(core::ring_max_ranks) + ".");
    draw_scenario_dp(ctx.report, ctx.text, ctx.baseline);
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    draw_cost_table(costs, styles);
    ImGui::Spacing();
    // Stacked while both charts get 10 lines; on a short window (a projector's 720) side by side, so neither scrolls out
    // of sight, under one key that shows each algorithm's colour and marker.
    const ImVec2 room(ImGui::GetContentRegionAvail().x, one_column ? em * 24.0f : ImGui::GetContentRegionAvail().y);
    const float min_plot_height = em * 10.0f;
    const bool side_by_side = room.y < 2.0f * min_plot_height + ImGui::GetStyle().ItemSpacing.y && room.x >= em * 32.0f;
    if (side_by_side) {
        for (std::size_t i = 0; i < styles.size(); ++i) {
            if (i > 0) ImGui::SameLine(0, em);
            LegendKey(core::all_reduce_algorithm_name(styles[i].algorithm), styles[i].color, styles[i].marker);
        }
    }
    const float key_height = side_by_side ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const ImVec2 plot_size = side_by_side ? ImVec2((room.x - spacing) * 0.5f, std::max(em * 7.0f, room.y - key_height))
                                          : ImVec2(0, std::max(min_plot_height, (room.y - ImGui::GetStyle().ItemSpacing.y) * 0.5f));
    draw_curve_plot("##busiest link", "bytes through the busiest link (B)", curves,
                    {&curves.naive_busiest_link_bytes, &curves.ring_busiest_link_bytes,
                     &curves.recursive_doubling_busiest_link_bytes},
                    {costs[0].busiest_link_bytes, costs[1].busiest_link_bytes, costs[2].busiest_link_bytes}, styles,
                    options.rank_count, plot_size, !side_by_side);
    if (side_by_side) ImGui::SameLine();
    draw_curve_plot("##time", "all-reduce time (s)", curves,
                    {&curves.naive_seconds, &curves.ring_seconds, &curves.recursive_doubling_seconds},
                    {costs[0].seconds, costs[1].seconds, costs[2].seconds}, styles, options.rank_count, plot_size,
                    !side_by_side);
    if (!one_column) ImGui::EndChild();
}

}  // namespace

PanelDef make_ring_panel() {
    auto state = std::make_shared<RingPanelState>();
    return {"ring", "Ring all-reduce", [state](PanelContext& ctx) { draw_ring_panel(*state, ctx); }, "Ring"};
}

}  // namespace widgets
