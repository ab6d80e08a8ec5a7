// Placeholder until the panel's issue lands: draws the shared Report's headline figures.
#include "widgets/panel.h"
#include "widgets/placeholder.h"

namespace widgets {

PanelDef make_cube_panel() {
    return {"cube", "The regime cube", [](PanelContext& ctx) { draw_placeholder(ctx, "Models placed in (memory, compute, bandwidth) space."); }};
}

}  // namespace widgets
