// The 3D-parallelism configurator: layout sliders constrained to valid values, what the layout costs (memory, communication,
// step time, money, failures), the device mesh, and the planner's fastest layouts (click one to apply it).
#include "core/format.h"
#include "core/planner.h"
#include "core/scenario.h"
#include "widgets/device_mesh.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/panel.h"

#include <imgui.h>

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

    // The plan depends on everything but the layout: it is recomputed only when that changes.
    std::string plan_key;
    std::uint64_t plan_revision = 0;  // the scenario revision plan_key was last checked at
    core::Plan plan;
    std::string plan_error;
};

ImVec4 color4(ImU32 color) { return ImGui::ColorConvertU32ToFloat4(color); }

void dim_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().text_dim));
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// ---- Controls ----

// A slider over the allowed values only; returns true with chosen set when the user picked another one.
bool choice_slider(const char* label, int current, const std::vector<int>& choices, int& chosen, const std::string& help) {
    if (choices.empty()) return false;
    int index = 0;
    for (std::size_t i = 0; i < choices.size(); ++i) if (choices[i] <= current) index = static_cast<int>(i);
    const std::string shown = std::to_string(current);  // the slider prints the value, not the index
    const bool moved = ImGui::SliderInt(label, &index, 0, static_cast<int>(choices.size()) - 1, shown.c_str(), ImGuiSliderFlags_AlwaysClamp);
    explain_last_item(help);
    if (!moved || choices[index] == current) return false;
    chosen = choices[index];
    return true;
}

std::string list_text(const std::vector<int>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size() && i < 24; ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    if (values.size() > 24) text += ", ...";
    return text;
}

