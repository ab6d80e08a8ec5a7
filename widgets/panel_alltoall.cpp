// The expert-parallel all-to-all: tokens leave their GPU for the GPUs of their experts (dispatch) and come back
// (combine), one pairwise step at a time, GPUs grouped in nodes, the bytes that cross a node boundary counted.
// core/lessons/alltoall_steps routes the tokens and says what has moved at t; this file only draws it.
#include "core/lessons/alltoall_steps.h"
#include "core/model/format.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

using core::AllToAllPhase;
using core::ExpertRouting;
using core::LinkTier;

constexpr int kMaxDrawnRanks = 16;                   // beyond this the boxes are too small to read: numbers instead
constexpr int kEpChoices[] = {1, 2, 4, 8, 16, 32, 64};
constexpr int kNodeSizes[] = {1, 2, 4, 8};
constexpr double kInteractiveDecisions = 1.6e7;      // affinities scored per control change: a tenth of a second

struct AllToAllPanelOptions {
    int ep_ranks = 16;                 // two nodes of 8 GPUs: some copies stay on NVLink, some cross InfiniBand
    int experts_per_gpu = 4;           // E = EP x this (DeepSeek-V3: 256 experts over EP 64, 4 per GPU)
    int top_k = 2;                     // experts per token (Mixtral 2 of 8, DeepSeek-V3 8 of 256)
    int gpus_per_node = 0;             // 0: the scenario's node size
    int tokens_per_rank = 0;           // 0: from the scenario (one micro-batch's tokens per GPU), within the routing budget
    int max_nodes_per_token = 0;       // node-limited routing M; 0: off
    ExpertRouting routing = ExpertRouting::random;
    float skew = 1.0f;                 // skewed routing's Zipf exponent
    bool fp8_dispatch = false;         // DeepSeek-V3 dispatches FP8 and combines BF16
    double seconds_per_step = 0.8;     // playback time of one step
};

// The routing is rebuilt only when its inputs change.
struct AllToAllPanelState {
    AllToAllPanelOptions options;
    core::AllToAllInputs inputs;
    core::AllToAllRouting routing;
    std::vector<core::AllToAllStep> steps;
    std::string error;
    bool routed = false;
};

// ---- Inputs ----

// The scenario gives node size, hidden size and tokens per GPU. A scenario whose model has experts split over EP > 1
// GPUs gives its EP, experts, top-k, node limit and dispatch precision too; otherwise those are the panel's sandbox.
core::AllToAllInputs inputs_from(const AllToAllPanelOptions& options, const core::Scenario& scenario) {
    const bool follows = core::alltoall_follows_scenario(scenario);
    const int sandbox_experts = options.ep_ranks * options.experts_per_gpu;
    core::AllToAllInputs inputs = follows ? core::alltoall_inputs_of_scenario(scenario)
                                          : core::alltoall_inputs_for(scenario, options.ep_ranks, sandbox_experts, std::min(options.top_k, sandbox_experts));
    if (options.gpus_per_node > 0) inputs.gpus_per_node = options.gpus_per_node;
    const int budget = core::alltoall_max_tokens_per_rank(inputs.ep_ranks, inputs.experts, kInteractiveDecisions);
    inputs.tokens_per_rank = std::min(options.tokens_per_rank > 0 ? options.tokens_per_rank : inputs.tokens_per_rank, budget);
    if (!follows) {
        inputs.max_nodes_per_token = options.max_nodes_per_token;
        inputs.dispatch_bytes_per_element = options.fp8_dispatch ? 1.0 : 2.0;
    }
    inputs.routing = options.routing;
    inputs.skew = options.skew;
    inputs.combine_bytes_per_element = 2.0;
    return inputs;
}

void refresh_routing(AllToAllPanelState& state, const core::Scenario& scenario) {
    const core::AllToAllInputs inputs = inputs_from(state.options, scenario);
    if (state.routed && inputs == state.inputs) return;
    state.inputs = inputs;
    state.routed = true;
    try {
        core::AllToAllRouting routing = core::route_tokens(inputs);
        state.steps = core::alltoall_steps(routing);
        state.routing = std::move(routing);
        state.error.clear();
    } catch (const std::exception& error) {
        state.error = error.what();  // the last valid routing stays on screen
    }
}

// ---- The mesh: plain geometry first ----

struct GpuBox {
    ImVec2 min, max;
    ImVec2 center() const { return ImVec2((min.x + max.x) * 0.5f, (min.y + max.y) * 0.5f); }
};

struct MeshLayout {
    std::vector<GpuBox> gpus;
    std::vector<GpuBox> nodes;
};

