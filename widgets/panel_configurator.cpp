// The 3D-parallelism configurator: layout sliders constrained to valid values, what the layout costs (memory, communication,
// step time, money, failures), the device mesh, and the planner's fastest layouts (click one to apply it).
#include "core/model/format.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/budget_text.h"
#include "core/cost/report/figure_text.h"
#include "core/cost/search/planner.h"
#include "core/cost/search/sizing.h"
#include "core/model/scenario.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/device_mesh.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/plan_job.h"
#include "widgets/stacked_bar.h"
#include "widgets/size_job.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <optional>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct ConfiguratorState {
    DeviceMeshView mesh;              // colour GPUs by PP stage; sample whole DP replicas up to 256 GPUs
    int plan_rows = 10;               // planner rows in the table
    float controls_width_em = 20.0f;  // the left column
    float middle_width_em = 37.0f;    // memory, step time, communication

    // The plan depends on everything but the layout, and runs off the UI thread: a frame never waits for it.
    std::uint64_t plan_revision = 0;  // the scenario revision the ranking was last requested for
    PlanJob plan;

    // Sizing (GPU type x count x layout, by cost) depends on neither the GPU, its count nor the layout; off the UI thread.
    std::uint64_t sizing_revision = 0;
    SizeJob sizing;
    bool show_layouts = false;        // the bottom: the cheapest clusters (plot and table), or the layouts on these GPUs
    bool one_row_per_type = true;     // the clusters table: each GPU type's cheapest, or the whole ranking
    float sizing_plot_share = 0.42f;  // of the bottom's width, for the cost-against-time plot
    int sizing_max_gpus = 4096;       // the largest count sizing tries
};


// ---- Controls ----

void draw_controls(PanelContext& ctx) {
    core::Scenario& scenario = ctx.scenario;
    const core::Report& report = ctx.report;
    EditFeedback& feedback = ctx.feedback;
    const float font = ImGui::GetFontSize();

    section_heading("Layout");
    wrapped_text(core::layout_gpus_text(report.layout));
    if (report.moe.has_experts) {
        wrapped_textf("EP %d x ETP %d x EDP %d over a stage's TP x CP x DP; %d of %d experts per GPU", report.moe.ep, report.moe.etp,
                      report.moe.expert_data_parallel, report.moe.local_experts, report.moe.experts);
    }
    ImGui::Spacing();
    ImGui::PushItemWidth(-font * 6.5f);
    axis_slider("TP", scenario, core::LayoutAxis::tp, feedback,
                "Tensor parallel: splits every weight matrix. Must divide the " + std::to_string(scenario.model.heads) +
                    " heads; DP follows to keep the GPU count.");
    axis_slider("PP", scenario, core::LayoutAxis::pp, feedback,
                "Pipeline stages: the heaviest holds ceil(" + std::to_string(scenario.model.layers) + " / PP) layers. DP follows.");
    axis_slider("CP", scenario, core::LayoutAxis::cp, feedback,
                "Context parallel: splits the sequence (must divide " + std::to_string(scenario.train.seq_len) +
                    "); ring attention passes K and V.");
    axis_slider("DP", scenario, core::LayoutAxis::dp, feedback,
                "Data-parallel replicas: must divide the global batch (" + std::to_string(scenario.train.global_batch) +
                    "). Moving DP adds or removes GPUs.");
    if (scenario.model.is_moe()) {
        axis_slider("EP", scenario, core::LayoutAxis::ep, feedback,
                    "Expert parallel: the " + std::to_string(scenario.model.experts) +
                        " routed experts of each MoE layer split over EP GPUs; EP x ETP folds over a stage's TP x CP x DP GPUs, so the "
                        "GPU count stays. Tokens reach their experts by all-to-all.");
    }
    zero_slider("ZeRO", scenario, feedback);
    axis_slider("Micro-batch", scenario, core::LayoutAxis::micro_batch, feedback,
                "Sequences per micro-batch; micro-batches per step m = global batch / (DP x micro-batch) = " +
                    std::to_string(report.layout.microbatches) + ".");
    recompute_combo("Recompute", scenario, feedback);
    explain_last_item("Selective recomputes the attention scores (Korthikanti 2022); full recomputes every layer's forward (+1 forward of FLOPs).");
    attention_combo("Attention", scenario, feedback);
    compile_checkbox("torch.compile", scenario, feedback);
    schedule_combo("Schedule", scenario, feedback);
    if (scenario.parallel.schedule == core::ScheduleKind::interleaved) {
        axis_slider("Virtual stages", scenario, core::LayoutAxis::virtual_stages, feedback,
                    "Model chunks per GPU: the bubble shrinks v-fold, pipeline sends grow v-fold (Narayanan 2021 sec 2.2.2).");
    }
    sequence_parallel_checkbox("Sequence parallel", scenario, feedback);
    explain_last_item("Shards LayerNorm and dropout activations over TP: s b h (10/t + 24/t) instead of (10 + 24/t).",
                      "Korthikanti et al. 2022, Table 2");
    if (scenario.parallel.pp > 1) edge_stages_checkbox("Balance edge stages", scenario, feedback);
    if (scenario.model.is_moe()) {
        axis_slider("ETP", scenario, core::LayoutAxis::etp, feedback,
                    "Expert tensor parallel: each expert's MLP split over ETP GPUs (must divide the expert width " +
                        std::to_string(scenario.model.expert_ffn_hidden) + ").");
        load_imbalance_slider("Imbalance", scenario, feedback);
        node_limit_slider("Node limit", scenario, feedback);
        ep_overlap_checkbox("Overlap all-to-all", scenario, feedback);
        if (figure_mode()) {  // a document states what the controls would show
            dim_text("Busiest GPU's load " + core::format_number(scenario.moe.load_factor()) + "x the mean; node limit " +
                     (scenario.moe.node_limit > 0 ? core::format_counted(scenario.moe.node_limit, "node", "nodes") : std::string("off")) + "; all-to-all " +
                     (scenario.overlap.ep_all_to_all ? "overlapped" : "waited for"));
        }
    }
    finetune_combo("Fine-tune", scenario, feedback);
    lora_rank_slider("LoRA rank", scenario, feedback);
    price_controls("$ / GPU-h", scenario, feedback);
    ImGui::PopItemWidth();

    ImGui::Spacing();
    for (const std::string& warning : ctx.text.warnings) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().warning));
        wrapped_text(warning);
        ImGui::PopStyleColor();
    }
}

