// The anatomy of a step: one layer's forward and backward as streams in time (compute, TP, DP / ZeRO, PP,
// CP), the whole step as one stacked bar beside the ideal step at peak FLOP/s, and each kernel's roofline figures.
// core/cost/report/anatomy.h prepares every segment, wait and pass; core/cost/report/explain.h writes every text.
#include "core/model/layout.h"
#include "core/cost/report/anatomy.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "widgets/comparison.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/kernel_selection.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace widgets {
namespace {

using core::Stream;
using core::StepPart;

constexpr double kLayerAnimationSeconds = 12.0;  // one layer's forward and backward plays in this long at 1x
constexpr double kCursorStepSeconds = 0.5;       // what the step buttons move the cursor by
constexpr Stream kLanes[] = {Stream::compute, Stream::tp, Stream::dp, Stream::pp, Stream::cp, Stream::ep};

struct AnatomyOptions {
    bool show_unused_lanes = true;   // lanes of axes of degree 1 stay, empty, so the picture keeps its shape as TP, PP, CP move
    bool dim_ahead_of_cursor = true; // what the cursor has not reached yet is drawn faint while it moves
};

// What the panel draws besides the report itself, derived from it once per scenario revision.
struct AnatomyData {
    std::uint64_t revision = 0;
    core::StepBar bar;
    std::vector<core::ComputeStall> stalls;
    std::vector<core::PassSpan> passes;
    std::string error;               // a report core cannot take apart (no GPUs, no peak): said instead of drawn
};

// The pinned baseline's step bar, taken apart once per baseline.
struct BaselineBar {
    std::uint64_t revision = 0;
    std::optional<core::StepBar> bar;  // none: core could not take the baseline apart
};

struct AnatomyPanelState {
    AnatomyOptions options;
    AnatomyData data;
    BaselineBar baseline;
};

const core::StepBar* baseline_bar(BaselineBar& baseline, const PanelContext& ctx) {
    if (!ctx.baseline) return nullptr;
    if (baseline.revision != ctx.baseline->revision) {
        baseline.revision = ctx.baseline->revision;
        baseline.bar.reset();
        try {
            baseline.bar = core::step_bar(*ctx.baseline->report);
        } catch (const core::InputError&) {
        }
    }
    return baseline.bar ? &*baseline.bar : nullptr;
}

void refresh(AnatomyData& data, const PanelContext& ctx) {
    if (data.revision == ctx.scenario_revision && data.revision != 0) return;
    data = AnatomyData{};
    data.revision = ctx.scenario_revision;
    try {
        data.bar = core::step_bar(ctx.report);
    } catch (const core::InputError& error) {
        data.error = error.what();
    }
    data.stalls = core::compute_stalls(ctx.report.compute.layer_timeline);
    data.passes = core::pass_spans(ctx.report.compute.layer_timeline);
}

// ---- Colours and patterns: colour never says it alone; a pattern, a label or a position says it too ----

// A colour moved toward the background, opaque, so the text drawn on it is chosen against what is seen.
ImU32 faded(ImU32 color, float keep) {
    const ImVec4 ink = color4(color), paper = color4(palette().panel_background);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(paper.x + (ink.x - paper.x) * keep, paper.y + (ink.y - paper.y) * keep,
                                                 paper.z + (ink.z - paper.z) * keep, 1.0f));
}

// The roofline's compute-bound colour, a little softened so a layer of GEMMs does not glare.
ImU32 compute_fill() { return faded(palette().compute, 0.85f); }

ImU32 stream_color(Stream stream) {
    const Palette& colors = palette();
    switch (stream) {
        case Stream::compute: return compute_fill();
        case Stream::tp: return colors.series[2];
        case Stream::dp: return colors.series[5];
        case Stream::pp: return colors.series[6];
        case Stream::cp: return colors.series[3];
        case Stream::ep: return colors.series[7];
    }
    return colors.text_dim;
}

Stream stream_of(StepPart part) {
    switch (part) {
        case StepPart::exposed_tp: return Stream::tp;
        case StepPart::exposed_cp: return Stream::cp;
        case StepPart::exposed_pp: return Stream::pp;
        case StepPart::exposed_dp: return Stream::dp;
        case StepPart::exposed_ep: return Stream::ep;
        default: return Stream::compute;
    }
}

ImU32 bound_color(core::Bound bound) {
    const Palette& colors = palette();
    switch (bound) {
        case core::Bound::compute: return compute_fill();
        case core::Bound::memory: return colors.hbm;
        case core::Bound::launch: return colors.series[5];  // apart from the waits' grey: it is compute-stream time
    }
    return colors.text_dim;
}

// Memory-bound: stripes rising to the right. Waiting for communication: stripes falling to the right.
enum class Pattern { solid, memory_bound, waiting, launch_bound };

Pattern bound_pattern(core::Bound bound) {
    switch (bound) {
        case core::Bound::compute: return Pattern::solid;
        case core::Bound::memory: return Pattern::memory_bound;
        case core::Bound::launch: return Pattern::launch_bound;
    }
    return Pattern::solid;
}

ImU32 part_color(StepPart part) {
    const Palette& colors = palette();
    switch (part) {
        case StepPart::gemm: return colors.series[1];
        case StepPart::attention: return colors.activations;  // the yellow fill: apart from the GEMMs' orange under deuteranopia
        case StepPart::elementwise: return colors.hbm;
        case StepPart::optimizer: return colors.optimizer_second;
        case StepPart::bubble: return colors.idle;
        case StepPart::stragglers: return with_alpha(colors.idle, 0.6f);
        case StepPart::beyond_model: return with_alpha(colors.text_dim, 0.35f);
        default: return stream_color(stream_of(part));
    }
}

Pattern part_pattern(StepPart part) {
    if (core::is_exposed_comm(part) || part == StepPart::stragglers) return Pattern::waiting;
    if (part == StepPart::elementwise || part == StepPart::optimizer) return Pattern::memory_bound;  // both stream bytes
    return Pattern::solid;
}

