// The roofline: kernels under the HBM roofs of the chosen GPUs, and the scenario's traffic under the network roofs.
#include "core/cost/report/anatomy.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/lessons/measured_points.h"
#include "core/cost/kernels/roofline.h"
#include "core/lessons/textbook_kernels.h"
#include "widgets/controls.h"
#include "widgets/comparison.h"
#include "widgets/figure.h"
#include "widgets/kernel_selection.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

constexpr core::Precision kPrecisions[] = {core::Precision::fp32, core::Precision::bf16, core::Precision::fp8};
constexpr float kPrecisionDash[] = {0.22f, 0.0f, 0.6f};  // fp32 short dashes, bf16 solid, fp8 long dashes
constexpr int kMaxDecodeDoublings = 10;                   // decode batch 1 .. 2^10 = 1024
constexpr double kDecodeAnimationSeconds = kMaxDecodeDoublings;  // one doubling of the batch per second

struct RooflineOptions {
    std::vector<char> gpu_shown;                 // by catalog index; empty until the first frame picks A100, H100, B200
    bool precision_shown[3] = {false, true, false};  // fp32, bf16, fp8 roofs
    int kernel_precision = 1;                    // kernels counted in bf16 (2 B per element)
    int gemm_mnk[3] = {4096, 4096, 4096};        // the editable GEMM
    bool flash_attention = true;                 // fused attention: only Q, K, V, O touch HBM
    bool show_measured = true;                   // the measured H100 overlay
    bool show_decode_trail = true;               // decode at b = 1, 2, 4 ... 1024, faint
    bool show_scenario_kernels = true;           // the scenario's own kernels, per GPU after sharding
};

// The CSV is parsed once per text the app hands over, not every frame.
struct MeasuredCache {
    const std::string* parsed_from = nullptr;
    std::size_t parsed_size = 0;
    std::vector<core::MeasuredPoint> points;
    std::string error;
};

// Against a pinned baseline: each kernel and each axis's traffic where it was, paired once per scenario and baseline.
struct BaselineMoves {
    std::uint64_t scenario_revision = 0, baseline_revision = 0;
    std::vector<core::KernelMove> kernels;
    std::vector<core::TrafficPoint> traffic;  // the baseline's
};

struct RooflinePanelState {
    RooflineOptions options;
    MeasuredCache measured;
    BaselineMoves moves;
};

const BaselineMoves* baseline_moves(RooflinePanelState& state, const PanelContext& ctx) {
    if (!ctx.baseline) return nullptr;
    BaselineMoves& moves = state.moves;
    if (moves.scenario_revision != ctx.scenario_revision || moves.baseline_revision != ctx.baseline->revision) {
        moves.scenario_revision = ctx.scenario_revision;
        moves.baseline_revision = ctx.baseline->revision;
        moves.kernels = core::kernel_moves(*ctx.baseline->report, ctx.report);
        moves.traffic = core::traffic_points(*ctx.baseline->scenario, *ctx.baseline->report);
    }
    return &moves;
}

struct KernelMark {
    core::PlacedKernel placed;
    std::string name;   // short, on the plot
    MarkerShape shape;
};

ImU32 gpu_color(int catalog_index) { return palette().series[(catalog_index + 1) % 8]; }

ImU32 bound_color(core::Bound bound) { return bound == core::Bound::memory ? palette().hbm : palette().compute; }

bool tooltips(const PanelContext& ctx) { return !ctx.exporting && explain_mode(); }