// ---- Memory, step time, communication ----

// A horizontal stacked bar of (value, colour, label) pieces against a reference line; the scale fits both.
struct BarPiece {
    double value;
    ImU32 color;
    std::string label;
    std::string formula;
};

// A reference more than this many times the total is drawn off scale, so a tiny column (MiniGPT against 24 GB) still
// shows its pieces; off_scale_label then says where the reference is.
constexpr double kOffScaleRatio = 20.0;

void stacked_bar(const std::vector<BarPiece>& pieces, double reference, std::string reference_label, ImU32 reference_color,
                 const std::string& off_scale_label = {}) {
    const float font = ImGui::GetFontSize();
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = font * 1.6f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    double total = 0;
    for (const BarPiece& piece : pieces) total += piece.value;
    const bool off_scale = reference > 0 && total > 0 && reference > kOffScaleRatio * total;
    if (off_scale) {
        reference_label = off_scale_label;
        reference = total * 1.2;  // the marker at the bar's end stands for the reference far beyond it
    }
    const double scale_max = std::max(total, reference) * 1.04;
    const float reference_room = reference > 0 ? ImGui::CalcTextSize(reference_label.c_str()).x : 0.0f;
    draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), with_alpha(palette().idle, 0.35f), font * 0.2f);
    double start = 0;
    ImU32 previous_color = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const BarPiece& piece = pieces[i];
        const float x0 = origin.x + static_cast<float>(start / scale_max) * width;
        const float x1 = origin.x + static_cast<float>((start + piece.value) / scale_max) * width;
        start += piece.value;
        if (x1 - x0 < 0.5f) continue;
        draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, origin.y + height), piece.color);
        // Pieces of one colour (two axes on the same link) would merge: a gap in the background's colour keeps them apart.
        if (piece.color == previous_color) draw->AddLine(ImVec2(x0, origin.y), ImVec2(x0, origin.y + height), palette().panel_background, std::max(1.0f, font * 0.1f));
        previous_color = piece.color;
        ImGui::SetCursorScreenPos(ImVec2(x0, origin.y));
        ImGui::PushID(static_cast<int>(i));
        ImGui::InvisibleButton("piece", ImVec2(std::max(1.0f, x1 - x0), height));
        ImGui::PopID();
        explain_last_item(piece.label + ": " + piece.formula);
    }
    if (reference > 0) {
        const float x = origin.x + static_cast<float>(reference / scale_max) * width;
        const float thickness = std::max(2.0f, font * 0.14f);
        if (off_scale) {  // a broken line: the reference is far off to the right
            draw->AddLine(ImVec2(x - font * 0.25f, origin.y + height * 0.5f), ImVec2(x + font * 0.25f, origin.y + height * 0.5f), reference_color, thickness);
            draw->AddLine(ImVec2(x + font * 0.05f, origin.y + height * 0.25f), ImVec2(x + font * 0.3f, origin.y + height * 0.5f), reference_color, thickness);
            draw->AddLine(ImVec2(x + font * 0.05f, origin.y + height * 0.75f), ImVec2(x + font * 0.3f, origin.y + height * 0.5f), reference_color, thickness);
        } else {
            draw->AddLine(ImVec2(x, origin.y - font * 0.3f), ImVec2(x, origin.y + height + font * 0.3f), reference_color, thickness);
        }
        const float text_x = std::min(x + font * 0.25f, origin.x + width - reference_room);
        draw->AddText(ImVec2(x + reference_room + font * 0.25f > origin.x + width ? x - reference_room - font * 0.25f : text_x,
                             origin.y + height + font * 0.3f),
                      reference_color, reference_label.c_str());
    }
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(ImVec2(width, height + font * 1.5f));
}

// Legend rows: a swatch, the label and the value, laid out in columns that wrap.
void legend(const std::vector<BarPiece>& pieces, const std::vector<std::string>& values) {
    const float font = ImGui::GetFontSize();
    // Each column as wide as the widest entry (swatch, label, value): an entry never wraps its value under its neighbour's.
    float widest = font * 12.0f;
    for (std::size_t i = 0; i < pieces.size() && i < values.size(); ++i) {
        widest = std::max(widest, font * 2.5f + ImGui::CalcTextSize(pieces[i].label.c_str()).x + ImGui::CalcTextSize(values[i].c_str()).x * 1.1f);
    }
    const float column = std::min(widest, std::max(font * 12.0f, ImGui::GetContentRegionAvail().x));
    const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / column));
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (i % per_row != 0) ImGui::SameLine(ImGui::GetCursorStartPos().x + column * static_cast<float>(i % per_row));
        legend_swatch(pieces[i].color);
        figure(pieces[i].label.c_str(), values[i], pieces[i].formula);
    }
}

void draw_memory(const core::Report& report, const core::ReportText& text, const core::Comparison* comparison) {
    const core::MemoryReport& memory = report.memory;
    section_heading("Memory per GPU at its peak (heaviest pipeline stage)");
    // One piece per group core gathers the peak into: each state kind, the activations, all the peak holds beside them
    // (the stack panel names each of those).
    std::vector<BarPiece> pieces;
    std::vector<std::string> values;
    for (std::size_t i = 0; i < report.peak_groups.size() && i < text.peak_groups.size(); ++i) {
        const core::PeakGroup& group = report.peak_groups[i];
        const core::FigureText& piece = text.peak_groups[i];
        pieces.push_back({group.per_gpu_bytes, group.held_beside ? with_alpha(palette().text_dim, 0.8f) : memory_kind_color(group.kind), piece.label,
                          piece.formula});
        values.push_back(piece.value);
    }
    stacked_bar(pieces, memory.hbm_bytes, "HBM " + core::format_bytes(memory.hbm_bytes), palette().ceiling,
                "HBM " + core::format_bytes(memory.hbm_bytes) + " far off scale: this is " + core::format_percent(memory.per_gpu_over_hbm) + " of it");
    legend(pieces, values);
    ImGui::PushStyleColor(ImGuiCol_Text, color4(memory.fits ? palette().within_budget : palette().over_budget));
    figure(text.figures.peak_memory);  // the value in the verdict's colour, which its words repeat
    ImGui::PopStyleColor();
    if (comparison) figure_change_line(comparison->peak_memory);
}