// Dark text on light fills, light text on dark ones, so labels read in both themes.
ImU32 ink_on(ImU32 fill) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
    const float luminance = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    return luminance > 0.45f ? IM_COL32(15, 15, 20, 255) : IM_COL32(250, 250, 250, 255);
}

void draw_stripes(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 color, bool rising) {
    const float em = ImGui::GetFontSize();
    const float spacing = em * 0.42f;
    const float height = max.y - min.y;
    draw->PushClipRect(min, max, true);
    for (float x = min.x - height; x < max.x + spacing; x += spacing) {
        if (rising) draw->AddLine(ImVec2(x, max.y), ImVec2(x + height, min.y), color, std::max(1.0f, em * 0.09f));
        else draw->AddLine(ImVec2(x, min.y), ImVec2(x + height, max.y), color, std::max(1.0f, em * 0.09f));
    }
    draw->PopClipRect();
}

// A box in its colour with its pattern over it.
void draw_patterned_box(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 fill, Pattern pattern) {
    draw->AddRectFilled(min, max, fill);
    const ImU32 ink = with_alpha(ink_on(fill), 0.38f);
    switch (pattern) {
        case Pattern::solid: break;
        case Pattern::memory_bound: draw_stripes(draw, min, max, ink, true); break;
        case Pattern::waiting: draw_stripes(draw, min, max, ink, false); break;
        case Pattern::launch_bound:
            draw_stripes(draw, min, max, ink, true);
            draw_stripes(draw, min, max, ink, false);
            break;
    }
}

// The first of the texts that fits in the box, centred over a backing of the fill so stripes do not cut through it.
void label_box(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 fill, const std::vector<std::string>& candidates) {
    const float em = ImGui::GetFontSize();
    if (max.y - min.y < em * 0.95f) return;
    for (const std::string& text : candidates) {
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        if (size.x + em * 0.5f > max.x - min.x) continue;
        const ImVec2 at((min.x + max.x - size.x) * 0.5f, (min.y + max.y - size.y) * 0.5f);
        draw->AddRectFilled(ImVec2(at.x - em * 0.15f, at.y), ImVec2(at.x + size.x + em * 0.15f, at.y + size.y), fill, em * 0.15f);
        draw->AddText(at, ink_on(fill), text.c_str());
        return;
    }
}

void legend_pattern(ImU32 fill, Pattern pattern, const char* text, bool first) {
    const float em = ImGui::GetFontSize();
    if (!first) same_line_if_fits(em * 2.0f + ImGui::CalcTextSize(text).x, em * 1.2f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight();
    draw_patterned_box(ImGui::GetWindowDrawList(), ImVec2(at.x, at.y + line * 0.1f), ImVec2(at.x + em * 1.5f, at.y + line * 0.9f), fill, pattern);
    ImGui::Dummy(ImVec2(em * 1.5f, line));
    ImGui::SameLine(0, em * 0.35f);
    ImGui::TextUnformatted(text);
}

bool inside(ImVec2 point, ImVec2 min, ImVec2 max) { return point.x >= min.x && point.x < max.x && point.y >= min.y && point.y < max.y; }

// ---- One layer as streams in time ----

struct TimeAxis {
    float x0 = 0, x1 = 0;
    double seconds = 1;
    float x_of(double at) const { return x0 + float(at / seconds) * (x1 - x0); }
};

// Ticks in ms (or µs for a layer shorter than 2 ms), the unit written past the axis end.
// An axis's unit: the one its span reads in without long decimals (a MiniGPT step in ms, a 405B step in s).
struct AxisUnit {
    double seconds;
    const char* name;
};
AxisUnit axis_unit(double span_seconds) {
    if (span_seconds < 2e-3) return {1e-6, "us"};
    if (span_seconds < 2.0) return {1e-3, "ms"};
    return {1.0, "s"};
}

// Right of an axis's end: its unit ("ms", the widest), written em * 0.4 past it, and a little air.
float unit_room() { return ImGui::CalcTextSize("ms").x + ImGui::GetFontSize() * 0.6f; }

void draw_time_ticks(ImDrawList* draw, const TimeAxis& axis, float y, double unit_seconds, const char* unit) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const float thickness = std::max(1.0f, em * 0.06f);
    draw->AddLine(ImVec2(axis.x0, y), ImVec2(axis.x1, y), colors.axis, thickness);
    const double span = axis.seconds / unit_seconds;
    const double intervals = (axis.x1 - axis.x0) / (em * 4.5f);
    const double step = tick_step_125(span, intervals);
    for (double tick : linear_ticks(0, span, intervals)) {
        const float x = axis.x_of(tick * unit_seconds);
        draw->AddLine(ImVec2(x, y), ImVec2(x, y + em * 0.3f), colors.axis, thickness);
        const std::string text = tick_label(tick, step);
        const float width = ImGui::CalcTextSize(text.c_str()).x;
        draw->AddText(ImVec2(std::min(x - width * 0.5f, axis.x1 - width), y + em * 0.35f), colors.text_dim, text.c_str());
    }
    draw->AddText(ImVec2(axis.x1 + em * 0.4f, y + em * 0.35f), colors.text_dim, unit);
}

std::string lane_label(Stream stream, const core::Report& report) {
    const core::LayoutReport& layout = report.layout;
    switch (stream) {
        case Stream::compute: return "compute";
        case Stream::tp: return "TP " + std::to_string(layout.tp);
        case Stream::dp: {
            // The gradients are reduced over the DP x CP ranks that hold the same weights: the DP axis's group.
            int ranks = layout.dp;
            for (const core::AxisComm& axis : report.comm.axes) ranks = axis.axis == core::CommAxis::dp ? axis.degree : ranks;
            return std::string(layout.cp > 1 ? "DP x CP " : "DP ") + std::to_string(ranks) + (layout.zero > 0 ? " ZeRO-" + std::to_string(layout.zero) : "");
        }
        case Stream::pp: return "PP " + std::to_string(layout.pp);
        case Stream::cp: return "CP " + std::to_string(layout.cp);
        case Stream::ep: return "EP " + std::to_string(layout.ep);
    }
    return "";
}

