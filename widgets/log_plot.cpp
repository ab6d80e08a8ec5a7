#include "widgets/draw_helpers.h"
#include "widgets/log_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "widgets/clip_check.h"
#include "widgets/comparison.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

namespace widgets {
namespace {

enum class LegendSwatch { line, marker };

struct LegendEntry {
    std::string label;
    ImU32 color = 0;
    LegendSwatch swatch = LegendSwatch::line;
    MarkerShape shape = MarkerShape::circle;
    float dash_em = 0;
};

struct PendingText {
    ImVec2 point;    // the data point, in pixels
    ImVec2 offset;   // pixels from it
    ImVec2 pivot;
    std::string text;
    ImU32 color = 0;
    bool gives_way = false;  // PlotTextIfRoom: left out rather than drawn over another text or the legend
    bool keeps_side = false; // PlotRegionText: moved up or down only, never mirrored across its anchor
};

struct Tick {
    double axis_value = 0;   // log10(value) on a log axis, value on a linear one
    double value = 0;
    bool major = false;
    bool labelled = false;
};

// The one plot being drawn; BeginLogPlot fills it, EndLogPlot clears it.
struct PlotState {
    bool active = false;
    LogPlotAxes axes;
    ImDrawList* draw_list = nullptr;
    ImVec2 plot_min, plot_max;   // the data rectangle in pixels
    double x_axis_min = 0, x_axis_max = 1, y_axis_min = 0, y_axis_max = 1;   // in axis space (log10 or linear)
    float em = 13;
    bool hovered = false;
    ImVec2 mouse;
    ImGuiID storage_id = 0;
    bool point_hovered_last_frame = false;
    bool point_hovered_this_frame = false;
    bool line_hover_claimed = false;
    std::vector<LegendEntry> legend;
    std::vector<PendingText> texts;
    std::vector<ImVec4> marker_boxes;   // min x, min y, max x, max y of markers >= 0.3 em: texts keep off them
    std::vector<ImVec4> small_marker_boxes;  // the smaller ones (a cloud, a trail): texts prefer spots off them too
    std::vector<ImVec2> data_marks;     // every marker and text anchor: the legend keeps off them
    std::vector<ImVec2> line_marks;     // the vertices of the lines drawn: the legend covers as few as it can
    struct LineSegment {
        ImVec2 from, to;
        ImU32 color;
    };
    std::vector<LineSegment> line_segments;  // every line drawn: a text keeps off the lines of other colours than its own
    ImVec2 frame_min, frame_max;        // the whole item: plot, margins, and the legend below when it went there
    ImVec2 full_plot_max;               // plot_max with neither a legend below nor the growth for it: the legend decides here
    ImGuiID legend_rows_id = 0;         // storage: how many rows the legend below took last frame (0: inside)
    int legend_rows_below = 0;          // rows reserved below this frame
};

PlotState plot;

double to_axis(double value, AxisScale scale) {
    if (scale == AxisScale::linear) return value;
    return value > 0 ? std::log10(value) : std::nan("");
}

double pixel_x(double x) {
    const double a = to_axis(x, plot.axes.x_scale);
    return plot.plot_min.x + (a - plot.x_axis_min) / (plot.x_axis_max - plot.x_axis_min) * (plot.plot_max.x - plot.plot_min.x);
}

double pixel_y(double y) {
    const double a = to_axis(y, plot.axes.y_scale);
    return plot.plot_max.y - (a - plot.y_axis_min) / (plot.y_axis_max - plot.y_axis_min) * (plot.plot_max.y - plot.plot_min.y);
}

// The text before "##", which is what ImGui shows.
std::string visible_label(const char* label) {
    const char* hidden = std::strstr(label, "##");
    return hidden ? std::string(label, hidden) : std::string(label);
}

void add_legend_entry(const char* label, ImU32 color, LegendSwatch swatch, MarkerShape shape = MarkerShape::circle,
                      float dash_em = 0) {
    const std::string text = visible_label(label);
    if (text.empty()) return;
    for (const LegendEntry& entry : plot.legend) {
        if (entry.label == text) return;
    }
    plot.legend.push_back({text, color, swatch, shape, dash_em});
}

// Liang-Barsky: clips the segment to the rectangle; false when nothing of it is inside.
bool clip_segment(double& x0, double& y0, double& x1, double& y1, double left, double top, double right, double bottom) {
    double t0 = 0, t1 = 1;
    const double dx = x1 - x0, dy = y1 - y0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x0 - left, right - x0, y0 - top, bottom - y0};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0) t0 = std::max(t0, t);
        else t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const double start_x = x0 + t0 * dx, start_y = y0 + t0 * dy;
    x1 = x0 + t1 * dx;
    y1 = y0 + t1 * dy;
    x0 = start_x;
    y0 = start_y;
    return true;
}

double distance_to_segment(ImVec2 point, ImVec2 a, ImVec2 b) {
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double length_squared = dx * dx + dy * dy;
    double t = length_squared > 0 ? ((point.x - a.x) * dx + (point.y - a.y) * dy) / length_squared : 0;
    t = std::clamp(t, 0.0, 1.0);
    const double nearest_x = a.x + t * dx, nearest_y = a.y + t * dy;
    return std::hypot(point.x - nearest_x, point.y - nearest_y);
}

// Lines give way to points: a point hovered last frame keeps the tooltip.
bool claim_line_hover(double distance_pixels) {
    if (!plot.hovered || plot.point_hovered_last_frame || plot.line_hover_claimed) return false;
    if (distance_pixels > 0.4 * plot.em) return false;
    plot.line_hover_claimed = true;
    return true;
}

void draw_dashed(ImVec2 a, ImVec2 b, ImU32 color, float thickness, float dash) {
    if (dash <= 0) plot.draw_list->AddLine(a, b, color, thickness);
    else add_dashed_line(plot.draw_list, a, b, color, thickness, dash);
}