// Every pipeline stage's peak as a bar against HBM, the heaviest outlined, marked and named: hover a bar for its blocks.
// Returns the height it took (0 without a pipeline).
float draw_stage_peaks(const core::MemoryReport& memory, const core::ReportText& text) {
    const int stages = static_cast<int>(memory.per_stage.size());
    if (stages <= 1 || text.stage_formulas.size() != memory.per_stage.size()) return 0.0f;
    const float start_y = ImGui::GetCursorPosY();
    const Palette& colors = palette();
    const float font = ImGui::GetFontSize();
    const core::StageMemory& heaviest = memory.per_stage[memory.peak_stage];
    section_heading("Memory per pipeline stage");
    dim_text("Heaviest: " + text.stage_labels[memory.peak_stage] + ", " + core::format_bytes(heaviest.peak_bytes) + " at " +
             core::memory_phase_text(heaviest.phase));
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = font * 2.2f;
    const std::string hbm = "HBM " + core::format_bytes(memory.hbm_bytes);
    const float strip_width = std::max(font, width - ImGui::CalcTextSize(hbm.c_str()).x - font * 0.5f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("stage_peaks", ImVec2(width, height + font * 1.9f));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const double scale = std::max(memory.hbm_bytes, heaviest.peak_bytes) * 1.08;
    const float bottom = origin.y + height;
    const float slot = strip_width / static_cast<float>(stages);
    const float gap = slot > font * 0.4f ? std::max(1.0f, slot * 0.15f) : 0.0f;
    int hovered_stage = -1;
    for (int i = 0; i < stages; ++i) {
        const core::StageMemory& stage = memory.per_stage[i];
        const float x0 = origin.x + slot * static_cast<float>(i);
        const float x1 = x0 + std::max(1.0f, slot - gap);
        const float top = bottom - static_cast<float>(stage.peak_bytes / scale) * height;
        const ImU32 fill = stage.peak_bytes > memory.hbm_bytes ? colors.over_budget : colors.within_budget;
        draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, bottom), i == memory.peak_stage ? fill : with_alpha(fill, 0.55f));
        if (i == memory.peak_stage) draw->AddRect(ImVec2(x0, top), ImVec2(x1, bottom), colors.text, 0.0f, 0, std::max(1.0f, font * 0.08f));
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (hovered && mouse.x >= x0 && mouse.x < x0 + slot) hovered_stage = i;
    }
    // The heaviest's marker under its bar and the two ends named, so position says what colour says.
    const float heaviest_x = origin.x + slot * (static_cast<float>(memory.peak_stage) + 0.5f) - gap * 0.5f;
    draw->AddTriangleFilled(ImVec2(heaviest_x, bottom + font * 0.1f), ImVec2(heaviest_x - font * 0.3f, bottom + font * 0.55f),
                            ImVec2(heaviest_x + font * 0.3f, bottom + font * 0.55f), colors.text);
    // The ends' names under the marker; on a narrow strip "1" and the last number with "stage" between, never run together.
    const float names_y = bottom + font * 0.6f;
    const std::string first_long = "stage 1", last_long = "stage " + std::to_string(stages);
    const bool long_fit = ImGui::CalcTextSize(first_long.c_str()).x + ImGui::CalcTextSize(last_long.c_str()).x + font <= strip_width;
    const std::string first = long_fit ? first_long : "1", last = long_fit ? last_long : std::to_string(stages);
    const float first_width = ImGui::CalcTextSize(first.c_str()).x, last_width = ImGui::CalcTextSize(last.c_str()).x;
    draw->AddText(ImVec2(origin.x, names_y), colors.text_dim, first.c_str());
    draw->AddText(ImVec2(origin.x + strip_width - last_width, names_y), colors.text_dim, last.c_str());
    const float word_width = ImGui::CalcTextSize("stage").x;
    if (!long_fit && first_width + word_width + last_width + font <= strip_width)
        draw->AddText(ImVec2(origin.x + (strip_width - word_width) * 0.5f, names_y), colors.text_dim, "stage");
    const float hbm_y = bottom - static_cast<float>(memory.hbm_bytes / scale) * height;
    draw->AddLine(ImVec2(origin.x, hbm_y), ImVec2(origin.x + strip_width, hbm_y), colors.ceiling, std::max(1.0f, font * 0.1f));
    draw->AddText(ImVec2(origin.x + strip_width + font * 0.3f, hbm_y - font * 0.5f), colors.ceiling, hbm.c_str());
    if (hovered_stage >= 0) area_tooltip(text.stage_formulas[hovered_stage].formula);
    return ImGui::GetCursorPosY() - start_y;
}

ImU32 link_color(const core::AxisComm& axis) { return axis.crosses_nodes ? palette().infiniband : palette().nvlink; }

void draw_step(const core::Report& report, const core::ReportText& text, const core::Comparison* comparison) {
    const core::ComputeReport& compute = report.compute;
    const core::FigureTexts& figures = text.figures;
    section_heading("Step time");
    std::vector<BarPiece> pieces;
    std::vector<std::string> values;
    pieces.push_back({compute.compute_seconds, palette().compute, figures.compute_time.label, figures.compute_time.formula});
    values.push_back(figures.compute_time.value);
    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        const core::AxisComm& axis = report.comm.axes[i];
        if (axis.exposed_seconds > 0) {
            pieces.push_back({axis.exposed_seconds, link_color(axis), text.axis_groups[i] + " comm", text.axis_formulas[i].formula});
            values.push_back(core::format_seconds(axis.exposed_seconds));
        }
    }
    pieces.push_back({compute.bubble_seconds, palette().idle, figures.bubble_time.label, figures.bubble_time.formula});
    values.push_back(figures.bubble_time.value);
    if (compute.breakdown_seconds.straggler_seconds > 0) {
        pieces.push_back({compute.breakdown_seconds.straggler_seconds, palette().warning, figures.straggler_time.label, figures.straggler_time.formula});
        values.push_back(figures.straggler_time.value);
    }
    stacked_bar(pieces, 0, "", 0);
    legend(pieces, values);

    const float column = ImGui::GetContentRegionAvail().x * 0.5f;
    const float left = ImGui::GetCursorPosX();
    const bool fits = report.memory.fits;
    run_figure(fits, figures.step_time);
    second_column(left + column);
    run_figure(fits, figures.expected_error);
    run_figure(fits, figures.mfu);
    run_figure(fits, figures.time_to_train);
    second_column(left + column);
    run_figure(fits, figures.gpu_hours);
    run_figure(fits, figures.training_cost);
    second_column(left + column);
    run_figure(fits, figures.achieved_flops);
    if (comparison) dim_text("vs baseline: " + comparison->step_text);
}