void show_tooltip(const std::string& text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    wrapped_text(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

const std::vector<core::MeasuredPoint>& measured_points(MeasuredCache& cache, const std::string& csv) {
    if (cache.parsed_from != &csv || cache.parsed_size != csv.size()) {
        cache.parsed_from = &csv;
        cache.parsed_size = csv.size();
        cache.points.clear();
        cache.error.clear();
        if (csv.empty()) {
            cache.error = "assets/h100_measured_roofline.csv was not loaded";
        } else {
            try {
                cache.points = core::parse_measured_points(csv, "h100_measured_roofline.csv");
            } catch (const core::InputError& error) {
                cache.error = error.what();
            }
        }
    }
    return cache.points;
}

int decode_batch_at(double t_seconds) {
    const double doublings = std::clamp(std::isfinite(t_seconds) ? t_seconds : 0.0, 0.0, double(kMaxDecodeDoublings));
    return static_cast<int>(std::lround(std::exp2(doublings)));
}

core::Ceiling kernel_ceiling(const core::Scenario& scenario, const RooflineOptions& options) {
    core::Ceiling ceiling = core::hbm_ceiling(scenario.cluster.gpu, kPrecisions[options.kernel_precision]);
    if (ceiling.peak_flops_per_s <= 0) ceiling = core::hbm_ceiling(scenario.cluster.gpu, core::Precision::bf16);
    return ceiling;
}

std::vector<KernelMark> place_kernels(const core::Scenario& scenario, const RooflineOptions& options,
                                      const core::Ceiling& ceiling, int decode_batch) {
    const double element = core::element_bytes(kPrecisions[options.kernel_precision]);
    const core::ModelSpec& model = scenario.model;
    const double d = model.hidden, tokens = scenario.train.seq_len;
    core::AttentionShape attention;
    attention.sequence = tokens;
    attention.head_dim = model.head_dim();
    attention.heads = model.heads;
    attention.flash = options.flash_attention;
    const core::KernelCost relu = core::relu_cost(tokens * model.ffn_hidden, element);
    std::vector<KernelMark> marks;
    marks.push_back({core::place_kernel(core::gemm_cost(options.gemm_mnk[0], options.gemm_mnk[1], options.gemm_mnk[2], element), ceiling),
                     "GEMM", MarkerShape::square});
    marks.push_back({core::place_kernel(core::prefill_cost(tokens, d, d, element), ceiling), "prefill", MarkerShape::triangle});
    marks.push_back({core::place_kernel(core::attention_cost(attention, element), ceiling),
                     options.flash_attention ? "flash attention" : "attention", MarkerShape::diamond});
    marks.push_back({core::place_kernel(relu, ceiling), "ReLU", MarkerShape::diamond});
    marks.push_back({core::place_kernel(core::decode_gemv_cost(decode_batch, d, d, element), ceiling),
                     "decode b=" + std::to_string(decode_batch), MarkerShape::circle});
    return marks;
}

std::string kernel_tooltip(const KernelMark& mark, const core::Ceiling& ceiling) {
    const core::PlacedKernel& placed = mark.placed;
    return placed.cost.label + " on " + ceiling.label + "\n" + placed.cost.formula + "\n" +
           core::format_flops(placed.cost.flops) + " over " + core::format_bytes(placed.cost.bytes) + " = " +
           core::format_number(placed.intensity_flops_per_byte) + " FLOP/B\n" + placed.explanation + "\n" +
           "time >= max(FLOPs / peak, bytes / bandwidth) = max(" + core::format_seconds(placed.compute_seconds) + ", " +
           core::format_seconds(placed.memory_seconds) + ") = " + core::format_seconds(placed.seconds);
}

std::string ceiling_tooltip(const core::Ceiling& ceiling, const char* slope_name) {
    return ceiling.label + "\npeak " + core::format_flops_rate(ceiling.peak_flops_per_s) + ", " + slope_name + " " +
           core::format_bandwidth(ceiling.bytes_per_s) + "\nattainable = min(peak, intensity x " +
           core::format_bandwidth(ceiling.bytes_per_s) + ")\nridge = " + core::format_flops_rate(ceiling.peak_flops_per_s) +
           " / " + core::format_bandwidth(ceiling.bytes_per_s) + " = " +
           core::format_number(core::ridge_flops_per_byte(ceiling)) + " FLOP/B";
}

// The roof as a line from min to max intensity, bent at the ridge.
bool plot_roof(const char* label, const core::Ceiling& ceiling, double x_min, double x_max, ImU32 color, float thickness_em,
               float dash_em) {
    const std::vector<core::RoofVertex> outline = core::roof_outline(ceiling, x_min, x_max);
    std::vector<double> xs, ys;
    for (const core::RoofVertex& vertex : outline) {
        xs.push_back(vertex.intensity_flops_per_byte);
        ys.push_back(vertex.flops_per_s);
    }
    return PlotLine(label, xs.data(), ys.data(), static_cast<int>(xs.size()), color, thickness_em, dash_em);
}

// A catalog GPU's roofs are drawn when ticked, and the scenario's GPU always (and a pinned baseline's).
bool roof_shown(const RooflineOptions& options, const core::HardwareCatalog& catalog, std::size_t index, const core::Scenario& scenario,
                const core::Scenario* baseline = nullptr) {
    return options.gpu_shown[index] || catalog.gpus[index].id == scenario.cluster.gpu.id || (baseline && catalog.gpus[index].id == baseline->cluster.gpu.id);
}

void draw_controls(RooflineOptions& options, PanelContext& ctx) {
    const core::HardwareCatalog& catalog = core::builtin_hardware();
    section_heading("Roofs");
    for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
        // The scenario's GPU is always drawn: its kernels sit under its roof.
        const bool scenario_gpu = catalog.gpus[i].id == ctx.scenario.cluster.gpu.id;
        bool shown = roof_shown(options, catalog, i, ctx.scenario);
        ImGui::PushStyleColor(ImGuiCol_CheckMark, ImGui::ColorConvertU32ToFloat4(gpu_color(static_cast<int>(i))));
        ImGui::BeginDisabled(scenario_gpu);
        if (ImGui::Checkbox(catalog.gpus[i].name.c_str(), &shown)) options.gpu_shown[i] = shown;
        ImGui::EndDisabled();
        ImGui::PopStyleColor();
        explain_last_item(scenario_gpu ? "The scenario's GPU, always shown: its kernels are placed under this roof. " + catalog.gpus[i].source
                                       : catalog.gpus[i].source);
    }
    for (int p = 0; p < 3; ++p) {
        if (p > 0) ImGui::SameLine();
        ImGui::Checkbox(core::precision_name(kPrecisions[p]), &options.precision_shown[p]);
    }
    explain_last_item("fp32 roofs use the CUDA-core peak (no tensor cores); fp8 exists on H100 and later. "
                      "Solid bf16, short dashes fp32, long dashes fp8.");
    ImGui::Checkbox("Measured H100 (bf16)", &options.show_measured);
    explain_last_item("One H100 SXM, PyTorch bf16 matmul and ReLU, CUDA-event timing (assets/h100_measured_roofline.csv).");

    ImGui::Spacing();
    const core::Ceiling ceiling = kernel_ceiling(ctx.scenario, options);
    section_heading("Kernels");
    wrapped_textf("Placed on %s (the scenario's GPU).", ceiling.label.c_str());
    if (ctx.scenario.cluster.gpu.peak_flops_per_s(kPrecisions[options.kernel_precision]) <= 0) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warning));
        wrapped_textf("%s has no %s peak: its bf16 roof stands in.", ctx.scenario.cluster.gpu.name.c_str(),
                      core::precision_name(kPrecisions[options.kernel_precision]));
        ImGui::PopStyleColor();
    }
    const float em = ImGui::GetFontSize();
    const float field_width = em * 9.0f;
    static const char* precision_names[] = {"fp32 (4 B)", "bf16 (2 B)", "fp8 (1 B)"};
    ImGui::SetNextItemWidth(field_width);
    ImGui::Combo("counted in", &options.kernel_precision, precision_names, 3);
    ImGui::SetNextItemWidth(field_width);
    if (ImGui::InputInt3("GEMM M N K", options.gemm_mnk)) {
        for (int& dimension : options.gemm_mnk) dimension = std::clamp(dimension, 1, 1 << 20);
    }
    int batch = decode_batch_at(ctx.playback.t_seconds);
    ImGui::SetNextItemWidth(field_width);
    if (slider_int("decode batch", &batch, 1, 1 << kMaxDecodeDoublings, "%d", ImGuiSliderFlags_Logarithmic)) {
        ctx.playback.scrub(std::log2(std::max(1, batch)));
    }
    explain_last_item("Play animates the batch from 1 to 1024, one doubling per second: the point climbs the HBM slope.");
    ImGui::Checkbox("Flash attention", &options.flash_attention);
    ImGui::SameLine();
    ImGui::Checkbox("Decode trail", &options.show_decode_trail);
    ImGui::Checkbox("This scenario's kernels", &options.show_scenario_kernels);
    explain_last_item("Every kernel of one layer, the stage edges and the optimizer at their shapes after sharding, at the FLOP/s the step "
                      "model gives them: below the roof by their measured efficiency. Drag TP from 1 to 8: the GEMMs move left and down. "
                      "Click one to select it (the anatomy panel marks it too).");
}

