#include "widgets/panel.h"

#include <imgui.h>

#include "widgets/draw_helpers.h"

namespace widgets {

PanelDef make_stack_panel();
PanelDef make_memory_timeline_panel();
PanelDef make_walls_panel();
PanelDef make_cube_panel();
PanelDef make_serving_panel();
PanelDef make_roofline_panel();
PanelDef make_anatomy_panel();
PanelDef make_ring_panel();
PanelDef make_pipeline_panel();
PanelDef make_configurator_panel();
PanelDef make_alltoall_panel();
PanelDef make_scaling_panel();
PanelDef make_run_panel();

std::vector<PanelDef> make_all_panels() {
    return {make_stack_panel(),   make_memory_timeline_panel(), make_walls_panel(),    make_cube_panel(),     make_serving_panel(),
            make_roofline_panel(), make_anatomy_panel(), make_ring_panel(),     make_pipeline_panel(),
            make_configurator_panel(), make_alltoall_panel(), make_scaling_panel(), make_run_panel()};
}

void save_trace_button(PanelContext& ctx, float spacing) {
    if (!ctx.requests || ctx.exporting) return;
    const char* save = "Save trace";
    same_line_if_fits(ImGui::CalcTextSize(save).x + ImGui::GetStyle().FramePadding.x * 2, spacing);
    if (ImGui::Button(save)) ctx.requests->save_trace = true;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Write the scenario's modelled step as a Chrome trace (JSON) in the working directory:\n"
                          "one process per pipeline stage, one thread per stream, one slice per kernel and collective.\n"
                          "Open it in Perfetto (ui.perfetto.dev) or chrome://tracing.");
}

}  // namespace widgets