// Nodes in a grid, GPUs in a grid inside each node: the arrangement that gives the GPU boxes the most room.
MeshLayout layout_mesh(int ranks, int per_node, ImVec2 origin, ImVec2 size, float em) {
    const int nodes = ranks / per_node;
    // Room between boxes for the packets travelling between them.
    const float node_pad = em * 0.6f, node_header = em * 1.5f, node_gap = em * 2.4f, gpu_gap = em * 1.4f;
    float best = -1;
    int best_node_cols = 1, best_gpu_cols = 1;
    for (int node_cols = 1; node_cols <= nodes; ++node_cols) {
        const int node_rows = (nodes + node_cols - 1) / node_cols;
        for (int gpu_cols = 1; gpu_cols <= per_node; ++gpu_cols) {
            const int gpu_rows = (per_node + gpu_cols - 1) / gpu_cols;
            const float width = (size.x - (node_cols - 1) * node_gap - node_cols * (2 * node_pad + (gpu_cols - 1) * gpu_gap)) / (node_cols * gpu_cols);
            const float height = (size.y - (node_rows - 1) * node_gap - node_rows * (2 * node_pad + node_header + (gpu_rows - 1) * gpu_gap)) /
                                 (node_rows * gpu_rows);
            // A readable box is about twice as wide as high: score the box that fits that shape.
            const float usable = std::min(width, height * 2.0f);
            if (usable > best) {
                best = usable;
                best_node_cols = node_cols;
                best_gpu_cols = gpu_cols;
            }
        }
    }
    const int node_rows = (nodes + best_node_cols - 1) / best_node_cols;
    const int gpu_rows = (per_node + best_gpu_cols - 1) / best_gpu_cols;
    const float box_width = std::max(em * 2.0f, best);
    const float box_height = std::max(em * 1.2f, std::min(box_width * 0.5f, em * 4.2f));
    const float node_width = 2 * node_pad + best_gpu_cols * box_width + (best_gpu_cols - 1) * gpu_gap;
    const float node_height = 2 * node_pad + node_header + gpu_rows * box_height + (gpu_rows - 1) * gpu_gap;
    const float total_width = best_node_cols * node_width + (best_node_cols - 1) * node_gap;
    const float total_height = node_rows * node_height + (node_rows - 1) * node_gap;
    const ImVec2 start(origin.x + std::max(0.0f, (size.x - total_width) * 0.5f), origin.y + std::max(0.0f, (size.y - total_height) * 0.5f));
    MeshLayout layout;
    for (int node = 0; node < nodes; ++node) {
        const ImVec2 min(start.x + (node % best_node_cols) * (node_width + node_gap), start.y + (node / best_node_cols) * (node_height + node_gap));
        layout.nodes.push_back({min, ImVec2(min.x + node_width, min.y + node_height)});
        for (int slot = 0; slot < per_node; ++slot) {
            const ImVec2 gpu_min(min.x + node_pad + (slot % best_gpu_cols) * (box_width + gpu_gap),
                                 min.y + node_pad + node_header + (slot / best_gpu_cols) * (box_height + gpu_gap));
            layout.gpus.push_back({gpu_min, ImVec2(gpu_min.x + box_width, gpu_min.y + box_height)});
        }
    }
    return layout;
}

ImVec2 bezier(ImVec2 a, ImVec2 control, ImVec2 b, float t) {
    const float u = 1 - t;
    return ImVec2(u * u * a.x + 2 * u * t * control.x + t * t * b.x, u * u * a.y + 2 * u * t * control.y + t * t * b.y);
}

// How far an axis-aligned box of half size (hx, hy) reaches from its centre along unit direction d.
float box_reach(ImVec2 half, ImVec2 d) { return std::min(std::abs(d.x) > 1e-6f ? half.x / std::abs(d.x) : 1e9f, std::abs(d.y) > 1e-6f ? half.y / std::abs(d.y) : 1e9f); }

// One transfer's path: from the sender's box edge to the receiver's, bowed to the right of its direction so that the
// two ways between a pair of GPUs stay apart.
struct Path {
    ImVec2 from, control, to;
};

Path path_between(const GpuBox& a, const GpuBox& b, float em) {
    const ImVec2 ca = a.center(), cb = b.center();
    ImVec2 d(cb.x - ca.x, cb.y - ca.y);
    const float length = std::max(1.0f, std::sqrt(d.x * d.x + d.y * d.y));
    d = ImVec2(d.x / length, d.y / length);
    const ImVec2 half((a.max.x - a.min.x) * 0.5f, (a.max.y - a.min.y) * 0.5f);
    const float reach = box_reach(half, d) + em * 0.15f;
    const ImVec2 from(ca.x + d.x * reach, ca.y + d.y * reach);
    const ImVec2 to(cb.x - d.x * reach, cb.y - d.y * reach);
    const float bow = std::min(length * 0.18f, em * 3.0f);
    const ImVec2 mid((from.x + to.x) * 0.5f - d.y * bow, (from.y + to.y) * 0.5f + d.x * bow);
    return {from, mid, to};
}