void draw_readout(const std::vector<KernelMark>& kernels, const core::Ceiling& ceiling, const RooflineOptions& options,
                  const core::Scenario& scenario, const core::Report& report, const MeasuredCache& measured) {
    ImGui::Spacing();
    section_heading("Readout");
    const double element = core::element_bytes(kPrecisions[options.kernel_precision]);
    const double hidden = scenario.model.hidden;
    const double ridge = core::ridge_flops_per_byte(ceiling);
    const double batch_at_ridge = core::decode_batch_for_intensity(ridge, hidden, hidden, element);
    const Palette& colors = palette();
    for (const KernelMark& mark : kernels) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(bound_color(mark.placed.bound)));
        ImGui::Bullet();
        ImGui::PopStyleColor();
        ImGui::SameLine();
        wrapped_textf("%s: %s", mark.name.c_str(), mark.placed.explanation.c_str());
        explain_last_item(kernel_tooltip(mark, ceiling));
    }
    const std::string ridge_text = std::isfinite(batch_at_ridge)
        ? "Decode over a " + core::format_number(hidden) + "-wide weight turns compute-bound at b = " +
              core::format_number(batch_at_ridge) + " (ridge " + core::format_number(ridge) + " FLOP/B)."
        : "Decode over this weight never reaches the ridge.";
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
    wrapped_text(ridge_text);
    ImGui::PopStyleColor();

    ImGui::Spacing();
    const std::vector<core::TrafficPoint> traffic = core::traffic_points(scenario, report);
    for (const core::TrafficPoint& point : traffic) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(point.network_bound ? colors.over_budget : colors.within_budget));
        ImGui::Bullet();
        ImGui::PopStyleColor();
        ImGui::SameLine();
        wrapped_text(point.explanation);
    }
    if (traffic.empty()) wrapped_text("One GPU: no traffic between GPUs.");
    if (!measured.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.warning));
        wrapped_textf("Measured overlay: %s", measured.error.c_str());
        ImGui::PopStyleColor();
    }
}