// Seed 004's sentence, to paste into a lab notebook; its colour repeats what its last words say.
void draw_budget(const core::Report& report, const core::ReportText& text) {
    const core::BudgetReport& budget = report.budget;
    const ImU32 color = !budget.has_budget ? palette().text : budget.within_budget ? palette().within_budget : palette().over_budget;
    ImGui::PushStyleColor(ImGuiCol_Text, color4(color));
    wrapped_text(text.budget_sentence);
    ImGui::PopStyleColor();
    explain_last_item(text.figures.billed_cost.formula + "; budget - total = buffer. `shardscope cost` prints the same sentence, and exits with "
                      "status 3 over the budget.",
                      "what a cloud run costs, said before it starts: GPUs x price x hours, setup included");
}

void draw_comm(const core::Report& report, const core::ReportText& text) {
    section_heading("Communication per axis");
    if (report.comm.axes.empty()) {
        dim_text("One GPU: nothing to communicate.");
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("comm", 6, flags)) return;
    ImGui::TableSetupColumn("axis");
    ImGui::TableSetupColumn("collective", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("link");
    ImGui::TableSetupColumn("per step");
    ImGui::TableSetupColumn("exposed");
    ImGui::TableSetupColumn("sent / GPU");
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        const core::AxisComm& axis = report.comm.axes[i];
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(text.axis_groups[i].c_str());
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(text.axis_collectives[i].c_str());
        explain_last_item(text.axis_formulas[i].formula, text.axis_formulas[i].source.c_str());
        ImGui::TableSetColumnIndex(2);
        ImGui::TextColored(color4(link_color(axis)), "%s", text.axis_links[i].c_str());
        explain_last_item("NCCL bus bandwidth for this group " + core::format_bandwidth(axis.bus_bytes_per_s) + "; one collective's busbw " +
                          core::format_bandwidth(axis.busbw_bytes_per_s));
        ImGui::TableSetColumnIndex(3);
        ImGui::TextUnformatted(core::format_seconds(axis.seconds).c_str());
        ImGui::TableSetColumnIndex(4);
        if (axis.hidden) ImGui::TextColored(color4(palette().within_budget), "hidden");
        else ImGui::TextColored(color4(palette().warning), "%s", core::format_seconds(axis.exposed_seconds).c_str());
        ImGui::TableSetColumnIndex(5);
        ImGui::TextUnformatted(core::format_bytes(axis.bytes_per_gpu).c_str());
    }
    ImGui::EndTable();
}

// ---- Mesh and reliability ----

