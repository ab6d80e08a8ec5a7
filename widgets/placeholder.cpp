#include "widgets/placeholder.h"

#include "widgets/figure.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

namespace widgets {

void draw_placeholder(PanelContext& ctx, const char* coming) {
    const core::Report& report = ctx.report;
    wrapped_text(coming);
    ImGui::Spacing();
    figure(ctx.text.figures.peak_memory);
    figure(ctx.text.figures.step_time);
    figure(ctx.text.figures.mfu);
    // A bar of the per-GPU share of HBM, so the placeholder already draws from the Report.
    const float font = ImGui::GetFontSize();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float share = static_cast<float>(report.memory.per_gpu_over_hbm > 1 ? 1 : report.memory.per_gpu_over_hbm);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + font * 1.5f), palette().idle, font * 0.25f);
    draw->AddRectFilled(origin, ImVec2(origin.x + width * share, origin.y + font * 1.5f),
                        report.memory.fits ? palette().within_budget : palette().over_budget, font * 0.25f);
    ImGui::Dummy(ImVec2(width, font * 1.5f));
}

}  // namespace widgets