void draw_kernel_plot(const RooflineOptions& options, const std::vector<KernelMark>& kernels, const core::Ceiling& ceiling,
                      const std::vector<core::MeasuredPoint>& measured, PanelContext& ctx, ImVec2 size, const BaselineMoves* moves) {
    const core::Scenario* baseline_scenario = ctx.baseline ? ctx.baseline->scenario : nullptr;
    const core::HardwareCatalog& catalog = core::builtin_hardware();
    const Palette& colors = palette();
    LogPlotAxes axes;
    axes.min_plot_height_em = 12.0f;
    axes.x_title = "arithmetic intensity (FLOP per byte of HBM traffic)";
    axes.y_title = "attainable (FLOP/s)";
    axes.x_min = 0.1;
    axes.x_max = 1e5;
    axes.y_min = 1e10;
    axes.y_max = 1e16;
    axes.legend = LegendCorner::bottom_right;  // under the flat roof, right of every slope: always empty
    if (!BeginLogPlot("##kernel roofline", size, axes)) return;

    for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
        if (roof_shown(options, catalog, i, ctx.scenario, baseline_scenario)) PlotLegendLine(catalog.gpus[i].name.c_str(), gpu_color(static_cast<int>(i)));
    }
    // An fp8 recipe's GEMMs sit above the bf16 roof: the scenario GPU's fp8 roof is drawn with them.
    const std::vector<core::Kernel>& scenario_kernels = ctx.report.compute.kernels;
    const bool fp8_kernels = options.show_scenario_kernels && ctx.report.compute.fp8_gemms;
    bool precision_drawn[3] = {options.precision_shown[0], options.precision_shown[1], options.precision_shown[2] || fp8_kernels};
    int precisions_shown = 0;
    for (bool shown : precision_drawn) precisions_shown += shown;
    if (precisions_shown > 1) {
        for (int p = 0; p < 3; ++p) {
            if (precision_drawn[p]) PlotLegendLine(core::precision_name(kPrecisions[p]), colors.text_dim, kPrecisionDash[p]);
        }
    }
    PlotLegendMarker("memory-bound kernel", colors.hbm);
    PlotLegendMarker("compute-bound kernel", colors.compute);
    if (options.show_measured && !measured.empty()) PlotLegendMarker("measured H100 bf16", gpu_color(1), MarkerShape::ring);
    const std::string scenario_legend = "this scenario's kernels, TP " + std::to_string(ctx.report.layout.tp) + ", one GPU";
    if (options.show_scenario_kernels) PlotLegendMarker(scenario_legend.c_str(), colors.text, MarkerShape::ring);
    if (options.show_scenario_kernels && moves) PlotLegendMarker("the baseline's, a trail to where each moved", baseline_ink(), MarkerShape::ring);

    // Either side of the reference ridge, the regime in words.
    const double reference_ridge = core::ridge_flops_per_byte(ceiling);
    PlotVLine("##reference ridge", reference_ridge, with_alpha(colors.text_dim, 0.6f), 0.06f, 0.3f);
    PlotRegionText(reference_ridge, axes.y_max, "<- memory-bound", colors.text_dim, ImVec2(1, 0), ImVec2(-0.4f, 0.4f));
    PlotRegionText(reference_ridge, axes.y_max, "compute-bound ->", colors.text_dim, ImVec2(0, 0), ImVec2(0.4f, 0.4f));

    std::string hovered_text;
    // Under the roofs, so the trail reads as beads on the slope rather than as a dashed roof.
    if (options.show_decode_trail) {
        const double element = core::element_bytes(kPrecisions[options.kernel_precision]);
        const double hidden = ctx.scenario.model.hidden;
        for (int doubling = 0; doubling <= kMaxDecodeDoublings; ++doubling) {
            const core::PlacedKernel step = core::place_kernel(core::decode_gemv_cost(std::exp2(doubling), hidden, hidden, element), ceiling);
            PlotPoint("##decode trail", step.intensity_flops_per_byte, step.attainable_flops_per_s, bound_color(step.bound), 0.22f);
        }
    }
    for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
        if (!roof_shown(options, catalog, i, ctx.scenario, baseline_scenario)) continue;
        const ImU32 color = gpu_color(static_cast<int>(i));
        for (int p = 0; p < 3; ++p) {
            const core::GpuSpec& gpu = catalog.gpus[i];
            const bool scenario_fp8 = p == 2 && fp8_kernels && gpu.id == ctx.scenario.cluster.gpu.id;
            if (!(options.precision_shown[p] || scenario_fp8) || gpu.peak_flops_per_s(kPrecisions[p]) <= 0) continue;
            const core::Ceiling roof = core::hbm_ceiling(gpu, kPrecisions[p]);
            const bool reference = roof.label == ceiling.label;
            const std::string id = "##" + roof.label;
            if (plot_roof(id.c_str(), roof, axes.x_min, axes.x_max, color, reference ? 0.2f : 0.13f, kPrecisionDash[p]))
                hovered_text = ceiling_tooltip(roof, "HBM");
            const double ridge = core::ridge_flops_per_byte(roof);
            PlotPoint("##ridge", ridge, roof.peak_flops_per_s, color, 0.2f);
            const std::string label = core::format_number(ridge) + (reference ? " FLOP/B ridge" : "");
            // The other GPUs' ridges give way in a crowded plot (each roof's tooltip states its ridge); the reference one stays.
            if (reference) PlotText(ridge, roof.peak_flops_per_s, label.c_str(), color, ImVec2(1.0f, 1.0f), ImVec2(-0.2f, -0.3f));
            else PlotTextIfRoom(ridge, roof.peak_flops_per_s, label.c_str(), color, ImVec2(1.0f, 1.0f), ImVec2(-0.2f, -0.3f));
        }
    }

    if (options.show_measured && catalog.find_gpu("h100-sxm")) {
        const core::Ceiling h100_roof = core::hbm_ceiling(*catalog.find_gpu("h100-sxm"), core::Precision::bf16);
        for (const core::MeasuredPoint& point : measured) {
            if (point.flops <= 0) continue;  // a copy does no arithmetic: intensity 0 has no place on a log axis
            if (PlotPoint("##measured", point.intensity_flops_per_byte, point.flops_per_s, gpu_color(1), 0.28f, MarkerShape::ring)) {
                const std::string shape = point.kernel == "matmul"
                    ? std::to_string(int(point.m)) + "x" + std::to_string(int(point.n)) + "x" + std::to_string(int(point.k))
                    : core::format_count(point.elements) + " elements";
                hovered_text = "measured " + point.kernel + " " + shape + " on one H100 SXM (bf16)\n" +
                               core::format_flops_rate(point.flops_per_s) + " = " +
                               core::format_percent(core::roof_fraction(h100_roof, point.intensity_flops_per_byte, point.flops_per_s)) +
                               " of the H100 bf16 roof there, " + core::format_bandwidth(point.bytes_per_s) + " of HBM\n" +
                               core::format_number(point.intensity_flops_per_byte) + " FLOP/B, " + core::format_seconds(point.seconds);
            }
        }
    }

    // Where the baseline's kernels were: a ring each and a dashed trail to the same kernel now.
    if (options.show_scenario_kernels && moves) {
        ImDrawList* draw = ImGui::GetWindowDrawList();
        for (const core::KernelMove& move : moves->kernels) {
            add_trail(draw, PlotToPixels(move.baseline.intensity_flops_per_byte, move.baseline.achieved_flops_per_s),
                      PlotToPixels(move.scenario.intensity_flops_per_byte, move.scenario.achieved_flops_per_s), baseline_ink(), ImGui::GetFontSize());
        }
    }
    // The scenario's own kernels: small discs at the FLOP/s they reach, the GEMMs and attention named; the selected one ringed.
    if (options.show_scenario_kernels) {
        const int selected = selected_kernel(ctx);
        for (const core::KernelPoint& point : core::kernel_points(ctx.report)) {
            const core::Kernel& kernel = scenario_kernels[point.kernel];
            const std::string& label = ctx.text.kernel_short_labels.at(point.kernel);
            // A disc in its bound's colour inside a ring of text colour: not a bead of the decode trail, not a measured point.
            const bool ring_hovered = PlotPoint("##scenario ring", point.intensity_flops_per_byte, point.achieved_flops_per_s, colors.text, 0.3f, MarkerShape::ring);
            if (PlotPoint(("##scenario " + label).c_str(), point.intensity_flops_per_byte, point.achieved_flops_per_s, bound_color(point.bound), 0.2f) ||
                ring_hovered) {
                hovered_text = ctx.text.kernels.at(point.kernel).formula + "\n(this scenario, one GPU; click to select)";
                if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) toggle_kernel_selection(ctx, point.kernel);
            }
            const bool named = point.first_of_its_name && (kernel.category == core::KernelCategory::gemm || kernel.category == core::KernelCategory::attention);
            if (named && point.kernel != selected)  // in a cloud of kernels, a name that would cover another gives way
                PlotTextIfRoom(point.intensity_flops_per_byte, point.achieved_flops_per_s, label.c_str(), colors.text_dim, ImVec2(1, 0), ImVec2(-0.4f, 0.3f));
        }
        for (const core::KernelPoint& point : core::kernel_points(ctx.report)) {
            if (point.kernel != selected) continue;
            PlotPoint("##selected kernel", point.intensity_flops_per_byte, point.achieved_flops_per_s, colors.warning, 0.55f, MarkerShape::ring);
            const std::string label = "selected: " + core::kernel_label(scenario_kernels[point.kernel]);
            PlotText(point.intensity_flops_per_byte, point.achieved_flops_per_s, label.c_str(), colors.warning, ImVec2(1, 0), ImVec2(-0.7f, 0.5f));
        }
    }
    for (const KernelMark& mark : kernels) {
        const core::PlacedKernel& placed = mark.placed;
        const std::string id = "##" + mark.name;
        if (PlotPoint(id.c_str(), placed.intensity_flops_per_byte, placed.attainable_flops_per_s, bound_color(placed.bound), 0.36f,
                      mark.shape))
            hovered_text = kernel_tooltip(mark, ceiling);
        // Labels below the slope, to the right of the point, so they never sit on a roof.
        PlotText(placed.intensity_flops_per_byte, placed.attainable_flops_per_s, mark.name.c_str(), colors.text, ImVec2(0, 0),
                 ImVec2(0.65f, 0.35f));
    }
    EndLogPlot();
    if (!hovered_text.empty() && tooltips(ctx)) show_tooltip(hovered_text);
}