// NVLink: a thin solid curve. InfiniBand: a thick dashed one. The line style tells the tier as well as the colour.
void draw_path(ImDrawList* draw, const Path& path, LinkTier tier, ImU32 color, float em) {
    constexpr int segments = 24;
    const bool dashed = tier == LinkTier::infiniband;
    const float thickness = dashed ? em * 0.16f : em * 0.09f;
    for (int i = 0; i < segments; ++i) {
        if (dashed && i % 2 == 1) continue;
        draw->AddLine(bezier(path.from, path.control, path.to, float(i) / segments),
                      bezier(path.from, path.control, path.to, float(i + 1) / segments), color, thickness);
    }
    // The arrow head at the receiver.
    const ImVec2 tip = path.to;
    const ImVec2 back = bezier(path.from, path.control, path.to, 0.9f);
    ImVec2 d(tip.x - back.x, tip.y - back.y);
    const float length = std::max(1e-3f, std::sqrt(d.x * d.x + d.y * d.y));
    d = ImVec2(d.x / length, d.y / length);
    const ImVec2 base(tip.x - d.x * em * 0.55f, tip.y - d.y * em * 0.55f);
    const ImVec2 across(-d.y * em * 0.3f, d.x * em * 0.3f);
    draw->AddTriangleFilled(tip, ImVec2(base.x + across.x, base.y + across.y), ImVec2(base.x - across.x, base.y - across.y), color);
}

ImU32 tier_color(LinkTier tier) { return tier == LinkTier::infiniband ? palette().infiniband : palette().nvlink; }

// Dark text on light fills, light text on dark ones.
ImU32 label_color_on(ImU32 fill) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
    return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z > 0.45f ? IM_COL32(15, 15, 20, 255) : IM_COL32(250, 250, 250, 255);
}

std::string expert_range(int rank, int per_rank) {
    const int first = rank * per_rank;
    return per_rank == 1 ? "E" + std::to_string(first) : "E" + std::to_string(first) + "-" + std::to_string(first + per_rank - 1);
}

bool holds_example(const core::AllToAllRouting& routing, int rank) {
    for (int expert : routing.example_experts)
        if (expert / routing.experts_per_rank == rank) return true;
    return false;
}

void draw_gpu_box(ImDrawList* draw, const GpuBox& box, int rank, const core::AllToAllRouting& routing, const core::AllToAllFrame& frame,
                  float em) {
    const Palette& colors = palette();
    draw->AddRectFilled(box.min, box.max, colors.panel_background, em * 0.2f);
    const bool busiest = routing.rank_load_imbalance > 1.0 + 1e-9 && rank == routing.busiest_rank;
    draw->AddRect(box.min, box.max, busiest ? colors.warning : colors.axis, em * 0.2f, 0, busiest ? em * 0.14f : em * 0.06f);
    const float height = box.max.y - box.min.y;
    const float width = box.max.x - box.min.x;
    ImFont* font = ImGui::GetFont();
    const float small = em * 0.78f;
    // "GPU 12", or "12" in a box too narrow for the word.
    const std::string number = std::to_string(rank + 1);
    const std::string title = ImGui::CalcTextSize(("GPU " + number).c_str()).x <= width - em * 0.5f ? "GPU " + number : number;
    draw->AddText(font, em, ImVec2(box.min.x + em * 0.25f, box.min.y + em * 0.12f), colors.text, title.c_str());
    if (height > em * 2.6f) {
        // Its experts, and a star where the followed token has one.
        const std::string experts = expert_range(rank, routing.experts_per_rank) + (holds_example(routing, rank) ? "  * token 1" : "");
        draw->AddText(font, small, ImVec2(box.min.x + em * 0.25f, box.min.y + em * 1.15f), colors.text_dim, experts.c_str());
    } else if (holds_example(routing, rank)) {
        draw->AddText(font, em, ImVec2(box.max.x - em * 0.8f, box.min.y + em * 0.12f), colors.warning, "*");
    }
    // Tokens from other GPUs held now: a bar filled against the most any GPU receives, with the count.
    if (height > em * 1.9f && routing.max_received_copies > 0) {
        const float bar_top = box.max.y - em * 0.75f;
        const ImVec2 bar_min(box.min.x + em * 0.25f, bar_top);
        const ImVec2 bar_max(box.max.x - em * 0.25f, box.max.y - em * 0.25f);
        const double held = std::max(0.0, frame.foreign_copies_held[rank]);
        const float share = float(std::min(1.0, held / double(routing.max_received_copies)));
        draw->AddRect(bar_min, bar_max, colors.grid, 0, 0, std::max(1.0f, em * 0.05f));
        draw->AddRectFilled(bar_min, ImVec2(bar_min.x + (bar_max.x - bar_min.x) * share, bar_max.y), colors.activations);
        if (height > em * 3.75f) {  // under the experts' line, clear of it
            const std::string count = core::format_whole(std::round(held)) + " tokens in";
            draw->AddText(font, small, ImVec2(box.min.x + em * 0.25f, bar_top - small * 1.15f), colors.text_dim, count.c_str());
        }
    }
    if (busiest && height > em * 2.6f && width > em * 6.5f)
        draw->AddText(font, small, ImVec2(box.max.x - font->CalcTextSizeA(small, 1e9f, 0, "busiest").x - em * 0.25f, box.min.y + em * 0.15f),
                      colors.warning, "busiest");
}

