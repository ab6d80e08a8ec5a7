#include "widgets/draw_helpers.h"

#include "widgets/palette.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace widgets {

double tick_step_125(double span, double max_intervals) {
    if (!(span > 0) || !std::isfinite(span)) return 0;
    const double raw = span / std::max(1.0, max_intervals);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double factor : {1.0, 2.0, 5.0}) {
        if (factor * magnitude >= raw * (1 - 1e-12)) return factor * magnitude;  // 1e-12: 0.3 / 3 is not quite 0.1
    }
    return 10.0 * magnitude;
}

std::vector<double> linear_ticks(double min, double max, double max_intervals) {
    std::vector<double> ticks;
    const double step = tick_step_125(max - min, max_intervals);
    if (step <= 0) return ticks;
    const double tolerance = step * 1e-9;
    for (double index = std::ceil((min - tolerance) / step); index * step <= max + tolerance; index += 1) {
        const double value = index * step;
        ticks.push_back(std::fabs(value) < tolerance ? 0.0 : value);  // no "-0"
    }
    return ticks;
}

std::string tick_label(double value, double step) {
    const int decimals = step >= 1 ? 0 : std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, std::fabs(value) < step * 1e-9 ? 0.0 : value);
    return text;
}

ImVec4 color4(ImU32 color) { return ImGui::ColorConvertU32ToFloat4(color); }

void dim_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().text_dim));
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

void legend_swatch(ImU32 color, SwatchShape shape) {
    const float em = ImGui::GetFontSize();
    const float line = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 centre(at.x + 0.5f * em, at.y + line * 0.5f);
    switch (shape) {
        case SwatchShape::square:
            draw->AddRectFilled(ImVec2(centre.x - 0.4f * em, centre.y - 0.4f * em), ImVec2(centre.x + 0.4f * em, centre.y + 0.4f * em), color,
                                0.15f * em);
            break;
        case SwatchShape::disc: draw->AddCircleFilled(centre, 0.36f * em, color, 24); break;
        case SwatchShape::ring: draw->AddCircle(centre, 0.38f * em, color, 24, 0.14f * em); break;
    }
    ImGui::Dummy(ImVec2(1.1f * em, line));
    ImGui::SameLine(0, 0.2f * em);
}

void same_line_if_fits(float next_width, float spacing) {
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float after_last = ImGui::GetItemRectMax().x + spacing;
    if (after_last + next_width <= right_edge) ImGui::SameLine(0, spacing);
}

}  // namespace widgets
