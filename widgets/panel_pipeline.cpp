// Pipeline schedules: two schedules' timelines stacked on one time axis, bubble and in-flight figures beside each.
// The sliders are a local sandbox seeded from the scenario; core generates every op and every figure.
#include "core/model/format.h"
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/report/diff_report.h"
#include "core/cost/step/step.h"
#include "widgets/controls.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

using core::PipelineOp;
using core::PipelineOpKind;
using core::ScheduleKind;
using core::is_dualpipe;
using core::ScheduleParams;
using core::ScheduleTimeline;

constexpr ScheduleKind kAllKinds[] = {ScheduleKind::naive,  ScheduleKind::gpipe,    ScheduleKind::one_f_one_b, ScheduleKind::interleaved,
                                      ScheduleKind::zb_h1, ScheduleKind::dualpipe, ScheduleKind::dualpipe_v};
constexpr int kMaxStages = 16;
constexpr int kMaxMicrobatches = 64;
constexpr int kMaxChunks = 4;
constexpr int kStagesWithoutPipeline = 4;    // the seed's P = 4, shown when the scenario has pp = 1
constexpr double kAnimationSeconds = 12.0;   // the longer schedule's whole step plays in this long at 1x
constexpr float kGhostAlpha = 0.28f;          // ops still to run: a faint preview of the plan
constexpr const char* kInflightHeader = "in flight (peak)";

const char* schedule_title(ScheduleKind kind) {
    switch (kind) {
        case ScheduleKind::naive: return "Naive (whole batch, no micro-batches)";
        case ScheduleKind::gpipe: return "GPipe (all forwards, then all backwards)";
        case ScheduleKind::one_f_one_b: return "1F1B (PipeDream-Flush)";
        case ScheduleKind::interleaved: return "Interleaved 1F1B (Megatron)";
        case ScheduleKind::zb_h1: return "ZB-H1 (zero bubble, B and W split)";
        case ScheduleKind::dualpipe: return "DualPipe (DeepSeek-V3)";
        case ScheduleKind::dualpipe_v: return "DualPipeV (cut in half, V)";
    }
    return "";
}

// The lesson's order: each schedule is compared with the one it improves on.
ScheduleKind predecessor(ScheduleKind kind) {
    switch (kind) {
        case ScheduleKind::naive: return ScheduleKind::gpipe;
        case ScheduleKind::gpipe: return ScheduleKind::naive;
        case ScheduleKind::one_f_one_b: return ScheduleKind::gpipe;
        case ScheduleKind::interleaved: return ScheduleKind::one_f_one_b;
        case ScheduleKind::zb_h1: return ScheduleKind::one_f_one_b;
        case ScheduleKind::dualpipe: return ScheduleKind::zb_h1;  // the DualPipe table's ZB1P
        case ScheduleKind::dualpipe_v: return ScheduleKind::dualpipe;
    }
    return ScheduleKind::gpipe;
}

struct ClosedFormText {
    const char* bubble_fraction;
    const char* bubble_overhead;
    const char* peak_inflight;
    const char* source;
};

ClosedFormText closed_form_text(ScheduleKind kind) {
    switch (kind) {
        case ScheduleKind::naive: return {"(p-1)/p", "p-1", "m (the whole batch)", "Huang et al. 2019 (GPipe), fig. 2"};
        case ScheduleKind::gpipe: return {"(p-1)/(m+p-1)", "(p-1)/m", "m", "Huang et al. 2019; Narayanan et al. 2021 sec 2.2.1"};
        case ScheduleKind::one_f_one_b:
            return {"(p-1)/(m+p-1)", "(p-1)/m", "min(p, m)", "Narayanan et al. 2021 sec 2.2.1"};
        case ScheduleKind::interleaved:
            return {"(p-1)/(v m+p-1)", "(p-1)/(v m)", "2(p-1)+(v-1)p+1", "Narayanan et al. 2021 sec 2.2.2"};
        case ScheduleKind::zb_h1:
            return {"idle (p-1)(F+B-W)", "(p-1)(F+B-W)/(m(F+B+W))", "min(p, m)",
                    "Qi et al. 2024 sec 2.1 (ZB-H1)"};
        case ScheduleKind::dualpipe:
            return {"idle (PP/2-1)(F&B+B-3W), PP = p", "(PP/2-1)(F&B+B-3W)/(m(F+B))", "PP+1 chunks",
                    "DualPipe README table; DeepSeek-V3 sec 3.2.1"};
        case ScheduleKind::dualpipe_v:
            return {"idle (PP/2-1)(F&B+B-3W), PP = 2p", "(PP/2-1)(F&B+B-3W)/(m(F+B))", "PP+1 chunks",
                    "DualPipe README table (DualPipeV)"};
    }
    return {"", "", "", ""};
}

// The panel's sandbox: its own p, m, v and F:B:W, seeded from the scenario and re-seeded when the scenario changes.
struct PipelinePanelState {
    int stages = 4;                 // p, GPUs in the pipeline
    int microbatches = 8;           // m
    int virtual_chunks = 2;         // v, chunks per GPU when a schedule is interleaved
    float backward_input = 1.0f;    // B in units of T_F (input gradient)
    float weight_grad = 1.0f;       // W in units of T_F; B + W = 2 T_F is the papers' usual backward
    float p2p = 0.0f;               // send/recv between GPUs in units of T_F (0: the papers' free communication)
    float forward_backward = 3.0f;  // DualPipe's F&B cell in T_F: F + B + W when the overlap saves nothing, as drawn in its README
    ScheduleKind kinds[2] = {ScheduleKind::gpipe, ScheduleKind::one_f_one_b};

