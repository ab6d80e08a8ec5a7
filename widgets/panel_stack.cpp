// Placeholder until the panel's issue lands: draws the shared Report's headline figures.
#include "widgets/panel.h"
#include "widgets/placeholder.h"

namespace widgets {

PanelDef make_stack_panel() {
    return {"stack", "The 16-byte stack", [](PanelContext& ctx) { draw_placeholder(ctx, "The training state stacked byte by byte against HBM ceilings."); }};
}

}  // namespace widgets