// A communication lane is in use when its axis is: the report lists only axes of degree > 1 (DP's group is DP x CP).
bool lane_used(Stream stream, const core::Report& report) {
    if (stream == Stream::compute) return true;
    const core::CommAxis axis = stream == Stream::tp   ? core::CommAxis::tp
                                : stream == Stream::cp ? core::CommAxis::cp
                                : stream == Stream::pp ? core::CommAxis::pp
                                : stream == Stream::ep ? core::CommAxis::ep
                                                       : core::CommAxis::dp;
    return std::any_of(report.comm.axes.begin(), report.comm.axes.end(), [&](const core::AxisComm& comm) { return comm.axis == axis; });
}

// Drawn: in use, or unused when asked for (EP only for a model with experts).
bool lane_shown(Stream stream, const core::Report& report, const AnatomyOptions& options) {
    if (lane_used(stream, report)) return true;
    return options.show_unused_lanes && (stream != Stream::ep || report.moe.has_experts);
}

const char* pass_title(core::KernelPass pass, bool wide) {
    switch (pass) {
        case core::KernelPass::forward: return "forward";
        case core::KernelPass::recompute: return wide ? "recompute (the forward again)" : "recompute";
        case core::KernelPass::backward_input:
        case core::KernelPass::backward_weight: return wide ? "backward (input and weight gradients)" : "backward";
    }
    return "";
}

// The timeline's rows, in em.
struct LaneSizes {
    float em = ImGui::GetFontSize();
    float pass_band() const { return em * 1.5f; }
    float axis() const { return em * 1.9f; }
    float gap() const { return em * 0.25f; }
    float used_lane() const { return em * 1.6f; }
    float unused_lane() const { return em * 1.1f; }  // an axis of degree 1 keeps a thin, labelled lane
    float compute_min() const { return em * 2.2f; }
    float compute_max() const { return em * 4.5f; }
};

float comm_lanes_height(const core::Report& report, const AnatomyOptions& options) {
    const LaneSizes sizes;
    float height = 0;
    for (Stream stream : kLanes) {
        if (stream == Stream::compute) continue;
        const bool used = lane_used(stream, report);
        if (lane_shown(stream, report, options)) height += (used ? sizes.used_lane() : sizes.unused_lane()) + sizes.gap();
    }
    return height;
}

// The baseline's compute lane, above the scenario's, when a baseline is pinned.
float baseline_lane_height(bool baseline) {
    const LaneSizes sizes;
    return baseline ? sizes.used_lane() + sizes.gap() : 0.0f;
}

float timeline_min_height(const core::Report& report, const AnatomyOptions& options, bool baseline) {
    const LaneSizes sizes;
    return sizes.pass_band() + baseline_lane_height(baseline) + sizes.compute_min() + sizes.gap() + comm_lanes_height(report, options) + sizes.axis();
}

struct TimelineHover {
    int op = -1;      // index into layer_timeline
    int stall = -1;   // index into the stalls
};