void draw_controls(PanelContext& ctx) {
    core::Scenario& scenario = ctx.scenario;
    const core::Report& report = ctx.report;
    const core::LayoutChoices choices = core::layout_choices(scenario);
    const core::Layout now = core::layout_of(scenario);
    const float font = ImGui::GetFontSize();

    section_heading("Layout");
    ImGui::TextWrapped("TP %d x PP %d x CP %d x DP %d = %d GPUs on %d nodes of %d", report.layout.tp, report.layout.pp, report.layout.cp,
                       report.layout.dp, report.layout.gpus, report.layout.nodes, report.layout.gpus_per_node);
    ImGui::Spacing();
    ImGui::PushItemWidth(-font * 6.5f);
    int chosen = 0;
    if (choice_slider("TP", now.tp, choices.tp, chosen,
                      "Tensor parallel: splits every weight matrix. Must divide the " + std::to_string(scenario.model.heads) +
                          " heads; DP follows to keep the GPU count. Allowed: " + list_text(choices.tp)))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::tp, chosen);
    if (choice_slider("PP", now.pp, choices.pp, chosen,
                      "Pipeline stages: the heaviest holds ceil(" + std::to_string(scenario.model.layers) +
                          " / PP) layers. DP follows. Allowed: " + list_text(choices.pp)))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::pp, chosen);
    if (choice_slider("CP", now.cp, choices.cp, chosen,
                      "Context parallel: splits the sequence (must divide " + std::to_string(scenario.train.seq_len) +
                          "); ring attention passes K and V. Allowed: " + list_text(choices.cp)))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::cp, chosen);
    if (choice_slider("DP", now.dp, choices.dp, chosen,
                      "Data-parallel replicas: must divide the global batch (" + std::to_string(scenario.train.global_batch) +
                          "). Moving DP adds or removes GPUs. Allowed: " + list_text(choices.dp)))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::dp, chosen);
    int zero = scenario.parallel.zero;
    if (ImGui::SliderInt("ZeRO", &zero, 0, 3, "stage %d", ImGuiSliderFlags_AlwaysClamp)) ctx.scenario.parallel.zero = zero;
    explain_last_item("ZeRO-1 shards optimizer state, ZeRO-2 also gradients, ZeRO-3 also weights, over the DP x CP ranks.",
                      "Rajbhandari et al. 2019");
    if (choice_slider("Micro-batch", now.micro_batch, choices.micro_batch, chosen,
                      "Sequences per micro-batch; micro-batches per step m = global batch / (DP x micro-batch) = " +
                          std::to_string(report.layout.microbatches)))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::micro_batch, chosen);

    static const char* recomputes[] = {"none", "selective", "full"};
    int recompute = static_cast<int>(scenario.train.recompute);
    if (ImGui::Combo("Recompute", &recompute, recomputes, 3)) ctx.scenario.train.recompute = static_cast<core::Recompute>(recompute);
    explain_last_item("Selective recomputes the attention scores (Korthikanti 2022); full recomputes every layer's forward (+1 forward of FLOPs).");

    static const core::ScheduleKind kinds[] = {core::ScheduleKind::one_f_one_b, core::ScheduleKind::interleaved, core::ScheduleKind::zb_h1,
                                               core::ScheduleKind::gpipe, core::ScheduleKind::naive};
    if (ImGui::BeginCombo("Schedule", core::schedule_name(scenario.parallel.schedule))) {
        for (core::ScheduleKind kind : kinds) {
            core::Layout candidate = now;
            candidate.schedule = kind;
            candidate.virtual_stages = kind == core::ScheduleKind::interleaved ? std::min(2, std::max(1, scenario.model.layers / now.pp)) : 1;
            const bool allowed = core::layout_is_valid(scenario, candidate);
            if (ImGui::Selectable(core::schedule_name(kind), kind == scenario.parallel.schedule, allowed ? 0 : ImGuiSelectableFlags_Disabled)) {
                ctx.scenario.parallel.schedule = kind;
                ctx.scenario.parallel.virtual_stages = candidate.virtual_stages;
            }
            if (!allowed) explain_last_item("Needs the micro-batches (" + std::to_string(report.layout.microbatches) + ") to be a multiple of PP.");
        }
        ImGui::EndCombo();
    }
    if (scenario.parallel.schedule == core::ScheduleKind::interleaved &&
        choice_slider("Virtual stages", now.virtual_stages, choices.virtual_stages, chosen,
                      "Model chunks per GPU: the bubble shrinks v-fold, pipeline sends grow v-fold (Narayanan 2021 sec 2.2.2)."))
        ctx.scenario = core::with_axis(scenario, core::LayoutAxis::virtual_stages, chosen);
    ImGui::Checkbox("Sequence parallel", &ctx.scenario.train.sequence_parallel);
    explain_last_item("Shards LayerNorm and dropout activations over TP: s b h (10/t + 24/t) instead of (10 + 24/t).",
                      "Korthikanti et al. 2022, Table 2");
    double dollars = scenario.operations.dollars_per_gpu_hour;
    if (ImGui::InputDouble("$ / GPU-hour", &dollars, 0.25, 1.0, "%.2f")) ctx.scenario.operations.dollars_per_gpu_hour = std::clamp(dollars, 0.0, 1e6);
    ImGui::PopItemWidth();

    ImGui::Spacing();
    for (const std::string& warning : report.warnings) {
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
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float swatch = font * 0.8f;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + font * 0.15f), ImVec2(p.x + swatch, p.y + font * 0.15f + swatch),
                                                  pieces[i].color, font * 0.15f);
        ImGui::Dummy(ImVec2(swatch + font * 0.2f, font));
        ImGui::SameLine();
        figure(pieces[i].label.c_str(), values[i], pieces[i].formula);
    }
}

