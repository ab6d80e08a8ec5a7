#include "widgets/panel.h"

namespace widgets {

PanelDef make_stack_panel();
PanelDef make_walls_panel();
PanelDef make_cube_panel();
PanelDef make_roofline_panel();
PanelDef make_ring_panel();
PanelDef make_pipeline_panel();
PanelDef make_configurator_panel();
PanelDef make_alltoall_panel();

std::vector<PanelDef> make_all_panels() {
    return {make_stack_panel(),    make_walls_panel(), make_cube_panel(),         make_roofline_panel(),
            make_ring_panel(),     make_pipeline_panel(), make_configurator_panel(),
            make_alltoall_panel()};
}

}  // namespace widgets