TimelineHover draw_layer_timeline(const AnatomyData& data, const AnatomyOptions& options, PanelContext& ctx, double cursor_seconds,
                                  bool cursor_shown, int selected, float height) {
    const Palette& colors = palette();
    const core::ComputeReport& compute = ctx.report.compute;
    const std::vector<core::TimelineOp>& ops = compute.layer_timeline;
    const float em = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const core::Report* baseline = ctx.baseline ? ctx.baseline->report : nullptr;
    const char* baseline_title = "baseline";

    std::vector<Stream> lanes;
    for (Stream stream : kLanes) {
        if (lane_shown(stream, ctx.report, options)) lanes.push_back(stream);
    }
    float label_width = 0;
    for (Stream stream : lanes) label_width = std::max(label_width, ImGui::CalcTextSize(lane_label(stream, ctx.report).c_str()).x);
    if (baseline) label_width = std::max(label_width, ImGui::CalcTextSize(baseline_title).x);
    label_width += em * 0.8f;

    const LaneSizes sizes;
    const float pass_band = sizes.pass_band(), axis_height = sizes.axis(), gap = sizes.gap();
    const float used_lane = sizes.used_lane(), unused_lane = sizes.unused_lane();
    const float comm_lanes = comm_lanes_height(ctx.report, options);
    const float baseline_lane = baseline_lane_height(baseline != nullptr);
    const float compute_lane = std::clamp(height - pass_band - baseline_lane - axis_height - comm_lanes - gap, sizes.compute_min(), sizes.compute_max());
    const float total_height = pass_band + baseline_lane + compute_lane + gap + comm_lanes + axis_height;
    ImGui::InvisibleButton("##layer timeline", ImVec2(width, total_height));
    const bool hovered_item = ImGui::IsItemHovered() && !ctx.exporting;
    const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;

    TimeAxis axis;
    axis.x0 = origin.x + label_width;
    axis.x1 = origin.x + width - unit_room();
    // One time axis for both layers, so the longer one is the longer row.
    axis.seconds = std::max(compute.layer_timeline_seconds, baseline ? baseline->compute.layer_timeline_seconds : 0.0);
    if (!(axis.seconds > 0)) axis.seconds = 1.0;
    const float box_gap = std::min(em * 0.04f, (axis.x1 - axis.x0) * 0.0005f);

    float y = origin.y + pass_band;
    // The baseline's compute lane above the scenario's: its kernels as dashed ghosts in their bound's colour, faded.
    if (baseline) {
        const float top = y, bottom = y + sizes.used_lane();
        const float text_y = (top + bottom - ImGui::GetTextLineHeight()) * 0.5f;
        draw->AddText(ImVec2(origin.x, text_y), baseline_ink(), baseline_title);
        draw->AddRectFilled(ImVec2(axis.x0, top), ImVec2(axis.x1, bottom), with_alpha(colors.text, 0.03f));
        const std::vector<core::Kernel>& kernels = baseline->compute.kernels;
        const float thickness = std::max(1.0f, em * 0.06f);
        for (const core::TimelineOp& op : baseline->compute.layer_timeline) {
            if (op.stream != Stream::compute) continue;
            const ImVec2 min(axis.x_of(op.start_seconds) + box_gap, top + em * 0.12f);
            const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(op.start_seconds + op.duration_seconds) - box_gap), bottom - em * 0.12f);
            const bool known = op.kernel >= 0 && op.kernel < static_cast<int>(kernels.size());
            draw->AddRectFilled(min, max, faded(bound_color(known ? kernels[op.kernel].bound : core::Bound::compute), 0.35f));
            add_dashed_rect(draw, min, max, baseline_ink(), thickness, em * 0.2f);
        }
        // Where the baseline's layer ended, and the change to the scenario's.
        const float end_x = axis.x_of(baseline->compute.layer_timeline_seconds);
        draw->AddLine(ImVec2(end_x, top), ImVec2(end_x, bottom), baseline_ink(), std::max(1.0f, em * 0.1f));
        const core::FigureComparison layer =
            core::compare_figure("layer", baseline->compute.layer_timeline_seconds, compute.layer_timeline_seconds, core::FigureUnit::seconds);
        const std::vector<std::string> candidates = {"layer " + layer.against, layer.change};
        for (const std::string& text : candidates) {
            const ImVec2 size = change_label_size(text);
            const bool after = end_x + em * 0.4f + size.x <= axis.x1;
            const float x = after ? end_x + em * 0.4f : end_x - em * 0.4f - size.x;
            if (x < axis.x0 || size.x + em * 0.8f > axis.x1 - axis.x0) continue;
            draw->AddRectFilled(ImVec2(x - em * 0.2f, text_y), ImVec2(x + size.x + em * 0.2f, text_y + size.y), colors.panel_background, em * 0.15f);
            add_change_label(draw, ImVec2(x, text_y), text, colors.text);
            break;
        }
        y = bottom + sizes.gap();
    }

    // Lane rows and their labels.
    std::vector<float> lane_top(lanes.size()), lane_bottom(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        lane_top[i] = y;
        y += i == 0 ? compute_lane : lane_used(lanes[i], ctx.report) ? used_lane : unused_lane;
        lane_bottom[i] = y;
        y += gap;
        const bool used = lane_used(lanes[i], ctx.report);
        const std::string label = lane_label(lanes[i], ctx.report);
        const float text_y = (lane_top[i] + lane_bottom[i] - ImGui::GetTextLineHeight()) * 0.5f;
        draw->AddText(ImVec2(origin.x, text_y), used ? colors.text : colors.text_dim, label.c_str());
        draw->AddRectFilled(ImVec2(axis.x0, lane_top[i]), ImVec2(axis.x1, lane_bottom[i]), with_alpha(colors.text, 0.06f));
        if (!used) {
            const std::string none = "none: " + label;
            draw->AddText(ImVec2(axis.x0 + em * 0.5f, text_y), colors.text_dim, none.c_str());
        }
    }
    const auto lane_index = [&](Stream stream) {
        for (std::size_t i = 0; i < lanes.size(); ++i) if (lanes[i] == stream) return static_cast<int>(i);
        return -1;
    };

    // The passes over the compute lane.
    for (const core::PassSpan& span : data.passes) {
        const float left = axis.x_of(span.start_seconds), right = axis.x_of(span.end_seconds);
        const float bracket_y = origin.y + pass_band - em * 0.25f;
        const float thickness = std::max(1.0f, em * 0.07f);
        draw->AddLine(ImVec2(left + box_gap, bracket_y), ImVec2(right - box_gap, bracket_y), colors.axis, thickness);
        draw->AddLine(ImVec2(left + box_gap, bracket_y), ImVec2(left + box_gap, bracket_y - em * 0.3f), colors.axis, thickness);
        draw->AddLine(ImVec2(right - box_gap, bracket_y), ImVec2(right - box_gap, bracket_y - em * 0.3f), colors.axis, thickness);
        for (bool wide : {true, false}) {
            const char* title = pass_title(span.pass, wide);
            const float title_width = ImGui::CalcTextSize(title).x;
            if (title_width + em * 0.6f > right - left) continue;
            draw->AddText(ImVec2((left + right - title_width) * 0.5f, origin.y), colors.text, title);
            break;
        }
    }

    TimelineHover hover;
    const bool dim = options.dim_ahead_of_cursor && cursor_shown;
    // Operations: compute boxes coloured and patterned by what bounds them, communication in its lane's colour.
    for (int index = 0; index < static_cast<int>(ops.size()); ++index) {
        const core::TimelineOp& op = ops[index];
        const int lane = lane_index(op.stream);
        if (lane < 0) continue;
        const bool is_compute = op.stream == Stream::compute;
        const float inset = is_compute ? em * 0.12f : em * 0.18f;
        const ImVec2 min(axis.x_of(op.start_seconds) + box_gap, lane_top[lane] + inset);
        const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(op.start_seconds + op.duration_seconds) - box_gap), lane_bottom[lane] - inset);
        const bool known = is_compute && op.kernel >= 0 && op.kernel < static_cast<int>(compute.kernels.size());
        const core::Bound bound = known ? compute.kernels[op.kernel].bound : core::Bound::compute;
        ImU32 fill = is_compute ? bound_color(bound) : stream_color(op.stream);
        if (!is_compute && !op.exposed) fill = faded(fill, 0.6f);  // hidden: under the compute it hides behind
        const bool ahead = dim && op.start_seconds > cursor_seconds;
        if (ahead) fill = faded(fill, 0.4f);
        draw_patterned_box(draw, min, max, fill, is_compute ? bound_pattern(bound) : op.exposed ? Pattern::waiting : Pattern::solid);
        if (is_compute && known) {
            const std::string& name = ctx.text.kernel_short_labels.at(op.kernel);
            label_box(draw, min, max, fill, {name + " " + core::format_seconds(op.duration_seconds), name});
        } else if (!is_compute) {
            const char* state = op.exposed ? "exposed" : "hidden";
            label_box(draw, min, max, fill, {std::string(state) + " " + core::format_seconds(op.duration_seconds), state});
        }
        if (known && op.kernel == selected) draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), colors.warning, 0, 0, em * 0.16f);
        if (hovered_item && inside(mouse, min, max)) hover.op = index;
    }
    // A bucket of gradients reduced behind the next layer's backward reaches past this layer: say what hides it there.
    if (!data.passes.empty()) {
        const float end_x = axis.x_of(data.passes.back().end_seconds);
        const char* next = "the next layer's backward";
        const float next_width = ImGui::CalcTextSize(next).x;
        if (axis.x1 - end_x > next_width + em) {
            const ImVec2 min(end_x + em * 0.3f, lane_top[0] + em * 0.12f), max(axis.x1, lane_bottom[0] - em * 0.12f);
            draw->AddRect(min, max, with_alpha(colors.text_dim, 0.6f), 0, 0, std::max(1.0f, em * 0.06f));
            draw->AddText(ImVec2((min.x + max.x - next_width) * 0.5f, (min.y + max.y - ImGui::GetTextLineHeight()) * 0.5f), colors.text_dim, next);
        }
    }
    // The compute stream's waits: the gap, striped in the colour of the stream it waits for, under "wait".
    for (int index = 0; index < static_cast<int>(data.stalls.size()); ++index) {
        const core::ComputeStall& stall = data.stalls[index];
        const ImVec2 min(axis.x_of(stall.start_seconds), lane_top[0] + em * 0.12f);
        const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(stall.start_seconds + stall.seconds)), lane_bottom[0] - em * 0.12f);
        const ImU32 color = stream_color(stall.waiting_for);
        draw->AddRect(min, max, color, 0, 0, std::max(1.0f, em * 0.08f));
        draw_stripes(draw, min, max, color, false);
        std::string axis_name = core::stream_name(stall.waiting_for);
        for (char& c : axis_name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        label_box(draw, min, max, colors.panel_background, {"waits for " + axis_name, "wait " + axis_name, "wait"});
        if (hovered_item && inside(mouse, min, max)) hover.stall = index;
    }
    if (clicked && hover.op >= 0 && ops[hover.op].stream == Stream::compute) toggle_kernel_selection(ctx, ops[hover.op].kernel);

    // The play cursor, over every lane, with the time it stands at.
    const float axis_y = lane_bottom.back() + gap;
    if (cursor_shown) {
        const float x = axis.x_of(cursor_seconds);
        const float thickness = std::max(1.5f, em * 0.12f);
        draw->AddLine(ImVec2(x, origin.y + pass_band - em * 0.1f), ImVec2(x, axis_y), colors.text, thickness);
        draw->AddTriangleFilled(ImVec2(x - em * 0.35f, origin.y + pass_band - em * 0.45f), ImVec2(x + em * 0.35f, origin.y + pass_band - em * 0.45f),
                                ImVec2(x, origin.y + pass_band - em * 0.05f), colors.text);
    }
    draw_time_ticks(draw, axis, axis_y, axis_unit(axis.seconds).seconds, axis_unit(axis.seconds).name);
    return hover;
}