void draw_marker(ImDrawList* draw_list, ImVec2 center, float radius, ImU32 color, MarkerShape shape, ImU32 outline,
                 float em) {
    const float outline_thickness = std::max(1.0f, 0.06f * em);
    switch (shape) {
        case MarkerShape::circle:
            // Segments by radius (ImGui's cached arcs): a fixed 24 costs a sine and cosine per vertex for every marker.
            draw_list->AddCircleFilled(center, radius + outline_thickness, outline);
            draw_list->AddCircleFilled(center, radius, color);
            break;
        case MarkerShape::ring:
            draw_list->AddCircle(center, radius, outline, 24, 0.16f * em + 2 * outline_thickness);
            draw_list->AddCircle(center, radius, color, 24, 0.16f * em);
            break;
        case MarkerShape::square: {
            const float r = radius * 0.9f;
            draw_list->AddRectFilled(ImVec2(center.x - r - outline_thickness, center.y - r - outline_thickness),
                                     ImVec2(center.x + r + outline_thickness, center.y + r + outline_thickness), outline);
            draw_list->AddRectFilled(ImVec2(center.x - r, center.y - r), ImVec2(center.x + r, center.y + r), color);
            break;
        }
        case MarkerShape::diamond: {
            const float r = radius * 1.25f, o = r + 1.5f * outline_thickness;
            draw_list->AddQuadFilled(ImVec2(center.x, center.y - o), ImVec2(center.x + o, center.y),
                                     ImVec2(center.x, center.y + o), ImVec2(center.x - o, center.y), outline);
            draw_list->AddQuadFilled(ImVec2(center.x, center.y - r), ImVec2(center.x + r, center.y),
                                     ImVec2(center.x, center.y + r), ImVec2(center.x - r, center.y), color);
            break;
        }
        case MarkerShape::triangle: {
            const float r = radius * 1.25f, o = r + 2 * outline_thickness;
            draw_list->AddTriangleFilled(ImVec2(center.x, center.y - o), ImVec2(center.x + o * 0.866f, center.y + o * 0.5f),
                                         ImVec2(center.x - o * 0.866f, center.y + o * 0.5f), outline);
            draw_list->AddTriangleFilled(ImVec2(center.x, center.y - r), ImVec2(center.x + r * 0.866f, center.y + r * 0.5f),
                                         ImVec2(center.x - r * 0.866f, center.y + r * 0.5f), color);
            break;
        }
    }
}

// Decades (labelled) and 2..9 minors on a log axis; a 1-2-5 step on a linear one. pixels is the axis length.
std::vector<Tick> make_ticks(double axis_min, double axis_max, AxisScale scale, double pixels, double em) {
    std::vector<Tick> ticks;
    const double epsilon = (axis_max - axis_min) * 1e-9;
    if (scale == AxisScale::log10) {
        const double decade_pixels = pixels / (axis_max - axis_min);
        const bool minors = decade_pixels >= 2.5 * em;
        int visible_decades = 0;
        for (int e = static_cast<int>(std::floor(axis_min)); e <= static_cast<int>(std::ceil(axis_max)); ++e) {
            if (e >= axis_min - epsilon && e <= axis_max + epsilon) ++visible_decades;
        }
        for (int e = static_cast<int>(std::floor(axis_min)); e <= static_cast<int>(std::ceil(axis_max)); ++e) {
            for (int mantissa = 1; mantissa <= 9; ++mantissa) {
                if (mantissa > 1 && !minors) break;
                const double value = mantissa * std::pow(10.0, e);
                const double axis_value = std::log10(value);
                if (axis_value < axis_min - epsilon || axis_value > axis_max + epsilon) continue;
                const bool labelled = mantissa == 1 || (visible_decades < 2 && (mantissa == 2 || mantissa == 5));
                ticks.push_back({axis_value, value, mantissa == 1, labelled});
            }
        }
        return ticks;
    }
    const double step = tick_step_125(axis_max - axis_min, std::max(2.0, pixels / (4 * em)));
    const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double minor_step = step / (std::fabs(step / magnitude - 2) < 1e-9 ? 4 : 5);
    for (double value = std::ceil(axis_min / minor_step) * minor_step; value <= axis_max + epsilon; value += minor_step) {
        const double rounded = std::fabs(value) < minor_step * 1e-6 ? 0 : value;
        const bool major = std::fabs(std::remainder(rounded, step)) < minor_step * 1e-6;
        ticks.push_back({rounded, rounded, major, major});
    }
    return ticks;
}

// Spreads labels out when neighbours would touch: label every stride-th one.
int label_stride(const std::vector<Tick>& ticks, double axis_min, double axis_max, double pixels, double widest_label,
                 double gap) {
    double smallest_spacing = pixels;
    double previous = std::nan("");
    for (const Tick& tick : ticks) {
        if (!tick.labelled) continue;
        const double position = (tick.axis_value - axis_min) / (axis_max - axis_min) * pixels;
        if (!std::isnan(previous)) smallest_spacing = std::min(smallest_spacing, position - previous);
        previous = position;
    }
    if (smallest_spacing <= 0) return 1;
    return std::max(1, static_cast<int>(std::ceil((widest_label + gap) / smallest_spacing)));
}

struct Rect {
    ImVec2 min, max;
};

// Where the legend goes and how big it is, so texts can avoid it.
struct LegendLayout {
    Rect box;
    int rows = 0;
    int columns = 0;
    float column_width = 0;
    float row_height = 0;
    float swatch_width = 0;
    float padding = 0;
    float label_width = 0;   // the widest label that fits
    bool below = false;      // under the plot, its entries in a row that wraps (entry_x: where each starts)
    std::vector<float> entry_x;
    std::vector<int> entry_row;
    int rows_below_needed = 0;  // what the legend takes below the plot when no corner of it is free of data
};

float legend_row_height() { return ImGui::GetTextLineHeight() + 0.15f * plot.em; }
float legend_entry_width(const LegendEntry& entry) { return 1.6f * plot.em + 0.4f * plot.em + ImGui::CalcTextSize(entry.label.c_str()).x; }

