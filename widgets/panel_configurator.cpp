// The 3D-parallelism configurator: layout sliders constrained to valid values, what the layout costs (memory, communication,
// step time, money, failures), the device mesh, and the planner's fastest layouts (click one to apply it).
#include "core/model/format.h"
#include "core/cost/explain.h"
#include "core/cost/planner.h"
#include "core/model/scenario.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"
#include "widgets/draw_helpers.h"
#include "widgets/device_mesh.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/plan_job.h"
#include "widgets/stacked_bar.h"

#include <imgui.h>

#include <optional>

#include <algorithm>
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
};


// ---- Controls ----

void draw_controls(PanelContext& ctx) {
    core::Scenario& scenario = ctx.scenario;
    const core::Report& report = ctx.report;
    EditFeedback& feedback = ctx.feedback;
    const float font = ImGui::GetFontSize();

    section_heading("Layout");
    ImGui::TextWrapped("TP %d x PP %d x CP %d x DP %d = %d GPUs on %d nodes of %d", report.layout.tp, report.layout.pp, report.layout.cp,
                       report.layout.dp, report.layout.gpus, report.layout.nodes, report.layout.gpus_per_node);
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
    zero_slider("ZeRO", scenario, feedback);
    axis_slider("Micro-batch", scenario, core::LayoutAxis::micro_batch, feedback,
                "Sequences per micro-batch; micro-batches per step m = global batch / (DP x micro-batch) = " +
                    std::to_string(report.layout.microbatches) + ".");
    recompute_combo("Recompute", scenario, feedback);
    explain_last_item("Selective recomputes the attention scores (Korthikanti 2022); full recomputes every layer's forward (+1 forward of FLOPs).");
    schedule_combo("Schedule", scenario, feedback);
    if (scenario.parallel.schedule == core::ScheduleKind::interleaved) {
        axis_slider("Virtual stages", scenario, core::LayoutAxis::virtual_stages, feedback,
                    "Model chunks per GPU: the bubble shrinks v-fold, pipeline sends grow v-fold (Narayanan 2021 sec 2.2.2).");
    }
    sequence_parallel_checkbox("Sequence parallel", scenario, feedback);
    explain_last_item("Shards LayerNorm and dropout activations over TP: s b h (10/t + 24/t) instead of (10 + 24/t).",
                      "Korthikanti et al. 2022, Table 2");
    double dollars = scenario.operations.dollars_per_gpu_hour;
    if (committed_number_input("$ / GPU-hour", dollars, 0.0, 1e6)) ctx.scenario.operations.dollars_per_gpu_hour = dollars;
    ImGui::PopItemWidth();

    ImGui::Spacing();
    for (const std::string& warning : ctx.text.warnings) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().warning));
        ImGui::TextWrapped("%s", warning.c_str());
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

void stacked_bar(const std::vector<BarPiece>& pieces, double reference, const std::string& reference_label, ImU32 reference_color) {
    const float font = ImGui::GetFontSize();
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = font * 1.6f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    double total = 0;
    for (const BarPiece& piece : pieces) total += piece.value;
    const double scale_max = std::max(total, reference) * 1.04;
    const float reference_room = reference > 0 ? ImGui::CalcTextSize(reference_label.c_str()).x : 0.0f;
    draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), with_alpha(palette().idle, 0.35f), font * 0.2f);
    double start = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const BarPiece& piece = pieces[i];
        const float x0 = origin.x + static_cast<float>(start / scale_max) * width;
        const float x1 = origin.x + static_cast<float>((start + piece.value) / scale_max) * width;
        start += piece.value;
        if (x1 - x0 < 0.5f) continue;
        draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, origin.y + height), piece.color);
        ImGui::SetCursorScreenPos(ImVec2(x0, origin.y));
        ImGui::PushID(static_cast<int>(i));
        ImGui::InvisibleButton("piece", ImVec2(std::max(1.0f, x1 - x0), height));
        ImGui::PopID();
        explain_last_item(piece.label + ": " + piece.formula);
    }
    if (reference > 0) {
        const float x = origin.x + static_cast<float>(reference / scale_max) * width;
        draw->AddLine(ImVec2(x, origin.y - font * 0.3f), ImVec2(x, origin.y + height + font * 0.3f), reference_color, std::max(2.0f, font * 0.14f));
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
    const float column = font * 12.0f;
    const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / column));
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (i % per_row != 0) ImGui::SameLine(ImGui::GetCursorStartPos().x + column * static_cast<float>(i % per_row));
        legend_swatch(pieces[i].color);
        figure(pieces[i].label.c_str(), values[i], pieces[i].formula);
    }
}