    // What the sandbox was seeded from: a change in the scenario re-seeds it.
    int seeded_pp = -1, seeded_microbatches = -1, seeded_chunks = -1;
    ScheduleKind seeded_kind = ScheduleKind::one_f_one_b;

    // Timelines are regenerated only when their parameters change.
    ScheduleParams cached_params[2];
    ScheduleTimeline timelines[2];
    std::string errors[2];
    bool cached[2] = {false, false};

    // Against a pinned baseline: the baseline's step schedule above the scenario's, each op in seconds, on one axis.
    std::uint64_t compared_scenario_revision = 0, compared_baseline_revision = 0;
    ScheduleParams compared_params[2];
    ScheduleTimeline compared[2];
    std::string compared_errors[2];
};

bool same_params(const ScheduleParams& a, const ScheduleParams& b) {
    return a.kind == b.kind && a.stages == b.stages && a.microbatches == b.microbatches &&
           a.virtual_chunks == b.virtual_chunks && a.forward_seconds == b.forward_seconds &&
           a.backward_seconds == b.backward_seconds && a.weight_grad_seconds == b.weight_grad_seconds &&
           a.p2p_seconds == b.p2p_seconds && a.forward_backward_seconds == b.forward_backward_seconds;
}

bool shows_dualpipe(const PipelinePanelState& state) { return is_dualpipe(state.kinds[0]) || is_dualpipe(state.kinds[1]); }

bool shows_interleaved(const PipelinePanelState& state) {
    return state.kinds[0] == ScheduleKind::interleaved || state.kinds[1] == ScheduleKind::interleaved;
}

// Interleaving needs m to be a multiple of p: round m to the nearest multiple that the slider allows. DualPipe needs
// an even p and an even m of at least 2p, DualPipeV m >= 2p (core::schedule_fit_problem says why when not).
void constrain_microbatches(PipelinePanelState& state) {
    const bool dualpipe = state.kinds[0] == ScheduleKind::dualpipe || state.kinds[1] == ScheduleKind::dualpipe;
    if (dualpipe && state.stages % 2 != 0) state.stages = std::min(state.stages + 1, kMaxStages);
    state.microbatches = std::clamp(state.microbatches, shows_dualpipe(state) ? 2 * state.stages : 1, kMaxMicrobatches);
    if (dualpipe && state.microbatches % 2 != 0) state.microbatches += 1;
    // F&B lies between the longer of F and B + W and their sum.
    const float backward = state.backward_input + state.weight_grad;
    state.forward_backward = std::clamp(state.forward_backward, std::max(1.0f, backward), 1.0f + backward);
    if (!shows_interleaved(state) || state.virtual_chunks == 1) return;
    const int multiples = std::max(shows_dualpipe(state) ? 2 : 1, (state.microbatches + state.stages / 2) / state.stages);
    state.microbatches = std::min(multiples, kMaxMicrobatches / state.stages) * state.stages;
}

void seed_from_scenario(PipelinePanelState& state, const PanelContext& ctx) {
    const core::ParallelSpec& parallel = ctx.scenario.parallel;
    const int microbatches = ctx.report.pipeline.microbatches;
    if (parallel.pp == state.seeded_pp && microbatches == state.seeded_microbatches &&
        parallel.virtual_stages == state.seeded_chunks && parallel.schedule == state.seeded_kind)
        return;
    state.seeded_pp = parallel.pp;
    state.seeded_microbatches = microbatches;
    state.seeded_chunks = parallel.virtual_stages;
    state.seeded_kind = parallel.schedule;
    state.stages = parallel.pp > 1 ? std::clamp(parallel.pp, 1, kMaxStages) : kStagesWithoutPipeline;
    state.microbatches = std::clamp(microbatches, 1, kMaxMicrobatches);
    state.virtual_chunks = parallel.virtual_stages > 1 ? std::clamp(parallel.virtual_stages, 2, kMaxChunks) : 2;
    state.kinds[0] = predecessor(parallel.schedule);
    state.kinds[1] = parallel.schedule;
    if (state.kinds[1] == ScheduleKind::naive) std::swap(state.kinds[0], state.kinds[1]);
    constrain_microbatches(state);
}

ScheduleParams params_for(const PipelinePanelState& state, ScheduleKind kind) {
    ScheduleParams params;
    params.kind = kind;
    params.stages = state.stages;
    params.microbatches = state.microbatches;
    params.virtual_chunks = kind == ScheduleKind::interleaved ? state.virtual_chunks : 1;
    params.forward_seconds = 1.0;  // the time unit: T_F
    params.backward_seconds = double(state.backward_input) + double(state.weight_grad);
    params.weight_grad_seconds = state.weight_grad;
    params.p2p_seconds = state.p2p;
    params.forward_backward_seconds = is_dualpipe(kind) ? state.forward_backward : 0.0;
    return params;
}

void refresh_timelines(PipelinePanelState& state) {
    for (int i = 0; i < 2; ++i) {
        const ScheduleParams params = params_for(state, state.kinds[i]);
        if (state.cached[i] && same_params(params, state.cached_params[i])) continue;
        state.cached_params[i] = params;
        state.cached[i] = true;
        state.errors[i].clear();
        try {
            state.timelines[i] = core::generate_schedule(params);
        } catch (const std::exception& error) {
            state.timelines[i] = ScheduleTimeline{};
            state.errors[i] = error.what();
        }
    }
}

// ---- Controls ----


