// The memory stack: the whole model's training state and one GPU's share, stacked byte category by category
// against every catalog GPU's HBM ceiling; play builds the stack and grows the model past the ceilings (seed 000).
#include "core/model/layout.h"
#include "core/model/format.h"
#include "core/lessons/stack_animation.h"
#include "core/lessons/walls.h"
#include "core/model/scenario_edits.h"
#include "widgets/comparison.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/sidebar.h"
#include "widgets/stacked_bar.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace widgets {
namespace {

constexpr double kMaxParams = 2e12;  // the seed's slider: 100M (or the scenario's smaller decade, size_slider_min) .. 2T

struct StackPanelOptions {
    core::StackTiming timing;        // pacing of the seed's animation (core's defaults)
    float controls_width_em = 23.0f; // the controls column beside the plot, at most
    float plot_min_width_em = 46.0f; // two columns with named labels and the ceilings' labels; narrower, the controls go above
};

struct StackPanelState {
    StackPanelOptions options;
    double baseline_whole_bytes = 0;       // the pinned baseline's finished whole-model column
    std::uint64_t baseline_revision = 0;   // the baseline it was built for
};

// Adam m and Adam v share the optimizer's hue in two shades: count how many of a kind came before.
std::vector<int> index_within_kind(const std::vector<core::MemoryBlock>& blocks) {
    std::vector<int> indices;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        int before = 0;
        for (std::size_t j = 0; j < i; ++j) before += blocks[j].kind == blocks[i].kind;
        indices.push_back(before);
    }
    return indices;
}

void model_controls(core::Scenario& scenario, const core::Report& report, EditFeedback& feedback) {
    model_combo("Model", scenario, feedback);
    const double min_params = core::size_slider_min(report.memory.params);
    double params = std::clamp(report.memory.params, min_params, kMaxParams);
    const std::string shown = core::format_count(params) + " parameters";
    if (slider_double("Size", &params, min_params, kMaxParams, shown.c_str(), ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
        apply_edit(core::with_model_scaled(scenario, params), scenario, feedback, "Size");
    }
    explain_last_item("The model's size up to 2T: a model with a shape keeps its own (head size, KV groups, MLP ratio, hidden over "
                      "layers) as it grows; a bare parameter count has one synthesized for the activations: h = 128 l, 12 l h^2 = N.");
    draw_feedback("Size", feedback);
    precision_combo("Recipe", scenario, feedback);
    explain_last_item("Adafactor drops Adam's m and v; 'no master copy' drops the fp32 master: watch their bytes leave the stack.");
    gpu_combo("GPU", scenario, feedback);
    explain_last_item("The column turns red above this GPU's HBM.");
}

void training_controls(core::Scenario& scenario, EditFeedback& feedback) {
    framework_combo("Framework", scenario, feedback);
    explain_last_item("What the frameworks keep differs: eager PyTorch keeps autocast's bf16 weight copies, an fp32 residual stream, fp32 "
                      "softmax and log_softmax outputs; Megatron fuses them away.",
                      "measurements/h100_memory_phases.json (eager, one H100); Korthikanti et al. 2022 (Megatron)");
    finetune_combo("Fine-tune", scenario, feedback);
    lora_rank_slider("LoRA rank", scenario, feedback);
    seq_len_combo("Sequence", scenario, feedback);
    explain_last_item("Tokens per sequence: activations grow with it, the training state does not.");
    axis_slider("Micro-batch", scenario, core::LayoutAxis::micro_batch, feedback, "Sequences per micro-batch: activations grow with it.");
    recompute_combo("Recompute", scenario, feedback);
    explain_last_item("Activation checkpointing: full keeps only each layer's input (2 s b h bytes) and recomputes the rest.",
                      "Korthikanti et al. 2022");
    zero_slider("ZeRO stage", scenario, feedback);
    axis_slider("DP degree", scenario, core::LayoutAxis::dp, feedback,
                "Data-parallel ranks: the GPU count follows (dp x tp x pp x cp). Without ZeRO every rank holds it all.");
    fragmentation_slider("Fragmentation", scenario, feedback);
    explain_last_item("What PyTorch's caching allocator reserves beyond what it hands out, as a share of it: 5.9 % is the median of 12 "
                      "measured H100 runs (1.1 to 12.4 %); about 0 with expandable_segments.",
                      "measurements/h100_kernel_probe.json training_memory");
}

void draw_figures(const core::Report& report, const core::ReportText& text, const core::GpuSpec& gpu) {
    const Palette& colors = palette();
    const core::MemoryReport& memory = report.memory;
    const core::Overshoot whole = core::overshoot(memory.state_bytes, gpu);
    const core::Overshoot per_gpu = core::overshoot(memory.per_gpu.peak_bytes, gpu);
    figure(text.figures.training_state);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(whole.over ? colors.over_budget : colors.within_budget));
    wrapped_textf("= %s", whole.caption.c_str());
    ImGui::PopStyleColor();
    explain_last_item(core::format_bytes(memory.state_bytes) + " / " + core::format_bytes(gpu.hbm_bytes) + " = " +
                      core::format_number(whole.gpus_worth) + " GPUs' worth of HBM");
    figure("Per GPU at the peak", core::format_bytes(memory.per_gpu.peak_bytes), text.memory_peak_line, "core/cost/memory/memory.h");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(per_gpu.over ? colors.over_budget : colors.within_budget));
    wrapped_textf("= %s", per_gpu.caption.c_str());
    wrapped_text(text.memory_verdict);
    ImGui::PopStyleColor();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
    wrapped_textf("Hover a block for its formula. %s", core::kUnitConvention);
    ImGui::PopStyleColor();
}