void draw_mesh(const core::AllToAllRouting& routing, const std::vector<core::AllToAllStep>& steps, const core::AllToAllFrame& frame,
               const std::string& scale_up_name, ImVec2 origin, ImVec2 size, float em) {
    const Palette& colors = palette();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const int ranks = routing.inputs.ep_ranks;
    const int per_node = ranks / routing.nodes;
    const MeshLayout mesh = layout_mesh(ranks, per_node, origin, size, em);
    std::vector<GpuBox> node_titles;  // packets keep off them too
    for (int node = 0; node < routing.nodes; ++node) {
        const GpuBox& box = mesh.nodes[node];
        draw->AddRectFilled(box.min, box.max, with_alpha(colors.nvlink, 0.07f), em * 0.4f);
        draw->AddRect(box.min, box.max, colors.nvlink, em * 0.4f, 0, em * 0.08f);
        // The node's title as long as its box holds it: with the link inside when a node has more than one GPU.
        const std::string name = "node " + std::to_string(node + 1);
        const float room = box.max.x - box.min.x - em;
        for (const std::string& label : {per_node > 1 ? name + ": " + scale_up_name + " inside" : name, name, std::to_string(node + 1)}) {
            const ImVec2 label_size = ImGui::CalcTextSize(label.c_str());
            if (label_size.x > room) continue;
            const ImVec2 at(box.min.x + em * 0.5f, box.min.y + em * 0.3f);
            draw->AddText(at, colors.text_dim, label.c_str());
            node_titles.push_back({at, ImVec2(at.x + label_size.x, at.y + label_size.y)});
            break;
        }
    }
    // Paths under the GPU boxes (so crossings do not hide a box's text), packets on top of everything.
    const core::AllToAllStep* step = frame.done || steps.empty() ? nullptr : &steps[frame.steps_done];
    std::vector<Path> paths;
    long long largest = 1;
    if (step) {
        for (const core::AllToAllTransfer& transfer : step->transfers) {
            largest = std::max(largest, transfer.copies);
            paths.push_back(path_between(mesh.gpus[transfer.from_rank], mesh.gpus[transfer.to_rank], em));
            if (transfer.copies > 0) draw_path(draw, paths.back(), transfer.tier, with_alpha(tier_color(transfer.tier), 0.7f), em);
        }
    }
    for (int rank = 0; rank < ranks; ++rank) draw_gpu_box(draw, mesh.gpus[rank], rank, routing, frame, em);
    if (!step) return;
    ImFont* font = ImGui::GetFont();
    const float small = em * 0.78f;
    // A packet never covers a GPU's box (its name, its experts), a node's title or a packet placed before it: it travels along the stretches
    // of its path clear of them, and where its path has none it is a small unlabelled square between the two GPUs.
    std::vector<GpuBox> taken = mesh.gpus;
    taken.insert(taken.end(), node_titles.begin(), node_titles.end());
    const auto clear_of_taken = [&](ImVec2 min, ImVec2 max) {
        return std::none_of(taken.begin(), taken.end(), [&](const GpuBox& box) {
            return min.x < box.max.x && box.min.x < max.x && min.y < box.max.y && box.min.y < max.y;
        });
    };
    constexpr int kSamples = 64;
    for (std::size_t i = 0; i < step->transfers.size(); ++i) {
        const core::AllToAllTransfer& transfer = step->transfers[i];
        if (transfer.copies <= 0) continue;
        const std::string count = core::format_whole(double(transfer.copies)) + " tok";
        const float side = em * (0.7f + 0.6f * std::sqrt(float(transfer.copies) / float(largest)));
        const float half_width = std::max(side, font->CalcTextSizeA(small, 1e9f, 0, count.c_str()).x * 0.5f + em * 0.2f);
        std::vector<ImVec2> clear;
        for (int k = 0; k <= kSamples; ++k) {
            const ImVec2 at = bezier(paths[i].from, paths[i].control, paths[i].to, float(k) / kSamples);
            if (clear_of_taken(ImVec2(at.x - half_width, at.y - side * 0.5f), ImVec2(at.x + half_width, at.y + side * 0.5f))) clear.push_back(at);
        }
        const ImU32 fill = tier_color(transfer.tier);
        if (clear.empty()) {
            const ImVec2 at = bezier(paths[i].from, paths[i].control, paths[i].to, 0.5f);
            const float half = em * 0.3f;
            draw->AddRectFilled(ImVec2(at.x - half, at.y - half), ImVec2(at.x + half, at.y + half), fill, em * 0.1f);
            if (transfer.tier == LinkTier::infiniband)
                draw->AddRect(ImVec2(at.x - half, at.y - half), ImVec2(at.x + half, at.y + half), colors.text, em * 0.1f, 0, em * 0.08f);
            continue;
        }
        const int index = std::clamp(static_cast<int>(std::lround(frame.transfer_fraction * (clear.size() - 1))), 0, static_cast<int>(clear.size()) - 1);
        const ImVec2 at = clear[index];
        const ImVec2 min(at.x - half_width, at.y - side * 0.5f);
        const ImVec2 max(at.x + half_width, at.y + side * 0.5f);
        taken.push_back({min, max});
        draw->AddRectFilled(min, max, fill, em * 0.2f);
        // InfiniBand packets carry a second outline: the tier is readable without the colour.
        if (transfer.tier == LinkTier::infiniband) draw->AddRect(min, max, colors.text, em * 0.2f, 0, em * 0.1f);
        const ImVec2 text_size = font->CalcTextSizeA(small, 1e9f, 0, count.c_str());
        draw->AddText(font, small, ImVec2(at.x - text_size.x * 0.5f, at.y - text_size.y * 0.5f), label_color_on(fill), count.c_str());
    }
}