void draw_controls(PipelinePanelState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    const bool figure = figure_mode();  // a document shows what is drawn (p, m), not the sliders
    if (!figure) {
        const float slider_width = font * 9.0f;
        const float spacing = font * 1.5f;
        ImGui::SetNextItemWidth(slider_width);
        if (slider_int("GPUs p", &state.stages, 1, kMaxStages)) constrain_microbatches(state);
        same_line_if_fits(labelled_width(slider_width, "micro-batches m"), spacing);
        ImGui::SetNextItemWidth(slider_width);
        if (shows_interleaved(state) && state.virtual_chunks > 1) {
            // Interleaving needs m = k p: the slider moves k and shows m.
            int multiples = state.microbatches / state.stages;
            char format[48];
            std::snprintf(format, sizeof format, "%d (%%d x p)", state.microbatches);
            if (slider_int("micro-batches m", &multiples, 1, kMaxMicrobatches / state.stages, format))
                state.microbatches = multiples * state.stages;
        } else if (shows_dualpipe(state)) {
            if (slider_int("micro-batches m", &state.microbatches, 2 * state.stages, kMaxMicrobatches)) constrain_microbatches(state);
        } else {
            slider_int("micro-batches m", &state.microbatches, 1, kMaxMicrobatches);
        }
        if (shows_interleaved(state)) {
            same_line_if_fits(labelled_width(font * 6.0f, "chunks per GPU v"), spacing);
            ImGui::SetNextItemWidth(font * 6.0f);
            if (slider_int("chunks per GPU v", &state.virtual_chunks, 1, kMaxChunks)) constrain_microbatches(state);
        }

        ImGui::SetNextItemWidth(slider_width);
        if (slider_float("B (input grad)", &state.backward_input, 0.25f, 4.0f, "%.2f T_F")) constrain_microbatches(state);
        same_line_if_fits(labelled_width(slider_width, "W (weight grad)"), spacing);
        ImGui::SetNextItemWidth(slider_width);
        if (slider_float("W (weight grad)", &state.weight_grad, 0.25f, 4.0f, "%.2f T_F")) constrain_microbatches(state);
        if (shows_dualpipe(state)) {
            // The overlapped cell: from the longer half (all of the other hidden) to both in a row (nothing gained).
            same_line_if_fits(labelled_width(slider_width, "F&B (overlapped)"), spacing);
            ImGui::SetNextItemWidth(slider_width);
            const float backward = state.backward_input + state.weight_grad;
            if (slider_float("F&B (overlapped)", &state.forward_backward, std::max(1.0f, backward), 1.0f + backward, "%.2f T_F"))
                constrain_microbatches(state);
        }
        same_line_if_fits(labelled_width(slider_width, "send/recv"), spacing);
        ImGui::SetNextItemWidth(slider_width);
        slider_float("send/recv", &state.p2p, 0.0f, 2.0f, "%.2f T_F");
        const char* reset = "Reset to scenario";
        same_line_if_fits(ImGui::CalcTextSize(reset).x + ImGui::GetStyle().FramePadding.x * 2, spacing);
        if (ImGui::Button(reset)) state.seeded_pp = -1;
        // The scenario's own step (not this sandbox) as a Chrome trace: every stage, stream, kernel and collective in time.
        save_trace_button(ctx, spacing);
    }
    char seeded[160];
    // What is drawn is the sliders' p and m, whatever the scenario seeded them with.
    if (state.seeded_pp > 1)
        std::snprintf(seeded, sizeof seeded, "scenario: pp %d, %d micro-batches, %s; showing p = %d, m = %d", state.seeded_pp,
                      state.seeded_microbatches, core::schedule_name(state.seeded_kind), state.stages, state.microbatches);
    else
        std::snprintf(seeded, sizeof seeded, "scenario has no pipeline (pp 1): showing p = %d, m = %d", state.stages, state.microbatches);
    if (!figure) same_line_if_fits(ImGui::CalcTextSize(seeded).x, font);
    dim_text(seeded);
}

// ---- Legend ----

void legend_entry(ImU32 color, const char* text, bool first) {
    const float font = ImGui::GetFontSize();
    if (!first) same_line_if_fits(font * 1.3f + ImGui::CalcTextSize(text).x, font * 1.2f);
    legend_swatch(color);
    ImGui::TextUnformatted(text);
}

void draw_legend(const PipelinePanelState& state, bool in_seconds = false) {
    const Palette& colors = palette();
    const float font = ImGui::GetFontSize();
    const bool split = state.kinds[0] == ScheduleKind::zb_h1 || state.kinds[1] == ScheduleKind::zb_h1 || shows_dualpipe(state);
    legend_entry(colors.forward, "F forward", true);
    legend_entry(colors.backward, split ? "B backward (short: input grad only, W later)" : "B backward (input + weight grad)",
                  false);
    if (split) legend_entry(colors.weight_grad, "W weight grad", false);
    legend_entry(colors.idle, "idle: the bubble", false);
    if (shows_dualpipe(state)) {
        // The overlapped cell is told by its shape (split, outlined), not by colour.
        const char* overlapped = "F&B: outlined cell, F on top, B below: a forward and a backward of two micro-batches run "
                                 "together, each hiding the other's all-to-all (DeepSeek-V3)";
        same_line_if_fits(font * 1.3f + ImGui::CalcTextSize(overlapped).x, font * 1.2f);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float size = ImGui::GetTextLineHeight();
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->AddRectFilled(at, ImVec2(at.x + size, at.y + size * 0.5f), colors.forward);
        draw->AddRectFilled(ImVec2(at.x, at.y + size * 0.5f), ImVec2(at.x + size, at.y + size), colors.backward);
        draw->AddRect(at, ImVec2(at.x + size, at.y + size), colors.text, 0, 0, std::max(1.0f, font * 0.08f));
        ImGui::Dummy(ImVec2(size, size));
        ImGui::SameLine(0, font * 0.3f);
        ImGui::TextUnformatted(overlapped);
        const char* directions = "DualPipe: micro-batches 1..m/2 enter at GPU 1, the rest (lighter) at GPU p; DualPipeV: lighter = the way back up";
        same_line_if_fits(ImGui::CalcTextSize(directions).x, font * 1.2f);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
        wrapped_text(directions);
        ImGui::PopStyleColor();
    }
    const char* key = in_seconds ? (shows_interleaved(state) ? "numbers: micro-batch, small: chunk (lighter = later chunk); each op as long as the step model times it"
                                                             : "numbers: micro-batch; each op as long as the step model times it")
                      : shows_interleaved(state)
                          ? "numbers: micro-batch, small: chunk (lighter = later chunk).  T_F: one forward"
                          : "numbers: micro-batch.  Time unit T_F: one micro-batch's forward on one GPU";
    same_line_if_fits(ImGui::CalcTextSize(key).x, font * 1.2f);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
    wrapped_text(key);
    ImGui::PopStyleColor();
}