void draw_network_plot(const PanelContext& ctx, ImVec2 size, const BaselineMoves* moves) {
    const core::Scenario& scenario = ctx.scenario;
    const core::Report& report = ctx.report;
    const Palette& colors = palette();
    const std::vector<core::TrafficPoint> traffic = core::traffic_points(ctx.scenario, report);
    LogPlotAxes axes;
    axes.min_plot_height_em = 12.0f;
    axes.x_title = "communication intensity (FLOP per byte sent)";
    axes.y_title = "attainable (FLOP/s)";
    axes.x_min = 1;
    axes.x_max = 1e8;
    for (const core::TrafficPoint& point : traffic) {
        if (std::isfinite(point.comm_intensity_flops_per_byte))
            axes.x_max = std::max(axes.x_max, std::pow(10.0, std::ceil(std::log10(point.comm_intensity_flops_per_byte) + 0.5)));
    }
    axes.y_min = 1e10;
    axes.y_max = 1e16;
    axes.legend = LegendCorner::top_left;
    if (!BeginLogPlot("##network roofline", size, axes)) return;

    const double peak = report.compute.peak_flops_per_s;
    const std::string gpu_label = scenario.cluster.gpu.name + " bf16";
    struct Roof {
        core::Ceiling ceiling;
        ImU32 color;
        float dash_em;
    };
    const Roof roofs[] = {
        {{scenario.cluster.scale_up.name, peak, scenario.cluster.scale_up.bytes_per_s}, colors.nvlink, 0.0f},
        {{scenario.cluster.scale_out.name, peak, scenario.cluster.scale_out.bytes_per_s}, colors.infiniband, 0.0f},
        {{"HBM (for scale)", peak, scenario.cluster.gpu.hbm_bytes_per_s}, with_alpha(colors.hbm, 0.6f), 0.3f},
    };
    std::string hovered_text;
    // One flat compute roof shared by every slope; each slope stops at its ridge.
    const std::string peak_label = gpu_label + " peak " + core::format_flops_rate(peak);
    if (PlotHLine(peak_label.c_str(), peak, colors.ceiling, 0.16f))
        hovered_text = peak_label + ": no traffic placement climbs above it";
    for (const Roof& roof : roofs) {
        const std::string label = roof.ceiling.label + " " + core::format_bandwidth(roof.ceiling.bytes_per_s);
        const double ridge = core::ridge_flops_per_byte(roof.ceiling);
        if (ridge > axes.x_min &&
            plot_roof(label.c_str(), roof.ceiling, axes.x_min, std::min(ridge, axes.x_max), roof.color, 0.16f, roof.dash_em))
            hovered_text = ceiling_tooltip({gpu_label + " over " + roof.ceiling.label, peak, roof.ceiling.bytes_per_s}, "link");
        PlotPoint("##ridge", ridge, peak, roof.color, 0.2f);
        const std::string ridge_label = core::format_number(ridge);
        PlotText(ridge, peak, ridge_label.c_str(), roof.color, ImVec2(1.0f, 1.0f), ImVec2(-0.2f, -0.3f));
    }
    for (const core::TrafficPoint& point : traffic) {
        if (!moves || !std::isfinite(point.comm_intensity_flops_per_byte)) continue;
        for (const core::TrafficPoint& before : moves->traffic) {  // the same axis in the baseline, if it had one
            if (before.axis != point.axis || !std::isfinite(before.comm_intensity_flops_per_byte)) continue;
            add_trail(ImGui::GetWindowDrawList(), PlotToPixels(before.comm_intensity_flops_per_byte, before.attainable_flops_per_s),
                      PlotToPixels(point.comm_intensity_flops_per_byte, point.attainable_flops_per_s), baseline_ink(), ImGui::GetFontSize());
        }
    }
    if (moves && !traffic.empty()) PlotLegendMarker("the baseline's, a trail to where each axis moved", baseline_ink(), MarkerShape::ring);
    for (const core::TrafficPoint& point : traffic) {
        if (!std::isfinite(point.comm_intensity_flops_per_byte)) continue;
        const bool scale_up = point.link_label == scenario.cluster.scale_up.name;
        const ImU32 color = scale_up ? colors.nvlink : colors.infiniband;
        if (PlotPoint(("##" + point.axis).c_str(), point.comm_intensity_flops_per_byte, point.attainable_flops_per_s, color, 0.4f))
            hovered_text = point.explanation + "\n" + core::format_flops(point.flops) + " per GPU per step over " +
                           core::format_bytes(point.bytes_sent) + " sent\ncompute " + core::format_seconds(point.compute_seconds) +
                           " at peak vs network " + core::format_seconds(point.network_seconds) + " on " + point.link_label;
        const std::string label = point.axis + (point.network_bound ? ": network-bound" : "");
        PlotText(point.comm_intensity_flops_per_byte, point.attainable_flops_per_s, label.c_str(), colors.text, ImVec2(0, 0),
                 ImVec2(0.7f, 0.45f));
    }
    if (traffic.empty()) {
        // No point to read the slopes by: the caption would only take the corner the legend needs on a narrow plot.
        PlotText(axes.x_min, axes.y_min, "one GPU: nothing sent", colors.text_dim, ImVec2(0, 1), ImVec2(0.4f, -0.4f));
    } else {
        // Top left, where the slopes start: the legend takes the free bottom right corner.
        PlotText(axes.x_min, axes.y_max, "left of its link's ridge, a step waits on the network", colors.text_dim, ImVec2(0, 0),
                 ImVec2(0.4f, 0.4f));
    }
    EndLogPlot();
    if (!hovered_text.empty() && tooltips(ctx)) show_tooltip(hovered_text);
}

