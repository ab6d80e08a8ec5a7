#include "widgets/sidebar.h"

#include "core/format.h"
#include "widgets/figure.h"
#include "widgets/palette.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace widgets {
namespace {

// A combo over a list of integers; returns true when the choice changed.
bool int_combo(const char* label, int& value, const std::vector<int>& choices) {
    bool changed = false;
    const std::string preview = std::to_string(value);
    if (ImGui::BeginCombo(label, preview.c_str())) {
        for (int choice : choices) {
            const bool selected = choice == value;
            if (ImGui::Selectable(std::to_string(choice).c_str(), selected)) {
                value = choice;
                changed = true;
            }
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

std::vector<int> divisors_up_to(int n, int limit) {
    std::vector<int> result;
    for (int d = 1; d <= std::min(n, limit); ++d) if (n % d == 0) result.push_back(d);
    return result;
}

std::vector<int> powers_of_two(int from, int to) {
    std::vector<int> result;
    for (long long v = from; v <= to; v *= 2) result.push_back(static_cast<int>(v));
    return result;
}

void model_controls(core::Scenario& scenario) {
    const auto& models = core::builtin_models();
    if (ImGui::BeginCombo("Model", scenario.model.name.c_str())) {
        for (const core::ModelSpec& model : models) {
            if (ImGui::Selectable(model.name.c_str(), model.id == scenario.model.id)) scenario = core::with_model(scenario, model);
        }
        ImGui::EndCombo();
    }
    const auto& recipes = core::builtin_recipes();
    if (ImGui::BeginCombo("Precision", scenario.precision.name.c_str())) {
        for (const core::PrecisionRecipe& recipe : recipes) {
            if (ImGui::Selectable(recipe.name.c_str(), recipe.id == scenario.precision.id)) scenario.precision = recipe;
            if (ImGui::IsItemHovered() && !recipe.source.empty()) ImGui::SetTooltip("%s", recipe.source.c_str());
        }
        ImGui::EndCombo();
    }
}

void cluster_controls(core::Scenario& scenario) {
    gpu_combo("GPU", scenario);
    int gpus = scenario.cluster.gpus;
    if (ImGui::InputInt("GPUs", &gpus, 8, 64)) {
        scenario.cluster.gpus = std::clamp(gpus, 1, 1 << 20);
        scenario.parallel.dp = 0;  // the data-parallel degree follows the GPU count
    }
    int per_node = scenario.cluster.gpus_per_node;
    if (int_combo("GPUs per node", per_node, {1, 2, 4, 8, 16, 32, 64, 72})) scenario.cluster.gpus_per_node = per_node;
}

void layout_controls(core::Scenario& scenario, const core::Report& report) {
    core::ParallelSpec& parallel = scenario.parallel;
    auto layout_changed = [&] { parallel.dp = 0; };
    if (int_combo("TP", parallel.tp, divisors_up_to(scenario.model.heads, 128))) layout_changed();
    explain_last_item("Tensor parallel: splits every weight matrix; must divide the attention heads (" +
                      std::to_string(scenario.model.heads) + ").");
    std::vector<int> pp_choices;
    for (int p = 1; p <= std::min(scenario.model.layers, 128); ++p) {
        if (scenario.model.layers % p == 0 || p == 16) pp_choices.push_back(p);  // 16 over 126 layers: Llama 3's uneven split
    }
    if (int_combo("PP", parallel.pp, pp_choices)) layout_changed();
    if (int_combo("CP", parallel.cp, powers_of_two(1, 64))) layout_changed();
    ImGui::Text("DP  %d  (GPUs / (TP x PP x CP))", report.layout.dp);
    ImGui::SliderInt("ZeRO stage", &parallel.zero, 0, 3);
    explain_last_item("ZeRO-1 shards optimizer state, ZeRO-2 also gradients, ZeRO-3 also weights, over the data-parallel ranks.",
                      "Rajbhandari et al. 2019");
    static const char* schedules[] = {"naive", "gpipe", "1f1b", "interleaved", "zb-h1"};
    int schedule = static_cast<int>(parallel.schedule);
    if (ImGui::Combo("Schedule", &schedule, schedules, IM_ARRAYSIZE(schedules))) {
        parallel.schedule = static_cast<core::ScheduleKind>(schedule);
        if (parallel.schedule != core::ScheduleKind::interleaved) parallel.virtual_stages = 1;
        else if (parallel.virtual_stages == 1) parallel.virtual_stages = 2;
    }
    if (parallel.schedule == core::ScheduleKind::interleaved) int_combo("Virtual stages", parallel.virtual_stages, {1, 2, 3, 4, 6, 8});
}

void training_controls(core::Scenario& scenario) {
    core::TrainSpec& train = scenario.train;
    int_combo("Sequence length", train.seq_len, powers_of_two(256, 131072));
    int micro = train.micro_batch;
    if (ImGui::InputInt("Micro-batch", &micro)) train.micro_batch = std::max(1, micro);
    int global = train.global_batch;
    if (ImGui::InputInt("Global batch", &global, 16, 256)) train.global_batch = std::max(1, global);
    explain_last_item("Sequences per optimizer step across all data-parallel ranks; micro-batches per pipeline = global / (DP x micro-batch).");
    static const char* recomputes[] = {"none", "selective", "full"};
    int recompute = static_cast<int>(train.recompute);
    if (ImGui::Combo("Recompute", &recompute, recomputes, 3)) train.recompute = static_cast<core::Recompute>(recompute);
    ImGui::Checkbox("Sequence parallel", &train.sequence_parallel);
    ImGui::SameLine();
    ImGui::Checkbox("Flash attention", &train.flash_attention);
}

void headline(const core::Report& report) {
    const Palette& colors = palette();
    const core::MemoryReport& memory = report.memory;
    const ImVec4 verdict = ImGui::ColorConvertU32ToFloat4(memory.fits ? colors.within_budget : colors.over_budget);
    ImGui::PushStyleColor(ImGuiCol_Text, verdict);
    ImGui::TextWrapped("%s per GPU of %s: %s", core::format_bytes(memory.per_gpu.total_bytes).c_str(),
                       core::format_bytes(memory.hbm_bytes).c_str(), memory.fits ? "fits" : "does not fit");
    ImGui::PopStyleColor();
    explain_last_item("weights " + core::format_bytes(memory.per_gpu.weights_bytes) + " + grads " + core::format_bytes(memory.per_gpu.grads_bytes) +
                      " + master " + core::format_bytes(memory.per_gpu.master_bytes) + " + optimizer " +
                      core::format_bytes(memory.per_gpu.optimizer_bytes) + " + activations " + core::format_bytes(memory.per_gpu.activations_bytes));
    const core::ComputeReport& compute = report.compute;
    figure("Parameters", core::format_count(memory.params));
    figure("Training state", core::format_bytes(memory.state_bytes) + " (" + core::format_plain(memory.bytes_per_param) + " B/param)",
           core::format_plain(memory.bytes_per_param) + " B x " + core::format_sci(memory.params) + " = " + core::format_bytes(memory.state_bytes));
    figure("Step time", core::format_seconds(compute.step_seconds), compute.step_basis);
    figure("MFU", core::format_percent(compute.mfu), "model FLOPs per step / (step time x GPUs x peak) = " +
           core::format_flops(compute.model_flops_per_step) + " / (" + core::format_seconds(compute.step_seconds) + " x " +
           std::to_string(report.layout.gpus) + " x " + core::format_flops_rate(compute.peak_flops_per_s) + ")",
           "Korthikanti et al. 2022, Appendix A");
    figure("Time to train", core::format_seconds(compute.train_seconds), core::format_number(compute.steps) + " steps x " +
           core::format_seconds(compute.step_seconds));
    figure("GPU-hours", core::format_count(compute.gpu_hours));
    for (const std::string& warning : report.warnings) {
        if (warning.rfind("Does not fit", 0) == 0) continue;  // the red verdict above already says it
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.warning));
        ImGui::TextWrapped("%s", warning.c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace

void gpu_combo(const char* label, core::Scenario& scenario) {
    const auto& catalog = core::builtin_hardware();
    if (ImGui::BeginCombo(label, scenario.cluster.gpu.name.c_str())) {
        for (const core::GpuSpec& gpu : catalog.gpus) {
            if (ImGui::Selectable(gpu.name.c_str(), gpu.id == scenario.cluster.gpu.id)) {
                scenario.cluster.gpu = gpu;
                if (const core::LinkSpec* link = catalog.find_link(gpu.scale_up_link)) scenario.cluster.scale_up = *link;
            }
        }
        ImGui::EndCombo();
    }
}

void draw_sidebar(SidebarState& state, core::Scenario& scenario, const core::Report& report) {
    const float label_room = ImGui::GetFontSize() * 7.5f;
    ImGui::PushItemWidth(-label_room);
    section_heading("Model");
    model_controls(scenario);
    ImGui::Spacing();
    section_heading("Cluster");
    cluster_controls(scenario);
    ImGui::Spacing();
    section_heading("Parallel layout");
    layout_controls(scenario, report);
    ImGui::Spacing();
    section_heading("Training");
    training_controls(scenario);
    ImGui::PopItemWidth();
    ImGui::Spacing();
    if (!state.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().over_budget));
        ImGui::TextWrapped("Not applied: %s", state.error.c_str());
        ImGui::PopStyleColor();
    }
    section_heading("Figures");
    headline(report);
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    ImGui::TextWrapped("%s", core::kUnitConvention);
    ImGui::PopStyleColor();
}

}  // namespace widgets