// ---- One timeline ----

struct TimeAxis {
    float x0 = 0, x1 = 0;           // screen x of time 0 and of the longest makespan
    double longest_seconds = 1;     // both grids share this scale
    double unit_seconds = 1;        // what a tick counts: T_F in the sandbox, ms or s against a baseline
    const char* unit = "T_F";
    float x_of(double seconds) const { return x0 + float(seconds / longest_seconds) * (x1 - x0); }
};

ImU32 mix(ImU32 a, ImU32 b, float share_of_b) {
    const ImVec4 ca = ImGui::ColorConvertU32ToFloat4(a);
    const ImVec4 cb = ImGui::ColorConvertU32ToFloat4(b);
    const float s = share_of_b;
    return ImGui::ColorConvertFloat4ToU32(ImVec4(ca.x + (cb.x - ca.x) * s, ca.y + (cb.y - ca.y) * s,
                                                 ca.z + (cb.z - ca.z) * s, 1.0f));
}

// Dark text on light fills, light text on dark ones, so labels read in both themes.
ImU32 label_color_on(ImU32 fill) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
    const float luminance = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    return luminance > 0.45f ? IM_COL32(15, 15, 20, 255) : IM_COL32(250, 250, 250, 255);
}

ImU32 op_color(const PipelineOp& op, int chunks) {
    const Palette& colors = palette();
    const ImU32 base = op.kind == PipelineOpKind::forward       ? colors.forward
                       : op.kind == PipelineOpKind::weight_grad ? colors.weight_grad
                                                                : colors.backward;
    if (chunks <= 1) return base;
    return mix(base, IM_COL32(255, 255, 255, 255), 0.5f * float(op.chunk) / float(chunks - 1));
}

const char* op_kind_text(PipelineOpKind kind) {
    switch (kind) {
        case PipelineOpKind::forward: return "forward";
        case PipelineOpKind::backward: return "backward (B + W)";
        case PipelineOpKind::backward_input: return "B, input gradient";
        case PipelineOpKind::weight_grad: return "W, weight gradient";
    }
    return "";
}

// The micro-batch number (1-based, as in the papers' figures) and, when interleaved, the chunk in smaller type.
// Falls back to a smaller size, then to no label, when the box is too narrow.
void draw_op_label(ImDrawList* draw, const PipelineOp& op, bool interleaved, ImVec2 min, ImVec2 max, ImU32 color) {
    const float font = ImGui::GetFontSize();
    if (max.x - min.x < 0.55f * font) return;  // narrower than a digit at the smaller size and its margin: no label fits
    char number[16] = {};
    char chunk[16] = {};
    std::to_chars(number, number + sizeof number - 1, op.microbatch + 1);  // thousands of cells a frame: no printf
    std::to_chars(chunk, chunk + sizeof chunk - 1, op.chunk + 1);
    ImFont* regular = ImGui::GetFont();
    for (float size : {font, font * 0.75f}) {
        const float chunk_size = size * 0.72f;
        const float number_width = regular->CalcTextSizeA(size, 1e9f, 0, number).x;
        const float chunk_width = interleaved ? regular->CalcTextSizeA(chunk_size, 1e9f, 0, chunk).x : 0.0f;
        const float width = number_width + chunk_width;
        if (width + font * 0.2f > max.x - min.x || size * 0.95f > max.y - min.y) continue;
        const float x = (min.x + max.x - width) * 0.5f;
        const float y = (min.y + max.y - size) * 0.5f;
        draw->AddText(regular, size, ImVec2(x, y), color, number);
        if (interleaved) draw->AddText(regular, chunk_size, ImVec2(x + number_width, y + size * 0.4f), color, chunk);
        return;
    }
}

// Whole counts without decimals ("16"), fractional ones to three figures ("19.8").
std::string count_text(double count) {
    if (count == std::floor(count) && std::fabs(count) < 1e6) return std::to_string(static_cast<long>(count));
    return core::format_number(count);
}

struct GridLayout {
    float label_width = 0;      // "GPU 16"
    float inflight_width = 0;   // "in flight" column at the right
    float row_height = 0;
    float axis_height = 0;
};

void draw_time_axis(ImDrawList* draw, const TimeAxis& axis, float y) {
    const Palette& colors = palette();
    const float font = ImGui::GetFontSize();
    const float thickness = std::max(1.0f, font * 0.06f);
    draw->AddLine(ImVec2(axis.x0, y), ImVec2(axis.x1, y), colors.axis, thickness);
    const double intervals = (axis.x1 - axis.x0) / (font * 4.0f);
    const double span = axis.longest_seconds / axis.unit_seconds;
    const double step = tick_step_125(span, intervals);
    for (double tick : linear_ticks(0, span, intervals)) {
        const float x = axis.x_of(tick * axis.unit_seconds);
        draw->AddLine(ImVec2(x, y), ImVec2(x, y + font * 0.3f), colors.axis, thickness);
        const std::string text = tick_label(tick, step);
        const float width = ImGui::CalcTextSize(text.c_str()).x;
        draw->AddText(ImVec2(x - width * 0.5f, y + font * 0.35f), colors.text_dim, text.c_str());
    }
    // The unit, past the axis end where no tick label reaches.
    draw->AddText(ImVec2(axis.x1 + font * 0.9f, y + font * 0.35f), colors.text_dim, axis.unit);
}

