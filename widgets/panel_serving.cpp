// The serving wall, done right: what a replica's batch buys in throughput per GPU and costs in latency, the KV cache filling
// HBM as the batch grows, prefill and decode on the roofline (decode climbing with the batch), and replicas x TP against
// the target rate. Every figure is core's (core/cost/serving/serving.h); this file lays them out.
#include "core/cost/kernels/roofline.h"
#include "core/cost/serving/serving.h"
#include "core/cost/serving/serving_text.h"
#include "core/model/format.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct ServingPanelOptions {
    float plot_min_height_em = 12.5f;   // side by side, below this a plot is unreadable: the panel scrolls instead
    float stacked_min_height_em = 15.0f; // one above the other (a narrow window), each plot at least this tall
    float two_columns_min_em = 56.0f;   // narrower than this, the four figures stack in one column
    float control_width_em = 9.0f;      // one slider of the service
};

// What the figures draw, prepared once per scenario revision: core's curves, and the texts and lines made of them.
struct Prepared {
    core::ServingCurves curves;
    core::ServingText text;
    std::string header;                                  // the answer, bold
    std::string asked;                                   // the load and what it runs on, dim
    std::string tpot_target;                             // "TPOT target 200 ms"
    std::vector<std::string> shape_labels;               // "TP 4", per throughput-latency curve
    std::vector<std::vector<double>> tpot, throughput;   // per curve
    std::vector<std::string> end_labels;                 // "batch 256"
    std::vector<double> kv_batches, kv_gb;               // weights + activations + KV cache, GB per GPU
    std::string hbm, usable, held;                       // the KV plot's labels
    std::vector<double> decode_intensity, decode_flops;  // the roofline's decode trail
    std::string decode_top;                              // "batch 256": its last point
    std::vector<std::vector<std::string>> rows;          // the shapes table's cells
    float widths_font = 0;                               // the font size the column widths were measured at
    std::vector<float> widths;
};

struct ServingPanelState {
    ServingPanelOptions options;
    std::uint64_t revision = ~0ull;          // the scenario revision `prepared` was made for
    Prepared prepared;
    std::string error;                       // why the curves could not be computed
};

// Lines and markers per replica shape: the palette's categorical colours, and a marker shape each, so TP 2 and TP 4
// stay apart without colour.
ImU32 shape_color(int index) { return palette().series[index % 8]; }
MarkerShape shape_marker(int index) {
    constexpr MarkerShape shapes[] = {MarkerShape::circle, MarkerShape::square, MarkerShape::diamond, MarkerShape::triangle, MarkerShape::ring};
    return shapes[index % 5];
}

// A slider's value text is core's formatting, with '%' escaped for ImGui's format string.
std::string literal(const std::string& text) {
    std::string escaped;
    for (char c : text) escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
}

void control_label(const char* label, float width) {
    same_line_if_fits(labelled_width(width, label), ImGui::GetStyle().ItemSpacing.x);
    ImGui::SetNextItemWidth(width);
}