void draw_memory(const core::Report& report) {
    const core::MemoryReport& memory = report.memory;
    section_heading("Memory per GPU (heaviest pipeline stage)");
    std::vector<BarPiece> pieces;
    std::vector<std::string> values;
    // One piece per category, in the stack's order; Adam m and v arrive as two optimizer blocks.
    for (const core::MemoryBlock& block : memory.blocks) {
        if (block.kind == "kv_cache") continue;
        auto same_kind = [&](const BarPiece& piece) { return piece.label == block.kind; };
        auto found = std::find_if(pieces.begin(), pieces.end(), same_kind);
        if (found == pieces.end()) {
            pieces.push_back({block.per_gpu_bytes, memory_kind_color(block.kind), block.kind, block.per_gpu_formula});
        } else {
            found->value += block.per_gpu_bytes;
            found->formula += "\n" + block.per_gpu_formula;
        }
    }
    for (const BarPiece& piece : pieces) values.push_back(core::format_bytes(piece.value));
    stacked_bar(pieces, memory.hbm_bytes, "HBM " + core::format_bytes(memory.hbm_bytes), palette().ceiling);
    legend(pieces, values);
    ImGui::PushStyleColor(ImGuiCol_Text, color4(memory.fits ? palette().within_budget : palette().over_budget));
    const std::string margin = memory.fits ? core::format_bytes(memory.headroom_bytes) + " to spare" : core::format_bytes(-memory.headroom_bytes) + " over";
    ImGui::Text("%s of %s: %s (%s)", core::format_bytes(memory.per_gpu.total_bytes).c_str(), core::format_bytes(memory.hbm_bytes).c_str(),
                memory.fits ? "fits" : "does not fit", margin.c_str());
    ImGui::PopStyleColor();
    explain_last_item(memory.activations.configuration + ": " + memory.activations.formula, "Korthikanti et al. 2022, Table 2");
}

ImU32 link_color(const core::AxisComm& axis) { return axis.crosses_nodes ? palette().infiniband : palette().nvlink; }

void draw_step(const core::Scenario& scenario, const core::Report& report) {
    const core::ComputeReport& compute = report.compute;
    section_heading("Step time");
    std::vector<BarPiece> pieces;
    pieces.push_back({compute.compute_seconds, palette().compute, "compute",
                      "hardware FLOPs per GPU / (peak x " + core::format_percent(scenario.efficiency.compute_efficiency) + ") = " +
                          core::format_seconds(compute.compute_seconds)});
    for (const core::AxisComm& axis : report.comm.axes) {
        if (axis.exposed_seconds > 0) pieces.push_back({axis.exposed_seconds, link_color(axis), axis.axis + " comm", axis.formula});
    }
    pieces.push_back({compute.bubble_seconds, palette().idle, "bubble",
                      "compute x idle/ideal " + core::format_number(report.pipeline.bubble_overhead) + " (" + report.pipeline.schedule +
                          ", p " + std::to_string(report.pipeline.stages) + ", m " + std::to_string(report.pipeline.microbatches) + ")"});
    stacked_bar(pieces, 0, "", 0);
    std::vector<std::string> values;
    for (const BarPiece& piece : pieces) values.push_back(core::format_seconds(piece.value));
    legend(pieces, values);

    const float column = ImGui::GetContentRegionAvail().x * 0.5f;
    const float left = ImGui::GetCursorPosX();
    figure("Step", core::format_seconds(compute.step_seconds), compute.step_basis);
    ImGui::SameLine(left + column);
    figure("MFU", core::format_percent(compute.mfu),
           "model FLOPs per step / (step x GPUs x peak) = " + core::format_flops(compute.model_flops_per_step) + " / (" +
               core::format_seconds(compute.step_seconds) + " x " + std::to_string(report.layout.gpus) + " x " +
               core::format_flops_rate(compute.peak_flops_per_s) + ")",
           "Korthikanti et al. 2022, Appendix A");
    figure("Time to train", core::format_seconds(compute.train_seconds),
           core::format_number(compute.steps) + " steps x " + core::format_seconds(compute.step_seconds) + ", no failures");
    ImGui::SameLine(left + column);
    figure("GPU-hours", core::format_count(compute.gpu_hours),
           core::format_seconds(compute.train_seconds) + " x " + std::to_string(report.layout.gpus) + " GPUs");
    figure("Cost", "$" + core::format_count(compute.cost_dollars),
           core::format_count(compute.gpu_hours) + " GPU-hours x $" + core::format_number(scenario.operations.dollars_per_gpu_hour) + " per GPU-hour");
    ImGui::SameLine(left + column);
    figure("Achieved / GPU", core::format_flops_rate(compute.achieved_flops_per_s_per_gpu),
           "model FLOPs per step / (step x GPUs); peak " + core::format_flops_rate(compute.peak_flops_per_s));
}