void draw_mesh(ConfiguratorState& state, PanelContext& ctx, float height) {
    const float top = ImGui::GetCursorPosY();
    section_heading("Device mesh");
    static const char* names[] = {"TP rank", "CP rank", "PP stage", "DP replica", "EP rank"};
    const core::Scenario& scenario = ctx.scenario;
    const core::Layout layout = core::layout_of(scenario);
    const int colour_by = static_cast<int>(effective_colouring(state.mesh, layout));
    const int colourings = layout.ep > 1 ? 5 : 4;  // EP rank only where experts are split
    if (figure_mode()) {
        ImGui::Text("GPUs coloured by %s", names[colour_by]);
    } else {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("Colour GPUs by");
        const ImGuiStyle& style = ImGui::GetStyle();
        for (int i = 0; i < colourings; ++i) {  // as many to a line as fit
            same_line_if_fits(ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(names[i]).x, style.ItemSpacing.x);
            if (ImGui::RadioButton(names[i], colour_by == i)) {
                state.mesh.colour_by = static_cast<MeshColouring>(i);
                state.mesh.automatic = false;
            }
        }
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const float remaining = height - (ImGui::GetCursorPosY() - top) + ImGui::GetTextLineHeightWithSpacing() * 1.6f;
    draw_device_mesh(state.mesh, layout, ctx.report.layout.gpus, scenario.cluster.gpus_per_node, ImVec2(width, remaining),
                     scenario.cluster.scale_up.name.c_str(), scenario.cluster.scale_out.name.c_str());
}

void draw_reliability(const core::Report& report, const core::ReportText& text, const core::Comparison* comparison) {
    const core::FigureTexts& figures = text.figures;
    section_heading("Failures and checkpoints");
    const float column = ImGui::GetContentRegionAvail().x * 0.5f;
    const float left = ImGui::GetCursorPosX();
    figure(figures.cluster_mtbf);
    second_column(left + column);
    figure(figures.checkpoint);
    figure(figures.young_interval);
    second_column(left + column);
    figure(figures.daly_interval);
    figure(figures.goodput);
    second_column(left + column);
    figure(figures.failures);
    if (report.reliability.makes_progress) figure(figures.wall_time);
    if (comparison) dim_text("vs baseline: " + comparison->run_text);
}

// ---- Planner ----

// What the ranking depends on: the scenario without its layout (the planner searches that).
core::Scenario layout_free(const core::Scenario& scenario) {
    core::Scenario layout_free = scenario;
    layout_free.parallel = core::ParallelSpec{};
    layout_free.train.micro_batch = 1;
    layout_free.train.recompute = core::Recompute::none;
    layout_free.train.sequence_parallel = false;
    layout_free.efficiency.mfu.reset();
    layout_free.efficiency.step_seconds.reset();
    layout_free.operations = core::OperationsSpec{};
    return layout_free;
}

void refresh_plan(ConfiguratorState& state, const PanelContext& ctx) {
    if (ctx.scenario_revision != state.plan_revision) {
        state.plan_revision = ctx.scenario_revision;
        core::PlanOptions options;
        options.top = state.plan_rows;
        state.plan.request(layout_free(ctx.scenario), options);  // layout moves leave the ranking as it is
    }
    if (ctx.exporting) state.plan.wait();  // a picture shows the finished table
    state.plan.poll();
}

// The cost sections in their order, the same in the three-column and the stacked layout.
void draw_costs(const PanelContext& ctx) {
    const core::Comparison* comparison = ctx.baseline ? ctx.baseline->comparison : nullptr;
    draw_memory(ctx.report, ctx.text, comparison);
    ImGui::Spacing();
    draw_step(ctx.report, ctx.text, comparison);
    draw_budget(ctx.report, ctx.text);
    ImGui::Spacing();
    draw_comm(ctx.report, ctx.text);
}

void draw_plan(ConfiguratorState& state, PanelContext& ctx) {
    refresh_plan(state, ctx);
    if (!state.plan.has_result()) {
        dim_text("Ranking every layout of this model on " + core::format_counted(ctx.scenario.cluster.gpus, "GPU", "GPUs") + "...");
        return;
    }
    const core::Plan& plan = state.plan.plan();
    if (!state.plan.error().empty()) {
        ImGui::TextColored(color4(palette().over_budget), "%s", state.plan.error().c_str());
        return;
    }
    const bool stale = state.plan.pending();
    dim_text(stale ? std::string("Ranking again for the new model, batch or cluster; the rows below are the previous ranking.")
                   : std::to_string(plan.layouts_considered) + " valid layouts, " + std::to_string(plan.layouts_fitting) + " fit in " +
                         core::format_bytes(ctx.report.memory.hbm_bytes) + ", ranked by modelled step time. This layout: " +
                         ctx.text.figures.step_time.value + " per step.");
    explain_last_item("Every TP dividing the heads, PP up to the layers, CP dividing the sequence, DP dividing the batch, ZeRO 0-3, "
                      "micro-batch, recompute, and 1F1B / ZB-H1 / interleaved schedules, with TP x PP x CP x DP = GPUs; for a model "
                      "with experts, every EP dividing them that folds over a stage's TP x CP x DP. Equal step "
                      "times: fewer GPUs per replica first, then less memory; ZeRO stages that tie are shown once. The search runs "
                      "beside the window, so a drag never waits for it.");
    if (plan.best.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "No layout fits: add GPUs, or pick a smaller model or recipe.");
        return;
    }
    const core::Layout current = core::layout_of(ctx.scenario);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    const bool experts = ctx.scenario.model.is_moe();  // the EP column only where the planner searches it
    std::vector<const char*> headers = {"#", "TP", "PP", "CP", "DP", "ZeRO", "micro-batch", "recompute", "schedule", "SP", "memory / GPU",
                                        "step", "bubble", "exposed comm", "MFU"};
    if (experts) headers.insert(headers.begin() + 5, "EP");
    if (!ImGui::BeginTable("plan", static_cast<int>(headers.size()), flags)) return;
    ImGui::BeginDisabled(stale);  // a previous ranking's rows may not suit the new scenario: shown, not offered
    for (const char* header : headers) ImGui::TableSetupColumn(header);
    ImGui::TableHeadersRow();
    // As many whole rows as the region shows (a short window or a lesson's scene): never a row cut in half.
    const float row_height = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2.0f;
    const std::size_t rows_fit = static_cast<std::size_t>(std::max(1.0f, (ImGui::GetContentRegionAvail().y - row_height) / row_height));
    for (std::size_t i = 0; i < std::min(plan.best.size(), rows_fit); ++i) {
        const core::PlanEntry& entry = plan.best[i];
        const core::Layout& l = entry.layout;
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::PushID(static_cast<int>(i));
        const std::string rank = std::to_string(i + 1);
        if (ImGui::Selectable(rank.c_str(), l == current, ImGuiSelectableFlags_SpanAllColumns)) {
            apply_edit(core::with_layout(ctx.scenario, l), ctx.scenario, ctx.feedback, "Planner");
        }
        ImGui::PopID();
        const std::string schedule = l.schedule == core::ScheduleKind::interleaved
                                         ? std::string("interleaved v ") + std::to_string(l.virtual_stages)
                                         : std::string(core::schedule_name(l.schedule));
        std::vector<std::string> cells = {std::to_string(l.tp), std::to_string(l.pp), std::to_string(l.cp), std::to_string(l.dp),
                                          std::to_string(l.zero), std::to_string(l.micro_batch), core::recompute_name(l.recompute), schedule,
                                          l.sequence_parallel ? "on" : "off", core::format_bytes(entry.estimate.memory_per_gpu_bytes),
                                          core::format_seconds(entry.estimate.step_seconds), core::format_seconds(entry.estimate.bubble_seconds),
                                          core::format_seconds(entry.estimate.exposed_comm_seconds), core::format_percent(entry.estimate.mfu)};
        if (experts) cells.insert(cells.begin() + 4, std::to_string(l.ep));
        for (std::size_t column = 0; column < cells.size(); ++column) {
            ImGui::TableSetColumnIndex(static_cast<int>(column) + 1);
            ImGui::TextUnformatted(cells[column].c_str());
        }
    }
    ImGui::EndDisabled();
    ImGui::EndTable();
}

// ---- Sizing: GPU type x count x layout, by cost ----

// What sizing depends on: not the GPU, its count or the layout (it varies those), nor the price typed for this GPU.
core::Scenario sizing_free(const core::Scenario& scenario) {
    core::Scenario free = layout_free(scenario);
    core::set_gpu(free.cluster, core::builtin_hardware().gpus.front());
    free.cluster.gpus = 1;
    return free;
}