void draw_timeline(const ScheduleTimeline& timeline, const TimeAxis& axis, const GridLayout& layout, double t,
                   float width, bool exporting) {
    const Palette& colors = palette();
    const float font = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float rows_height = layout.row_height * float(timeline.stages);
    ImGui::Dummy(ImVec2(width, rows_height + layout.axis_height));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const bool interleaved = timeline.kind == ScheduleKind::interleaved && timeline.virtual_chunks > 1;
    const double now = std::min(t, timeline.makespan_seconds);
    const float inset = layout.row_height * 0.08f;
    const float gap = std::min(font * 0.05f, (axis.x1 - axis.x0) / float(axis.longest_seconds) * 0.05f);
    const std::vector<double> inflight = core::inflight_activations_at(timeline, t);

    // Column header for the live in-flight count.
    const float inflight_x = origin.x + width - layout.inflight_width;
    // Rows thinner than a line (two grids of many stages against a baseline) are labelled every few rows.
    const int label_stride = std::max(1, static_cast<int>(std::ceil(font * 1.05f / layout.row_height)));
    for (int device = 0; device < timeline.stages; ++device) {
        const float top = origin.y + layout.row_height * float(device);
        const float bottom = top + layout.row_height;
        const bool labelled = device % label_stride == 0;
        char label[16];
        std::snprintf(label, sizeof label, "GPU %d", device + 1);
        if (labelled) draw->AddText(ImVec2(origin.x, (top + bottom - font) * 0.5f), colors.text_dim, label);
        // The whole step's extent as an outline; what has elapsed of it is idle grey until an op covers it.
        draw->AddRect(ImVec2(axis.x0, top + inset), ImVec2(axis.x_of(timeline.makespan_seconds), bottom - inset),
                      colors.grid, 0, 0, std::max(1.0f, font * 0.05f));
        if (now > 0)
            draw->AddRectFilled(ImVec2(axis.x0, top + inset), ImVec2(axis.x_of(now), bottom - inset), colors.idle);
        const std::string count = count_text(inflight[device]) + " (" +
                                  count_text(timeline.peak_inflight_activations[device]) + ")";
        const float count_width = ImGui::CalcTextSize(count.c_str()).x;
        if (labelled)
            draw->AddText(ImVec2(inflight_x + layout.inflight_width - font * 0.8f - count_width, (top + bottom - font) * 0.5f),
                          colors.text, count.c_str());
    }

    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const PipelineOp* hovered = nullptr;
    for (const PipelineOp& op : timeline.ops) {
        const float cell_top = origin.y + layout.row_height * float(op.device) + inset;
        const float cell_bottom = cell_top + layout.row_height - 2 * inset;
        // An F&B cell's forward fills its top half, its backward the bottom half; one outline goes round both.
        const float middle = (cell_top + cell_bottom) * 0.5f;
        const float top = op.overlapped && op.kind != PipelineOpKind::forward ? middle : cell_top;
        const float bottom = op.overlapped && op.kind == PipelineOpKind::forward ? middle : cell_bottom;
        const ImVec2 min(axis.x_of(op.start_seconds) + gap, top);
        const ImVec2 max(std::max(min.x + 1.0f, axis.x_of(op.end_seconds()) - gap), bottom);
        const ImU32 fill = op_color(op, timeline.virtual_chunks);
        const double progress = core::op_progress(op, t);
        // What has not run yet is drawn faintly, so the plan is readable before and while it fills.
        const float rounding = visible_rounding(font * 0.1f);
        if (progress < 1) draw->AddRectFilled(min, max, with_alpha(fill, kGhostAlpha), rounding);
        if (progress > 0) {
            const float run_x = axis.x_of(op.start_seconds + op.duration_seconds * progress) - gap;
            draw->AddRectFilled(min, progress < 1 ? ImVec2(std::max(min.x + 1.0f, run_x), bottom) : max, fill, rounding);
        }
        if (op.overlapped && op.kind != PipelineOpKind::forward)
            draw->AddRect(ImVec2(min.x, cell_top), max, progress > 0 ? colors.text : with_alpha(colors.text, 0.55f), rounding, 0,
                          std::max(1.0f, font * 0.08f));
        draw_op_label(draw, op, interleaved, min, max,
                      progress >= 0.5 ? label_color_on(fill) : with_alpha(colors.text, 0.55f));
        if (!exporting && mouse.x >= min.x && mouse.x < max.x && mouse.y >= min.y && mouse.y < max.y) hovered = &op;
    }

    // "Now" marker while the step is still running.
    if (t < timeline.makespan_seconds) {
        const float x = axis.x_of(t);
        draw->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + rows_height), colors.text,
                      std::max(1.0f, font * 0.08f));
    }
    const float end_x = axis.x_of(timeline.makespan_seconds);
    draw->AddLine(ImVec2(end_x, origin.y), ImVec2(end_x, origin.y + rows_height), colors.axis,
                  std::max(1.0f, font * 0.06f));
    draw_time_axis(draw, axis, origin.y + rows_height + font * 0.2f);

    if (hovered) {
        ImGui::BeginTooltip();
        ImGui::Text("GPU %d, micro-batch %d", hovered->device + 1, hovered->microbatch + 1);
        if (timeline.virtual_chunks > 1) ImGui::Text("chunk %d of %d, model stage %d", hovered->chunk + 1, timeline.virtual_chunks, hovered->stage + 1);
        ImGui::Text("%s%s", op_kind_text(hovered->kind), hovered->overlapped ? ", overlapped with the other half of its F&B cell" : "");
        ImGui::Text("%s to %s %s", core::format_number(hovered->start_seconds / axis.unit_seconds).c_str(),
                    core::format_number(hovered->end_seconds() / axis.unit_seconds).c_str(), axis.unit);
        ImGui::EndTooltip();
    }
}