void draw_comm(const core::Report& report) {
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
    for (const core::AxisComm& axis : report.comm.axes) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::Text("%s %d", axis.axis.c_str(), axis.degree);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(axis.collective.c_str());
        explain_last_item(axis.formula);
        ImGui::TableSetColumnIndex(2);
        ImGui::TextColored(color4(link_color(axis)), "%s", axis.link.c_str());
        explain_last_item(core::format_bandwidth(axis.link_bytes_per_s) + " per direction; busbw " + core::format_bandwidth(axis.busbw_bytes_per_s));
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
    section_heading("Device mesh");
    static const char* names[] = {"TP rank", "CP rank", "PP stage", "DP replica"};
    const core::Scenario& scenario = ctx.scenario;
    const core::Layout layout = core::layout_of(scenario);
    const int colour_by = static_cast<int>(effective_colouring(state.mesh, layout));
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Colour GPUs by");
    for (int i = 0; i < 4; ++i) {
        ImGui::SameLine();
        if (ImGui::RadioButton(names[i], colour_by == i)) {
            state.mesh.colour_by = static_cast<MeshColouring>(i);
            state.mesh.automatic = false;
        }
    }
    const float width = ImGui::GetContentRegionAvail().x;
    const float remaining = height - ImGui::GetFrameHeightWithSpacing();
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
    ImGui::SameLine(left + column);
    figure("Checkpoint", core::format_bytes(r.checkpoint_bytes) + " in " + core::format_seconds(r.checkpoint_seconds),
           "weights, master and optimizer state / " + core::format_bandwidth(scenario.operations.checkpoint_bytes_per_s) + " to storage");
    figure("Young", core::format_seconds(r.young_interval_seconds), "sqrt(2 delta M)", "Young 1974");
    ImGui::SameLine(left + column);
    figure("Daly", core::format_seconds(r.daly_interval_seconds), "sqrt(2 delta M) [1 + 1/3 sqrt(delta/2M) + 1/9 delta/2M] - delta", "Daly 2006");
    figure("Goodput", r.makes_progress ? core::format_percent(r.goodput) : std::string("no progress"),
           "useful share of wall time: checkpoints " + core::format_percent(r.checkpoint_share) + ", rework " +
               core::format_percent(r.rework_share) + ", restarts " + core::format_percent(r.restart_share));
    ImGui::SameLine(left + column);
    figure("Failures", r.makes_progress ? core::format_number(r.expected_failures) : std::string("n/a"),
           "wall time / cluster MTBF, over " + core::format_seconds(r.wall_seconds));
    if (r.makes_progress) {
        figure("Wall time", core::format_seconds(r.wall_seconds), "time to train / goodput = " + core::format_seconds(report.compute.train_seconds) +
                                                                     " / " + core::format_percent(r.goodput));
    }
}

// ---- Planner ----

std::string plan_key(const core::Scenario& scenario) {
    core::Scenario layout_free = scenario;
    layout_free.parallel = core::ParallelSpec{};
    layout_free.train.micro_batch = 1;
    layout_free.train.recompute = core::Recompute::none;
    layout_free.train.sequence_parallel = false;
    layout_free.efficiency.mfu.reset();
    layout_free.efficiency.step_seconds.reset();
    layout_free.operations = core::OperationsSpec{};
    return core::scenario_to_json(layout_free);
}

void refresh_plan(ConfiguratorState& state, const core::Scenario& scenario, std::uint64_t revision) {
    if (revision == state.plan_revision) return;
    state.plan_revision = revision;
    const std::string key = plan_key(scenario);  // layout moves leave the ranking as it is
    if (key == state.plan_key) return;
    state.plan_key = key;
    state.plan_error.clear();
    core::PlanOptions options;
    options.top = state.plan_rows;
    try {
        state.plan = core::plan_layouts(scenario, options);
    } catch (const std::exception& error) {
        state.plan = {};
        state.plan_error = error.what();
    }
}