core::SizingOptions sizing_options(const ConfiguratorState& state, const core::Scenario& scenario) {
    core::SizingOptions options;
    options.price = scenario.budget.price == core::PriceBasis::spot ? core::PriceBasis::spot : core::PriceBasis::on_demand;
    options.max_gpus = state.sizing_max_gpus;
    options.deadline_seconds = scenario.train.deadline_days * 86400.0;
    options.budget_dollars = scenario.budget.budget_dollars;
    return options;
}

void refresh_sizing(ConfiguratorState& state, const PanelContext& ctx) {
    if (ctx.scenario_revision != state.sizing_revision) {
        state.sizing_revision = ctx.scenario_revision;
        state.sizing.request(sizing_free(ctx.scenario), sizing_options(state, ctx.scenario));
    }
    if (ctx.exporting) state.sizing.wait();  // a picture shows the finished front
    state.sizing.poll();
}

// The axis unit for times to train: the largest that keeps the longest under a few hundred.
struct TimeUnit {
    double seconds;
    const char* title;
};
TimeUnit time_unit(double longest_seconds) {
    if (longest_seconds > 2.0 * 86400.0) return {86400.0, "time to train (days)"};
    if (longest_seconds > 2.0 * 3600.0) return {3600.0, "time to train (hours)"};
    if (longest_seconds > 120.0) return {60.0, "time to train (minutes)"};
    return {1.0, "time to train (s)"};
}

std::string cluster_name(const core::SizingRow& row) { return std::to_string(row.gpus) + "\u00d7 " + row.gpu_name; }

void draw_sizing_plot(const ConfiguratorState& state, PanelContext& ctx) {
    const core::Sizing& sizing = state.sizing.sizing();
    const core::Scenario& scenario = ctx.scenario;
    if (!state.sizing.has_result()) {
        dim_text("Sizing every GPU type at 1 to " + std::to_string(state.sizing_max_gpus) + " GPUs...");
        return;
    }
    if (!state.sizing.error().empty()) {
        ImGui::TextColored(color4(palette().over_budget), "%s", state.sizing.error().c_str());
        return;
    }
    if (sizing.rows.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "No GPU type fits this model at up to %d GPUs.", state.sizing_max_gpus);
        return;
    }
    const double deadline_seconds = scenario.train.deadline_days * 86400.0;
    const core::BudgetReport& own = ctx.report.budget;
    double min_t = ctx.report.compute.train_seconds, max_t = min_t, min_c = own.total_dollars, max_c = own.total_dollars;
    for (const core::SizingRow& row : sizing.rows) {
        min_t = std::min(min_t, row.train_seconds);
        max_t = std::max(max_t, row.train_seconds);
        min_c = std::min(min_c, row.cost.total_dollars);
        max_c = std::max(max_c, row.cost.total_dollars);
    }
    // The deadline and the budget widen the axes only when they are near the clusters; far off, a note says where.
    const bool deadline_shown = deadline_seconds >= min_t / 30.0 && deadline_seconds <= max_t * 30.0;
    if (deadline_shown) {
        min_t = std::min(min_t, deadline_seconds);
        max_t = std::max(max_t, deadline_seconds);
    }
    const bool budget_shown = scenario.budget.budget_dollars && *scenario.budget.budget_dollars >= min_c / 30.0 && *scenario.budget.budget_dollars <= max_c * 30.0;
    if (budget_shown) {
        min_c = std::min(min_c, *scenario.budget.budget_dollars);
        max_c = std::max(max_c, *scenario.budget.budget_dollars);
    }
    const TimeUnit unit = time_unit(max_t);
    LogPlotAxes axes;
    axes.x_title = unit.title;
    axes.y_title = "cost to train ($, setup included)";
    axes.x_min = std::max(min_t / unit.seconds / 1.6, 1e-6);
    axes.x_max = max_t / unit.seconds * 1.6;
    axes.y_min = std::max(min_c / 1.6, 1e-6);
    axes.y_max = max_c * 1.6;
    axes.legend = LegendCorner::top_right;  // over the dominated clusters, away from the front
    if (!BeginLogPlot("##sizing", ImVec2(-1, -1), axes)) return;
    const Palette& colors = palette();
    const ImU32 candidate = with_alpha(colors.text_dim, 0.55f);
    for (std::size_t i = 0; i < sizing.rows.size(); ++i) {
        const core::SizingRow& row = sizing.rows[i];
        if (PlotPoint(i == 0 ? "GPU type x count" : "##cluster", row.train_seconds / unit.seconds, row.cost.total_dollars, candidate, 0.18f,
                      MarkerShape::circle)) {
            ImGui::SetTooltip("%s: %s, %s", cluster_name(row).c_str(), core::format_seconds(row.train_seconds).c_str(),
                              core::format_dollars(row.cost.total_dollars).c_str());
        }
    }
    std::vector<double> xs, ys;
    for (std::size_t index : sizing.front) {
        xs.push_back(sizing.rows[index].train_seconds / unit.seconds);
        ys.push_back(sizing.rows[index].cost.total_dollars);
    }
    PlotLine("Pareto front", xs.data(), ys.data(), static_cast<int>(xs.size()), colors.compute, 0.1f);
    // Label a handful of the front, spread along it: every label would cover the plot. They give way to the cheapest.
    const std::size_t labels = std::min<std::size_t>(sizing.front.size(), 3);
    for (std::size_t k = 0; k < sizing.front.size(); ++k) {
        const core::SizingRow& row = sizing.rows[sizing.front[k]];
        if (PlotPoint("##front", xs[k], ys[k], colors.compute, 0.26f, MarkerShape::square)) {
            ImGui::SetTooltip("%s (%s): %s, %s", cluster_name(row).c_str(), row.feasible() ? "feasible" : "over the deadline or budget",
                              core::format_seconds(row.train_seconds).c_str(), core::format_dollars(row.cost.total_dollars).c_str());
        }
        const bool labelled = labels > 1 && (k * (labels - 1)) % (sizing.front.size() - 1) < labels - 1;
        if (labelled && &row != &sizing.rows.front()) PlotTextIfRoom(xs[k], ys[k], cluster_name(row).c_str(), colors.text_dim, ImVec2(0, 1), ImVec2(0.4f, -0.2f));
    }
    if (deadline_shown) PlotVLine("deadline", deadline_seconds / unit.seconds, colors.time_wall, 0.08f, 0.4f);
    if (budget_shown) PlotHLine("budget", *scenario.budget.budget_dollars, colors.over_budget, 0.08f, 0.4f);
    if (!deadline_shown) {  // a key for a line off the plot: where it is
        const std::string where = "deadline " + core::format_seconds(deadline_seconds) + (deadline_seconds > max_t ? ": far right" : ": far left");
        PlotLegendLine(where.c_str(), colors.time_wall, 0.4f);
    }
    const core::SizingRow& cheapest = sizing.rows.front();
    if (cheapest.feasible()) {
        PlotPoint("cheapest in time", cheapest.train_seconds / unit.seconds, cheapest.cost.total_dollars, colors.within_budget,
                  0.42f, MarkerShape::ring);
        const std::string label = "cheapest: " + cluster_name(cheapest) + ", " + core::format_dollars(cheapest.cost.total_dollars);
        PlotText(cheapest.train_seconds / unit.seconds, cheapest.cost.total_dollars, label.c_str(), colors.within_budget, ImVec2(0, 0), ImVec2(0.5f, 0.3f));
    }
    PlotPoint("this cluster", ctx.report.compute.train_seconds / unit.seconds, own.total_dollars, colors.text, 0.32f, MarkerShape::diamond);
    EndLogPlot();
}