// The timeline's legend: the launch-bound entry only where a kernel is bound by the framework's launch time (eager).
struct LegendEntry {
    ImU32 fill;
    Pattern pattern;
    std::string text;
};

std::vector<LegendEntry> timeline_legend_entries(const core::Report& report) {
    const Palette& colors = palette();
    std::vector<LegendEntry> entries = {{compute_fill(), Pattern::solid, "compute-bound kernel"},
                                        {colors.hbm, Pattern::memory_bound, "memory-bound kernel"}};
    const bool launch_bound = std::any_of(report.compute.kernels.begin(), report.compute.kernels.end(),
                                          [](const core::Kernel& kernel) { return kernel.bound == core::Bound::launch; });
    if (launch_bound) entries.push_back({bound_color(core::Bound::launch), Pattern::launch_bound, "launch-bound kernel (the framework's launch time)"});
    // Communication takes its lane's colour; the pattern, not the colour, says whether compute waits for it.
    entries.push_back({faded(colors.text_dim, 0.6f), Pattern::solid, "plain: communication hidden under compute"});
    entries.push_back({colors.text_dim, Pattern::waiting, "hatched: exposed, compute waits"});
    return entries;
}

void draw_timeline_legend(const std::vector<LegendEntry>& entries) {
    for (std::size_t i = 0; i < entries.size(); ++i) legend_pattern(entries[i].fill, entries[i].pattern, entries[i].text.c_str(), i == 0);
}

// How many rows legend_pattern's entries take in `width`: the same packing as same_line_if_fits.
int legend_rows(const std::vector<std::string>& entries, float width) {
    const float em = ImGui::GetFontSize();
    int rows = entries.empty() ? 0 : 1;
    float x = 0;
    for (const std::string& entry : entries) {
        const float entry_width = em * 1.85f + ImGui::CalcTextSize(entry.c_str()).x;
        if (x > 0 && x + em * 1.2f + entry_width > width) {
            ++rows;
            x = 0;
        }
        x += (x > 0 ? em * 1.2f : 0.0f) + entry_width;
    }
    return rows;
}

// ---- The whole step as one bar, beside the ideal step ----