// The service's own knobs: the rate, the lengths, the targets, the precisions. The app re-evaluates after the frame.
void draw_controls(ServingPanelState& state, core::ServingSpec& serving) {
    const float em = ImGui::GetFontSize();
    const float width = state.options.control_width_em * em;
    const core::ServingSpec before = serving;
    ImGui::NewLine();
    float rate = static_cast<float>(serving.target_qps);
    control_label("rate", width);
    if (slider_float("rate", &rate, 0.01f, 10000.0f, literal(core::format_number(serving.target_qps) + " QPS").c_str(), ImGuiSliderFlags_Logarithmic))
        serving.target_qps = std::clamp(static_cast<double>(rate), 0.01, 10000.0);
    explain_last_item("Queries per second the service must answer.");
    int prompt = serving.prompt_tokens;
    control_label("prompt", width);
    if (slider_int("prompt", &prompt, 16, 131072, literal(core::format_whole(serving.prompt_tokens) + " tokens").c_str(), ImGuiSliderFlags_Logarithmic))
        serving.prompt_tokens = std::clamp(prompt, 16, 131072);
    int output = serving.output_tokens;
    control_label("output", width);
    if (slider_int("output", &output, 1, 32768, literal(core::format_whole(serving.output_tokens) + " tokens").c_str(), ImGuiSliderFlags_Logarithmic))
        serving.output_tokens = std::clamp(output, 1, 32768);
    float ttft = static_cast<float>(serving.ttft_ms);
    control_label("TTFT", width);
    if (slider_float("TTFT", &ttft, 10.0f, 60000.0f, literal("<= " + core::format_seconds(serving.ttft_ms * 1e-3)).c_str(), ImGuiSliderFlags_Logarithmic))
        serving.ttft_ms = std::clamp(static_cast<double>(ttft), 10.0, 60000.0);
    explain_last_item("Time to first token: the prompt's prefill, after the decode step in flight.");
    float tpot = static_cast<float>(serving.tpot_ms);
    control_label("TPOT", width);
    if (slider_float("TPOT", &tpot, 1.0f, 1000.0f, literal("<= " + core::format_seconds(serving.tpot_ms * 1e-3)).c_str(), ImGuiSliderFlags_Logarithmic))
        serving.tpot_ms = std::clamp(static_cast<double>(tpot), 1.0, 1000.0);
    explain_last_item("Time per output token: one decode step of the batch, with the prompts prefilled meanwhile.");
    constexpr const char* precision_names[] = {"bf16", "fp8", "int4"};
    constexpr double precision_bytes[] = {2.0, 1.0, 0.5};
    int weights = serving.weight_bytes_per_param >= 2 ? 0 : serving.weight_bytes_per_param >= 1 ? 1 : 2;
    control_label("weights", width * 0.6f);
    if (ImGui::Combo("weights", &weights, precision_names, 3)) serving.weight_bytes_per_param = precision_bytes[weights];
    int kv = serving.kv_bytes_per_element >= 2 ? 0 : 1;
    control_label("KV cache", width * 0.6f);
    if (ImGui::Combo("KV cache", &kv, precision_names, 2)) serving.kv_bytes_per_element = precision_bytes[kv];
    if (!(serving == before)) serving.asked = true;  // moving a service's control asks about that service
}

const std::vector<std::string> kShapeHeaders = {"Replicas", "KV batch", "Batch", "TTFT", "TPOT", "Tokens/s per GPU", "GPUs"};

Prepared prepare(const core::Scenario& scenario, const core::Report& report) {
    Prepared p;
    const core::ServingReport& serving = report.serving;
    p.curves = core::serving_curves(scenario, serving);
    p.text = core::serving_text(scenario, serving);
    const bool meets = serving.answer.verdict == core::ServingVerdict::meets;
    p.header = "Serving: " + p.text.answer + " (" +
               (meets ? core::format_percent(serving.fraction) + " of " + core::format_counted(serving.gpu_budget, "GPU", "GPUs") : std::string("unmet")) + ")";
    p.asked = "Asked: " + p.text.load + "; " + p.text.precision + ".";
    p.tpot_target = "TPOT target " + core::format_seconds(scenario.serving.tpot_ms * 1e-3);
    for (const core::ServingCurve& curve : p.curves.throughput_latency) {
        p.shape_labels.push_back(core::replica_shape_label(curve.shape));
        std::vector<double> xs, ys;
        for (const core::ServingCurvePoint& point : curve.points) {
            xs.push_back(point.tpot_seconds);
            ys.push_back(point.tokens_per_s_per_gpu);
        }
        p.tpot.push_back(xs);
        p.throughput.push_back(ys);
        p.end_labels.push_back("batch " + core::format_whole(curve.points.back().batch));
    }
    const core::ReplicaMemory& memory = p.curves.memory;
    const double fixed = (memory.weight_bytes + memory.activation_bytes) * 1e-9;
    for (const core::KvFillPoint& point : p.curves.kv_fill) {
        p.kv_batches.push_back(point.batch);
        p.kv_gb.push_back(fixed + point.kv_bytes * 1e-9);
    }
    p.hbm = "HBM " + core::format_bytes(memory.hbm_bytes);
    p.usable = "the engine's share " + core::format_bytes(memory.usable_bytes);
    p.held = "the KV cache holds " + core::format_whole(memory.kv_batch) + " x " + core::format_bytes(memory.kv_bytes_per_sequence) +
             (memory.kv_batch > memory.max_batch ? "; max_batch " + core::format_whole(memory.max_batch) : std::string());
    for (const core::RooflinePassPoint& point : p.curves.roofline) {
        if (point.prefill) continue;
        p.decode_intensity.push_back(point.intensity_flops_per_byte);
        p.decode_flops.push_back(point.flops_per_s);
        p.decode_top = "batch " + core::format_whole(point.batch);
    }
    for (const core::ServingShapeRow& row : p.curves.shapes) {
        if (!row.fits) {
            p.rows.push_back({core::replica_shape_label(row.shape), "", "does not fit", "", "", "", ""});
            continue;
        }
        p.rows.push_back({row.meets ? core::format_whole(row.replicas) + " x " + core::replica_shape_label(row.shape) : core::replica_shape_label(row.shape),
                          core::format_whole(row.max_batch), core::format_whole(row.point.batch), core::format_seconds(row.point.ttft_seconds),
                          core::format_seconds(row.point.tpot_seconds), core::format_number(row.point.tokens_per_s_per_gpu),
                          row.meets ? core::format_whole(row.gpus) : "misses"});
    }
    return p;
}

