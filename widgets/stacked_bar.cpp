#include "widgets/draw_helpers.h"
#include "widgets/stacked_bar.h"

#include "core/model/format.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"

#include <algorithm>
#include <cmath>

namespace widgets {
namespace {

// Label centres (screen y, listed bottom-up) pushed apart to at least `height`, kept within [top, bottom].
std::vector<float> spread_labels(std::vector<float> centers, float height, float top, float bottom) {
    const int count = static_cast<int>(centers.size());
    if (count == 0) return centers;
    for (float& y : centers) y = std::clamp(y, top + height * 0.5f, bottom - height * 0.5f);
    for (int i = 1; i < count; ++i) centers[i] = std::min(centers[i], centers[i - 1] - height);
    if (centers[count - 1] < top + height * 0.5f) {
        centers[count - 1] = top + height * 0.5f;
        for (int i = count - 2; i >= 0; --i) centers[i] = std::max(centers[i], centers[i + 1] + height);
    }
    return centers;
}

std::string elided(const std::string& text, float max_width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= max_width) return text;
    std::string shorter = text;
    while (!shorter.empty() && ImGui::CalcTextSize((shorter + "\u2026").c_str()).x > max_width) shorter.pop_back();
    return shorter.empty() ? std::string() : shorter + "\u2026";
}

void halo_text(ImDrawList* draw, ImFont* font, ImVec2 position, ImU32 color, const char* text) {
    const float size = font->FontSize;
    const ImVec2 extent = font->CalcTextSizeA(size, FLT_MAX, 0.0f, text);
    const float pad = size * 0.15f;
    draw->AddRectFilled(ImVec2(position.x - pad, position.y), ImVec2(position.x + extent.x + pad, position.y + extent.y),
                        with_alpha(palette().panel_background, 0.85f), size * 0.15f);
    draw->AddText(font, size, position, color, text);
}

// A torn edge across [x0, x1] at y: the column continues, the scale does not.
void draw_break_band(ImDrawList* draw, float x0, float x1, float y, float em) {
    const float half = em * 0.22f;
    const float tooth = em * 0.35f;
    draw->AddRectFilled(ImVec2(x0, y - half), ImVec2(x1, y + half), palette().panel_background);
    for (float offset : {-half, half}) {
        ImVec2 previous(x0, y + offset);
        int i = 0;
        for (float x = x0 + tooth * 0.5f; x <= x1 + 0.5f; x += tooth * 0.5f, ++i) {
            const ImVec2 next(std::min(x, x1), y + offset + (i % 2 == 0 ? -em * 0.1f : em * 0.1f));
            draw->AddLine(previous, next, palette().axis, em * 0.06f);
            previous = next;
        }
    }
}

}  // namespace

float StackAxis::y_of(double bytes) const {
    const double height = y_bottom - y_top;
    bytes = std::max(0.0, bytes);
    if (!has_break()) return y_bottom - static_cast<float>(height * std::min(bytes, top_bytes) / top_bytes);
    const double lower = height * lower_share;
    if (bytes <= break_bytes) return y_bottom - static_cast<float>(lower * bytes / break_bytes);
    const double above = std::min(bytes, top_bytes) - break_bytes;
    return y_bottom - static_cast<float>(lower + (height - lower) * above / (top_bytes - break_bytes));
}

StackAxis make_stack_axis(double content_max_bytes, double highest_ceiling_bytes, float y_bottom, float y_top) {
    StackAxis axis;
    axis.y_bottom = y_bottom;
    axis.y_top = y_top;
    const double ceilings_room = highest_ceiling_bytes * 1.12;  // the highest label sits clear of the top
    // A column far below the ceilings (MiniGPT's 0.2 GB under 24..192 GB) keeps the lower half to itself: one linear
    // segment would leave it a sliver at the bottom.
    if (content_max_bytes > 0 && content_max_bytes * 20.0 < highest_ceiling_bytes) {
        axis.break_bytes = content_max_bytes * 1.25;
        axis.top_bytes = ceilings_room;
        axis.lower_share = 0.55f;
        return axis;
    }
    if (content_max_bytes <= highest_ceiling_bytes * 1.6) {
        axis.top_bytes = std::max({ceilings_room, content_max_bytes * 1.04, 1e9});
        return axis;
    }
    axis.break_bytes = ceilings_room;
    axis.top_bytes = content_max_bytes * 1.04;
    axis.lower_share = 0.45f;  // the ceilings keep enough room to tell 80 from 141 from 192 GB
    return axis;
}

