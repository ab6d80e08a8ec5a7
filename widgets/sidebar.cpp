#include "widgets/sidebar.h"

#include "core/model/format.h"
#include "widgets/controls.h"
#include "widgets/figure.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <vector>

namespace widgets {
namespace {

void model_controls(core::Scenario& scenario, EditFeedback& feedback) {
    model_combo("Model", scenario, feedback);
    precision_combo("Precision", scenario, feedback);
}

void cluster_controls(core::Scenario& scenario, EditFeedback& feedback) {
    gpu_combo("GPU", scenario, feedback);
    gpus_input("GPUs", scenario, feedback);
    gpus_per_node_combo("GPUs per node", scenario, feedback);
}

// Between the nodes: below the training controls, since the layout is what a class moves first.
void network_controls(core::Scenario& scenario, EditFeedback& feedback) {
    scale_out_link_combo("Link", scenario, feedback);
    fabric_combo("Fabric", scenario, feedback);
    straggler_sliders("Slow machines", "Their slowdown", scenario, feedback);
}

void layout_controls(core::Scenario& scenario, const core::Report& report, EditFeedback& feedback) {
    axis_slider("TP", scenario, core::LayoutAxis::tp, feedback,
                "Tensor parallel: splits every weight matrix; must divide the " + std::to_string(scenario.model.heads) + " attention heads.");
    axis_slider("PP", scenario, core::LayoutAxis::pp, feedback,
                "Pipeline stages: the heaviest holds ceil(" + std::to_string(scenario.model.layers) + " / PP) layers; DP follows.");
    axis_slider("CP", scenario, core::LayoutAxis::cp, feedback,
                "Context parallel: splits the sequence (must divide " + std::to_string(scenario.train.seq_len) + "); DP follows.");
    wrapped_textf("DP  %d  (GPUs / (TP x PP x CP))", report.layout.dp);
    if (scenario.model.is_moe()) {
        axis_slider("EP", scenario, core::LayoutAxis::ep, feedback,
                    "Expert parallel: each MoE layer's " + std::to_string(scenario.model.experts) +
                        " routed experts split over EP GPUs of a stage (EP x ETP divides TP x CP x DP); tokens travel by all-to-all.");
        load_imbalance_slider("Load imbalance", scenario, feedback);
    }
    zero_slider("ZeRO stage", scenario, feedback);
    if (scenario.parallel.zero == 3) zero3_engine_combo("ZeRO-3 engine", scenario, feedback);
    schedule_combo("Schedule", scenario, feedback);
    if (scenario.parallel.schedule == core::ScheduleKind::interleaved) {
        axis_slider("Virtual stages", scenario, core::LayoutAxis::virtual_stages, feedback,
                    "Model chunks per GPU: the bubble shrinks v-fold, pipeline sends grow v-fold (Narayanan 2021 sec 2.2.2).");
    }
    if (scenario.parallel.pp > 1) edge_stages_checkbox("Balance edge stages", scenario, feedback);
}

void training_controls(core::Scenario& scenario, EditFeedback& feedback) {
    seq_len_combo("Sequence length", scenario, feedback);
    axis_slider("Micro-batch", scenario, core::LayoutAxis::micro_batch, feedback, "Sequences per micro-batch per data-parallel rank.");
    global_batch_input("Global batch", scenario, feedback);
    explain_last_item("Sequences per optimizer step across all data-parallel ranks; micro-batches per pipeline = global / (DP x micro-batch).");
    recompute_combo("Recompute", scenario, feedback);
    sequence_parallel_checkbox("Sequence parallel", scenario, feedback);
    attention_combo("Attention", scenario, feedback);
    compile_checkbox("torch.compile", scenario, feedback);
}

void headline(const core::Report& report, const core::ReportText& text) {
    const Palette& colors = palette();
    const core::MemoryReport& memory = report.memory;
    const core::FigureTexts& figures = text.figures;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(memory.fits ? colors.within_budget : colors.over_budget));
    figure(figures.peak_memory);  // the value in the verdict's colour, which its words repeat
    ImGui::PopStyleColor();
    figure(figures.parameters);
    figure(figures.training_state);
    run_figure(memory.fits, figures.step_time);
    run_figure(memory.fits, figures.expected_error);
    run_figure(memory.fits, figures.mfu);
    run_figure(memory.fits, figures.time_to_train);
    run_figure(memory.fits, figures.gpu_hours);
    for (std::size_t i = 0; i < report.warnings.size(); ++i) {
        if (report.warnings[i].kind == core::WarningKind::does_not_fit) continue;  // the verdict above already says it
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.warning));
        wrapped_text(text.warnings[i]);
        ImGui::PopStyleColor();
    }
}

}  // namespace

void draw_sidebar(SidebarState& state, core::Scenario& scenario, const core::Report& report, const core::ReportText& text,
                  EditFeedback& feedback) {
    // Labels beside the controls while the controls keep 12 em (a recipe's name whole); in a narrower sidebar above them.
    const float label_room = ImGui::GetFontSize() * 7.5f;
    const bool above = ImGui::GetContentRegionAvail().x < label_room + ImGui::GetFontSize() * 12.0f;
    const bool was_above = labels_above();
    set_labels_above(above);
    ImGui::PushItemWidth(above ? -FLT_MIN : -label_room);
    section_heading("Model");
    model_controls(scenario, feedback);
    ImGui::Spacing();
    section_heading("Cluster");
    cluster_controls(scenario, feedback);
    ImGui::Spacing();
    section_heading("Parallel layout");
    layout_controls(scenario, report, feedback);
    ImGui::Spacing();
    section_heading("Training");
    training_controls(scenario, feedback);
    ImGui::Spacing();
    section_heading("Network");
    network_controls(scenario, feedback);
    ImGui::PopItemWidth();
    set_labels_above(was_above);
    ImGui::Spacing();
    if (!state.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().over_budget));
        wrapped_textf("Not applied: %s", state.error.c_str());
        ImGui::PopStyleColor();
    }
    section_heading("Figures");
    headline(report, text);
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_text(core::kUnitConvention);
    ImGui::PopStyleColor();
}

}  // namespace widgets
