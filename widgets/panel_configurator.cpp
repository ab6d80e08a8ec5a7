// Placeholder until the panel's issue lands: draws the shared Report's headline figures.
#include "widgets/panel.h"
#include "widgets/placeholder.h"

namespace widgets {

PanelDef make_configurator_panel() {
    return {"configurator", "3D configurator", [](PanelContext& ctx) { draw_placeholder(ctx, "Layouts, memory per GPU, communication and the planner."); }};
}

}  // namespace widgets