void draw_stack_axis(ImDrawList* draw, const StackAxis& axis, float x, float x_right, const char* title,
                     const std::vector<std::pair<float, float>>& busy_rows) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    draw->AddLine(ImVec2(x, axis.y_bottom), ImVec2(x, axis.y_top), colors.axis, em * 0.07f);
    auto tick = [&](double bytes) {
        const float y = axis.y_of(bytes);
        draw->AddLine(ImVec2(x - em * 0.3f, y), ImVec2(x, y), colors.axis, em * 0.07f);
        add_axis_line(draw, ImVec2(x, y), ImVec2(x_right, y), colors.grid, 1.0f);
        const std::string text = bytes == 0 ? std::string("0") : core::format_bytes(bytes);
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        const float top = y - size.y * 0.5f, bottom = y + size.y * 0.5f;
        const bool busy = std::any_of(busy_rows.begin(), busy_rows.end(),
                                      [&](const std::pair<float, float>& row) { return row.first < bottom && top < row.second; });
        if (!busy) draw->AddText(ImVec2(x - em * 0.45f - size.x, top), colors.text_dim, text.c_str());
    };
    const float tick_spacing = em * 3.0f;
    const double lower_top = axis.has_break() ? axis.break_bytes : axis.top_bytes;
    const float lower_pixels = axis.y_bottom - axis.y_of(lower_top);
    const double lower_step = tick_step_125(lower_top, lower_pixels / tick_spacing);
    for (double bytes = 0; bytes <= lower_top * (1 + 1e-9); bytes += lower_step) {
        if (axis.has_break() && axis.y_of(bytes) - axis.y_of(axis.break_bytes) < em * 1.2f) break;  // clear of the break
        tick(bytes);
    }
    if (axis.has_break()) {
        const float upper_pixels = axis.y_of(axis.break_bytes) - axis.y_top;
        const double upper_step = tick_step_125(axis.top_bytes - axis.break_bytes, upper_pixels / tick_spacing);
        for (double bytes = std::ceil(axis.break_bytes / upper_step) * upper_step; bytes <= axis.top_bytes; bytes += upper_step) {
            if (axis.y_of(axis.break_bytes) - axis.y_of(bytes) < em * 1.2f) continue;
            tick(bytes);
        }
        draw_break_band(draw, x - em * 0.4f, x + em * 0.4f, axis.y_of(axis.break_bytes), em);
    }
    const ImVec2 title_size = ImGui::CalcTextSize(title);
    draw->AddText(ImVec2(std::max(x - title_size.x * 0.5f, x - em * 5.0f), axis.y_top - title_size.y - em * 0.8f), colors.text_dim,
                  title);
}

float ceiling_labels_width(const std::vector<HorizontalLine>& lines) {
    float widest = 0;
    for (const HorizontalLine& line : lines) {
        ImFont* font = line.emphasised ? fonts().bold : ImGui::GetFont();
        widest = std::max(widest, font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, line.label.c_str()).x);
    }
    return widest;
}

namespace {

// Where each ceiling's label sits (its centre's screen y) and where it would sit unmoved.
struct CeilingLabelPlaces {
    std::vector<float> wanted, placed;
};

CeilingLabelPlaces place_ceiling_labels(const StackAxis& axis, const std::vector<HorizontalLine>& lines) {
    const float line_height = ImGui::GetTextLineHeight();
    CeilingLabelPlaces places;
    for (const HorizontalLine& line : lines) places.wanted.push_back(axis.y_of(line.bytes) - line_height * 0.6f);  // text above its line
    places.placed = spread_labels(places.wanted, line_height * 1.05f, axis.y_top - line_height, axis.y_bottom);
    return places;
}

}  // namespace

std::vector<std::pair<float, float>> ceiling_label_rows(const StackAxis& axis, const std::vector<HorizontalLine>& lines) {
    const float line_height = ImGui::GetTextLineHeight();
    const CeilingLabelPlaces places = place_ceiling_labels(axis, lines);
    std::vector<std::pair<float, float>> rows;
    for (float center : places.placed) rows.push_back({center - line_height * 0.5f, center + line_height * 0.5f});
    return rows;
}