// ---- Figures beside a timeline ----


// DualPipe's figures are the DualPipe table's columns: the bubble on the most idle GPU, parameters, activations.
void draw_dualpipe_figures(const ScheduleTimeline& timeline, const ScheduleParams& params, const ClosedFormText& closed) {
    const core::SchedulePlacement placement = core::schedule_placement(params.kind, params.stages, params.virtual_chunks);
    figure("Bubble", core::format_percent(timeline.bubble_fraction) + " of GPU-time idle",
           "idle / makespan, measured from the ops and averaged over the GPUs: GPUs nearer the ends run fewer F&B cells",
           closed.source);
    figure("Idle, most idle GPU", core::format_number(timeline.max_idle_seconds) + " T_F",
           "where the two directions meet; the table's bubble column", closed.source);
    dim_text(std::string("  table ") + closed.bubble_fraction + " = " + core::format_number(core::closed_form_idle_seconds(params)) + " T_F");
    figure("Step", core::format_number(timeline.makespan_seconds) + " T_F, ideal " +
                       core::format_number(timeline.busy_seconds_per_device) + " T_F");
    const int peak = timeline.peak_inflight_microbatches.empty()
                         ? 0
                         : *std::max_element(timeline.peak_inflight_microbatches.begin(), timeline.peak_inflight_microbatches.end());
    figure("Peak in flight, any GPU", core::format_counted(peak, "chunk", "chunks") + " of L/PP layers",
           "(micro-batch, chunk) pairs whose forward ran and whose backward or W has not; the table's activation column",
           closed.source);
    dim_text(std::string("  table ") + closed.peak_inflight + " = " + std::to_string(core::closed_form_peak_inflight(params)));
    figure("Parameters per GPU", std::to_string(placement.stages_per_device) + " of PP = " + std::to_string(placement.model_stages) +
                                     " stages: 2x at equal PP, " + core::format_plain(placement.parameter_copies()) + "x at equal GPUs",
           params.kind == ScheduleKind::dualpipe ? "GPU d holds stage d and stage PP-1-d: every stage twice, once per direction"
                                                 : "GPU d holds stage d and stage 2p-1-d: 2p stages in a V on p GPUs",
           closed.source);
}

void draw_figures(const ScheduleTimeline& timeline, const ScheduleParams& params) {
    const ClosedFormText closed = closed_form_text(params.kind);
    const bool applies = core::closed_form_applies(params);
    if (is_dualpipe(params.kind)) {
        draw_dualpipe_figures(timeline, params, closed);
        if (!applies) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warning));
            wrapped_text(params.p2p_seconds > 0 ? "The table assumes free send/recv: measured differs."
                                                : "The table's bubble holds for input grad B = F and W <= F, as in its figure: measured differs.");
            ImGui::PopStyleColor();
        }
        return;
    }
    figure("Bubble", core::format_percent(timeline.bubble_fraction) + " of GPU-time idle",
           "1 - busy / makespan, measured from the ops: busy " +
               core::format_number(timeline.busy_seconds_per_device) + " T_F per GPU, makespan " +
               core::format_number(timeline.makespan_seconds) + " T_F",
           closed.source);
    dim_text(std::string("  closed form ") + closed.bubble_fraction + " = " +
             core::format_percent(core::closed_form_bubble_fraction(params)));
    figure("Overhead", core::format_percent(timeline.bubble_overhead) + " on top of compute",
           "(makespan - busy) / busy: the papers' bubble time over ideal time", closed.source);
    dim_text(std::string("  closed form ") + closed.bubble_overhead + " = " +
             core::format_percent(core::closed_form_bubble_overhead(params)));
    figure("Step", core::format_number(timeline.makespan_seconds) + " T_F, ideal " +
                       core::format_number(timeline.busy_seconds_per_device) + " T_F");

    const int peak = timeline.peak_inflight_microbatches.empty() ? 0 : timeline.peak_inflight_microbatches[0];
    if (params.kind == ScheduleKind::interleaved && params.virtual_chunks > 1) {
        figure("Peak in flight, GPU 1", count_text(timeline.peak_inflight_activations[0]) + " micro-batches",
               "(micro-batch, chunk) pairs whose forward ran and whose backward has not, each holding 1/v of the "
               "GPU's layers: Korthikanti et al. 2022 eq. 5, p(1 + (p-1)/(p v))",
               closed.source);
        dim_text("  " + std::to_string(peak) + " chunk-micro-batches; closed form " + closed.peak_inflight + " = " +
                 std::to_string(core::closed_form_peak_inflight(params)));
    } else {
        figure("Peak in flight, GPU 1", core::format_counted(peak, "micro-batch", "micro-batches"),
               params.kind == ScheduleKind::zb_h1
                   ? "forward ran, W not yet done: every GPU keeps p in flight, some only awaiting W"
                   : "forward ran, backward not yet done",
               closed.source);
        dim_text(std::string("  closed form ") + closed.peak_inflight + " = " +
                 std::to_string(core::closed_form_peak_inflight(params)));
    }
    if (!applies) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warning));
        wrapped_text(params.p2p_seconds > 0 ? "Closed forms assume free send/recv: measured differs."
                                            : "ZB-H1's closed form assumes m >= p: measured differs.");
        ImGui::PopStyleColor();
    }
}