// Beyond kMaxDrawnRanks: the phase as a progress bar, and what has moved.
void draw_summary(const core::AllToAllFrame& frame, ImVec2 origin, ImVec2 size, float em) {
    const Palette& colors = palette();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float progress = frame.step_count > 0 ? float((frame.steps_done + frame.transfer_fraction) / frame.step_count) : 1.0f;
    const ImVec2 bar_min(origin.x + em, origin.y + size.y * 0.4f);
    const ImVec2 bar_max(origin.x + size.x - em, bar_min.y + em * 1.4f);
    draw->AddRect(bar_min, bar_max, colors.axis, em * 0.2f, 0, em * 0.06f);
    draw->AddRectFilled(bar_min, ImVec2(bar_min.x + (bar_max.x - bar_min.x) * progress, bar_max.y), colors.activations, em * 0.2f);
    // Wrapped to the bar's width: a scenario's EP group of 64 lands here in a narrow window too.
    const std::string note = "Too many GPUs to draw one by one (up to " + std::to_string(kMaxDrawnRanks) +
                             "): the bar is the steps' progress, dispatch first, then the experts, then combine. The counters above keep counting.";
    add_wrapped_text(draw, ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(bar_min.x, bar_max.y + em * 0.8f), colors.text_dim, note,
                     bar_max.x - bar_min.x);
}

// "moved so far: NVLink ... | InfiniBand ...", each with its line style.
void draw_counters(const core::AllToAllFrame& frame, float em) {
    const Palette& colors = palette();
    // Each counter abbreviates ("InfiniBand: 4.30 GB so far") where its whole sentence does not fit beside its key.
    const auto entry = [&](LinkTier tier, const std::vector<std::string>& variants, bool first) {
        const float key_width = em * 2.5f;
        const float text_width = ImGui::CalcTextSize(variants.front().c_str()).x;
        if (!first) same_line_if_fits(key_width + text_width, em * 1.2f);
        const std::string text = fit_variant(variants, ImGui::GetContentRegionAvail().x - key_width);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float mid = at.y + ImGui::GetTextLineHeight() * 0.5f;
        draw_path(ImGui::GetWindowDrawList(), Path{ImVec2(at.x, mid), ImVec2(at.x + em * 1.0f, mid), ImVec2(at.x + em * 2.0f, mid)}, tier,
                  tier_color(tier), em);
        ImGui::Dummy(ImVec2(em * 2.2f, ImGui::GetTextLineHeight()));
        ImGui::SameLine(0, em * 0.3f);
        ImGui::TextUnformatted(text.c_str());
    };
    const std::string nvlink = core::format_bytes(frame.nvlink_bytes_moved);
    const std::string infiniband = core::format_bytes(frame.infiniband_bytes_moved);
    entry(LinkTier::nvlink, {"NVLink (inside a node): " + nvlink + " moved so far", "NVLink: " + nvlink + " so far", "NVLink " + nvlink}, true);
    entry(LinkTier::infiniband,
          {"InfiniBand (crossing a node boundary): " + infiniband + " so far", "InfiniBand: " + infiniband + " so far", "IB " + infiniband},
          false);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
    wrapped_text("Packets: token copies (tok) one GPU sends another in this step, InfiniBand ones outlined. Bars: the other GPUs' "
                 "tokens a GPU holds. *: where token 1 of GPU 1 goes, its k experts.");
    ImGui::PopStyleColor();
}

void draw_view(const AllToAllPanelState& state, const core::AllToAllFrame& frame, const std::string& scale_up_name, ImVec2 size) {
    const float em = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::PushFont(fonts().large);
    wrapped_text(frame.caption);
    ImGui::PopFont();
    draw_counters(frame, em);
    const float header = ImGui::GetCursorScreenPos().y - origin.y;
    const ImVec2 area(size.x, std::max(em * 8.0f, size.y - header - ImGui::GetStyle().ItemSpacing.y));
    const ImVec2 area_min = ImGui::GetCursorScreenPos();
    ImGui::Dummy(area);
    if (state.routing.inputs.ep_ranks <= kMaxDrawnRanks) draw_mesh(state.routing, state.steps, frame, scale_up_name, area_min, area, em);
    else draw_summary(frame, area_min, area, em);
}

// ---- Controls and figures ----