std::vector<std::pair<float, float>> draw_ceilings(ImDrawList* draw, const StackAxis& axis, const std::vector<HorizontalLine>& lines,
                                                   float x_left, float x_right, float labels_right) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const float line_height = ImGui::GetTextLineHeight();
    const CeilingLabelPlaces places = place_ceiling_labels(axis, lines);
    const std::vector<float>& centers = places.wanted;
    const std::vector<float>& placed = places.placed;
    if (labels_right <= 0) labels_right = x_right;
    const bool labels_left = labels_right < x_left;  // in the axis' lane: the leader line runs right, to the axis
    const auto color_of = [&](const HorizontalLine& line) { return line.emphasised ? colors.ceiling : with_alpha(colors.ceiling, 0.7f); };
    for (const HorizontalLine& line : lines) {
        const float y = axis.y_of(line.bytes);
        const float thickness = em * (line.emphasised ? 0.14f : 0.07f);
        const float dash = em * (line.emphasised ? 1.0f : 0.45f);
        for (float x = x_left; x < x_right; x += dash * 1.6f) {
            add_axis_line(draw, ImVec2(x, y), ImVec2(std::min(x + dash, x_right), y), color_of(line), thickness);
        }
    }
    // The labels after every line: a close line above (B200 under MI300X) runs behind a label's halo, not across it.
    std::vector<std::pair<float, float>> rows;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const HorizontalLine& line = lines[i];
        const float y = axis.y_of(line.bytes);
        const ImU32 color = color_of(line);
        ImFont* font = line.emphasised ? fonts().bold : ImGui::GetFont();
        const ImVec2 size = font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, line.label.c_str());
        const float text_x = labels_right - size.x;
        const float text_y = placed[i] - line_height * 0.5f;
        if (std::abs(placed[i] - centers[i]) > line_height * 0.3f) {
            if (labels_left) draw->AddLine(ImVec2(labels_right + em * 0.1f, text_y + line_height * 0.5f), ImVec2(x_left, y), color, em * 0.05f);
            else draw->AddLine(ImVec2(text_x - em * 0.3f, text_y + line_height * 0.5f), ImVec2(text_x - em * 1.0f, y), color, em * 0.05f);
        }
        halo_text(draw, font, ImVec2(text_x, text_y), line.emphasised ? colors.text : colors.text_dim, line.label.c_str());
        // The row its label takes, and the line's own y when a leader line ties the label back to it.
        rows.push_back({std::min(text_y, y - em * 0.2f), std::max(text_y + line_height, y + em * 0.2f)});
    }
    return rows;
}