void draw_memory(const core::Report& report, const core::ReportText& text) {
    const core::MemoryReport& memory = report.memory;
    section_heading("Memory per GPU at its peak (heaviest pipeline stage)");
    std::vector<BarPiece> pieces;
    std::vector<std::string> values;
    // One piece per state category, in the stack's order (Adam m and v arrive as two optimizer blocks), the stored
    // activations, then one piece for all the peak holds beside them: the stack panel names each of those.
    BarPiece beside{0, with_alpha(palette().text_dim, 0.8f), "at the peak", ""};
    for (std::size_t i = 0; i < memory.blocks.size(); ++i) {
        const core::MemoryBlock& block = memory.blocks[i];
        if (block.kind == core::MemoryKind::kv_cache || block.per_gpu_bytes <= 0) continue;
        if (!core::is_training_state(block.kind) && block.kind != core::MemoryKind::activations) {
            beside.value += block.per_gpu_bytes;
            beside.formula += (beside.formula.empty() ? "" : "\n") + text.block_per_gpu[i].formula;
            continue;
        }
        const std::string kind = core::memory_kind_name(block.kind);
        auto same_kind = [&](const BarPiece& piece) { return piece.label == kind; };
        auto found = std::find_if(pieces.begin(), pieces.end(), same_kind);
        if (found == pieces.end()) {
            pieces.push_back({block.per_gpu_bytes, memory_kind_color(block.kind), kind, text.block_per_gpu[i].formula});
        } else {
            found->value += block.per_gpu_bytes;
            found->formula += "\n" + text.block_per_gpu[i].formula;
        }
    }
    if (beside.value > 0) pieces.push_back(beside);
    for (const BarPiece& piece : pieces) values.push_back(core::format_bytes(piece.value));
    stacked_bar(pieces, memory.hbm_bytes, "HBM " + core::format_bytes(memory.hbm_bytes), palette().ceiling);
    legend(pieces, values);
    ImGui::PushStyleColor(ImGuiCol_Text, color4(memory.fits ? palette().within_budget : palette().over_budget));
    const std::string margin = memory.fits ? core::format_bytes(memory.headroom_bytes) + " to spare" : core::format_bytes(-memory.headroom_bytes) + " over";
    ImGui::Text("%s of %s at %s: %s (%s)", core::format_bytes(memory.per_gpu.peak_bytes).c_str(), core::format_bytes(memory.hbm_bytes).c_str(),
                core::memory_phase_text(memory.peak_phase).c_str(), memory.fits ? "fits" : "does not fit", margin.c_str());
    ImGui::PopStyleColor();
    explain_last_item(text.memory_verdict + "\n" + text.memory_peak_line + "\n" + text.activation_configuration + ": " + text.activations.formula,
                      "core/cost/memory.h");
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
    ImGui::InvisibleButton("stage_peaks", ImVec2(width, height + font * 1.3f));
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
    draw->AddText(ImVec2(origin.x, bottom + font * 0.2f), colors.text_dim, "stage 1");
    const std::string last = "stage " + std::to_string(stages);
    draw->AddText(ImVec2(origin.x + strip_width - ImGui::CalcTextSize(last.c_str()).x, bottom + font * 0.2f), colors.text_dim, last.c_str());
    const float hbm_y = bottom - static_cast<float>(memory.hbm_bytes / scale) * height;
    draw->AddLine(ImVec2(origin.x, hbm_y), ImVec2(origin.x + strip_width, hbm_y), colors.ceiling, std::max(1.0f, font * 0.1f));
    draw->AddText(ImVec2(origin.x + strip_width + font * 0.3f, hbm_y - font * 0.5f), colors.ceiling, hbm.c_str());
    if (hovered_stage >= 0) area_tooltip(text.stage_formulas[hovered_stage].formula);
    return ImGui::GetCursorPosY() - start_y;
}

ImU32 link_color(const core::AxisComm& axis) { return axis.crosses_nodes ? palette().infiniband : palette().nvlink; }