// The legend under the plot: entries left to right, a new row when the next would pass the item's right edge.
LegendLayout legend_below(float top) {
    const float em = plot.em;
    LegendLayout layout;
    layout.below = true;
    layout.padding = 0.3f * em;
    layout.row_height = legend_row_height();
    layout.swatch_width = 1.6f * em;
    const float left = plot.plot_min.x, right = plot.frame_max.x;
    const float gap = 1.2f * em;
    float x = left;
    int row = 0;
    float widest = 0;
    for (const LegendEntry& entry : plot.legend) {
        const float width = std::min(legend_entry_width(entry), right - left);
        if (x > left && x + width > right) {
            x = left;
            ++row;
        }
        layout.entry_x.push_back(x);
        layout.entry_row.push_back(row);
        x += width + gap;
        widest = std::max(widest, width);
    }
    layout.rows = row + 1;
    layout.label_width = right - left - layout.swatch_width - 0.4f * em;
    layout.box = Rect{ImVec2(left - layout.padding, top), ImVec2(right, top + layout.rows * layout.row_height + layout.padding)};
    return layout;
}

LegendLayout layout_legend() {
    constexpr float inset_em = 0.5f;  // the legend's distance from the plot's edges
    LegendLayout layout;
    if (plot.legend.empty() || plot.axes.legend == LegendCorner::none) return layout;
    const float em = plot.em;
    layout.padding = 0.4f * em;
    layout.row_height = legend_row_height();
    layout.swatch_width = 1.6f * em;
    float widest = 0;
    for (const LegendEntry& entry : plot.legend) widest = std::max(widest, ImGui::CalcTextSize(entry.label.c_str()).x);
    const int count = static_cast<int>(plot.legend.size());
    // Decided on the plot as it would be without a legend below (full_plot_max), so the choice does not flip from one frame
    // to the next as the plot shrinks for it; the marks drawn on this frame's plot are mapped onto that one.
    const ImVec2 plot_min = plot.plot_min, plot_max = plot.full_plot_max;
    const auto full = [&](ImVec2 p) {
        const float height = plot.plot_max.y - plot.plot_min.y;
        const float share = height > 0 ? (p.y - plot.plot_min.y) / height : 0.0f;
        return ImVec2(p.x, plot_min.y + share * (plot_max.y - plot_min.y));
    };
    const float available_height = (plot_max.y - plot_min.y) - 2 * layout.padding - em;
    const int max_rows = std::max(1, static_cast<int>(available_height / layout.row_height));
    const int columns = (count + max_rows - 1) / max_rows;
    layout.columns = columns;
    layout.rows = (count + columns - 1) / columns;
    const float plot_width = plot_max.x - plot_min.x - 2.0f * inset_em * em;
    const float label_room = (plot_width - 2 * layout.padding + 0.8f * em) / columns - layout.swatch_width - 1.2f * em;
    const bool labels_whole = widest <= label_room;
    widest = std::max(0.0f, std::min(widest, label_room));
    layout.label_width = widest;
    layout.column_width = layout.swatch_width + 0.4f * em + widest + 0.8f * em;
    const ImVec2 size(columns * layout.column_width - 0.8f * em + 2 * layout.padding,
                      layout.rows * layout.row_height + 2 * layout.padding - 0.15f * em);
    const float inset = inset_em * em;
    const auto box_in = [&](LegendCorner corner, ImVec2 min, ImVec2 max) {
        const bool left = corner == LegendCorner::top_left || corner == LegendCorner::bottom_left;
        const bool top = corner == LegendCorner::top_left || corner == LegendCorner::top_right;
        const float x = left ? min.x + inset : max.x - inset - size.x;
        const float y = top ? min.y + inset : max.y - inset - size.y;
        return Rect{ImVec2(x, y), ImVec2(x + size.x, y + size.y)};
    };
    // A legend keeps off the data: the asked-for corner unless it covers some and another corner covers less. A marker or a
    // label weighs far more than a stretch of line (a line can be followed past a legend, a point is lost under one).
    constexpr float kOnData = 100.0f;
    const auto covered = [&](const Rect& box, bool on_full_plot) {
        const auto at = [&](ImVec2 p) { return on_full_plot ? full(p) : p; };
        const auto inside = [&](ImVec2 p) { return p.x >= box.min.x - 0.3f * em && p.x <= box.max.x + 0.3f * em && p.y >= box.min.y - 0.3f * em && p.y <= box.max.y + 0.3f * em; };
        float cost = 0;
        for (const ImVec2& mark : plot.data_marks) cost += inside(at(mark)) ? kOnData : 0.0f;
        for (const PendingText& text : plot.texts) {  // where each label asks to sit
            const ImVec2 size = ImGui::CalcTextSize(text.text.c_str());
            const ImVec2 point = at(text.point);
            const ImVec2 min(point.x + text.offset.x - text.pivot.x * size.x, point.y + text.offset.y - text.pivot.y * size.y);
            const bool overlaps = min.x < box.max.x && min.x + size.x > box.min.x && min.y < box.max.y && min.y + size.y > box.min.y;
            cost += overlaps && !text.gives_way ? kOnData : 0.0f;
        }
        for (const ImVec2& mark : plot.line_marks) cost += inside(at(mark)) ? 1.0f : 0.0f;
        return cost;
    };
    const auto best_corner = [&](ImVec2 min, ImVec2 max, bool on_full_plot, float* least_out) {
        LegendCorner chosen = plot.axes.legend;
        float least = covered(box_in(chosen, min, max), on_full_plot);
        for (LegendCorner corner : {LegendCorner::top_left, LegendCorner::top_right, LegendCorner::bottom_right, LegendCorner::bottom_left}) {
            if (least <= 0.0f) break;
            const float cost = covered(box_in(corner, min, max), on_full_plot);
            if (cost < least) {
                least = cost;
                chosen = corner;
            }
        }
        if (least_out) *least_out = least;
        return chosen;
    };
    // Inside when a corner covers no point and no label, the labels are whole and the legend leaves the plot most of its
    // height; else under the plot, outside it.
    float least = 0;
    best_corner(plot_min, plot_max, true, &least);
    const bool fits_inside = least < kOnData && labels_whole && size.y <= 0.5f * (plot_max.y - plot_min.y);
    if (!fits_inside) {
        // What it takes below the plot, measured where it will be drawn: the rows kept from the next frame on.
        const float top = plot.frame_max.y - plot.legend_rows_below * layout.row_height - layout.padding;
        LegendLayout below = legend_below(top);
        below.rows_below_needed = below.rows;
        if (plot.legend_rows_below > 0) return below;
        layout.rows_below_needed = below.rows;  // this frame still inside, as the room below is not there yet
    }
    layout.box = box_in(best_corner(plot.plot_min, plot.plot_max, false, nullptr), plot.plot_min, plot.plot_max);
    return layout;
}