int draw_stacked_column(ImDrawList* draw, const StackAxis& axis, float x_left, float width, const std::vector<StackedBlock>& blocks,
                        const ColumnLabels& labels, double red_from_bytes, bool hover_enabled) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const float x_right = x_left + width;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hovered = -1;

    struct Placed {
        int index;
        float y_low, y_high;  // screen: y_low is the bottom edge
    };
    std::vector<Placed> placed;
    double total = 0;
    for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
        const StackedBlock& block = blocks[i];
        if (!block.visible) continue;
        const float y_low = axis.y_of(total);
        total += block.bytes;
        const float y_high = axis.y_of(total);
        placed.push_back({i, y_low, y_high});
        if (y_low - y_high >= 0.5f) {
            draw->AddRectFilled(ImVec2(x_left, y_high), ImVec2(x_right, y_low), block.color);
            if (y_low - y_high >= 3.0f) draw->AddLine(ImVec2(x_left, y_high), ImVec2(x_right, y_high), colors.panel_background, 1.0f);
        }
        if (hover_enabled && mouse.x >= x_left && mouse.x < x_right && mouse.y >= y_high - 1.0f && mouse.y < y_low + 1.0f) hovered = i;
    }
    const float top_y = axis.y_of(total);

    // Over budget: from the selected ceiling up the column is tinted, hatched and outlined red.
    if (red_from_bytes > 0 && total > red_from_bytes) {
        const float y0 = axis.y_of(red_from_bytes);
        draw->AddRectFilled(ImVec2(x_left, top_y), ImVec2(x_right, y0), with_alpha(colors.over_budget, 0.12f));
        draw->PushClipRect(ImVec2(x_left, top_y), ImVec2(x_right, y0), true);
        const float pitch = em * 0.8f;
        for (float offset = -(y0 - top_y); offset < width; offset += pitch) {
            draw->AddLine(ImVec2(x_left + offset, y0), ImVec2(x_left + offset + (y0 - top_y), top_y), with_alpha(colors.over_budget, 0.6f),
                          em * 0.07f);
        }
        draw->PopClipRect();
        draw->AddRect(ImVec2(x_left - em * 0.08f, top_y - em * 0.08f), ImVec2(x_right + em * 0.08f, y0), colors.over_budget, 0, 0,
                      em * 0.16f);
    }
    if (axis.has_break() && total > axis.break_bytes) {
        draw_break_band(draw, x_left - em * 0.3f, x_right + em * 0.3f, axis.y_of(axis.break_bytes), em);
    }

    // Labels beside the column at their block's middle, pushed apart and tied back with leader lines.
    const float line_height = ImGui::GetTextLineHeight();
    std::vector<float> centers;
    for (const Placed& block : placed) centers.push_back((block.y_low + block.y_high) * 0.5f);
    const std::vector<float> label_y = spread_labels(centers, line_height * 1.1f, axis.y_top, axis.y_bottom);
    const float swatch = em * 0.7f;
    for (std::size_t k = 0; k < placed.size(); ++k) {
        const StackedBlock& block = blocks[placed[k].index];
        const float y = label_y[k];
        const float anchor_y = std::clamp(centers[k], placed[k].y_high, placed[k].y_low);
        const float lane = labels.lane_left;
        // The last column's row may run on past its lane where no ceiling label sits on it.
        const float row_top = y - line_height * 0.6f, row_bottom = y + line_height * 0.6f;
        const bool row_clear = std::none_of(labels.busy_rows.begin(), labels.busy_rows.end(),
                                            [&](const std::pair<float, float>& busy) { return busy.first < row_bottom && row_top < busy.second; });
        const float lane_right = labels.wide_right > labels.lane_right && row_clear ? labels.wide_right : labels.lane_right;
        draw->AddLine(ImVec2(x_right + em * 0.15f, anchor_y), ImVec2(lane - em * 0.2f, y), colors.text_dim, em * 0.05f);
        draw->PushClipRect(ImVec2(lane, y - line_height), ImVec2(lane_right, y + line_height), true);
        const float text_x = lane + swatch + em * 0.35f;
        // The value always shows; a label too long for the lane gives way with an ellipsis.
        const float value_width = fonts().bold->CalcTextSizeA(fonts().bold->FontSize, FLT_MAX, 0.0f, block.value.c_str()).x;
        const std::string label = elided(block.label, lane_right - text_x - value_width - em * 0.45f);
        const float value_x = text_x + ImGui::CalcTextSize(label.c_str()).x + em * 0.45f;
        // One opaque halo under the whole row, swatch to value: a ceiling line passing behind it never strikes the text.
        // Half the rows' least spacing (1.1 lines) each way: a line just under the text does not read as its underline.
        draw->AddRectFilled(ImVec2(lane - em * 0.15f, y - line_height * 0.55f), ImVec2(value_x + value_width + em * 0.15f, y + line_height * 0.55f),
                            palette().panel_background, em * 0.15f);
        draw->AddRectFilled(ImVec2(lane, y - swatch * 0.5f), ImVec2(lane + swatch, y + swatch * 0.5f), block.color, em * 0.1f);
        draw->AddText(ImVec2(text_x, y - line_height * 0.5f), colors.text, label.c_str());
        draw->AddText(fonts().bold, fonts().bold->FontSize, ImVec2(value_x, y - line_height * 0.5f), colors.text, block.value.c_str());
        draw->PopClipRect();
        const bool over_label = mouse.x >= lane && mouse.x < lane_right && std::abs(mouse.y - y) < line_height * 0.55f;
        if (hover_enabled && over_label) hovered = placed[k].index;
    }
    return hovered;
}

void area_tooltip(const std::string& text, const char* source) { explain_tooltip(text, source); }

}  // namespace widgets