// The baseline's column beside the scenario's: its total as a dashed ghost, its blocks' tops as ticks, and the change.
struct ColumnGhost {
    double total_bytes = 0;
    std::vector<double> block_tops_bytes;  // each visible block's top, bottom-up
    std::vector<std::string> change_lines;  // "-18.2 GB, -23.1 % against 78.5 GB", then shorter forms
};

struct ColumnView {
    std::optional<ColumnGhost> ghost;  // a baseline is pinned
    std::string heading;
    std::string heading_short; // "Whole model": when the lane is too narrow for the heading
    std::string total_line;
    std::string verdict_line;  // "16.5x an H100 SXM" or "fits: 37.8 % of an H100 SXM"
    std::string detail_line;   // what the total is made of
    std::vector<std::string> above_whole;  // why one GPU holds more than the whole model, longest first (core's words)
    bool over = false;
    std::vector<StackedBlock> blocks;
};

ColumnView whole_column(const core::StackFrame& frame, const core::GpuSpec& gpu) {
    ColumnView view;
    view.heading = "Whole model, " + core::format_count(frame.params) + " params";
    view.heading_short = "Whole model";
    const core::Overshoot over = core::overshoot(frame.total_bytes, gpu);
    view.over = over.over;
    view.total_line = core::format_bytes(frame.total_bytes);
    view.verdict_line = over.caption;
    const core::Overshoot state = core::overshoot(frame.state_bytes, gpu);
    view.detail_line = state.over ? "state alone: " + state.caption : "state " + core::format_bytes(frame.state_bytes);
    for (const core::StackLayer& layer : frame.layers) {
        StackedBlock block;
        block.label = layer.label;
        block.value = core::format_bytes(layer.bytes);
        block.bytes = layer.bytes;
        block.color = memory_kind_color(layer.kind, layer.index_within_kind);
        block.visible = layer.shown > 0 && layer.final_bytes > 0;  // nothing to gather or send on one GPU: no block
        block.tooltip = layer.formula;
        view.blocks.push_back(block);
    }
    return view;
}