// One row of the sizing table applied: the GPU, then the count, then the layout, each through scenario_edits.
void apply_sizing_row(const core::SizingRow& row, PanelContext& ctx) {
    const core::GpuSpec* gpu = core::builtin_hardware().find_gpu(row.gpu_id);
    if (!gpu) return;
    core::Edit edit = core::with_gpu(ctx.scenario, *gpu);
    if (edit.ok()) edit = core::with_gpus(edit.scenario, row.gpus);
    if (edit.ok()) edit = core::with_layout(edit.scenario, row.best.layout);
    apply_edit(edit, ctx.scenario, ctx.feedback, "Sizing");
}

void draw_sizing_table(ConfiguratorState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    if (!figure_mode()) {  // a document shows the table, not its controls; the summary line states setup and budget
        ImGui::PushItemWidth(font * 7.0f);
        setup_hours_input("Setup (h)", ctx.scenario, ctx.feedback);
        ImGui::SameLine(0, font);
        budget_input("Budget ($)", ctx.scenario, ctx.feedback);
        ImGui::PopItemWidth();
        ImGui::SameLine(0, font);
        ImGui::Checkbox("each GPU type's cheapest", &state.one_row_per_type);
    }
    const core::Sizing& sizing = state.sizing.sizing();
    if (!state.sizing.has_result() || !state.sizing.error().empty()) return;
    const bool stale = state.sizing.pending();
    const std::string deadline = core::format_seconds(ctx.scenario.train.deadline_days * 86400.0);
    dim_text(stale ? std::string("Sizing again for the new model, batch or budget; the rows below are the previous sizing.")
                   : std::to_string(sizing.feasible_rows) + " of " + std::to_string(sizing.rows.size()) + " clusters that fit train within " + deadline +
                         (ctx.scenario.budget.budget_dollars ? " and " + core::format_dollars(*ctx.scenario.budget.budget_dollars) : std::string()) +
                         ", cheapest first (" + core::price_basis_name(sizing_options(state, ctx.scenario).price) + " prices, " +
                         core::format_seconds(ctx.scenario.budget.setup_hours * 3600.0) + " of setup each). * on the front.");
    explain_last_item("Every catalog GPU with a price at 1, 2, 3, 4, 6, 8, 12, ... GPUs (powers of two and 1.5 times them), each with the "
                      "planner's fastest layout that fits: cost = GPUs x price per GPU-hour x (time to train + setup). The Pareto "
                      "front holds the clusters that no other beats on both cost and time. `shardscope plan --size` prints the same.");
    const ImGuiStyle& style = ImGui::GetStyle();
    const float row_height = ImGui::GetTextLineHeight() + style.CellPadding.y * 2.0f;
    const int rows_that_fit = std::max(1, static_cast<int>((ImGui::GetContentRegionAvail().y - row_height) / row_height));
    std::vector<std::size_t> shown = core::cheapest_of_each_type(sizing);
    if (!state.one_row_per_type) {
        shown.resize(sizing.rows.size());
        for (std::size_t i = 0; i < shown.size(); ++i) shown[i] = i;
    }
    shown.resize(std::min<std::size_t>(shown.size(), static_cast<std::size_t>(std::min(state.plan_rows, rows_that_fit))));

    // The cells as text first, then which columns the width holds: "$ / GPU-h", MFU, the layout and the time go first.
    constexpr int kColumns = 8;
    const char* headers[kColumns] = {"#", "GPU", "GPUs", "layout", "time to train", "cost", "$ / GPU-h", "MFU"};
    std::vector<std::array<std::string, kColumns>> cells;
    for (std::size_t i : shown) {
        const core::SizingRow& row = sizing.rows[i];
        const std::string layout = core::layout_label(row.best.layout);
        cells.push_back({std::to_string(i + 1) + (row.on_front ? "*" : ""), row.gpu_name, std::to_string(row.gpus), layout,
                         core::format_seconds(row.train_seconds) + (row.meets_deadline ? "" : " (late)"),
                         core::format_dollars(row.cost.total_dollars) + (row.within_budget ? "" : " (over)"),
                         core::format_dollars(row.cost.dollars_per_gpu_hour), core::format_percent(row.best.estimate.mfu)});
    }
    std::vector<float> widths(kColumns);
    for (int column = 0; column < kColumns; ++column) {
        float widest = ImGui::CalcTextSize(headers[column]).x;
        for (const auto& row : cells) widest = std::max(widest, ImGui::CalcTextSize(row[column].c_str()).x);
        widths[column] = widest + style.CellPadding.x * 2.0f;
    }
    const float available = ImGui::GetContentRegionAvail().x;
    const std::vector<bool> visible = columns_that_fit(widths, {6, 7, 3, 4}, available);
    float others = 0;
    for (int column = 0; column < kColumns; ++column)
        if (visible[column] && column != 1) others += widths[column];
    const float gpu_width = std::max(font * 3.0f, std::min(widths[1], available - others)) - style.CellPadding.x * 2.0f;

    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
    const int visible_count = static_cast<int>(std::count(visible.begin(), visible.end(), true));
    if (!ImGui::BeginTable("sizing", visible_count, flags)) return;
    ImGui::BeginDisabled(stale);
    for (int column = 0; column < kColumns; ++column)
        if (visible[column]) ImGui::TableSetupColumn(headers[column], ImGuiTableColumnFlags_WidthFixed, column == 1 ? gpu_width : widths[column] - style.CellPadding.x * 2.0f);
    ImGui::TableHeadersRow();
    for (std::size_t r = 0; r < shown.size(); ++r) {
        const core::SizingRow& row = sizing.rows[shown[r]];
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::PushID(static_cast<int>(shown[r]));
        const bool current =
            row.gpu_id == ctx.scenario.cluster.gpu.id && row.gpus == ctx.scenario.cluster.gpus && row.best.layout == core::layout_of(ctx.scenario);
        if (ImGui::Selectable(cells[r][0].c_str(), current, ImGuiSelectableFlags_SpanAllColumns)) apply_sizing_row(row, ctx);
        if (ImGui::IsItemHovered() && !visible[3]) ImGui::SetTooltip("%s", cells[r][3].c_str());  // the dropped layout, on hover
        ImGui::PopID();
        int index = 1;
        for (int column = 1; column < kColumns; ++column) {
            if (!visible[column]) continue;
            ImGui::TableSetColumnIndex(index++);
            ImGui::TextUnformatted((column == 1 ? fit_text(cells[r][column], gpu_width) : cells[r][column]).c_str());
        }
    }
    ImGui::EndDisabled();
    ImGui::EndTable();
}

