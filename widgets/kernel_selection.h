#pragma once
// The kernel picked in one panel and marked in the others (PanelContext::selection): found again in the current report.
#include "widgets/panel.h"

namespace widgets {

// The index into ctx.report.compute.kernels of the selected kernel, or -1 (nothing selected, or not in this scenario).
int selected_kernel(const PanelContext& ctx);

// Selects the kernel at index; selecting the selected one again clears the selection.
void toggle_kernel_selection(PanelContext& ctx, int kernel);

}  // namespace widgets