void draw_legend(const LegendLayout& layout) {
    if (layout.rows == 0) return;
    ImDrawList* draw_list = plot.draw_list;
    const float em = plot.em;
    const Palette& colors = palette();
    if (!layout.below) {
        draw_list->AddRectFilled(layout.box.min, layout.box.max, with_alpha(colors.panel_background, 0.92f), 0.2f * em);
        draw_list->AddRect(layout.box.min, layout.box.max, with_alpha(colors.axis, 0.5f), 0.2f * em);
    }
    const ImU32 outline = colors.panel_background;
    for (size_t i = 0; i < plot.legend.size(); ++i) {
        const LegendEntry& entry = plot.legend[i];
        const int column = layout.below ? 0 : static_cast<int>(i) / layout.rows;
        const int row = layout.below ? layout.entry_row[i] : static_cast<int>(i) % layout.rows;
        const ImVec2 origin = layout.below ? ImVec2(layout.entry_x[i], layout.box.min.y + layout.padding + row * layout.row_height)
                                           : ImVec2(layout.box.min.x + layout.padding + column * layout.column_width,
                                                    layout.box.min.y + layout.padding + row * layout.row_height);
        const float middle = origin.y + ImGui::GetTextLineHeight() * 0.5f;
        if (entry.swatch == LegendSwatch::line) {
            draw_dashed(ImVec2(origin.x, middle), ImVec2(origin.x + layout.swatch_width, middle), entry.color,
                        0.18f * em, entry.dash_em * em);
        } else {
            draw_marker(draw_list, ImVec2(origin.x + layout.swatch_width * 0.5f, middle), 0.3f * em, entry.color,
                        entry.shape, outline, em);
        }
        draw_list->AddText(ImVec2(origin.x + layout.swatch_width + 0.4f * em, origin.y), colors.text,
                           fit_text(entry.label, layout.label_width + 0.5f).c_str());
    }
}

float overlap_area(const Rect& a, const Rect& b) {
    const float width = std::min(a.max.x, b.max.x) - std::max(a.min.x, b.min.x);
    const float height = std::min(a.max.y, b.max.y) - std::max(a.min.y, b.min.y);
    return width > 0 && height > 0 ? width * height : 0;
}

// Places each text inside the plot, off the legend and off the texts placed before it, over a halo: the asked-for
// spot, then spots a line above or below, then the same mirrored to the other side of the anchor; else the least covered.
// Texts that give way come after the others, and only where they cover no text and not the legend (markers they may).
void draw_texts(const LegendLayout& legend, std::vector<ImVec4>& placed) {
    std::vector<Rect> markers, small_markers, texts;  // texts: the legend and every text placed so far
    if (legend.rows > 0 && !legend.below) texts.push_back(legend.box);
    for (const ImVec4& box : plot.marker_boxes) markers.push_back({ImVec2(box.x, box.y), ImVec2(box.z, box.w)});
    for (const ImVec4& box : plot.small_marker_boxes) small_markers.push_back({ImVec2(box.x, box.y), ImVec2(box.z, box.w)});
    const float em = plot.em;
    const float pad = 0.15f * em;
    const ImU32 halo = with_alpha(palette().panel_background, 0.8f);
    std::vector<const PendingText*> order;
    for (const PendingText& text : plot.texts) if (!text.gives_way) order.push_back(&text);
    for (const PendingText& text : plot.texts) if (text.gives_way) order.push_back(&text);
    for (const PendingText* pending : order) {
        const PendingText& text = *pending;
        const ImVec2 size = ImGui::CalcTextSize(text.text.c_str());
        const float step = size.y + 2 * pad;
        const float own_side = text.point.x + text.offset.x - text.pivot.x * size.x;
        const float sides[2] = {own_side, text.keeps_side ? own_side : text.point.x - text.offset.x - (1 - text.pivot.x) * size.x};
        const float base_y = text.point.y + text.offset.y - text.pivot.y * size.y;
        ImVec2 chosen, chosen_unclamped;
        float least_covered = -1;
        bool found = false;
        // Nearest first: either side of the anchor on its own line, then a line up or down, then two (a text that gives
        // way goes no further), three, four.
        for (float shift : {0.0f, -1.0f, 1.0f, -2.0f, 2.0f, -3.0f, 3.0f, -4.0f, 4.0f}) {
            if (text.gives_way && std::fabs(shift) > 2.0f) break;
            for (float side_x : sides) {
                const ImVec2 unclamped(side_x, base_y + shift * step);
                ImVec2 candidate = unclamped;
                candidate.x = std::clamp(candidate.x, plot.plot_min.x + pad, std::max(plot.plot_min.x + pad, plot.plot_max.x - pad - size.x));
                candidate.y = std::clamp(candidate.y, plot.plot_min.y + pad, std::max(plot.plot_min.y + pad, plot.plot_max.y - pad - size.y));
                const Rect box{ImVec2(candidate.x - pad, candidate.y - pad), ImVec2(candidate.x + size.x + pad, candidate.y + size.y + pad)};
                float on_texts = 0, on_markers = 0, on_small_markers = 0, on_lines = 0;
                for (const Rect& rect : texts) on_texts += overlap_area(box, rect);
                for (const Rect& rect : markers) on_markers += overlap_area(box, rect);
                for (const Rect& rect : small_markers) on_small_markers += overlap_area(box, rect);
                // A label over another colour's line hides it under its halo (its own line it names and may sit on).
                for (const auto& segment : plot.line_segments)
                    if (segment.color != text.color) on_lines += segment_length_inside(segment.from, segment.to, box.min, box.max);
                // A name that gives way sits on no point at all; the others prefer a spot off the small ones too.
                if (text.gives_way && on_texts + on_markers + on_small_markers > 0) continue;
                // Text over text is read as neither: it weighs ten times a point; a line as a strip 0.05 em high; each line
                // away from the anchor as half the text's width of line, so a label leaves its place for a clear one nearby only.
                const float covered = 10.0f * on_texts + on_markers + 0.25f * on_small_markers +
                                      0.05f * em * (on_lines + 0.5f * size.x * std::fabs(shift));
                if (!found || covered < least_covered) {
                    found = true;
                    least_covered = covered;
                    chosen = candidate;
                    chosen_unclamped = unclamped;
                }
                if (covered == 0) break;
            }
            if (found && least_covered == 0) break;
        }
        if (!found) continue;  // a text that gives way found no free spot: its point's tooltip still names it
        const ImVec2 chosen_max(chosen.x + size.x, chosen.y + size.y);
        // A label pushed up, down or in from the edge gets a leader line, so it still points at its anchor.
        const bool moved = std::fabs(chosen_unclamped.y - base_y) > 0.5f * em || std::fabs(chosen.x - chosen_unclamped.x) > 0.5f * em ||
                           std::fabs(chosen.y - chosen_unclamped.y) > 0.5f * em;
        if (moved) {
            const ImVec2 nearest(std::clamp(text.point.x, chosen.x - pad, chosen_max.x + pad),
                                 std::clamp(text.point.y, chosen.y, chosen_max.y));
            plot.draw_list->AddLine(text.point, nearest, with_alpha(text.color, 0.55f), std::max(1.0f, 0.06f * em));
        }
        plot.draw_list->AddRectFilled(ImVec2(chosen.x - pad, chosen.y), ImVec2(chosen_max.x + pad, chosen_max.y), halo,
                                      0.15f * em);
        plot.draw_list->AddText(chosen, text.color, text.text.c_str());
        texts.push_back({ImVec2(chosen.x - pad, chosen.y - pad), ImVec2(chosen_max.x + pad, chosen_max.y + pad)});
        placed.push_back(ImVec4(chosen.x, chosen.y, chosen_max.x, chosen_max.y));
    }
}