void draw_schedule_section(PipelinePanelState& state, int index, const TimeAxis& axis_template,
                           const GridLayout& layout, double t, bool exporting) {
    const float font = ImGui::GetFontSize();
    const float figures_width = font * 22.0f;
    // The figures beside the grid while it keeps 24 em, else under it (beside the sidebar, zoomed), the grid then whole.
    const float available = ImGui::GetContentRegionAvail().x;
    const bool figures_beside = available - figures_width - font >= font * 24.0f;
    const float grid_width = figures_beside ? available - figures_width - font : std::max(font * 16.0f, available);

    ImGui::PushID(index);
    const ImVec2 header_origin = ImGui::GetCursorScreenPos();
    ImGui::SetNextItemWidth(font * 19.0f);
    if (figure_mode()) {  // a document names the schedule; the choice is the live window's
        ImGui::AlignTextToFramePadding();
        ImGui::PushFont(fonts().bold);
        ImGui::TextUnformatted(schedule_title(state.kinds[index]));
        ImGui::PopFont();
    } else if (ImGui::BeginCombo("##schedule", schedule_title(state.kinds[index]))) {
        for (ScheduleKind kind : kAllKinds) {
            if (ImGui::Selectable(schedule_title(kind), kind == state.kinds[index])) {
                state.kinds[index] = kind;
                constrain_microbatches(state);
            }
        }
        ImGui::EndCombo();
    }
    // Header of the live in-flight column, centred over it on the combo's line, or on a line of its own when the combo
    // (or the schedule's name) reaches that far.
    const float header_width = ImGui::CalcTextSize(kInflightHeader).x;
    const float header_x = header_origin.x + grid_width - (layout.inflight_width + header_width) * 0.5f;
    const float title_right = figure_mode() ? header_origin.x + ImGui::CalcTextSize(schedule_title(state.kinds[index])).x
                                            : header_origin.x + font * 19.0f;
    if (header_x >= title_right + font * 0.5f) {
        ImGui::GetWindowDrawList()->AddText(ImVec2(header_x, header_origin.y + ImGui::GetStyle().FramePadding.y), palette().text_dim,
                                            kInflightHeader);
    } else {
        const ImVec2 line = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddText(ImVec2(std::max(line.x, header_x), line.y), palette().text_dim, kInflightHeader);
        ImGui::Dummy(ImVec2(header_width, ImGui::GetTextLineHeight()));
    }

    const ScheduleTimeline& timeline = state.timelines[index];
    if (!state.errors[index].empty()) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().over_budget), "%s", state.errors[index].c_str());
        ImGui::PopID();
        return;
    }
    TimeAxis axis = axis_template;
    const ImVec2 grid_origin = ImGui::GetCursorScreenPos();
    axis.x0 = grid_origin.x + layout.label_width;
    axis.x1 = grid_origin.x + grid_width - layout.inflight_width - font * 3.2f;

    ImGui::BeginGroup();
    draw_timeline(timeline, axis, layout, t, grid_width, exporting);
    ImGui::EndGroup();
    if (figures_beside) ImGui::SameLine(0, font);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(figures_beside ? ImGui::GetCursorPosX() + figures_width : 0.0f);
    draw_figures(timeline, state.cached_params[index]);
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    ImGui::PopID();
}

// ---- Against a pinned baseline: the two scenarios' own step schedules ----

void refresh_compared(PipelinePanelState& state, const PanelContext& ctx) {
    if (state.compared_scenario_revision == ctx.scenario_revision && state.compared_baseline_revision == ctx.baseline->revision) return;
    state.compared_scenario_revision = ctx.scenario_revision;
    state.compared_baseline_revision = ctx.baseline->revision;
    const core::Scenario* sides[2] = {ctx.baseline->scenario, &ctx.scenario};
    for (int i = 0; i < 2; ++i) {
        state.compared_errors[i].clear();
        try {
            state.compared_params[i] = core::scenario_schedule_params(*sides[i]);
            state.compared[i] = core::generate_schedule(state.compared_params[i]);
        } catch (const std::exception& error) {
            state.compared[i] = ScheduleTimeline{};
            state.compared_errors[i] = error.what();
        }
    }
}

// A time unit the longer step reads in without long decimals.
void set_axis_unit(TimeAxis& axis) {
    if (axis.longest_seconds < 2e-3) {
        axis.unit_seconds = 1e-6;
        axis.unit = "us";
    } else if (axis.longest_seconds < 2.0) {
        axis.unit_seconds = 1e-3;
        axis.unit = "ms";
    } else {
        axis.unit_seconds = 1.0;
        axis.unit = "s";
    }
}

void draw_compared_figures(const PipelinePanelState& state, int index, const PanelContext& ctx) {
    const ScheduleTimeline& timeline = state.compared[index];
    figure("Bubble", core::format_percent(timeline.bubble_fraction) + " of GPU-time idle",
           "1 - busy / makespan, measured from the generated schedule of the step model's ops");
    figure("Pipelined step", core::format_seconds(timeline.makespan_seconds));
    if (index == 0) return;
    const ScheduleTimeline& before = state.compared[0];
    const core::FigureComparison step = core::compare_figure("Pipelined step", before.makespan_seconds, timeline.makespan_seconds, core::FigureUnit::seconds);
    const core::FigureComparison bubble = core::compare_figure("Bubble", before.bubble_fraction, timeline.bubble_fraction, core::FigureUnit::fraction);
    figure_change_line(step);
    dim_text("  bubble vs baseline: " + bubble.against);
    (void)ctx;
}