void draw_header(const Prepared& p, const core::Report& report) {
    const Palette& colors = palette();
    const core::ServingReport& serving = report.serving;
    const bool within = serving.answer.verdict == core::ServingVerdict::meets && serving.fraction <= 1.0;
    ImGui::PushFont(fonts().bold);
    ImGui::PushStyleColor(ImGuiCol_Text, color4(within ? colors.within_budget : colors.over_budget));
    wrapped_text(p.header);
    ImGui::PopStyleColor();
    ImGui::PopFont();
    dim_text(p.asked);
    if (!p.text.shortfall.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(colors.warning));
        wrapped_text(p.text.shortfall);
        ImGui::PopStyleColor();
    }
}

// Throughput per GPU against TPOT as the batch doubles, one line per replica shape: the curve serving engineers know.
void draw_throughput_latency(const Prepared& p, const core::Scenario& scenario, const core::Report& report, ImVec2 size, bool hover) {
    const core::ServingCurves& curves = p.curves;
    const Palette& colors = palette();
    const double target_seconds = scenario.serving.tpot_ms * 1e-3;
    section_heading(fit_variant({"Throughput per GPU against latency as the batch doubles", "Throughput per GPU against latency"},
                                ImGui::GetContentRegionAvail().x).c_str());
    double x_low = target_seconds, x_high = target_seconds, y_low = 1e30, y_high = 0;
    for (std::size_t i = 0; i < p.tpot.size(); ++i) {
        for (double x : p.tpot[i]) x_low = std::min(x_low, x), x_high = std::max(x_high, x);
        for (double y : p.throughput[i]) y_low = std::min(y_low, y), y_high = std::max(y_high, y);
    }
    if (p.tpot.empty() || !(y_high > 0)) {
        dim_text("No replica shape holds the weights and one sequence's KV cache: nothing to plot.");
        return;
    }
    LogPlotAxes axes;
    axes.x_title = "time per output token (s)";
    axes.y_title = "output tokens/s per GPU";
    axes.x_min = std::pow(10.0, std::floor(std::log10(x_low)));
    axes.x_max = std::pow(10.0, std::ceil(std::log10(x_high * 1.05)));
    axes.y_min = std::pow(10.0, std::floor(std::log10(y_low)));
    axes.y_max = std::pow(10.0, std::ceil(std::log10(y_high * 1.5)));
    axes.legend = LegendCorner::bottom_right;
    if (!BeginLogPlot("##throughput_latency", size, axes)) return;
    PlotVLine("##tpot target", target_seconds, colors.over_budget, 0.08f, 0.4f);
    PlotText(target_seconds, axes.y_max, p.tpot_target.c_str(), colors.over_budget, ImVec2(0.0f, 0.0f), ImVec2(0.3f, 0.3f));
    for (std::size_t i = 0; i < p.tpot.size(); ++i) {
        const ImU32 color = shape_color(static_cast<int>(i));
        const std::vector<double>& xs = p.tpot[i];
        const std::vector<double>& ys = p.throughput[i];
        PlotLine(p.shape_labels[i].c_str(), xs.data(), ys.data(), static_cast<int>(xs.size()), color, 0.12f);
        const core::ServingCurve& curve = curves.throughput_latency[i];
        // Each batch marked on the answer's shape (or the fastest, where none meets the targets); the others are lines.
        if (!(curve.shape == report.serving.answer.shape)) {
            PlotTextIfRoom(xs.back(), ys.back(), p.end_labels[i].c_str(), color, ImVec2(0.0f, 0.5f), ImVec2(0.5f, 0.0f));
            continue;
        }
        for (std::size_t j = 0; j < xs.size(); ++j) {
            const bool hovered = PlotPoint("##batch", xs[j], ys[j], color, 0.25f, shape_marker(static_cast<int>(i)));
            if (hovered && hover) {
                const core::ServingCurvePoint& point = curve.points[j];
                ImGui::SetTooltip("%s, batch %s: TPOT %s, TTFT %s, %s tokens/s per GPU%s", p.shape_labels[i].c_str(),
                                  core::format_whole(point.batch).c_str(), core::format_seconds(point.tpot_seconds).c_str(),
                                  core::format_seconds(point.ttft_seconds).c_str(), core::format_number(point.tokens_per_s_per_gpu).c_str(),
                                  point.meets ? "" : " (misses a target)");
            }
        }
        PlotTextIfRoom(xs.back(), ys.back(), p.end_labels[i].c_str(), color, ImVec2(0.0f, 0.5f), ImVec2(0.5f, 0.0f));
    }
    const core::ServingAnswer& answer = report.serving.answer;
    if (answer.verdict == core::ServingVerdict::meets) {
        PlotPoint("the answer's operating point", answer.point.tpot_seconds, answer.point.tokens_per_s_per_gpu, colors.text, 0.45f, MarkerShape::ring);
    }
    EndLogPlot();
}