bool valid_range(double min, double max, AxisScale scale) {
    if (!std::isfinite(min) || !std::isfinite(max) || !(max > min)) return false;
    return scale == AxisScale::linear || min > 0;
}

}  // namespace

std::string FormatTickValue(double value) {
    if (!std::isfinite(value)) return "n/a";
    if (value == 0) return "0";
    const double magnitude = std::fabs(value);
    char text[32];
    if (magnitude < 1e-3 || magnitude >= 1e21) {
        const int exponent = static_cast<int>(std::floor(std::log10(magnitude) + 1e-9));
        const double mantissa = value / std::pow(10.0, exponent);
        std::snprintf(text, sizeof text, "%ge%d", std::round(mantissa * 100) / 100, exponent);
        return text;
    }
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int index = 0;
    double scaled = value;
    while (std::fabs(scaled) >= 999.5 && index < 6) {
        scaled /= 1000;
        ++index;
    }
    std::snprintf(text, sizeof text, "%.3g%s", scaled, prefixes[index]);
    return text;
}

bool BeginLogPlot(const char* id, ImVec2 size, const LogPlotAxes& axes) {
    IM_ASSERT(!plot.active && "BeginLogPlot called twice without EndLogPlot");
    const float em = ImGui::GetFontSize();
    const ImVec2 available = ImGui::GetContentRegionAvail();
    if (size.x <= 0) size.x = available.x;
    if (size.y <= 0) size.y = available.y;
    size.x = std::max(size.x, 10 * em);
    size.y = std::max(size.y, 8 * em);
    const ImVec2 frame_min = ImGui::GetCursorScreenPos();
    ImGui::PushID(id);
    const ImGuiID legend_rows_id = ImGui::GetID("legend rows below");
    ImGui::PopID();
    const int legend_rows_below = axes.legend == LegendCorner::none ? 0 : ImGui::GetStateStorage()->GetInt(legend_rows_id, 0);
    const float asked_height = size.y;  // the legend's place is decided on the plot as asked for, before it grows for one
    if (axes.min_plot_height_em > 0 && legend_rows_below > 0) {
        const float legend_height = legend_rows_below * (ImGui::GetTextLineHeight() + 0.15f * em) + 0.5f * em;
        const float without_legend = size.y - legend_height;
        size.y += std::max(0.0f, axes.min_plot_height_em * em + 5.0f * em - without_legend);  // about 5 em of titles and ticks
    }
    ImGui::InvisibleButton(id, size);
    if (!ImGui::IsItemVisible()) return false;
    if (!valid_range(axes.x_min, axes.x_max, axes.x_scale) || !valid_range(axes.y_min, axes.y_max, axes.y_scale)) {
        ImGui::GetWindowDrawList()->AddText(frame_min, palette().warning, "invalid axis range");
        return false;
    }

    plot = PlotState{};
    plot.active = true;
    plot.axes = axes;
    plot.em = em;
    plot.draw_list = ImGui::GetWindowDrawList();
    plot.hovered = ImGui::IsItemHovered();
    plot.mouse = ImGui::GetIO().MousePos;
    ImGui::PushID(id);
    plot.storage_id = ImGui::GetID("point hovered last frame");
    ImGui::PopID();
    plot.legend_rows_id = legend_rows_id;
    plot.legend_rows_below = legend_rows_below;
    plot.point_hovered_last_frame = ImGui::GetStateStorage()->GetBool(plot.storage_id, false);
    plot.x_axis_min = to_axis(axes.x_min, axes.x_scale);
    plot.x_axis_max = to_axis(axes.x_max, axes.x_scale);
    plot.y_axis_min = to_axis(axes.y_min, axes.y_scale);
    plot.y_axis_max = to_axis(axes.y_max, axes.y_scale);

    // Margins from what sits in them: y tick labels left, y title on top, x tick labels and title below, and the legend
    // under them when no corner of the plot is free of data. A title wider than the item wraps at spaces.
    const float line = ImGui::GetTextLineHeight();
    const bool has_y_title = axes.y_title && axes.y_title[0], has_x_title = axes.x_title && axes.x_title[0];
    const ImVec2 y_title_size = has_y_title ? wrapped_text_size(axes.y_title, size.x) : ImVec2(0, 0);
    const float top_margin = has_y_title ? y_title_size.y + 0.5f * em : 0.6f * em;
    const float x_ticks_margin = 0.4f * em + line + 0.2f * em;
    const float legend_below_height = plot.legend_rows_below > 0 ? plot.legend_rows_below * legend_row_height() + 0.5f * em : 0.0f;
    // The x title is measured against the plot's width, known once the left margin is: a first guess of 4 em for it.
    const ImVec2 x_title_guess = has_x_title ? wrapped_text_size(axes.x_title, size.x - 4.0f * em - 1.4f * em) : ImVec2(0, 0);
    const float x_title_margin = has_x_title ? 0.3f * em + x_title_guess.y : 0.0f;
    const float bottom_margin = x_ticks_margin + x_title_margin + legend_below_height;
    const double y_pixels_estimate = size.y - top_margin - bottom_margin;
    std::vector<Tick> y_ticks = make_ticks(plot.y_axis_min, plot.y_axis_max, axes.y_scale, y_pixels_estimate, em);
    float widest_y_label = 0;
    for (const Tick& tick : y_ticks) {
        if (tick.labelled) widest_y_label = std::max(widest_y_label, ImGui::CalcTextSize(FormatTickValue(tick.value).c_str()).x);
    }
    const float left_margin = widest_y_label + 0.7f * em;
    const float right_margin = 1.4f * em;   // room for half of the last x tick label
    plot.plot_min = ImVec2(std::floor(frame_min.x + left_margin), std::floor(frame_min.y + top_margin));
    plot.plot_max = ImVec2(std::floor(frame_min.x + size.x - right_margin), std::floor(frame_min.y + size.y - bottom_margin));
    plot.full_plot_max = ImVec2(plot.plot_max.x, std::floor(frame_min.y + asked_height - bottom_margin + legend_below_height));
    plot.frame_min = frame_min;
    plot.frame_max = ImVec2(frame_min.x + size.x, frame_min.y + size.y);
    plot.hovered = plot.hovered && plot.mouse.x >= plot.plot_min.x && plot.mouse.x <= plot.plot_max.x &&
                   plot.mouse.y >= plot.plot_min.y && plot.mouse.y <= plot.plot_max.y;

    ImDrawList* draw_list = plot.draw_list;
    const Palette& colors = palette();
    const ImU32 text_color = colors.text;
    const ImU32 major_grid = with_alpha(colors.text, 0.16f);
    const ImU32 minor_grid = with_alpha(colors.text, 0.06f);
    const ImU32 axis_color = with_alpha(colors.axis, 0.8f);
    draw_list->AddRectFilled(plot.plot_min, plot.plot_max, with_alpha(colors.text, 0.03f));

    const float plot_width = plot.plot_max.x - plot.plot_min.x, plot_height = plot.plot_max.y - plot.plot_min.y;
    y_ticks = make_ticks(plot.y_axis_min, plot.y_axis_max, axes.y_scale, plot_height, em);
    const std::vector<Tick> x_ticks = make_ticks(plot.x_axis_min, plot.x_axis_max, axes.x_scale, plot_width, em);

    float widest_x_label = 0;
    for (const Tick& tick : x_ticks) {
        if (tick.labelled) widest_x_label = std::max(widest_x_label, ImGui::CalcTextSize(FormatTickValue(tick.value).c_str()).x);
    }
    const int x_stride = label_stride(x_ticks, plot.x_axis_min, plot.x_axis_max, plot_width, widest_x_label, 0.8f * em);
    const int y_stride = label_stride(y_ticks, plot.y_axis_min, plot.y_axis_max, plot_height, line, 0.3f * em);

    int labelled_index = 0;
    for (const Tick& tick : x_ticks) {
        const float x = std::round(plot.plot_min.x + (tick.axis_value - plot.x_axis_min) / (plot.x_axis_max - plot.x_axis_min) * plot_width);
        add_axis_line(draw_list, ImVec2(x, plot.plot_min.y), ImVec2(x, plot.plot_max.y), tick.major ? major_grid : minor_grid);
        add_axis_line(draw_list, ImVec2(x, plot.plot_max.y), ImVec2(x, plot.plot_max.y - (tick.major ? 0.4f : 0.2f) * em), axis_color);
        if (!tick.labelled) continue;
        if (labelled_index++ % x_stride != 0) continue;
        const std::string label = FormatTickValue(tick.value);
        const ImVec2 label_size = ImGui::CalcTextSize(label.c_str());
        draw_list->AddText(ImVec2(x - label_size.x * 0.5f, plot.plot_max.y + 0.35f * em), text_color, label.c_str());
    }
    labelled_index = 0;
    for (const Tick& tick : y_ticks) {
        const float y = std::round(plot.plot_max.y - (tick.axis_value - plot.y_axis_min) / (plot.y_axis_max - plot.y_axis_min) * plot_height);
        add_axis_line(draw_list, ImVec2(plot.plot_min.x, y), ImVec2(plot.plot_max.x, y), tick.major ? major_grid : minor_grid);
        add_axis_line(draw_list, ImVec2(plot.plot_min.x, y), ImVec2(plot.plot_min.x + (tick.major ? 0.4f : 0.2f) * em, y), axis_color);
        if (!tick.labelled) continue;
        if (labelled_index++ % y_stride != 0) continue;
        const std::string label = FormatTickValue(tick.value);
        const ImVec2 label_size = ImGui::CalcTextSize(label.c_str());
        // The lowest label is lifted clear of the x labels in the corner.
        const float label_top = std::min(y - label_size.y * 0.5f, plot.plot_max.y + 0.25f * em - label_size.y);
        draw_list->AddText(ImVec2(plot.plot_min.x - 0.35f * em - label_size.x, label_top), text_color, label.c_str());
    }
    draw_list->AddRect(plot.plot_min, plot.plot_max, axis_color);

    if (has_x_title) {
        // Centred under the plot; wider than it, from the item's left edge; wider than the item, wrapped at spaces.
        const float room = plot.frame_max.x - frame_min.x;
        const ImVec2 title_size = wrapped_text_size(axes.x_title, room);
        const float x = std::clamp(plot.plot_min.x + (plot_width - title_size.x) * 0.5f, frame_min.x, plot.frame_max.x - title_size.x);
        add_wrapped_text(draw_list, ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(x, plot.plot_max.y + 0.7f * em + line), text_color,
                         axes.x_title, room);
    }
    if (has_y_title) add_wrapped_text(draw_list, ImGui::GetFont(), ImGui::GetFontSize(), frame_min, text_color, axes.y_title, size.x);
    draw_list->PushClipRect(plot.plot_min, plot.plot_max, true);
    return true;
}