ColumnView per_gpu_column(const core::Scenario& scenario, const core::Report& report, const core::ReportText& text, const core::GpuSpec& gpu,
                          double whole_model_bytes) {
    ColumnView view;
    const core::MemoryReport& memory = report.memory;
    view.above_whole = core::above_whole_model_text(memory.per_gpu, whole_model_bytes);
    view.heading = "One GPU: " + core::layout_label(core::layout_of(scenario));
    view.heading_short = "One GPU";
    const core::Overshoot over = core::overshoot(memory.per_gpu.peak_bytes, gpu);
    view.over = over.over;
    view.total_line = core::format_bytes(memory.per_gpu.peak_bytes);
    view.verdict_line = over.caption;
    // Where the peak is, or, over the ceiling, the block that crossed it.
    view.detail_line = memory.tipping_block >= 0
                           ? "over from: " + text.block_labels[memory.tipping_block]
                           : "peak at " + core::memory_phase_text(memory.peak_phase) +
                                 (memory.per_stage.size() > 1 ? ", stage " + std::to_string(memory.peak_stage + 1) : std::string());
    const std::vector<int> shades = index_within_kind(memory.blocks);
    for (std::size_t i = 0; i < memory.blocks.size(); ++i) {
        const core::MemoryBlock& memory_block = memory.blocks[i];
        StackedBlock block;
        block.label = text.block_labels[i];
        // The block whose top crosses HBM says so beside itself: what tipped the column over.
        if (static_cast<int>(i) == memory.tipping_block) block.label = "\u00bb " + block.label;
        block.value = core::format_bytes(memory_block.per_gpu_bytes);
        block.bytes = memory_block.per_gpu_bytes;
        block.color = memory_kind_color(memory_block.kind, shades[i]);
        block.visible = memory_block.per_gpu_bytes > 0;
        block.tooltip = text.block_per_gpu[i].formula + (text.block_per_gpu[i].source.empty() ? "" : "\n(" + text.block_per_gpu[i].source + ")");
        view.blocks.push_back(block);
    }
    return view;
}

// The ceilings' labels in full ("A100 / H100 / H800  85.0 GB"), or, where the plot is narrow, their bytes alone with the
// GPUs' names in a key under the plot.
std::vector<HorizontalLine> ceiling_lines(const std::vector<core::GpuCeiling>& ceilings, bool bytes_only) {
    std::vector<HorizontalLine> lines;
    for (const core::GpuCeiling& ceiling : ceilings) {
        const std::string bytes = core::format_bytes(ceiling.hbm_bytes);
        lines.push_back({ceiling.hbm_bytes, bytes_only ? bytes : ceiling.short_names + "  " + bytes, ceiling.selected});
    }
    return lines;
}

// The widest row a column's labels take beside it: swatch, label, value ("fragmentation 77.6 GB").
float widest_label_row(const ColumnView& column) {
    const float em = ImGui::GetFontSize();
    float widest = 0;
    for (const StackedBlock& block : column.blocks) {
        if (!block.visible) continue;
        const float value_width = fonts().bold->CalcTextSizeA(fonts().bold->FontSize, FLT_MAX, 0.0f, block.value.c_str()).x;
        widest = std::max(widest, em * 1.6f + ImGui::CalcTextSize(block.label.c_str()).x + value_width);  // swatch and gaps 1.5 em, 0.1 em spare against rounding
    }
    return widest;
}

constexpr float kAxisEm = 5.5f;     // the byte axis' labels, left of the columns
constexpr float kColumnMinEm = 3.0f;
// The gap before the first column (1.5 em) less the last lane's right margin (0.5 em): what the columns and lanes leave
// out of the room so the last column's labels end at the plot's right edge.
constexpr float kLaneOverhangEm = 1.0f;

// A baseline's ghost stands in the last em of the lane before its column (the labels stop 1.5 em short, not 0.5 em).
float ghost_room_em(const std::vector<ColumnView>& columns) {
    return std::any_of(columns.begin(), columns.end(), [](const ColumnView& column) { return column.ghost.has_value(); }) ? 1.0f : 0.0f;
}

// How the plot is laid out in `width`: both columns side by side with the ceilings named at their lines, the same with the
// ceilings' bytes alone (names in a key below), or one column above the other, so every row keeps its name and value.
enum class StackLayout { side_by_side, compact_ceilings, one_above_the_other };

StackLayout stack_layout(const std::vector<ColumnView>& columns, const std::vector<core::GpuCeiling>& ceilings, float width) {
    const float em = ImGui::GetFontSize();
    float widest_row = 0;
    for (const ColumnView& column : columns) widest_row = std::max(widest_row, widest_label_row(column));
    widest_row += ghost_room_em(columns) * em;
    // With the ceilings' bytes alone, their labels sit in the byte axis' lane: no lane of their own on the right.
    const auto fits = [&](bool bytes_only, std::size_t column_count) {
        const float ceiling_lane = bytes_only ? 0.0f : ceiling_labels_width(ceiling_lines(ceilings, false)) + em * 1.0f;
        return em * (kAxisEm + 0.5f + kLaneOverhangEm) + ceiling_lane + column_count * (em * (kColumnMinEm + 1.5f) + widest_row + em * 0.6f) <= width;
    };
    if (fits(false, columns.size())) return StackLayout::side_by_side;
    if (fits(true, columns.size())) return StackLayout::compact_ceilings;
    return StackLayout::one_above_the_other;
}

