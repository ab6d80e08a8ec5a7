// Placeholder until the panel's issue lands: draws the shared Report's headline figures.
#include "widgets/panel.h"
#include "widgets/placeholder.h"

namespace widgets {

PanelDef make_walls_panel() {
    return {"walls", "The three walls", [](PanelContext& ctx) { draw_placeholder(ctx, "Memory, time and serving budgets side by side."); }};
}

}  // namespace widgets