// Per GPU of the answer's replica: the weights and activations, then the KV cache as the batch grows, against HBM.
void draw_kv_fill(const Prepared& p, const core::Report& report, ImVec2 size) {
    const core::ReplicaMemory& memory = p.curves.memory;
    const Palette& colors = palette();
    const std::string shape = core::replica_shape_label(report.serving.quoted_shape);
    section_heading(fit_variant({"The KV cache filling HBM, one GPU of " + shape, "KV cache filling HBM, " + shape}, ImGui::GetContentRegionAvail().x).c_str());
    if (p.kv_batches.empty()) return;
    LogPlotAxes axes;
    axes.x_title = "sequences in flight (batch)";
    axes.y_title = "GB per GPU";
    axes.x_min = 1;
    axes.x_max = std::max(2.0, p.kv_batches.back());
    axes.y_scale = AxisScale::linear;
    axes.y_min = 0;
    axes.y_max = memory.hbm_bytes * 1.15e-9;
    axes.legend = LegendCorner::top_left;
    if (!BeginLogPlot("##kv_fill", size, axes)) return;
    const double fixed = (memory.weight_bytes + memory.activation_bytes) * 1e-9;
    PlotHLine("##hbm", memory.hbm_bytes * 1e-9, colors.text_dim, 0.08f, 0.3f);
    PlotText(axes.x_max, memory.hbm_bytes * 1e-9, p.hbm.c_str(), colors.text_dim, ImVec2(1.0f, 1.0f), ImVec2(-0.3f, -0.2f));
    PlotHLine("##usable", memory.usable_bytes * 1e-9, colors.ceiling, 0.1f);
    PlotText(axes.x_max, memory.usable_bytes * 1e-9, p.usable.c_str(), colors.ceiling, ImVec2(1.0f, 0.0f), ImVec2(-0.3f, 0.2f));
    PlotHLine("weights + activations", fixed, colors.weights, 0.14f);
    PlotLine("+ KV cache", p.kv_batches.data(), p.kv_gb.data(), static_cast<int>(p.kv_batches.size()), colors.kv_cache, 0.16f);
    if (memory.max_batch > 0) {
        PlotVLine("##max batch", memory.max_batch, colors.kv_cache, 0.08f, 0.3f);
        PlotText(memory.max_batch, fixed * 0.5, p.held.c_str(), colors.kv_cache, ImVec2(1.0f, 0.5f), ImVec2(-0.3f, 0.0f));
    }
    EndLogPlot();
}

