#include "widgets/kernel_selection.h"

#include "core/cost/report/anatomy.h"

namespace widgets {

int selected_kernel(const PanelContext& ctx) {
    if (!ctx.selection || !ctx.selection->active) return -1;
    const KernelSelection& selection = *ctx.selection;
    return core::find_kernel(ctx.report.compute.kernels, selection.id, selection.pass, selection.scope, selection.occurrence);
}

void toggle_kernel_selection(PanelContext& ctx, int kernel) {
    const std::vector<core::Kernel>& kernels = ctx.report.compute.kernels;
    if (!ctx.selection || kernel < 0 || kernel >= static_cast<int>(kernels.size())) return;
    const core::Kernel& picked = kernels[kernel];
    const KernelSelection next{true, picked.id, picked.pass, picked.scope, core::kernel_occurrence(kernels, kernel)};
    KernelSelection& selection = *ctx.selection;
    const bool same = selection.active && selection.id == next.id && selection.pass == next.pass && selection.scope == next.scope &&
                      selection.occurrence == next.occurrence;
    selection = next;
    selection.active = !same;
}

}  // namespace widgets