// The bar's rows in em: the baseline's ghost row only while one is pinned.
float step_bars_height(bool baseline) {
    const float em = ImGui::GetFontSize();
    return em * (1.4f + 2.2f + 0.3f + 1.7f + 1.9f) + (baseline ? em * 1.6f : 0.0f);
}

void draw_step_bars(const AnatomyData& data, const PanelContext& ctx, const core::StepBar* baseline) {
    const Palette& colors = palette();
    const core::StepBar& bar = data.bar;
    const float em = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const char* step_title = "step";
    const char* ideal_title = "ideal at peak";
    const char* baseline_title = "baseline";
    float label_width = std::max(ImGui::CalcTextSize(step_title).x, ImGui::CalcTextSize(ideal_title).x);
    if (baseline) label_width = std::max(label_width, ImGui::CalcTextSize(baseline_title).x);
    label_width += em * 0.8f;
    const float marks_height = em * 1.4f, step_height = em * 2.2f, ideal_height = em * 1.7f;  // and the axis, em * 1.9f: step_bars_height
    const float gap = em * 0.3f;
    const float baseline_height = baseline ? em * 1.6f : 0.0f;  // its row and the gap under it
    ImGui::InvisibleButton("##step bar", ImVec2(width, step_bars_height(baseline != nullptr)));
    const bool hovered_item = ImGui::IsItemHovered() && !ctx.exporting;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    ImDrawList* draw = ImGui::GetWindowDrawList();

    TimeAxis axis;
    axis.x0 = origin.x + label_width;
    axis.x1 = origin.x + width - unit_room();
    axis.seconds = std::max(bar.total_seconds, bar.ideal_step_seconds);
    if (baseline) axis.seconds = std::max(axis.seconds, baseline->total_seconds);
    if (!(axis.seconds > 0)) return;
    if (baseline) {
        // The baseline's step as a ghost above the scenario's: each part's outline dashed, the change written at its end.
        const float top = origin.y + marks_height, bottom = top + em * 1.3f;
        const float text_height = ImGui::GetTextLineHeight();
        draw->AddText(ImVec2(origin.x, (top + bottom - text_height) * 0.5f), baseline_ink(), baseline_title);
        const float thickness = std::max(1.0f, em * 0.07f);
        for (const core::StepSegment& segment : baseline->segments) {
            if (!(segment.seconds > 0)) continue;
            const ImVec2 min(axis.x_of(segment.start_seconds), top);
            const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(segment.start_seconds + segment.seconds)), bottom);
            draw->AddRectFilled(min, max, faded(part_color(segment.part), 0.3f));
            add_dashed_rect(draw, min, max, baseline_ink(), thickness, em * 0.25f);
        }
        const core::FigureComparison& step = ctx.baseline->comparison->step_time;
        const float end_x = axis.x_of(baseline->total_seconds);
        for (const std::string& text : {"step " + step.against, step.change}) {
            const ImVec2 size = change_label_size(text);
            const bool after = end_x + em * 0.5f + size.x <= axis.x1 + em * 1.2f;
            const float x = after ? end_x + em * 0.5f : end_x - em * 0.5f - size.x;
            if (x < axis.x0) continue;
            const float y = (top + bottom - size.y) * 0.5f;
            draw->AddRectFilled(ImVec2(x - em * 0.2f, y), ImVec2(x + size.x + em * 0.2f, y + size.y), colors.panel_background, em * 0.15f);
            add_change_label(draw, ImVec2(x, y), text, colors.text);
            break;
        }
    }
    const float step_top = origin.y + marks_height + baseline_height, step_bottom = step_top + step_height;
    const float ideal_top = step_bottom + gap, ideal_bottom = ideal_top + ideal_height;
    const float text_height = ImGui::GetTextLineHeight();
    draw->AddText(ImVec2(origin.x, (step_top + step_bottom - text_height) * 0.5f), colors.text, step_title);
    draw->AddText(ImVec2(origin.x, (ideal_top + ideal_bottom - text_height) * 0.5f), colors.text, ideal_title);

    int hovered = -1;
    for (int index = 0; index < static_cast<int>(bar.segments.size()); ++index) {
        const core::StepSegment& segment = bar.segments[index];
        if (!(segment.seconds > 0)) continue;
        const ImVec2 min(axis.x_of(segment.start_seconds), step_top);
        const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(segment.start_seconds + segment.seconds)), step_bottom);
        const ImU32 fill = part_color(segment.part);
        draw_patterned_box(draw, min, max, fill, part_pattern(segment.part));
        draw->AddLine(ImVec2(max.x, min.y), ImVec2(max.x, max.y), colors.panel_background, std::max(1.0f, em * 0.06f));
        const std::string name = core::step_part_name(segment.part);
        label_box(draw, min, max, fill, {name + " " + core::format_seconds(segment.seconds), name});
        if (hovered_item && inside(mouse, min, max)) hovered = index;
    }
    draw->AddRect(ImVec2(axis.x0, step_top), ImVec2(axis.x_of(bar.total_seconds), step_bottom), colors.axis, 0, 0, std::max(1.0f, em * 0.06f));

    // MFU as the bar grows: at each mark, the ideal step over the bar's length so far.
    // The step's own mark is labelled first; another keeps its label only where it does not touch one already placed.
    std::vector<std::pair<float, float>> placed;
    for (int round = 0; round < 2; ++round) {
        for (const core::MfuMark& mark : bar.marks) {
            const bool step_mark = mark.milestone == core::MfuMilestone::step;
            if (step_mark != (round == 0)) continue;
            const float x = axis.x_of(mark.end_seconds);
            draw->AddLine(ImVec2(x, step_top - em * 0.35f), ImVec2(x, step_bottom + (step_mark ? gap + ideal_height : 0.0f)),
                          step_mark ? colors.text : colors.text_dim, std::max(1.0f, em * (step_mark ? 0.1f : 0.07f)));
            const std::string label = core::format_percent(mark.mfu) + (step_mark ? " MFU" : "");
            const float label_width_px = ImGui::CalcTextSize(label.c_str()).x;
            const float left = std::clamp(x - label_width_px * 0.5f, axis.x0, axis.x1 - label_width_px);
            const bool touches = std::any_of(placed.begin(), placed.end(), [&](const std::pair<float, float>& other) {
                return left < other.second + em * 0.5f && left + label_width_px + em * 0.5f > other.first;
            });
            if (touches) continue;
            draw->AddText(ImVec2(left, origin.y), step_mark ? colors.text : colors.text_dim, label.c_str());
            placed.push_back({left, left + label_width_px});
        }
    }

    // The ideal step: the same model FLOPs at the peak of every GPU. MFU is its length over the step's.
    const ImVec2 ideal_min(axis.x0, ideal_top), ideal_max(std::max(axis.x0 + 1.0f, axis.x_of(bar.ideal_step_seconds)), ideal_bottom);
    draw->AddRectFilled(ideal_min, ideal_max, compute_fill());
    const std::string ideal_value = core::format_seconds(bar.ideal_step_seconds);
    // The ratio beside the bar, shortened where the bar leaves little room; with none, inside the bar's own label.
    const std::string& mfu = ctx.text.figures.mfu.value;  // bar.mfu is compute.mfu as a ratio of lengths: the same figure
    const std::vector<std::string> ratios = {"MFU = " + ideal_value + " / " + core::format_seconds(bar.step_seconds) + " = " + mfu, "MFU " + mfu};
    const float ratio_x = ideal_max.x + em * 0.6f;
    std::string ratio;
    for (const std::string& candidate : ratios) {
        if (ratio_x + ImGui::CalcTextSize(candidate.c_str()).x <= axis.x1) {
            ratio = candidate;
            break;
        }
    }
    if (ratio.empty()) label_box(draw, ideal_min, ideal_max, compute_fill(), {"ideal " + ideal_value + ", MFU " + mfu, "MFU " + mfu, mfu});
    else label_box(draw, ideal_min, ideal_max, compute_fill(), {"ideal " + ideal_value, ideal_value});
    const float ratio_width = ImGui::CalcTextSize(ratio.c_str()).x;
    if (!ratio.empty()) draw->AddText(ImVec2(ratio_x, (ideal_top + ideal_bottom - text_height) * 0.5f), colors.text, ratio.c_str());
    const bool ideal_hovered = hovered_item && inside(mouse, ideal_min, ImVec2(ratio_x + ratio_width, ideal_max.y));

    draw_time_ticks(draw, axis, ideal_bottom + gap, axis_unit(axis.seconds).seconds, axis_unit(axis.seconds).name);
    if (hovered >= 0 && hovered < static_cast<int>(ctx.text.step_parts.size())) {
        const core::Explanation& part = ctx.text.step_parts[hovered];
        explain_tooltip(part.formula, part.source.empty() ? nullptr : part.source.c_str());
    } else if (ideal_hovered) {
        explain_tooltip(ctx.text.ideal_step.formula, ctx.text.ideal_step.source.c_str());
    }
}