void LegendKey(const char* label, ImU32 color, MarkerShape shape) {
    const float em = ImGui::GetFontSize();
    const float swatch_width = 1.6f * em;
    const ImVec2 text_size = ImGui::CalcTextSize(label);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float middle = origin.y + ImGui::GetTextLineHeight() * 0.5f;
    ImDrawList* draw_list = ImGui::GetWindowDrawList();
    draw_list->AddLine(ImVec2(origin.x, middle), ImVec2(origin.x + swatch_width, middle), color, 0.18f * em);
    draw_marker(draw_list, ImVec2(origin.x + swatch_width * 0.5f, middle), 0.3f * em, color, shape, palette().panel_background, em);
    draw_list->AddText(ImVec2(origin.x + swatch_width + 0.4f * em, origin.y), palette().text, label);
    ImGui::Dummy(ImVec2(swatch_width + 0.4f * em + text_size.x, ImGui::GetTextLineHeight()));
}

void EndLogPlot() {
    IM_ASSERT(plot.active && "EndLogPlot without a successful BeginLogPlot");
    const LegendLayout legend = layout_legend();
    std::vector<ImVec4> labels;
    draw_texts(legend, labels);
    if (!legend.below) draw_legend(legend);
    plot.draw_list->PopClipRect();
    if (legend.below) draw_legend(legend);  // outside the plot's clip rectangle
    ImGui::GetStateStorage()->SetBool(plot.storage_id, plot.point_hovered_this_frame);
    ImGui::GetStateStorage()->SetInt(plot.legend_rows_id, legend.rows_below_needed);
    if (text_record_active()) {
        PlotLayout layout;
        if (legend.rows > 0) layout.legend = ImVec4(legend.box.min.x, legend.box.min.y, legend.box.max.x, legend.box.max.y);
        layout.points = plot.marker_boxes;
        layout.points.insert(layout.points.end(), plot.small_marker_boxes.begin(), plot.small_marker_boxes.end());
        layout.labels = std::move(labels);
        layout.plot = ImVec4(plot.plot_min.x, plot.plot_min.y, plot.plot_max.x, plot.plot_max.y);
        record_plot(std::move(layout));
    }
    plot.active = false;
    plot.legend.clear();
    plot.texts.clear();
    plot.marker_boxes.clear();
    plot.small_marker_boxes.clear();
    plot.data_marks.clear();
    plot.line_marks.clear();
    plot.line_segments.clear();
}