// The bottom of the panel: the cheapest clusters (the cost-against-time plot beside their table), or the planner's layouts
// on the scenario's own GPUs.
void draw_ranking(ConfiguratorState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    refresh_sizing(state, ctx);
    ImGui::PushFont(fonts().bold);
    ImGui::TextUnformatted("Rank");
    ImGui::PopFont();
    ImGui::SameLine();
    if (ImGui::RadioButton("the cheapest clusters (GPU type x count x layout)", !state.show_layouts)) state.show_layouts = false;
    ImGui::SameLine();
    const std::string layouts = ctx.scenario.cluster.gpus == 1 ? std::string("the fastest layouts on this GPU")
                                                                : "the fastest layouts on these " + core::format_counted(ctx.scenario.cluster.gpus, "GPU", "GPUs");
    if (ImGui::RadioButton(layouts.c_str(), state.show_layouts)) state.show_layouts = true;
    ImGui::SameLine();
    dim_text("(click a row to apply it)");
    ImGui::Separator();
    if (state.show_layouts) {
        draw_plan(state, ctx);
        return;
    }
    const ImGuiWindowFlags child = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
    ImGui::BeginChild("sizing plot", ImVec2(ImGui::GetContentRegionAvail().x * state.sizing_plot_share, 0), false, child);
    draw_sizing_plot(state, ctx);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("sizing table", ImVec2(0, 0), false, child);
    draw_sizing_table(state, ctx);
    ImGui::EndChild();
}

void draw_configurator(ConfiguratorState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    const ImGuiStyle& style = ImGui::GetStyle();
    // A figure needs no slider column, only its layout line: a narrower first column.
    const float controls_width = font * (figure_mode() ? 13.0f : state.controls_width_em);
    const float mesh_min_width = font * 14.0f;
    const float middle_width = std::min(font * state.middle_width_em,
                                        ImGui::GetContentRegionAvail().x - controls_width - mesh_min_width - 2.0f * font);
    if (middle_width < font * 30.0f) {
        // Too narrow for three columns: every section under the one before, and the panel scrolls.
        draw_controls(ctx);
        ImGui::Spacing();
        draw_costs(ctx);
        ImGui::Spacing();
        draw_mesh(state, ctx, font * 12.0f);
        ImGui::Spacing();
        draw_reliability(ctx.report, ctx.text, ctx.baseline ? ctx.baseline->comparison : nullptr);
        ImGui::Spacing();
        draw_plan(state, ctx);
        return;
    }
    // Heading and rule, the summary line, the header row and the rows: the plan gets what it needs, the rest goes on top.
    const float row = ImGui::GetTextLineHeight() + style.CellPadding.y * 2.0f;
    const float plan_height = row * static_cast<float>(state.plan_rows + 1) + ImGui::GetTextLineHeightWithSpacing() * 2.0f +
                              style.ItemSpacing.y * 3.0f + style.WindowPadding.y;
    const float top_height = std::max(font * 20.0f, ImGui::GetContentRegionAvail().y - plan_height - style.ItemSpacing.y);
    const ImGuiWindowFlags child = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;

    ImGui::BeginChild("controls", ImVec2(controls_width, top_height), false);
    draw_controls(ctx);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("costs", ImVec2(middle_width, top_height), false);  // scrolls when a short window cannot hold it
    draw_costs(ctx);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("mesh", ImVec2(0, top_height), false);
    const float reliability_height = ImGui::GetTextLineHeightWithSpacing() * (ctx.baseline ? 7.5f : 5.5f) + font;
    const float stages_height = draw_stage_peaks(ctx.report.memory, ctx.text);
    if (stages_height > 0) ImGui::Spacing();
    draw_mesh(state, ctx, std::max(font * 6.0f, top_height - reliability_height - stages_height - ImGui::GetTextLineHeightWithSpacing() * 1.6f));
    ImGui::Spacing();
    draw_reliability(ctx.report, ctx.text, ctx.baseline ? ctx.baseline->comparison : nullptr);
    ImGui::EndChild();

    ImGui::BeginChild("plan", ImVec2(0, 0), false, child);
    draw_ranking(state, ctx);
    ImGui::EndChild();
}

}  // namespace

PanelDef make_configurator_panel() {
    auto state = std::make_shared<ConfiguratorState>();
    return {"configurator", "3D configurator", [state](PanelContext& ctx) { draw_configurator(*state, ctx); }, "Configurator"};
}

}  // namespace widgets