std::vector<std::string> step_legend_entries(const AnatomyData& data) {
    std::vector<std::string> entries;
    for (const core::StepSegment& segment : data.bar.segments) {
        if (segment.seconds > 0) entries.push_back(std::string(core::step_part_name(segment.part)) + " " + core::format_seconds(segment.seconds));
    }
    return entries;
}

void draw_step_legend(const AnatomyData& data) {
    const std::vector<std::string> entries = step_legend_entries(data);
    std::size_t entry = 0;
    for (const core::StepSegment& segment : data.bar.segments) {
        if (!(segment.seconds > 0)) continue;
        legend_pattern(part_color(segment.part), part_pattern(segment.part), entries[entry].c_str(), entry == 0);
        ++entry;
    }
}

// ---- The kernel in focus: hovered, else selected, else the one under the cursor, else the layer's best GEMM ----

void draw_focus(const PanelContext& ctx, const AnatomyData& data, const TimelineHover& hover, int selected, double cursor_seconds,
                bool cursor_shown) {
    const core::ComputeReport& compute = ctx.report.compute;
    const std::vector<core::TimelineOp>& ops = compute.layer_timeline;
    std::string heading;
    const core::Explanation* shown = nullptr;
    std::string stall_text;
    if (hover.op >= 0) {
        const core::TimelineOp& op = ops[hover.op];
        if (op.stream == Stream::compute && op.kernel >= 0) {
            heading = "Under the mouse";
            shown = &ctx.text.kernels.at(op.kernel);
        } else {
            heading = "Under the mouse";
            shown = &ctx.text.timeline_ops.at(hover.op);
        }
    } else if (hover.stall >= 0) {
        const core::ComputeStall& stall = data.stalls[hover.stall];
        heading = "Under the mouse";
        stall_text = std::string("the compute stream waits ") + core::format_seconds(stall.seconds) + " for " + core::stream_name(stall.waiting_for) +
                     " communication it could not hide";
    } else if (selected >= 0) {
        heading = "Selected (marked on the roofline; click it again to clear)";
        shown = &ctx.text.kernels.at(selected);
    } else {
        int cursor_kernel = -1;
        if (cursor_shown) {
            for (int index : core::ops_at(ops, cursor_seconds)) {
                if (ops[index].stream == Stream::compute) {
                    cursor_kernel = ops[index].kernel;
                    break;
                }
            }
        }
        const int kernel = cursor_kernel >= 0 ? cursor_kernel : data.bar.best_gemm_kernel;
        if (kernel >= 0) {
            heading = cursor_kernel >= 0 ? "Under the cursor" : "The layer's GEMM nearest its peak";
            shown = &ctx.text.kernels.at(kernel);
        }
    }
    if (selected < 0 && hover.op < 0 && hover.stall < 0) heading += " (click a kernel to mark it on the roofline)";
    section_heading(heading.empty() ? "Kernel" : heading.c_str());
    if (shown) {
        wrapped_text(shown->formula);
        if (!shown->source.empty()) explain_last_item(shown->source);
    } else if (!stall_text.empty()) {
        wrapped_text(stall_text);
    }
}