template <typename Value, std::size_t N>
bool choice_combo(const char* label, Value& value, const Value (&choices)[N], const char* (*name)(Value)) {
    bool changed = false;
    if (ImGui::BeginCombo(label, name(value))) {
        for (Value choice : choices) {
            if (ImGui::Selectable(name(choice), choice == value)) {
                value = choice;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

const char* routing_label(ExpertRouting routing) {
    switch (routing) {
        case ExpertRouting::balanced: return "balanced (every expert alike)";
        case ExpertRouting::random: return "random (seeded)";
        case ExpertRouting::skewed: return "skewed (a few hot experts)";
    }
    return "";
}

// Keeps the options to values core accepts: E a multiple of EP, k <= E, whole nodes, M nodes holding k experts.
void constrain(AllToAllPanelOptions& options, int scenario_gpus_per_node) {
    const int node = options.gpus_per_node > 0 ? options.gpus_per_node : scenario_gpus_per_node;
    if (options.ep_ranks > node && options.ep_ranks % node != 0) options.gpus_per_node = 8;
    const int per_node = std::min(options.gpus_per_node > 0 ? options.gpus_per_node : scenario_gpus_per_node, options.ep_ranks);
    const int nodes = options.ep_ranks / per_node;
    options.top_k = std::clamp(options.top_k, 1, options.ep_ranks * options.experts_per_gpu);
    options.max_nodes_per_token = std::clamp(options.max_nodes_per_token, 0, nodes);
    const int experts_per_node = options.experts_per_gpu * per_node;
    while (options.max_nodes_per_token > 0 && options.max_nodes_per_token * experts_per_node < options.top_k) ++options.max_nodes_per_token;
    if (options.max_nodes_per_token >= nodes) options.max_nodes_per_token = 0;
}

// The scenario's own all-to-all: its figures as text (they change in the configurator), the routing still the panel's.
void draw_scenario_controls(AllToAllPanelState& state, const core::Scenario& scenario) {
    AllToAllPanelOptions& options = state.options;
    const core::AllToAllInputs& in = state.inputs;
    const float em = ImGui::GetFontSize();
    dim_text("From the scenario: EP " + core::format_counted(in.ep_ranks, "GPU", "GPUs") + ", " + core::format_counted(in.experts, "expert", "experts") + " (" +
             std::to_string(in.experts / std::max(1, in.ep_ranks)) + " per GPU), top-" + std::to_string(in.top_k) + ", node limit " +
             (in.max_nodes_per_token > 0 ? core::format_counted(in.max_nodes_per_token, "node", "nodes") : std::string("off")) + ", " +
             (in.dispatch_bytes_per_element < 2.0 ? "FP8" : "BF16") + " dispatch");
    ImGui::SetNextItemWidth(em * 14.0f);
    constexpr ExpertRouting routings[] = {ExpertRouting::balanced, ExpertRouting::random, ExpertRouting::skewed};
    choice_combo("routing", options.routing, routings, routing_label);
    if (options.routing == ExpertRouting::skewed) {
        ImGui::SetNextItemWidth(em * 8.0f);
        slider_float("skew s (Zipf)", &options.skew, 0.0f, 2.0f, "%.2f");
    }
    const int scenario_tokens = core::alltoall_inputs_of_scenario(scenario).tokens_per_rank;
    const int budget = core::alltoall_max_tokens_per_rank(in.ep_ranks, in.experts, kInteractiveDecisions);
    int tokens = std::min(options.tokens_per_rank > 0 ? options.tokens_per_rank : scenario_tokens, budget);
    ImGui::SetNextItemWidth(em * 8.0f);
    if (slider_int("tokens per GPU T", &tokens, 1, std::max(1, std::min(budget, 65536)), "%d", ImGuiSliderFlags_Logarithmic))
        options.tokens_per_rank = tokens;
    if (scenario_tokens > budget && options.tokens_per_rank == 0) {
        dim_text("T: the scenario's " + core::format_whole(scenario_tokens) + " tokens per GPU, capped at " + core::format_whole(budget) +
                 " to route each one here; the shares do not depend on T, the bytes grow with it");
    }
}

void draw_controls(AllToAllPanelState& state, const core::Scenario& scenario) {
    if (core::alltoall_follows_scenario(scenario)) {
        draw_scenario_controls(state, scenario);
        return;
    }
    AllToAllPanelOptions& options = state.options;
    const float em = ImGui::GetFontSize();
    const float width = em * 8.0f;
    int ep_index = 0;
    for (int i = 0; i < int(std::size(kEpChoices)); ++i)
        if (kEpChoices[i] == options.ep_ranks) ep_index = i;
    ImGui::SetNextItemWidth(width);
    const std::string ep_text = std::to_string(options.ep_ranks);
    if (slider_int("EP ranks (GPUs)", &ep_index, 0, int(std::size(kEpChoices)) - 1, ep_text.c_str())) options.ep_ranks = kEpChoices[ep_index];
    const int node = options.gpus_per_node > 0 ? options.gpus_per_node : scenario.cluster.gpus_per_node;
    same_line_if_fits(labelled_width(em * 4.0f, "GPUs per node"), em);
    ImGui::SetNextItemWidth(em * 4.0f);
    if (ImGui::BeginCombo("GPUs per node", std::to_string(node).c_str())) {
        for (int size : kNodeSizes) {
            const bool fits = options.ep_ranks <= size || options.ep_ranks % size == 0;
            if (fits && ImGui::Selectable(std::to_string(size).c_str(), size == node)) options.gpus_per_node = size;
        }
        ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(width);
    const std::string experts_text = std::to_string(options.ep_ranks * options.experts_per_gpu) + " (%d per GPU)";
    slider_int("experts E", &options.experts_per_gpu, 1, 16, experts_text.c_str());
    same_line_if_fits(labelled_width(em * 5.0f, "top-k"), em);
    ImGui::SetNextItemWidth(em * 5.0f);
    slider_int("top-k", &options.top_k, 1, std::min(16, options.ep_ranks * options.experts_per_gpu));
    ImGui::SetNextItemWidth(em * 14.0f);
    constexpr ExpertRouting routings[] = {ExpertRouting::balanced, ExpertRouting::random, ExpertRouting::skewed};
    choice_combo("routing", options.routing, routings, routing_label);
    if (options.routing == ExpertRouting::skewed) {
        ImGui::SetNextItemWidth(width);
        slider_float("skew s (Zipf)", &options.skew, 0.0f, 2.0f, "%.2f");
    }
    const int per_node = std::min(node, options.ep_ranks);
    const int nodes = std::max(1, options.ep_ranks / per_node);
    ImGui::SetNextItemWidth(width);
    const std::string limit_text = options.max_nodes_per_token == 0 ? std::string("off") : core::format_counted(options.max_nodes_per_token, "node", "nodes");
    if (nodes > 1) slider_int("node limit M", &options.max_nodes_per_token, 0, nodes - 1, limit_text.c_str());
    else ImGui::TextDisabled("node limit M: one node only");
    same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), "FP8 dispatch"), em);
    ImGui::Checkbox("FP8 dispatch", &options.fp8_dispatch);
    const int scenario_tokens = core::alltoall_inputs_for(scenario, options.ep_ranks, options.ep_ranks * options.experts_per_gpu, 1).tokens_per_rank;
    const int budget = core::alltoall_max_tokens_per_rank(options.ep_ranks, options.ep_ranks * options.experts_per_gpu, kInteractiveDecisions);
    int tokens = std::min(options.tokens_per_rank > 0 ? options.tokens_per_rank : scenario_tokens, budget);
    ImGui::SetNextItemWidth(width);
    if (slider_int("tokens per GPU T", &tokens, 1, std::max(1, std::min(budget, 65536)), "%d", ImGuiSliderFlags_Logarithmic))
        options.tokens_per_rank = tokens;
    same_line_if_fits(ImGui::CalcTextSize("from scenario").x + ImGui::GetStyle().FramePadding.x * 2, em);
    if (ImGui::SmallButton("from scenario")) {
        options = AllToAllPanelOptions{};
    }
    if (scenario_tokens > budget && options.tokens_per_rank == 0) {
        dim_text("T: the scenario's " + core::format_whole(scenario_tokens) + " tokens per GPU, capped at " + core::format_whole(budget) +
                 " to route each one here; the shares do not depend on T, the bytes grow with it");
    }
    constrain(options, scenario.cluster.gpus_per_node);
}

void draw_figures(const AllToAllPanelState& state, const core::AllToAllFrame& frame) {
    const core::AllToAllRouting& r = state.routing;
    const core::AllToAllInputs& in = r.inputs;
    const char* source = "moe.md (All-to-all); DeepSeek-V3 sec 3.2.2";
    const std::string ranks = core::format_counted(in.ep_ranks, "GPU", "GPUs");
    figure("Dispatch per GPU:",
           "T x k x h x bytes = " + core::format_whole(in.tokens_per_rank) + " x " + std::to_string(in.top_k) + " x " +
               core::format_whole(in.hidden) + " x " + core::format_plain(in.dispatch_bytes_per_element) + " B = " +
               core::format_bytes(r.dispatch_bytes_per_rank),
           "every token's activation copied to each of its k experts (its own GPU's included), one MoE layer, one micro-batch, "
           "forward; combine brings the k outputs back, backward repeats both",
           source);
    figure("Leave their GPU:", core::format_percent(r.leaving_gpu_share) + " of the copies",
           "uniform routing: (EP-1)/EP = " + core::format_percent(core::uniform_leaving_gpu_share(in.ep_ranks)), source);
    figure("Cross a node boundary:", core::format_percent(r.crossing_node_share) + " of the copies",
           "uniform routing: (EP-G)/EP = " + core::format_percent(core::uniform_crossing_node_share(in.ep_ranks, in.gpus_per_node)), source);
    dim_text("  uniform: " + core::format_percent(core::uniform_leaving_gpu_share(in.ep_ranks)) + " and " +
             core::format_percent(core::uniform_crossing_node_share(in.ep_ranks, in.gpus_per_node)) + ", (EP-1)/EP and (EP-G)/EP");
    figure(("Dispatch, all " + ranks + ":").c_str(),
           "NVLink " + core::format_bytes(r.dispatch.nvlink_bytes) + ", InfiniBand " + core::format_bytes(r.dispatch.infiniband_bytes),
           "copies to another GPU of the node go over NVLink, to another node over InfiniBand; copies for the GPU's own experts stay", source);
    figure("  one copy per node:", "InfiniBand " + core::format_bytes(r.dispatch.infiniband_one_per_node_bytes),
           "DeepSeek-V3 sec 3.2.2 (DeepEP): a token crosses to each destination node once and fans out over NVLink there", source);
    figure(("Combine, all " + ranks + ":").c_str(),
           "NVLink " + core::format_bytes(r.combine.nvlink_bytes) + ", InfiniBand " + core::format_bytes(r.combine.infiniband_bytes),
           "the same paths back, BF16", source);
    const std::string limit = in.max_nodes_per_token > 0 ? " (limit M = " + std::to_string(in.max_nodes_per_token) + ")" : std::string(" (no limit)");
    figure("Nodes a token reaches:", "at most " + std::to_string(r.max_nodes_touched) + " of " + std::to_string(r.nodes) + limit,
           "node-limited routing: the M nodes whose best k/M affinities sum highest, then the top-k experts on them",
           "DeepSeek-V3 sec 2.1.2");
    figure("Busiest expert:", core::format_number(r.expert_load_imbalance) + " x the mean load",
           "max / mean token copies per expert: without dropping tokens, the layer waits for its busiest expert", "moe.md (Load imbalance)");
    figure("Busiest GPU:", "GPU " + std::to_string(r.busiest_rank + 1) + ", " + core::format_number(r.rank_load_imbalance) + " x the mean",
           "max / mean token copies a GPU's experts receive", "moe.md (Load imbalance)");
    std::string token = "token 1 of GPU 1 -> experts";
    for (int expert : r.example_experts) token += " " + std::to_string(expert);
    dim_text(token);
    dim_text("Step " + std::to_string(std::min(frame.steps_done + 1, frame.step_count)) + " of " + std::to_string(frame.step_count) +
             ": EP-1 pairwise steps each way (Thakur et al. 2005), the experts' step between.");
}

void draw_alltoall_panel(AllToAllPanelState& state, PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    refresh_routing(state, ctx.scenario);
    if (state.steps.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "%s", state.error.c_str());
        return;
    }
    Timeline timeline;
    timeline.duration_seconds = core::alltoall_animation_seconds(state.steps, state.options.seconds_per_step);
    timeline.step_seconds = state.options.seconds_per_step;
    timeline.figure_seconds = core::alltoall_figure_seconds(state.steps, state.options.seconds_per_step);
    ctx.playback.set_timeline(timeline);
    draw_transport(ctx.playback);
    const double t_seconds = std::isfinite(ctx.playback.t_seconds) ? std::max(0.0, ctx.playback.t_seconds) : 0.0;
    const core::AllToAllFrame frame = core::alltoall_frame_at(state.routing, state.steps, t_seconds, state.options.seconds_per_step);

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side_width = std::clamp(avail.x * 0.36f, std::min(em * 26.0f, avail.x * 0.5f), em * 34.0f);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    // Beside the sidebar or zoomed the mesh needs the whole width: the mesh first, then the controls and figures, scrolling.
    const bool one_column = avail.x - side_width - spacing < em * 30.0f;
    const ImVec2 view_size = one_column ? ImVec2(avail.x, std::max(avail.y * 0.85f, em * 28.0f)) : ImVec2(avail.x - side_width - spacing, avail.y);
    ImGui::BeginChild("alltoall_view", view_size, false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_view(state, frame, ctx.scenario.cluster.scale_up.name, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    if (!one_column) {
        ImGui::SameLine();
        ImGui::BeginChild("alltoall_side", ImVec2(side_width, avail.y), false);
    }
    if (figure_mode()) {  // a document states the set-up the controls would show
        const core::AllToAllInputs& inputs = state.routing.inputs;
        dim_text("EP " + core::format_counted(inputs.ep_ranks, "GPU", "GPUs") + " in nodes of " + std::to_string(inputs.gpus_per_node) + ", " +
                 core::format_counted(inputs.experts, "expert", "experts") + ", top-" + std::to_string(inputs.top_k) + ", " +
                 (inputs.max_nodes_per_token > 0 ? "node limit " + std::to_string(inputs.max_nodes_per_token) + ", " : std::string()) +
                 (inputs.dispatch_bytes_per_element < 2.0 ? "FP8 dispatch, " : "") + routing_label(state.options.routing) + " routing, " +
                 core::format_counted(inputs.tokens_per_rank, "token", "tokens") + " per GPU" +
                 (core::alltoall_follows_scenario(ctx.scenario) ? "; EP, experts, top-k and node limit from the scenario" : ""));
    } else {
        draw_controls(state, ctx.scenario);
    }
    if (!state.error.empty()) ImGui::TextColored(color4(palette().over_budget), "%s", state.error.c_str());
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0.0f);
    draw_figures(state, frame);
    if (ctx.baseline) {  // the scenario's own all-to-all, against the baseline's (the animation above is the sliders')
        dim_text("vs baseline: " + ctx.baseline->comparison->moe_text);
    }
    ImGui::PopTextWrapPos();
    if (!one_column) ImGui::EndChild();
}

}  // namespace

PanelDef make_alltoall_panel() {
    auto state = std::make_shared<AllToAllPanelState>();
    return {"alltoall", "All-to-all (experts)", [state](PanelContext& ctx) { draw_alltoall_panel(*state, ctx); }, "All-to-all"};
}

}  // namespace widgets