ColumnGhost make_ghost(const core::FigureComparison& figure, const std::vector<double>& block_bytes) {
    ColumnGhost ghost;
    ghost.total_bytes = figure.baseline_number;
    double top = 0;
    for (double bytes : block_bytes) {
        if (!(bytes > 0)) continue;
        top += bytes;
        ghost.block_tops_bytes.push_back(top);
    }
    ghost.change_lines = {"vs baseline " + figure.against, figure.against, figure.change};
    return ghost;
}

void draw_plot(const std::vector<ColumnView>& columns, const std::vector<core::GpuCeiling>& ceilings, double axis_content_bytes,
               double red_from_bytes, bool hover_enabled, bool bytes_only_ceilings, ImVec2 size) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = size;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    ImGui::PushID(columns.front().heading_short.c_str());
    ImGui::InvisibleButton("##stack_plot", ImVec2(std::max(avail.x, 1.0f), std::max(avail.y, 1.0f)));
    ImGui::PopID();
    ImDrawList* draw = ImGui::GetWindowDrawList();

    const std::vector<HorizontalLine> lines = ceiling_lines(ceilings, bytes_only_ceilings);

    // Horizontal plan: axis labels | column | its labels | column | its labels | ceiling labels.
    const float axis_x = origin.x + em * kAxisEm;
    const float plot_right = origin.x + avail.x - em * 0.5f;
    const float ceiling_lane = bytes_only_ceilings ? 0.0f : ceiling_labels_width(lines) + em * 1.0f;
    const float room = plot_right - ceiling_lane - axis_x;
    // Columns give way to their labels: up to an eighth of the room, but narrow enough (down to 3 em) that the widest
    // row of a column that cannot run into the ceilings' lane ("fragmentation 77.6 GB") fits beside it.
    float widest_row = 0;
    for (std::size_t c = 0; c + 1 < columns.size(); ++c) widest_row = std::max(widest_row, widest_label_row(columns[c]));
    widest_row += ghost_room_em(columns) * em;
    const float count = static_cast<float>(columns.size());
    const float column_for_rows = (room - em * kLaneOverhangEm - count * (widest_row + em * 0.6f)) / count - em * 1.5f;
    const float column_width = std::clamp(std::min(room * 0.12f, column_for_rows), em * kColumnMinEm, em * 8.0f);
    const float lane_width = (room - em * kLaneOverhangEm - count * (column_width + em * 1.5f)) / count;

    // Against a baseline each heading gains its change's line: the axis and its title start one line lower.
    const bool ghosts = std::any_of(columns.begin(), columns.end(), [](const ColumnView& column) { return column.ghost.has_value(); });
    const float y_top = origin.y + line * (ghosts ? 7.3f : 6.3f);
    const float y_bottom = origin.y + avail.y - em * 0.8f;
    const StackAxis axis = make_stack_axis(axis_content_bytes, ceilings.empty() ? 0.0 : ceilings.back().hbm_bytes, y_bottom, y_top);
    // The ceilings' bytes alone go in the axis' lane, where the axis leaves out its own labels beside them.
    const std::vector<std::pair<float, float>> axis_busy = bytes_only_ceilings ? ceiling_label_rows(axis, lines)
                                                                                : std::vector<std::pair<float, float>>{};
    draw_stack_axis(draw, axis, axis_x, plot_right, "bytes (1 GB = 10^9 B)", axis_busy);
    std::vector<std::pair<float, float>> ceiling_rows =
        draw_ceilings(draw, axis, lines, axis_x, plot_right, bytes_only_ceilings ? axis_x - em * 0.45f : 0.0f);
    if (bytes_only_ceilings) ceiling_rows.clear();  // nothing of theirs on the right: every row may run to the edge

    int hovered_column = -1, hovered_block = -1;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const ColumnView& column = columns[c];
        const float x_left = axis_x + em * 1.5f + c * (column_width + em * 1.5f + lane_width);
        ColumnLabels labels;
        labels.lane_left = x_left + column_width + em * 1.6f;
        // The next column's baseline ghost stands in the lane's last em: the labels stop before it.
        const bool next_has_ghost = c + 1 < columns.size() && columns[c + 1].ghost;
        labels.lane_right = x_left + column_width + em * 1.5f + lane_width - em * (next_has_ghost ? 1.5f : 0.5f);
        if (c + 1 == columns.size()) {  // the last column's rows may use the ceilings' lane where no ceiling label is
            labels.wide_right = plot_right;
            labels.busy_rows = ceiling_rows;
        }
        const int hovered = draw_stacked_column(draw, axis, x_left, column_width, column.blocks, labels, red_from_bytes, hover_enabled);
        if (column.ghost) {
            // The baseline's column as a dashed ghost in the gap left of the live one, its top carried across as a dashed
            // line, so "lower than before" reads by position and by the written change, never by colour.
            const ColumnGhost& ghost = *column.ghost;
            const ImU32 ink = baseline_ink();
            const float thickness = std::max(1.0f, em * 0.08f);
            const float ghost_right = x_left - em * 0.2f, ghost_left = x_left - em * 1.0f;
            const float ghost_top = axis.y_of(ghost.total_bytes);
            add_dashed_rect(draw, ImVec2(ghost_left, ghost_top), ImVec2(ghost_right, axis.y_bottom), ink, thickness, em * 0.25f);
            for (double top : ghost.block_tops_bytes) {
                const float y = axis.y_of(top);
                draw->AddLine(ImVec2(ghost_left, y), ImVec2(ghost_right, y), ink, thickness);
            }
            add_dashed_line(draw, ImVec2(ghost_right, ghost_top), ImVec2(x_left + column_width, ghost_top), ink, thickness, em * 0.25f);
        }
        if (hovered >= 0) {
            hovered_column = static_cast<int>(c);
            hovered_block = hovered;
        }
        // Heading and total above the plot, in the column's own lane (the last one's up to the plot's right edge): the
        // shorter wording where the long one does not fit, never cut mid-number.
        const float heading_width = (c + 1 == columns.size() ? plot_right : labels.lane_right) - x_left;
        const auto fitted = [&](ImFont* font, const std::vector<std::string>& variants) {
            ImGui::PushFont(font);
            const std::string text = fit_variant(variants, heading_width);
            ImGui::PopFont();
            return text;
        };
        const std::string heading = fitted(fonts().bold, {column.heading, column.heading_short});
        const std::string total = fitted(fonts().large, {column.total_line});
        // "16.4x an H100 SXM" -> "16.4x": the number stays, the GPU's name (in the heading line above) goes first.
        const auto before_gpu = [](const std::string& text) {
            const std::size_t at = std::min({text.find(" an "), text.find(" a "), text.find(" of ")});
            return text.substr(0, at);
        };
        const std::string verdict = fitted(fonts().bold, {column.verdict_line, before_gpu(column.verdict_line)});
        // Where one GPU holds more than the whole model, why comes first: a reader would doubt the two columns otherwise.
        std::vector<std::string> details = {column.detail_line, before_gpu(column.detail_line)};
        if (!column.above_whole.empty()) details.insert(details.begin(), column.above_whole.begin(), column.above_whole.end());
        const std::string detail = fitted(ImGui::GetFont(), details);
        draw->AddText(fonts().bold, fonts().bold->FontSize, ImVec2(x_left, origin.y + line * 0.2f), colors.text, heading.c_str());
        const ImU32 verdict_color = column.over ? colors.over_budget : colors.within_budget;
        draw->AddText(fonts().large, fonts().large->FontSize, ImVec2(x_left, origin.y + line * 1.2f), verdict_color, total.c_str());
        draw->AddText(fonts().bold, fonts().bold->FontSize, ImVec2(x_left, origin.y + line * 2.75f), verdict_color, verdict.c_str());
        draw->AddText(ImVec2(x_left, origin.y + line * 3.8f), colors.text_dim, detail.c_str());
        if (column.ghost) {
            ImGui::PushFont(fonts().bold);
            const std::string change = fit_variant(column.ghost->change_lines, heading_width);
            ImGui::PopFont();
            add_change_label(draw, ImVec2(x_left, origin.y + line * 4.85f), change, colors.text);
        }
    }
    if (hovered_column >= 0) area_tooltip(columns[hovered_column].blocks[hovered_block].tooltip,
                                           "Rajbhandari et al. 2019 (state); Korthikanti et al. 2022 (activations)");
}