void draw_anatomy_panel(AnatomyPanelState& state, PanelContext& ctx) {
    AnatomyData& data = state.data;
    refresh(data, ctx);
    const core::ComputeReport& compute = ctx.report.compute;
    const float em = ImGui::GetFontSize();
    ctx.playback.set_timeline({kLayerAnimationSeconds, kCursorStepSeconds});
    const double cursor_seconds = core::cursor_seconds_at(ctx.playback.t_seconds, kLayerAnimationSeconds, compute.layer_timeline_seconds);
    const bool cursor_shown = cursor_seconds > 0;

    const std::string caption = "cursor " + core::format_seconds(cursor_seconds) + " of " + core::format_seconds(compute.layer_timeline_seconds);
    draw_transport(ctx.playback, caption.c_str());
    if (!data.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().warning));
        wrapped_text(data.error);
        ImGui::PopStyleColor();
        return;
    }
    const float slider_width = em * 7.0f;
    ImGui::SetNextItemWidth(slider_width);
    axis_slider("TP", ctx.scenario, core::LayoutAxis::tp, ctx.feedback,
                "Tensor parallel: every GEMM's shape split over TP GPUs. Watch the boxes shrink and the TP lane fill.");
    ImGui::SameLine(0, em);
    ImGui::SetNextItemWidth(slider_width);
    axis_slider("PP", ctx.scenario, core::LayoutAxis::pp, ctx.feedback, "Pipeline stages: fewer layers per GPU, and a bubble in the step.");
    if (!figure_mode()) {  // a document shows the lanes as set, without the switch
        ImGui::SameLine(0, em);
        ImGui::Checkbox("empty lanes", &state.options.show_unused_lanes);
        save_trace_button(ctx, em);
    }
    const std::string layout = core::layout_label(core::layout_of(ctx.scenario)) + ", " + core::format_counted(ctx.report.layout.microbatches, "micro-batch", "micro-batches") + " of " + std::to_string(ctx.scenario.train.micro_batch) +
                               " x " + std::to_string(ctx.scenario.train.seq_len) + " tokens";
    same_line_if_fits(ImGui::CalcTextSize(layout.c_str()).x, em);
    ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().text_dim));
    ImGui::TextUnformatted(layout.c_str());
    ImGui::PopStyleColor();
    draw_feedback("TP", ctx.feedback);
    draw_feedback("PP", ctx.feedback);

    // Room: the legends, the bar and the readout keep their height; the timeline's compute lane takes what is left.
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float width = ImGui::GetContentRegionAvail().x;
    const float heading = ImGui::GetFontSize() * 0.6f + line;  // section_heading: text, rule and spacing
    const std::vector<LegendEntry> timeline_entries = timeline_legend_entries(ctx.report);
    std::vector<std::string> timeline_legend;
    for (const LegendEntry& entry : timeline_entries) timeline_legend.push_back(entry.text);
    const float legends = line * float(legend_rows(timeline_legend, width) + legend_rows(step_legend_entries(data), width));
    const float chain = wrapped_text_size(ctx.text.mfu_chain, width).y + ImGui::GetStyle().ItemSpacing.y;
    const core::StepBar* baseline = baseline_bar(state.baseline, ctx);
    const float bar_height = step_bars_height(baseline != nullptr) + ImGui::GetStyle().ItemSpacing.y;
    const float focus_height = heading + 3.0f * ImGui::CalcTextSize("Ag").y + ImGui::GetStyle().ItemSpacing.y;  // three wrapped lines
    const float spacing = ImGui::GetStyle().ItemSpacing.y * 5.0f;
    const float fixed = 2.0f * heading + legends + chain + bar_height + spacing;
    // Short of room (a lesson scene under its caption): the empty lanes go first, then the kernel readout (hover still shows it).
    const float available = ImGui::GetContentRegionAvail().y;
    AnatomyOptions options = state.options;
    const bool pinned = ctx.baseline != nullptr;
    if (available - fixed - focus_height < timeline_min_height(ctx.report, options, pinned)) options.show_unused_lanes = false;
    const bool show_focus = available - fixed - focus_height >= timeline_min_height(ctx.report, options, pinned);
    const float timeline_height = available - fixed - (show_focus ? focus_height : 0.0f);

    section_heading("One layer, forward and backward, one micro-batch on the busiest GPU");
    const int selected = selected_kernel(ctx);
    const TimelineHover hover = draw_layer_timeline(data, options, ctx, cursor_seconds, cursor_shown, selected, timeline_height);
    if (hover.op >= 0) {
        const core::TimelineOp& op = compute.layer_timeline[hover.op];
        const core::Explanation& text = op.stream == Stream::compute && op.kernel >= 0 ? ctx.text.kernels.at(op.kernel) : ctx.text.timeline_ops.at(hover.op);
        explain_tooltip(text.formula, text.source.empty() ? nullptr : text.source.c_str());
    }
    draw_timeline_legend(timeline_entries);

    ImGui::Spacing();
    section_heading("The whole step on the busiest GPU, beside the ideal step at peak FLOP/s");
    draw_step_bars(data, ctx, baseline);
    draw_step_legend(data);
    if (!ctx.text.mfu_chain.empty()) dim_text(ctx.text.mfu_chain);

    if (!show_focus) return;
    ImGui::Spacing();
    draw_focus(ctx, data, hover, selected, cursor_seconds, cursor_shown);
}

}  // namespace

PanelDef make_anatomy_panel() {
    auto state = std::make_shared<AnatomyPanelState>();
    return {"anatomy", "Anatomy of a step", [state](PanelContext& ctx) { draw_anatomy_panel(*state, ctx); }, "Anatomy"};
}

}  // namespace widgets