bool PlotLine(const char* label, const double* xs, const double* ys, int count, ImU32 color, float thickness_em,
              float dash_em) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::line, MarkerShape::circle, dash_em);
    const float dash = dash_em * plot.em;
    const float thickness = std::max(1.0f, thickness_em * plot.em);
    // Clip in double precision against the plot grown by the thickness, so huge coordinates never reach the GPU.
    const double grow = thickness + 2;
    const double left = plot.plot_min.x - grow, right = plot.plot_max.x + grow;
    const double top = plot.plot_min.y - grow, bottom = plot.plot_max.y + grow;
    std::vector<ImVec2> run;
    double nearest = 1e30;
    auto flush = [&] {
        for (size_t i = 0; i + 1 < run.size(); ++i) {  // samples every 2 em along the line, for the legend's placement
            plot.line_segments.push_back({run[i], run[i + 1], color});
            const float length = std::hypot(run[i + 1].x - run[i].x, run[i + 1].y - run[i].y);
            const int samples = std::min(200, 1 + static_cast<int>(length / (2.0f * plot.em)));
            for (int k = 0; k < samples; ++k) {
                const float t = static_cast<float>(k) / samples;
                plot.line_marks.push_back(ImVec2(run[i].x + (run[i + 1].x - run[i].x) * t, run[i].y + (run[i + 1].y - run[i].y) * t));
            }
        }
        if (run.size() >= 2) {
            if (dash > 0) {
                for (size_t i = 1; i < run.size(); ++i) draw_dashed(run[i - 1], run[i], color, thickness, dash);
            } else {
                plot.draw_list->AddPolyline(run.data(), static_cast<int>(run.size()), color, ImDrawFlags_None, thickness);
            }
        }
        run.clear();
    };
    for (int i = 0; i + 1 < count; ++i) {
        double x0 = pixel_x(xs[i]), y0 = pixel_y(ys[i]), x1 = pixel_x(xs[i + 1]), y1 = pixel_y(ys[i + 1]);
        if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) {
            flush();
            continue;
        }
        const double original_x1 = x1, original_y1 = y1;
        const double original_x0 = x0, original_y0 = y0;
        if (!clip_segment(x0, y0, x1, y1, left, top, right, bottom)) {
            flush();
            continue;
        }
        const bool start_clipped = x0 != original_x0 || y0 != original_y0;
        if (start_clipped || run.empty()) {
            flush();
            run.push_back(ImVec2(static_cast<float>(x0), static_cast<float>(y0)));
        }
        run.push_back(ImVec2(static_cast<float>(x1), static_cast<float>(y1)));
        nearest = std::min(nearest, distance_to_segment(plot.mouse, ImVec2(static_cast<float>(x0), static_cast<float>(y0)),
                                                        ImVec2(static_cast<float>(x1), static_cast<float>(y1))));
        if (x1 != original_x1 || y1 != original_y1) flush();
    }
    flush();
    return claim_line_hover(nearest);
}

bool PlotSegment(const char* label, double x0, double y0, double x1, double y1, ImU32 color, float thickness_em,
                 float dash_em) {
    const double xs[2] = {x0, x1}, ys[2] = {y0, y1};
    return PlotLine(label, xs, ys, 2, color, thickness_em, dash_em);
}