void draw_plan(ConfiguratorState& state, PanelContext& ctx) {
    refresh_plan(state, ctx.scenario, ctx.scenario_revision);
    const core::Plan& plan = state.plan;
    section_heading("Planner: the fastest layouts that fit (click a row to apply it)");
    if (!state.plan_error.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "%s", state.plan_error.c_str());
        return;
    }
    dim_text(std::to_string(plan.layouts_considered) + " valid layouts, " + std::to_string(plan.layouts_fitting) + " fit in " +
             core::format_bytes(ctx.report.memory.hbm_bytes) + ", ranked by modelled step time. This layout: " +
             core::format_seconds(ctx.report.compute.step_seconds) + " per step.");
    explain_last_item("Every TP dividing the heads, PP up to the layers, CP dividing the sequence, DP dividing the batch, ZeRO 0-3, "
                      "micro-batch, recompute, and 1F1B / ZB-H1 / interleaved schedules, with TP x PP x CP x DP = GPUs. Equal step "
                      "times: fewer GPUs per replica first, then less memory; ZeRO stages that tie are shown once.");
    if (plan.best.empty()) {
        ImGui::TextColored(color4(palette().over_budget), "No layout fits: add GPUs, or pick a smaller model or recipe.");
        return;
    }
    const core::Layout current = core::layout_of(ctx.scenario);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("plan", 15, flags)) return;
    for (const char* header : {"#", "TP", "PP", "CP", "DP", "ZeRO", "micro-batch", "recompute", "schedule", "SP", "memory / GPU", "step",
                               "bubble", "exposed comm", "MFU"}) {
        ImGui::TableSetupColumn(header);
    }
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < plan.best.size(); ++i) {
        const core::PlanEntry& entry = plan.best[i];
        const core::Layout& l = entry.layout;
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::PushID(static_cast<int>(i));
        const std::string rank = std::to_string(i + 1);
        if (ImGui::Selectable(rank.c_str(), l == current, ImGuiSelectableFlags_SpanAllColumns)) {
            core::Scenario applied = core::apply_layout(ctx.scenario, l);
            applied.efficiency = ctx.scenario.efficiency;  // applying a layout keeps an assumed MFU assumed
            ctx.scenario = applied;
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
    ImGui::EndTable();
}

void draw_configurator(ConfiguratorState& state, PanelContext& ctx) {
    const float font = ImGui::GetFontSize();
    const ImGuiStyle& style = ImGui::GetStyle();
    // Heading and rule, the summary line, the header row and the rows: the plan gets what it needs, the rest goes on top.
    const float row = ImGui::GetTextLineHeight() + style.CellPadding.y * 2.0f;
    const float plan_height = row * static_cast<float>(state.plan_rows + 1) + ImGui::GetTextLineHeightWithSpacing() * 2.0f +
                              style.ItemSpacing.y * 3.0f + style.WindowPadding.y;
    const float top_height = std::max(font * 20.0f, ImGui::GetContentRegionAvail().y - plan_height - style.ItemSpacing.y);
    const ImGuiWindowFlags child = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;

    ImGui::BeginChild("controls", ImVec2(font * state.controls_width_em, top_height), false, child);
    draw_controls(ctx);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("costs", ImVec2(font * state.middle_width_em, top_height), false, child);
    draw_memory(ctx.report);
    ImGui::Spacing();
    draw_step(ctx.scenario, ctx.report);
    ImGui::Spacing();
    draw_comm(ctx.report);
    ImGui::EndChild();
    ImGui::SameLine(0, font);
    ImGui::BeginChild("mesh", ImVec2(0, top_height), false, child);
    const float reliability_height = ImGui::GetTextLineHeightWithSpacing() * 5.5f + font;
    draw_mesh(state, ctx, top_height - reliability_height - ImGui::GetTextLineHeightWithSpacing() * 1.6f);
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