void draw_compared_section(PipelinePanelState& state, int index, const TimeAxis& axis_template, const GridLayout& layout, double t,
                           const PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    const float figures_width = font * 22.0f;
    const float grid_width = std::max(font * 20.0f, ImGui::GetContentRegionAvail().x - figures_width - font);
    ImGui::PushID(index + 2);
    const ScheduleParams& params = state.compared_params[index];
    const std::string title = std::string(index == 0 ? "Baseline: " : "Scenario: ") + schedule_title(params.kind) + ", p = " +
                              std::to_string(params.stages) + ", m = " + std::to_string(params.microbatches);
    ImGui::PushFont(fonts().bold);
    if (index == 0) ImGui::PushStyleColor(ImGuiCol_Text, color4(baseline_ink()));
    ImGui::TextUnformatted(fit_text(title, grid_width).c_str());
    if (index == 0) ImGui::PopStyleColor();
    ImGui::PopFont();
    if (!state.compared_errors[index].empty()) {
        ImGui::TextColored(color4(palette().over_budget), "%s", state.compared_errors[index].c_str());
        ImGui::PopID();
        return;
    }
    TimeAxis axis = axis_template;
    const ImVec2 grid_origin = ImGui::GetCursorScreenPos();
    axis.x0 = grid_origin.x + layout.label_width;
    axis.x1 = grid_origin.x + grid_width - layout.inflight_width - font * 3.2f;
    ImGui::BeginGroup();
    draw_timeline(state.compared[index], axis, layout, t, grid_width, ctx.exporting);
    ImGui::EndGroup();
    ImGui::SameLine(0, font);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + figures_width);
    draw_compared_figures(state, index, ctx);
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    ImGui::PopID();
}

void draw_compared(PipelinePanelState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    refresh_compared(state, ctx);
    dim_text("The baseline's step schedule above the scenario's, each op as long as the step model times it (unpin the baseline for "
             "the schedule sandbox).");
    TimeAxis axis;
    axis.longest_seconds = std::max({state.compared[0].makespan_seconds, state.compared[1].makespan_seconds, 1e-12});
    set_axis_unit(axis);
    Playback& playback = ctx.playback;
    playback.set_timeline({kAnimationSeconds, kAnimationSeconds / 24.0});
    const double t = std::clamp(playback.t_seconds, 0.0, kAnimationSeconds) / kAnimationSeconds * axis.longest_seconds;
    const std::string caption = "step time " + core::format_seconds(t) + " of " + core::format_seconds(axis.longest_seconds);
    draw_transport(playback, caption.c_str());
    PipelinePanelState legend = state;
    legend.kinds[0] = state.compared_params[0].kind;
    legend.kinds[1] = state.compared_params[1].kind;
    draw_legend(legend, true);
    ImGui::Spacing();

    GridLayout layout;
    layout.label_width = ImGui::CalcTextSize("GPU 16").x + font * 0.6f;
    layout.inflight_width = ImGui::CalcTextSize(kInflightHeader).x + font * 0.4f;
    layout.axis_height = font * 1.8f;
    const float section_chrome = ImGui::GetTextLineHeightWithSpacing() + layout.axis_height + ImGui::GetStyle().ItemSpacing.y * 3.0f;
    const float rows_budget = ImGui::GetContentRegionAvail().y * 0.5f - section_chrome;
    const int rows = std::max({state.compared[0].stages, state.compared[1].stages, 1});
    layout.row_height = std::clamp(rows_budget / float(rows), font * 0.5f, font * 2.4f);
    for (int index = 0; index < 2; ++index) {
        if (index == 1) ImGui::Separator();
        draw_compared_section(state, index, axis, layout, t, ctx);
    }
}

void draw_pipeline_panel(PipelinePanelState& state, PanelContext& ctx) {
    if (ctx.baseline) {
        draw_compared(state, ctx);
        return;
    }
    seed_from_scenario(state, ctx);
    const float font = ImGui::GetFontSize();

    draw_controls(state, ctx);
    refresh_timelines(state);

    TimeAxis axis;
    axis.longest_seconds = std::max({state.timelines[0].makespan_seconds, state.timelines[1].makespan_seconds, 1e-9});
    Playback& playback = ctx.playback;
    playback.set_timeline({kAnimationSeconds, kAnimationSeconds / axis.longest_seconds});  // one T_F per step
    const double t = std::clamp(playback.t_seconds, 0.0, kAnimationSeconds) / kAnimationSeconds * axis.longest_seconds;
    char caption[64];
    std::snprintf(caption, sizeof caption, "step time %s of %s T_F", core::format_number(t).c_str(),
                  core::format_number(axis.longest_seconds).c_str());
    draw_transport(playback, caption);
    draw_legend(state);
    ImGui::Spacing();

    GridLayout layout;
    layout.label_width = ImGui::CalcTextSize("GPU 16").x + font * 0.6f;
    layout.inflight_width = ImGui::CalcTextSize(kInflightHeader).x + font * 0.4f;
    layout.axis_height = font * 1.8f;
    const float section_chrome =
        ImGui::GetFrameHeightWithSpacing() + layout.axis_height + ImGui::GetStyle().ItemSpacing.y * 3.0f;
    const float rows_budget = ImGui::GetContentRegionAvail().y * 0.5f - section_chrome;
    layout.row_height = std::clamp(rows_budget / float(state.stages), font * 1.05f, font * 2.4f);

    for (int index = 0; index < 2; ++index) {
        if (index == 1) ImGui::Separator();
        draw_schedule_section(state, index, axis, layout, t, ctx.exporting);
    }
}

}  // namespace

PanelDef make_pipeline_panel() {
    auto state = std::make_shared<PipelinePanelState>();
    return {"pipeline", "Pipeline schedules", [state](PanelContext& ctx) { draw_pipeline_panel(*state, ctx); }, "Pipeline"};
}

}  // namespace widgets
