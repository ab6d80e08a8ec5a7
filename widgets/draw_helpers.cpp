#include "widgets/draw_helpers.h"

#include "widgets/palette.h"
#include "widgets/text_wrap.h"

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

float segment_length_inside(ImVec2 from, ImVec2 to, ImVec2 min, ImVec2 max) {
    // Liang-Barsky: the segment's parameter range inside each pair of edges, intersected.
    float t0 = 0, t1 = 1;
    const float dx = to.x - from.x, dy = to.y - from.y;
    const float p[4] = {-dx, dx, -dy, dy};
    const float q[4] = {from.x - min.x, max.x - from.x, from.y - min.y, max.y - from.y};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return 0;
            continue;
        }
        const float r = q[i] / p[i];
        if (p[i] < 0) t0 = std::max(t0, r);
        else t1 = std::min(t1, r);
        if (t0 > t1) return 0;
    }
    return (t1 - t0) * std::hypot(dx, dy);
}

ImVec4 color4(ImU32 color) { return ImGui::ColorConvertU32ToFloat4(color); }

void dim_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().text_dim));
    wrapped_text(text);
    ImGui::PopStyleColor();
}

void add_axis_line(ImDrawList* draw, ImVec2 from, ImVec2 to, ImU32 color, float thickness) {
    const float half = 0.5f * std::max(1.0f, thickness);  // at least a pixel: a thinner rectangle may cover no pixel centre
    if (from.x == to.x) {
        draw->AddRectFilled(ImVec2(from.x + 0.5f - half, std::min(from.y, to.y) + 0.5f), ImVec2(from.x + 0.5f + half, std::max(from.y, to.y) + 0.5f), color);
    } else if (from.y == to.y) {
        draw->AddRectFilled(ImVec2(std::min(from.x, to.x) + 0.5f, from.y + 0.5f - half), ImVec2(std::max(from.x, to.x) + 0.5f, from.y + 0.5f + half), color);
    } else {
        draw->AddLine(from, to, color, thickness);
    }
}

float visible_rounding(float radius) { return radius < 1.5f ? 0.0f : radius; }

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

std::string fit_variant(const std::vector<std::string>& variants, float max_width) {
    for (const std::string& variant : variants) {
        if (ImGui::CalcTextSize(variant.c_str()).x <= max_width) return variant;
    }
    return variants.empty() ? std::string() : fit_text(variants.back(), max_width);
}

ColumnSplit split_columns(float available_width, float first_share, float first_min, float first_max, float rest_min) {
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    ColumnSplit split;
    split.side_by_side = available_width >= first_min + spacing + rest_min;
    split.first_width = split.side_by_side ? std::clamp(available_width * first_share, first_min,
                                                        std::max(first_min, std::min(first_max, available_width - spacing - rest_min)))
                                           : available_width;
    return split;
}

void second_column(float column_x) {
    const float last_right = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetScrollX();
    if (last_right + ImGui::GetStyle().ItemSpacing.x <= column_x) ImGui::SameLine(column_x);
}

std::vector<bool> columns_that_fit(const std::vector<float>& widths, const std::vector<int>& drop_order, float available) {
    std::vector<bool> shown(widths.size(), true);
    float total = 0;
    for (float width : widths) total += width;
    for (int column : drop_order) {
        if (total <= available) break;
        if (column < 0 || column >= static_cast<int>(widths.size()) || !shown[column]) continue;
        shown[column] = false;
        total -= widths[column];
    }
    return shown;
}

float labelled_width(float frame_width, const char* label) {
    return frame_width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

void same_line_if_fits(float next_width, float spacing) {
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const float after_last = ImGui::GetItemRectMax().x + spacing;
    if (after_last + next_width <= right_edge) ImGui::SameLine(0, spacing);
}

namespace {

// Bytes of a UTF-8 prefix that do not cut a character in two.
std::size_t utf8_boundary(const std::string& text, std::size_t at) {
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
    return at;
}

}  // namespace

std::string fit_text(const std::string& text, float max_width, bool keep_end) {
    const auto width = [](const std::string& candidate) { return ImGui::CalcTextSize(candidate.c_str()).x; };
    if (width(text) <= max_width) return text;
    const std::string ellipsis = "\xE2\x80\xA6";  // U+2026, in the shared fonts' ranges
    // The longest cut that fits, by bisection over the kept length.
    std::size_t low = 0, high = text.size();
    const auto candidate = [&](std::size_t kept) {
        if (!keep_end) return text.substr(0, utf8_boundary(text, kept)) + ellipsis;
        const std::size_t tail = kept / 2, head = kept - tail;
        return text.substr(0, utf8_boundary(text, head)) + ellipsis + text.substr(utf8_boundary(text, text.size() - tail));
    };
    while (low < high) {
        const std::size_t middle = (low + high + 1) / 2;
        if (width(candidate(middle)) <= max_width) low = middle;
        else high = middle - 1;
    }
    return candidate(low);
}

}  // namespace widgets