// Prefill (one prompt, compute-bound) and decode at batch 1, 2, 4 ... climbing the HBM slope on the answer's replica.
void draw_roofline(const Prepared& p, ImVec2 size, bool hover) {
    const core::ServingCurves& curves = p.curves;
    const Palette& colors = palette();
    section_heading(fit_variant({"Prefill and decode on the roofline, one GPU of the replica", "Prefill and decode on the roofline"},
                                ImGui::GetContentRegionAvail().x).c_str());
    if (curves.roofline.empty() || !(curves.roof.peak_flops_per_s > 0)) return;
    double x_low = 1e30, x_high = 0;
    for (const core::RooflinePassPoint& point : curves.roofline) {
        x_low = std::min(x_low, point.intensity_flops_per_byte);
        x_high = std::max(x_high, point.intensity_flops_per_byte);
    }
    const double ridge = core::ridge_flops_per_byte(curves.roof);
    LogPlotAxes axes;
    axes.x_title = "arithmetic intensity (FLOP/B)";
    axes.y_title = "achieved FLOP/s";
    axes.x_min = std::pow(10.0, std::floor(std::log10(std::min(x_low, ridge))));
    axes.x_max = std::pow(10.0, std::ceil(std::log10(std::max(x_high, ridge) * 1.5)));
    axes.y_max = std::pow(10.0, std::ceil(std::log10(curves.roof.peak_flops_per_s * 1.5)));
    axes.y_min = axes.y_max * 1e-5;
    axes.legend = LegendCorner::bottom_right;
    if (!BeginLogPlot("##serving_roofline", size, axes)) return;
    const std::vector<core::RoofVertex> roof = core::roof_outline(curves.roof, axes.x_min, axes.x_max);
    double rx[3], ry[3];
    int vertices = 0;
    for (const core::RoofVertex& vertex : roof) {
        if (vertices == 3) break;
        rx[vertices] = vertex.intensity_flops_per_byte;
        ry[vertices++] = vertex.flops_per_s;
    }
    PlotLine(curves.roof.label.c_str(), rx, ry, vertices, colors.ceiling, 0.14f);
    PlotLine("decode, batch 1 ... KV-cache batch", p.decode_intensity.data(), p.decode_flops.data(), static_cast<int>(p.decode_intensity.size()),
             colors.kv_cache, 0.1f);
    const core::RooflinePassPoint* last = nullptr;
    for (const core::RooflinePassPoint& point : curves.roofline) {
        const ImU32 color = point.prefill ? colors.compute : colors.kv_cache;
        const bool hovered = PlotPoint(point.prefill ? "prefill, one prompt" : "##decode", point.intensity_flops_per_byte, point.flops_per_s, color,
                                       point.prefill ? 0.4f : 0.25f, point.prefill ? MarkerShape::square : MarkerShape::circle);
        if (point.prefill) PlotText(point.intensity_flops_per_byte, point.flops_per_s, point.label.c_str(), color, ImVec2(1.0f, 1.0f), ImVec2(-0.5f, -0.4f));
        else last = &point;
        if (hovered && hover)
            ImGui::SetTooltip("%s: %s FLOP/B, %s", point.label.c_str(), core::format_number(point.intensity_flops_per_byte).c_str(),
                              core::format_flops_rate(point.flops_per_s).c_str());
    }
    if (last) {
        PlotTextIfRoom(p.decode_intensity.front(), p.decode_flops.front(), "batch 1", colors.kv_cache, ImVec2(0.0f, 0.0f), ImVec2(0.3f, 0.3f));
        PlotTextIfRoom(last->intensity_flops_per_byte, last->flops_per_s, p.decode_top.c_str(), colors.kv_cache, ImVec2(0.0f, 1.0f), ImVec2(0.3f, -0.3f));
    }
    EndLogPlot();
}

