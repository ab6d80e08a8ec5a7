#pragma once
// What a panel shows until its issue lands: its title and the shared Report's headline figures.
#include "widgets/panel.h"

namespace widgets {

void draw_placeholder(PanelContext& ctx, const char* coming);

}  // namespace widgets