// Under a plot whose ceilings show their bytes alone: which GPUs each line stands for.
std::string ceiling_key(const std::vector<core::GpuCeiling>& ceilings) {
    std::string key = "Ceilings (HBM per GPU):";
    for (std::size_t i = 0; i < ceilings.size(); ++i)
        key += std::string(i == 0 ? " " : ", ") + ceilings[i].short_names + " " + core::format_bytes(ceilings[i].hbm_bytes);
    return key;
}

void draw_stack_panel(StackPanelState& state, PanelContext& ctx) {
    const core::Report& report = ctx.report;
    const core::GpuSpec gpu = ctx.scenario.cluster.gpu;
    const std::vector<core::GpuCeiling> ceilings = core::gpu_ceilings(core::builtin_hardware(), gpu);
    const core::StackTimeline timeline = core::stack_timeline(report.memory, ceilings, state.options.timing);

    Playback& playback = ctx.playback;
    Timeline stack_time;
    stack_time.duration_seconds = timeline.duration_seconds;
    stack_time.step_seconds = timeline.step_seconds;
    stack_time.loop = false;                   // a finished stack stays up
    stack_time.opens_at_end = !ctx.exporting;  // the window opens on the finished stack; export draws the --t it is given
    playback.set_timeline(stack_time);
    draw_transport(playback);
    const core::StackFrame frame = core::stack_frame(report.memory, ctx.text, ceilings, playback.t_seconds, state.options.timing);

    ImGui::PushFont(fonts().bold);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(frame.crossed.empty() ? palette().text : palette().warning));
    wrapped_text(frame.caption);
    ImGui::PopStyleColor();
    ImGui::PopFont();
    ImGui::Spacing();

    const float em = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // A figure for a document needs no controls column: the plot's headings already state the figures. In the window the
    // controls sit beside the plot while it keeps its minimum width, else above it.
    if (!figure_mode()) {
        const ColumnSplit split = split_columns(avail.x, 0.28f, em * 17.0f, em * state.options.controls_width_em, em * state.options.plot_min_width_em);
        if (split.side_by_side) {
            ImGui::BeginChild("stack_controls", ImVec2(split.first_width, avail.y), false);
            ImGui::PushItemWidth(-em * 7.5f);  // room for the longest label, "Fragmentation"
            section_heading("Model");
            model_controls(ctx.scenario, report, ctx.feedback);
            ImGui::Spacing();
            section_heading("Activations and layout");
            training_controls(ctx.scenario, ctx.feedback);
            ImGui::PopItemWidth();
            ImGui::Spacing();
            section_heading("Figures");
            draw_figures(report, ctx.text, gpu);
            ImGui::EndChild();
            ImGui::SameLine();
        } else if (const float half = (avail.x - ImGui::GetStyle().ItemSpacing.x) * 0.5f; half < em * (7.5f + 9.0f)) {
            // Narrower still (beside the sidebar, zoomed): one group under the other, each control as wide as the panel
            // allows (labels above it when 9 em would not remain beside them); the panel scrolls.
            const bool above = avail.x < em * (7.5f + 9.0f);
            const bool was_above = labels_above();
            set_labels_above(above);
            ImGui::PushItemWidth(above ? -FLT_MIN : std::min(avail.x - em * 7.5f, em * 16.0f));
            section_heading("Model");
            model_controls(ctx.scenario, report, ctx.feedback);
            ImGui::Spacing();
            section_heading("Activations and layout");
            training_controls(ctx.scenario, ctx.feedback);
            ImGui::PopItemWidth();
            set_labels_above(was_above);
            ImGui::Spacing();
        } else {
            // Narrow: the two groups of controls side by side above the plot, which keeps the whole width for its labels
            // (the figures are the plot's own headings).
            const float rows_height = ImGui::GetFrameHeightWithSpacing() * 5.0f + ImGui::GetTextLineHeightWithSpacing() * 1.6f;
            const float item_width = std::min(half - em * 7.5f, em * 16.0f);
            ImGui::BeginChild("stack_model_controls", ImVec2(half, rows_height), false);
            ImGui::PushItemWidth(item_width);
            section_heading("Model");
            model_controls(ctx.scenario, report, ctx.feedback);
            ImGui::PopItemWidth();
            ImGui::EndChild();
            ImGui::SameLine();
            ImGui::BeginChild("stack_training_controls", ImVec2(0, rows_height), false);
            ImGui::PushItemWidth(item_width);
            section_heading("Activations and layout");
            training_controls(ctx.scenario, ctx.feedback);
            ImGui::PopItemWidth();
            ImGui::EndChild();
        }
    }

    // Never squeezed below what its labels need: a short window scrolls to the plot instead. Too narrow for both columns'
    // labels, the columns stand one above the other, each in a plot of its own.
    std::vector<ColumnView> columns = {whole_column(frame, gpu), per_gpu_column(ctx.scenario, report, ctx.text, gpu, timeline.final_total_bytes)};
    // The axis is sized for the finished stack, so the animation grows into it instead of rescaling.
    double content = std::max(timeline.final_total_bytes, report.memory.per_gpu.peak_bytes);
    if (ctx.baseline) {
        const core::Report& baseline = *ctx.baseline->report;
        if (state.baseline_revision != ctx.baseline->revision) {
            state.baseline_revision = ctx.baseline->revision;
            state.baseline_whole_bytes = core::stack_timeline(baseline.memory, ceilings, state.options.timing).final_total_bytes;
        }
        std::vector<double> whole_blocks, per_gpu_blocks;
        for (const core::MemoryBlock& block : baseline.memory.blocks) {
            whole_blocks.push_back(block.whole_bytes);
            per_gpu_blocks.push_back(block.per_gpu_bytes);
        }
        columns[0].ghost = make_ghost(core::compare_figure("Whole model", state.baseline_whole_bytes, timeline.final_total_bytes, core::FigureUnit::bytes),
                                      whole_blocks);
        columns[1].ghost = make_ghost(ctx.baseline->comparison->peak_memory, per_gpu_blocks);
        content = std::max({content, state.baseline_whole_bytes, baseline.memory.per_gpu.peak_bytes});
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const StackLayout layout = stack_layout(columns, ceilings, width);
    const bool bytes_only = layout != StackLayout::side_by_side;
    const std::string key = bytes_only ? ceiling_key(ceilings) : std::string();
    const float key_height = bytes_only ? wrapped_text_size(key, width).y + ImGui::GetStyle().ItemSpacing.y : 0.0f;
    const float plots = layout == StackLayout::one_above_the_other ? 2.0f : 1.0f;
    const float plot_height = std::max((ImGui::GetContentRegionAvail().y - key_height) / plots, em * (plots > 1 ? 22.0f : 18.0f));
    ImGui::BeginChild("stack_plot", ImVec2(0, plot_height * plots), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const bool hover = !ctx.exporting && ImGui::IsWindowHovered();
    const ImVec2 plot_size(ImGui::GetContentRegionAvail().x, plot_height - (plots > 1 ? ImGui::GetStyle().ItemSpacing.y : 0.0f));
    if (layout == StackLayout::one_above_the_other) {
        for (const ColumnView& column : columns)
            draw_plot({column}, ceilings, content, report.memory.hbm_bytes, hover, true, plot_size);
    } else {
        draw_plot(columns, ceilings, content, report.memory.hbm_bytes, hover, bytes_only, plot_size);
    }
    ImGui::EndChild();
    if (bytes_only) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
        wrapped_text(key);
        ImGui::PopStyleColor();
    }
}

}  // namespace

PanelDef make_stack_panel() {
    auto state = std::make_shared<StackPanelState>();
    return {"stack", "The memory stack", [state](PanelContext& ctx) { draw_stack_panel(*state, ctx); }, "Stack"};
}

}  // namespace widgets