void draw_roofline_panel(RooflinePanelState& state, PanelContext& ctx) {
    RooflineOptions& options = state.options;
    const core::HardwareCatalog& catalog = core::builtin_hardware();
    if (options.gpu_shown.size() != catalog.gpus.size()) {
        options.gpu_shown.assign(catalog.gpus.size(), 0);
        for (const char* id : {"a100-sxm", "h100-sxm", "b200"}) {
            for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
                if (catalog.gpus[i].id == id) options.gpu_shown[i] = 1;
            }
        }
    }
    ctx.playback.set_timeline({kDecodeAnimationSeconds, 1.0});
    const std::vector<core::MeasuredPoint>& measured = measured_points(state.measured, ctx.assets.measured_roofline_csv);

    const float em = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float side_width = std::clamp(avail.x * 0.24f, em * 17.0f, em * 24.0f);
    // Beside the sidebar or zoomed, the plots need the whole width: one column, the plots first (each at least 18 em
    // tall), then the controls and the readout, scrolling in the panel.
    const bool one_column = avail.x - side_width - spacing < em * 30.0f;
    const core::Ceiling ceiling = kernel_ceiling(ctx.scenario, options);
    const int batch = decode_batch_at(ctx.playback.t_seconds);
    const std::vector<KernelMark> kernels = place_kernels(ctx.scenario, options, ceiling, batch);
    const auto side_column = [&] {
        if (!figure_mode()) draw_controls(options, ctx);
        draw_readout(kernels, ceiling, options, ctx.scenario, ctx.report, state.measured);
        const int selected = selected_kernel(ctx);
        if (options.show_scenario_kernels && selected >= 0) {
            ImGui::Spacing();
            section_heading("Selected kernel (this scenario)");
            wrapped_text(ctx.text.kernels.at(selected).formula);
        }
    };

    if (!one_column) {
        ImGui::BeginChild("roofline_side", ImVec2(side_width, avail.y), false);
        side_column();
        ImGui::EndChild();
        ImGui::SameLine();
    }

    ImGui::BeginGroup();
    const std::string caption = "decode batch b = 2^t = " + std::to_string(batch);
    draw_transport(ctx.playback, caption.c_str());
    const float plots_width = one_column ? avail.x : avail.x - side_width - spacing;
    const bool side_by_side = plots_width >= em * 46.0f;
    const float heading_height = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
    const float plots_height = ImGui::GetContentRegionAvail().y;
    ImVec2 plot_size = side_by_side ? ImVec2((plots_width - spacing) * 0.5f, plots_height - heading_height)
                                    : ImVec2(plots_width, (plots_height - spacing) * 0.5f - heading_height);
    if (one_column) plot_size.y = std::max(plot_size.y, em * 18.0f);

    ImGui::BeginGroup();
    section_heading("One GPU: kernels under the HBM roof");
    const BaselineMoves* moves = baseline_moves(state, ctx);
    draw_kernel_plot(options, kernels, ceiling, measured, ctx, plot_size, moves);
    ImGui::EndGroup();
    if (side_by_side) ImGui::SameLine();
    ImGui::BeginGroup();
    section_heading("Across GPUs: traffic under the network roofs");
    draw_network_plot(ctx, plot_size, moves);
    ImGui::EndGroup();
    ImGui::EndGroup();
    if (one_column) side_column();
}

}  // namespace

PanelDef make_roofline_panel() {
    auto state = std::make_shared<RooflinePanelState>();
    return {"roofline", "Roofline", [state](PanelContext& ctx) { draw_roofline_panel(*state, ctx); }, "Roofline"};
}

}  // namespace widgets