void draw_step(const core::Scenario& scenario, const core::Report& report, const core::ReportText& text) {
    const core::ComputeReport& compute = report.compute;
    section_heading("Step time");
    std::vector<BarPiece> pieces;
    pieces.push_back({compute.compute_seconds, palette().compute, "compute",
                      "the busiest GPU's kernels, each on the roofline at the GPU's measured efficiency = " + core::format_seconds(compute.compute_seconds)});
    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        const core::AxisComm& axis = report.comm.axes[i];
        if (axis.exposed_seconds > 0) {
            pieces.push_back({axis.exposed_seconds, link_color(axis), text.axis_groups[i] + " comm", text.axis_formulas[i].formula});
        }
    }
    pieces.push_back({compute.bubble_seconds, palette().idle, "bubble",
                      "the pipeline standing idle: idle/ideal " + core::format_number(report.pipeline.bubble_overhead) + " (" +
                          core::schedule_name(report.pipeline.schedule) + ", p " + std::to_string(report.pipeline.stages) + ", m " +
                          std::to_string(report.pipeline.microbatches) + ")"});
    stacked_bar(pieces, 0, "", 0);
    std::vector<std::string> values;
    for (const BarPiece& piece : pieces) values.push_back(core::format_seconds(piece.value));
    legend(pieces, values);

    const float column = ImGui::GetContentRegionAvail().x * 0.5f;
    const float left = ImGui::GetCursorPosX();
    run_figure(report.memory.fits, "Step", core::format_seconds(compute.step_seconds), text.step_basis);
    second_column(left + column);
    run_figure(report.memory.fits, "MFU", core::format_percent(compute.mfu),
           "model FLOPs per step / (step x GPUs x peak) = " + core::format_flops(compute.model_flops_per_step) + " / (" +
               core::format_seconds(compute.step_seconds) + " x " + std::to_string(report.layout.gpus) + " x " +
               core::format_flops_rate(compute.peak_flops_per_s) + ")",
           "Korthikanti et al. 2022, Appendix A");
    run_figure(report.memory.fits, "Time to train", core::format_seconds(compute.train_seconds),
           core::format_number(compute.steps) + " steps x " + core::format_seconds(compute.step_seconds) + ", no failures");
    second_column(left + column);
    run_figure(report.memory.fits, "GPU-hours", core::format_count(compute.gpu_hours),
           core::format_seconds(compute.train_seconds) + " x " + std::to_string(report.layout.gpus) + " GPUs");
    run_figure(report.memory.fits, "Cost", "$" + core::format_count(compute.cost_dollars),
           core::format_count(compute.gpu_hours) + " GPU-hours x $" + core::format_number(scenario.operations.dollars_per_gpu_hour) + " per GPU-hour");
    second_column(left + column);
    run_figure(report.memory.fits, "Achieved / GPU", core::format_flops_rate(compute.achieved_flops_per_s_per_gpu),
           "model FLOPs per step / (step x GPUs); peak " + core::format_flops_rate(compute.peak_flops_per_s));
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
    static const char* names[] = {"TP rank", "CP rank", "PP stage", "DP replica"};
    const core::Scenario& scenario = ctx.scenario;
    const core::Layout layout = core::layout_of(scenario);
    const int colour_by = static_cast<int>(effective_colouring(state.mesh, layout));
    if (figure_mode()) {
        ImGui::Text("GPUs coloured by %s", names[colour_by]);
    } else {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("Colour GPUs by");
        const ImGuiStyle& style = ImGui::GetStyle();
        for (int i = 0; i < 4; ++i) {  // as many to a line as fit
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

void draw_reliability(const core::Scenario& scenario, const core::Report& report) {
    const core::ReliabilityReport& r = report.reliability;
    section_heading("Failures and checkpoints");
    const float column = ImGui::GetContentRegionAvail().x * 0.5f;
    const float left = ImGui::GetCursorPosX();
    figure("Cluster MTBF", core::format_seconds(r.cluster_mtbf_seconds),
           "GPU MTBF / GPUs = " + core::format_number(scenario.operations.gpu_mtbf_hours) + " h / " + std::to_string(report.layout.gpus));
    second_column(left + column);
    figure("Checkpoint", core::format_bytes(r.checkpoint_bytes) + " in " + core::format_seconds(r.checkpoint_seconds),
           "weights, master and optimizer state / " + core::format_bandwidth(scenario.operations.checkpoint_bytes_per_s) + " to storage");
    figure("Young", core::format_seconds(r.young_interval_seconds), "sqrt(2 delta M)", "Young 1974");
    second_column(left + column);
    figure("Daly", core::format_seconds(r.daly_interval_seconds), "sqrt(2 delta M) [1 + 1/3 sqrt(delta/2M) + 1/9 delta/2M] - delta", "Daly 2006");
    figure("Goodput", r.makes_progress ? core::format_percent(r.goodput) : std::string("no progress"),
           "useful share of wall time: checkpoints " + core::format_percent(r.checkpoint_share) + ", rework " +
               core::format_percent(r.rework_share) + ", restarts " + core::format_percent(r.restart_share));
    second_column(left + column);
    figure("Failures", r.makes_progress ? core::format_number(r.expected_failures) : std::string("n/a"),
           "wall time / cluster MTBF, over " + core::format_seconds(r.wall_seconds));
    if (r.makes_progress) {
        figure("Wall time", core::format_seconds(r.wall_seconds), "time to train / goodput = " + core::format_seconds(report.compute.train_seconds) +
                                                                     " / " + core::format_percent(r.goodput));
    }
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

void draw_plan(ConfiguratorState& state, PanelContext& ctx) {
    refresh_plan(state, ctx);
    section_heading("Planner: the fastest layouts that fit (click a row to apply it)");
    if (!state.plan.has_result()) {
        dim_text("Ranking every layout of this model on " + std::to_string(ctx.scenario.cluster.gpus) + " GPUs...");
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
                         core::format_seconds(ctx.report.compute.step_seconds) + " per step.");
    explain_last_item("Every TP dividing the heads, PP up to the layers, CP dividing the sequence, DP dividing the batch, ZeRO 0-3, "
                      "micro-batch, recompute, and 1F1B / ZB-H1 / interleaved schedules, with TP x PP x CP x DP = GPUs. Equal step "
                      "times: fewer GPUs per replica first, then less memory; ZeRO stages that tie are shown once. The search runs "
                      "beside the window, so a drag never waits for it.");
    if (plan.best.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "No layout fits: add GPUs, or pick a smaller model or recipe.");
        return;
    }
    const core::Layout current = core::layout_of(ctx.scenario);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("plan", 15, flags)) return;
    ImGui::BeginDisabled(stale);  // a previous ranking's rows may not suit the new scenario: shown, not offered
    for (const char* header : {"#", "TP", "PP", "CP", "DP", "ZeRO", "micro-batch", "recompute", "schedule", "SP", "memory / GPU", "step",
                               "bubble", "exposed comm", "MFU"}) {
        ImGui::TableSetupColumn(header);
    }
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
        const std::string cells[] = {std::to_string(l.tp), std::to_string(l.pp), std::to_string(l.cp), std::to_string(l.dp),
                                     std::to_string(l.zero), std::to_string(l.micro_batch), core::recompute_name(l.recompute), schedule,
                                     l.sequence_parallel ? "on" : "off", core::format_bytes(entry.estimate.memory_per_gpu_bytes),
                                     core::format_seconds(entry.estimate.step_seconds), core::format_seconds(entry.estimate.bubble_seconds),
                                     core::format_seconds(entry.estimate.exposed_comm_seconds), core::format_percent(entry.estimate.mfu)};
        for (int column = 0; column < 14; ++column) {
            ImGui::TableSetColumnIndex(column + 1);
            ImGui::TextUnformatted(cells[column].c_str());
        }
    }
    ImGui::EndDisabled();
    ImGui::EndTable();
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
        draw_memory(ctx.report, ctx.text);
        ImGui::Spacing();
        draw_step(ctx.scenario, ctx.report, ctx.text);
        ImGui::Spacing();
        draw_comm(ctx.report, ctx.text);
        ImGui::Spacing();
        draw_mesh(state, ctx, font * 12.0f);
        ImGui::Spacing();
        draw_reliability(ctx.scenario, ctx.report);
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
    draw_memory(ctx.report, ctx.text);
    ImGui::Spacing();
    draw_step(ctx.scenario, ctx.report, ctx.text);
    ImGui::Spacing();
    draw_comm(ctx.report, ctx.text);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("mesh", ImVec2(0, top_height), false);
    const float reliability_height = ImGui::GetTextLineHeightWithSpacing() * 5.5f + font;
    const float stages_height = draw_stage_peaks(ctx.report.memory, ctx.text);
    if (stages_height > 0) ImGui::Spacing();
    draw_mesh(state, ctx, std::max(font * 6.0f, top_height - reliability_height - stages_height - ImGui::GetTextLineHeightWithSpacing() * 1.6f));
    ImGui::Spacing();
    draw_reliability(ctx.scenario, ctx.report);
    ImGui::EndChild();

    ImGui::BeginChild("plan", ImVec2(0, 0), false, child);
    draw_plan(state, ctx);
    ImGui::EndChild();
}

}  // namespace

PanelDef make_configurator_panel() {
    auto state = std::make_shared<ConfiguratorState>();
    return {"configurator", "3D configurator", [state](PanelContext& ctx) { draw_configurator(*state, ctx); }};
}

}  // namespace widgets