bool PlotPoint(const char* label, double x, double y, ImU32 color, float radius_em, MarkerShape shape) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::marker, shape);
    const double px = pixel_x(x), py = pixel_y(y);
    const float radius = std::max(2.0f, radius_em * plot.em);
    if (!std::isfinite(px) || !std::isfinite(py)) return false;
    if (px < plot.plot_min.x - radius || px > plot.plot_max.x + radius || py < plot.plot_min.y - radius ||
        py > plot.plot_max.y + radius) {
        return false;
    }
    const ImVec2 center(static_cast<float>(px), static_cast<float>(py));
    draw_marker(plot.draw_list, center, radius, color, shape, palette().panel_background, plot.em);
    plot.data_marks.push_back(center);  // a point of a cloud too: the legend covers no point
    const ImVec4 box(center.x - radius, center.y - radius, center.x + radius, center.y + radius);
    (radius_em >= 0.3f ? plot.marker_boxes : plot.small_marker_boxes).push_back(box);
    const bool hovered = plot.hovered && !plot.point_hovered_this_frame &&
                         std::hypot(plot.mouse.x - center.x, plot.mouse.y - center.y) <= std::max(radius, 0.5f * plot.em);
    if (hovered) {
        plot.point_hovered_this_frame = true;
        plot.draw_list->AddCircle(center, radius + 0.25f * plot.em, palette().text, 24, 0.1f * plot.em);
    }
    return hovered;
}

namespace {

void queue_text(double x, double y, const char* text, ImU32 color, ImVec2 pivot, ImVec2 offset_em, bool gives_way,
                bool keeps_side = false) {
    IM_ASSERT(plot.active);
    const double px = pixel_x(x), py = pixel_y(y);
    if (!std::isfinite(px) || !std::isfinite(py)) return;
    const float em = plot.em;
    // Anchors far outside are culled; those just outside are pulled in at EndLogPlot.
    const float reach = 20 * em;
    if (px < plot.plot_min.x - reach || px > plot.plot_max.x + reach || py < plot.plot_min.y - reach ||
        py > plot.plot_max.y + reach) {
        return;
    }
    plot.texts.push_back({ImVec2(static_cast<float>(px), static_cast<float>(py)), ImVec2(offset_em.x * em, offset_em.y * em),
                          pivot, text, color, gives_way, keeps_side});
    plot.data_marks.push_back(plot.texts.back().point);
}

}  // namespace

void PlotText(double x, double y, const char* text, ImU32 color, ImVec2 pivot, ImVec2 offset_em) {
    queue_text(x, y, text, color, pivot, offset_em, false);
}

void PlotRegionText(double x, double y, const char* text, ImU32 color, ImVec2 pivot, ImVec2 offset_em) {
    queue_text(x, y, text, color, pivot, offset_em, false, true);
}

void PlotTextIfRoom(double x, double y, const char* text, ImU32 color, ImVec2 pivot, ImVec2 offset_em) {
    queue_text(x, y, text, color, pivot, offset_em, true);
}

// A straight rule across the plot counts for the legend and the texts like any other line.
void note_rule(ImVec2 from, ImVec2 to, ImU32 color) {
    plot.line_segments.push_back({from, to, color});
    const float length = std::hypot(to.x - from.x, to.y - from.y);
    const int samples = std::min(200, 1 + static_cast<int>(length / (2.0f * plot.em)));
    for (int k = 0; k <= samples; ++k) {
        const float t = static_cast<float>(k) / samples;
        plot.line_marks.push_back(ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t));
    }
}

bool PlotHLine(const char* label, double y, ImU32 color, float thickness_em, float dash_em) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::line, MarkerShape::circle, dash_em);
    const double py = pixel_y(y);
    if (!std::isfinite(py) || py < plot.plot_min.y || py > plot.plot_max.y) return false;
    const float thickness = std::max(1.0f, thickness_em * plot.em);
    draw_dashed(ImVec2(plot.plot_min.x, static_cast<float>(py)), ImVec2(plot.plot_max.x, static_cast<float>(py)), color,
                thickness, dash_em * plot.em);
    note_rule(ImVec2(plot.plot_min.x, static_cast<float>(py)), ImVec2(plot.plot_max.x, static_cast<float>(py)), color);
    return claim_line_hover(std::fabs(plot.mouse.y - py));
}

bool PlotVLine(const char* label, double x, ImU32 color, float thickness_em, float dash_em) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::line, MarkerShape::circle, dash_em);
    const double px = pixel_x(x);
    if (!std::isfinite(px) || px < plot.plot_min.x || px > plot.plot_max.x) return false;
    const float thickness = std::max(1.0f, thickness_em * plot.em);
    draw_dashed(ImVec2(static_cast<float>(px), plot.plot_min.y), ImVec2(static_cast<float>(px), plot.plot_max.y), color,
                thickness, dash_em * plot.em);
    note_rule(ImVec2(static_cast<float>(px), plot.plot_min.y), ImVec2(static_cast<float>(px), plot.plot_max.y), color);
    return claim_line_hover(std::fabs(plot.mouse.x - px));
}

void PlotLegendLine(const char* label, ImU32 color, float dash_em) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::line, MarkerShape::circle, dash_em);
}

void PlotLegendMarker(const char* label, ImU32 color, MarkerShape shape) {
    IM_ASSERT(plot.active);
    add_legend_entry(label, color, LegendSwatch::marker, shape);
}

ImVec2 PlotToPixels(double x, double y) {
    IM_ASSERT(plot.active);
    return ImVec2(static_cast<float>(pixel_x(x)), static_cast<float>(pixel_y(y)));
}

bool IsPlotHovered() { return plot.active && plot.hovered; }

bool GetPlotMousePosition(double* x, double* y) {
    if (!plot.active || !plot.hovered) return false;
    const double fx = (plot.mouse.x - plot.plot_min.x) / (plot.plot_max.x - plot.plot_min.x);
    const double fy = (plot.plot_max.y - plot.mouse.y) / (plot.plot_max.y - plot.plot_min.y);
    const double ax = plot.x_axis_min + fx * (plot.x_axis_max - plot.x_axis_min);
    const double ay = plot.y_axis_min + fy * (plot.y_axis_max - plot.y_axis_min);
    if (x) *x = plot.axes.x_scale == AxisScale::log10 ? std::pow(10.0, ax) : ax;
    if (y) *y = plot.axes.y_scale == AxisScale::log10 ? std::pow(10.0, ay) : ay;
    return true;
}

}  // namespace widgets
