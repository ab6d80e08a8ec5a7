#include "widgets/comparison.h"

#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <algorithm>
#include <cmath>

namespace widgets {

ImU32 baseline_ink() { return palette().text_dim; }

float baseline_banner_height() { return 2.0f * ImGui::GetTextLineHeightWithSpacing(); }

void draw_baseline_banner(const BaselineView& baseline, bool unpin_hint) {
    const float width = ImGui::GetContentRegionAvail().x;
    const core::Comparison& comparison = *baseline.comparison;
    const std::string origin = "Baseline: " + *baseline.name + (figure_mode() || !unpin_hint ? "" : " (Ctrl+P unpins)");
    const std::string inputs = comparison.inputs.empty() ? comparison.inputs_text : "differs in " + comparison.inputs_text;
    // One line each, cut rather than wrapped, so every panel keeps the same room below; the whole on hover.
    ImGui::PushFont(fonts().bold);
    const std::string first = fit_text(origin + " - " + inputs, width);
    ImGui::TextUnformatted(first.c_str());
    ImGui::PopFont();
    if (first != origin + " - " + inputs) explain_last_item(origin + "\n" + inputs);
    const std::string second = fit_text(comparison.headline, width);
    ImGui::TextUnformatted(second.c_str());
    if (second != comparison.headline) explain_last_item(comparison.headline);
}

void add_dashed_line(ImDrawList* draw, ImVec2 from, ImVec2 to, ImU32 color, float thickness, float dash) {
    const float dx = to.x - from.x, dy = to.y - from.y;
    const float length = std::sqrt(dx * dx + dy * dy);
    if (!(length > 0) || !(dash > 0)) return;
    const float ux = dx / length, uy = dy / length;
    for (float at = 0; at < length; at += 2.0f * dash) {
        const float end = std::min(length, at + dash);
        add_axis_line(draw, ImVec2(from.x + ux * at, from.y + uy * at), ImVec2(from.x + ux * end, from.y + uy * end), color, thickness);
    }
}

void add_dashed_rect(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 color, float thickness, float dash) {
    add_dashed_line(draw, min, ImVec2(max.x, min.y), color, thickness, dash);
    add_dashed_line(draw, ImVec2(max.x, min.y), max, color, thickness, dash);
    add_dashed_line(draw, max, ImVec2(min.x, max.y), color, thickness, dash);
    add_dashed_line(draw, ImVec2(min.x, max.y), min, color, thickness, dash);
}

void add_trail(ImDrawList* draw, ImVec2 baseline, ImVec2 scenario, ImU32 color, float em) {
    const float thickness = std::max(1.0f, em * 0.08f);
    draw->AddCircle(baseline, em * 0.28f, color, 0, thickness);
    const float dx = scenario.x - baseline.x, dy = scenario.y - baseline.y;
    const float length = std::sqrt(dx * dx + dy * dy);
    const float gap = em * 0.45f;  // from the ring's edge to the point's
    if (length < 2.0f * gap) return;
    const float ux = dx / length, uy = dy / length;
    const ImVec2 start(baseline.x + ux * em * 0.28f, baseline.y + uy * em * 0.28f);
    const ImVec2 tip(scenario.x - ux * gap, scenario.y - uy * gap);
    add_dashed_line(draw, start, tip, color, thickness, em * 0.3f);
    const float head = em * 0.4f;
    draw->AddTriangleFilled(tip, ImVec2(tip.x - ux * head - uy * head * 0.5f, tip.y - uy * head + ux * head * 0.5f),
                            ImVec2(tip.x - ux * head + uy * head * 0.5f, tip.y - uy * head - ux * head * 0.5f), color);
}

ImVec2 change_label_size(const std::string& text) {
    ImFont* bold = fonts().bold;
    return bold->CalcTextSizeA(bold->FontSize, FLT_MAX, 0.0f, text.c_str());
}

ImVec2 add_change_label(ImDrawList* draw, ImVec2 at, const std::string& text, ImU32 color) {
    ImFont* bold = fonts().bold;
    draw->AddText(bold, bold->FontSize, at, color, text.c_str());
    return change_label_size(text);
}

void figure_change_line(const core::FigureComparison& figure) { dim_text("  vs baseline: " + figure.against); }

}  // namespace widgets