// Every replica shape against the target: the batch it runs, its latency, and the replicas the rate needs.
void draw_shapes(Prepared& p, const core::Scenario& scenario, const core::Report& report) {
    const core::ServingCurves& curves = p.curves;
    const Palette& colors = palette();
    const std::string rate = core::format_number(scenario.serving.target_qps) + " QPS";
    section_heading(fit_variant({"Replicas x TP for " + rate + ", each at the batch its share needs", "Replicas x TP for " + rate},
                                ImGui::GetContentRegionAvail().x).c_str());
    const core::ServingAnswer& answer = report.serving.answer;
    // Each column as wide as its widest cell, measured once per font size; the columns that do not fit are left out
    // (KV batch first, then tokens/s per GPU).
    const float font = ImGui::GetFontSize();
    if (p.widths_font != font) {
        p.widths_font = font;
        const float padding = ImGui::GetStyle().CellPadding.x * 2.0f + ImGui::GetStyle().ItemSpacing.x;
        p.widths.assign(kShapeHeaders.size(), 0.0f);
        for (std::size_t c = 0; c < kShapeHeaders.size(); ++c) {
            p.widths[c] = ImGui::CalcTextSize(kShapeHeaders[c].c_str()).x + padding;
            for (std::size_t r = 0; r < p.rows.size(); ++r) {
                if (!curves.shapes[r].fits && c >= 2) continue;  // "does not fit" runs over the empty cells beside it
                p.widths[c] = std::max(p.widths[c], ImGui::CalcTextSize(p.rows[r][c].c_str()).x + padding);
            }
        }
    }
    const std::vector<bool> shown = columns_that_fit(p.widths, {1, 5}, ImGui::GetContentRegionAvail().x);
    int columns = 0;
    for (bool show : shown) columns += show;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("serving_shapes", columns, flags)) return;
    for (std::size_t c = 0; c < kShapeHeaders.size(); ++c) {
        if (shown[c]) ImGui::TableSetupColumn(kShapeHeaders[c].c_str());
    }
    ImGui::TableHeadersRow();
    for (std::size_t r = 0; r < p.rows.size(); ++r) {
        const core::ServingShapeRow& row = curves.shapes[r];
        const bool chosen = answer.verdict == core::ServingVerdict::meets && row.shape == answer.shape;
        ImGui::TableNextRow();
        if (chosen) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, with_alpha(colors.within_budget, 0.3f));
        if (chosen) ImGui::PushFont(fonts().bold);
        for (std::size_t c = 0; c < kShapeHeaders.size(); ++c) {
            if (!shown[c]) continue;
            ImGui::TableNextColumn();
            const bool dim = !row.fits || (!row.meets && c >= 3);
            if (dim) ImGui::PushStyleColor(ImGuiCol_Text, color4(colors.text_dim));
            ImGui::TextUnformatted(p.rows[r][c].c_str());
            if (dim) ImGui::PopStyleColor();
        }
        if (chosen) ImGui::PopFont();
    }
    ImGui::EndTable();
    if (answer.verdict == core::ServingVerdict::meets) dim_text("Bold: the answer, the fewest GPUs (then the shortest TPOT).");
}

void draw_serving_panel(ServingPanelState& state, PanelContext& ctx) {
    ctx.playback.duration_seconds = 0;  // nothing animates: the batch is the axis
    if (ctx.scenario_revision != state.revision) {
        state.revision = ctx.scenario_revision;
        state.error.clear();
        try {
            state.prepared = prepare(ctx.scenario, ctx.report);
        } catch (const std::exception& error) {
            state.prepared = {};
            state.error = error.what();
        }
    }
    Prepared& p = state.prepared;
    const float em = ImGui::GetFontSize();
    if (!state.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().over_budget));
        wrapped_text("Cannot draw the serving figures: " + state.error);
        ImGui::PopStyleColor();
        return;
    }
    draw_header(p, ctx.report);
    if (ctx.baseline) dim_text("vs baseline: " + ctx.baseline->comparison->serving_text);
    if (!figure_mode()) draw_controls(state, ctx.scenario.serving);
    ImGui::Spacing();
    const bool hover = !ctx.exporting && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    const ImVec2 available = ImGui::GetContentRegionAvail();
    const bool two_columns = available.x >= state.options.two_columns_min_em * em;
    const float min_height = two_columns ? state.options.plot_min_height_em : state.options.stacked_min_height_em;
    const float row_height = std::max(min_height * em, available.y / (two_columns ? 2.0f : 4.0f));
    const float column_width = two_columns ? (available.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f : available.x;
    const float plot_height = row_height - ImGui::GetFrameHeightWithSpacing() - em * 0.6f;
    ImGui::BeginChild("serving_figures", ImVec2(0, 0), false);
    const auto cell = [&](const char* id, auto draw) {
        ImGui::BeginChild(id, ImVec2(column_width, row_height), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
        draw();
        ImGui::EndChild();
    };
    cell("throughput_latency", [&] { draw_throughput_latency(p, ctx.scenario, ctx.report, ImVec2(0, plot_height), hover); });
    if (two_columns) ImGui::SameLine();
    cell("kv_fill", [&] { draw_kv_fill(p, ctx.report, ImVec2(0, plot_height)); });
    cell("roofline", [&] { draw_roofline(p, ImVec2(0, plot_height), hover); });
    if (two_columns) ImGui::SameLine();
    cell("shapes", [&] { draw_shapes(p, ctx.scenario, ctx.report); });
    ImGui::EndChild();
}

}  // namespace

PanelDef make_serving_panel() {
    auto state = std::make_shared<ServingPanelState>();
    return {"serving", "Serving: prefill, decode, batching and replicas", [state](PanelContext& ctx) { draw_serving_panel(*state, ctx); }, "Serving"};
}

}  // namespace widgets
