#pragma once
// A small ImPlot-shaped plot drawn on the window's ImDrawList: log-log by default, either axis may be linear.
//
// Usage (one plot at a time, no nesting; call EndLogPlot only when BeginLogPlot returned true):
//
//     widgets::LogPlotAxes axes;
//     axes.x_title = "arithmetic intensity (FLOP/B)";
//     axes.y_title = "attainable (FLOP/s)";
//     axes.x_min = 0.1;  axes.x_max = 1e4;      // data units, not exponents
//     axes.y_min = 1e11; axes.y_max = 1e16;
//     if (widgets::BeginLogPlot("##roofline", ImVec2(0, 20 * ImGui::GetFontSize()), axes)) {
//         widgets::PlotLine("H100 bf16", xs, ys, 3, color, 0.14f);
//         if (widgets::PlotPoint("decode", 1.0, 3.35e12, color)) ImGui::SetTooltip("...");
//         widgets::PlotText(295, 989e12, "ridge 295 FLOP/B", color, ImVec2(0.5f, 1.2f));
//         widgets::EndLogPlot();
//     }
//
// Conventions:
// - Colours are passed in (take them from widgets/palette.h); grid, axes, texts and halos use the palette.
// - Every size (thickness, radius, offsets) is in em, i.e. multiples of ImGui::GetFontSize(), so the plot scales with
//   the font on a projector or a HiDPI screen. The plot size passed to BeginLogPlot is in pixels like any ImGui item;
//   a component <= 0 fills the available width or height.
// - Labels follow ImGui: the text after "##" is hidden; a label that starts with "##" stays out of the legend.
//   The legend lists each visible label once, in first-drawn order, with the colour and marker it was drawn with.
// - Tick labels are SI-prefixed numbers, legible from the back of a room: 0.01 0.1 1 10 100 1k 10k 1M 1G 1T 1P.
//   Put the unit in the axis title ("FLOP/s"), so "100T" reads as 100 TFLOP/s. Minor ticks at 2..9 of each decade;
//   when fewer than two decades are visible the minor ticks 2 and 5 are labelled too.
// - Primitives are clipped to the plot rectangle; points and texts outside it are culled. Texts are laid out at
//   EndLogPlot: kept inside the plot, moved off the legend, off each other and off markers of radius >= 0.3 em
//   (mirrored to the other side of the anchor, or a line or two up or down, with a leader line back to the anchor),
//   drawn over a halo. Smaller markers (trails, ridge dots, a cloud) are avoided where a spot allows: a PlotText may
//   cover one when no spot near its anchor is free, a PlotTextIfRoom never.
// - The legend covers no point and no label: it takes the asked-for corner, or another, where none lies under it, and
//   covers as little of the lines as it can; when no corner is free (or its labels would not fit whole), it goes under
//   the plot, outside it, its entries in rows, and the plot gives it the room from the next frame on.
// - A title wider than the item wraps at spaces; the plot's margins grow to hold it.
// - Hover: PlotPoint returns true while the mouse is on the point (at most one point per frame); PlotLine, PlotSegment
//   and the reference lines return true while the mouse is near them and no point was hovered on the previous frame,
//   so a point on a line wins. Show a tooltip from the caller.
#include <imgui.h>

#include <string>

namespace widgets {

enum class AxisScale { log10, linear };
enum class LegendCorner { top_left, top_right, bottom_left, bottom_right, none };
enum class MarkerShape { circle, ring, square, diamond, triangle };

struct LogPlotAxes {
    const char* x_title = "";          // with its unit, e.g. "arithmetic intensity (FLOP/B)"
    const char* y_title = "";          // drawn horizontally above the y axis
    double x_min = 0.1, x_max = 1e4;   // data units; a log axis needs 0 < min < max
    double y_min = 1e11, y_max = 1e16;
    AxisScale x_scale = AxisScale::log10;
    AxisScale y_scale = AxisScale::log10;
    LegendCorner legend = LegendCorner::top_left;
    float min_plot_height_em = 0;      // > 0: the item grows (past the size asked for) so the data rectangle keeps this
                                       // height when the legend goes under it; for a plot in a column that scrolls
};

// Starts a plot as one ImGui item. Returns false (and draws nothing more) when the item is clipped or an axis range is
// invalid; then do not call EndLogPlot.
bool BeginLogPlot(const char* id, ImVec2 size, const LogPlotAxes& axes);
// Draws the texts and the legend, pops the clip rectangle.
void EndLogPlot();

// A polyline through (xs[i], ys[i]); points a log axis cannot show (<= 0, NaN) break the line.
// dash_em > 0 draws it dashed (dash and gap of that length).
bool PlotLine(const char* label, const double* xs, const double* ys, int count, ImU32 color, float thickness_em = 0.12f,
              float dash_em = 0);
bool PlotSegment(const char* label, double x0, double y0, double x1, double y1, ImU32 color, float thickness_em = 0.12f,
                 float dash_em = 0);
// A marker with a thin outline in the window background colour, so overlapping points stay distinct.
bool PlotPoint(const char* label, double x, double y, ImU32 color, float radius_em = 0.3f,
               MarkerShape shape = MarkerShape::circle);
// Text at data coordinates; pivot (0..1) picks which point of the text sits there, offset_em moves it in em
// (positive y is down, as on screen).
void PlotText(double x, double y, const char* text, ImU32 color, ImVec2 pivot = ImVec2(0, 0),
              ImVec2 offset_em = ImVec2(0, 0));
// A text that names the region on its side of x ("<- memory-bound" left of a ridge): moved up or down when another
// text or a point is in its way, never mirrored to the other side.
void PlotRegionText(double x, double y, const char* text, ImU32 color, ImVec2 pivot = ImVec2(0, 0),
                    ImVec2 offset_em = ImVec2(0, 0));
// A text that gives way: placed after every PlotText, and left out where it would cover another text or the legend.
// For names a point's tooltip also gives, in a cloud of points.
void PlotTextIfRoom(double x, double y, const char* text, ImU32 color, ImVec2 pivot = ImVec2(0, 0),
                    ImVec2 offset_em = ImVec2(0, 0));
// Reference lines across the whole plot (a peak, a ridge); dashed when dash_em > 0.
bool PlotHLine(const char* label, double y, ImU32 color, float thickness_em = 0.08f, float dash_em = 0);
bool PlotVLine(const char* label, double x, ImU32 color, float thickness_em = 0.08f, float dash_em = 0);

// Legend entries for nothing drawn: a key when many items share a colour (a GPU) or a dash (a precision).
void PlotLegendLine(const char* label, ImU32 color, float dash_em = 0);
void PlotLegendMarker(const char* label, ImU32 color, MarkerShape shape = MarkerShape::circle);

// A key outside any plot, as one ImGui item on the current line: a line swatch in the colour with the marker on it, then
// the label. For a legend shared by charts side by side.
void LegendKey(const char* label, ImU32 color, MarkerShape shape);

// Screen position of a data point (NaN where a log axis cannot show it). Valid between Begin and End.
ImVec2 PlotToPixels(double x, double y);
// Whether the mouse is over the plot rectangle, and where in data units.
bool IsPlotHovered();
bool GetPlotMousePosition(double* x, double* y);

// The tick label text used on the axes: 1000 -> "1k", 2e12 -> "2T", 0.01 -> "0.01", 1e-5 -> "1e-5".
std::string FormatTickValue(double value);

}  // namespace widgets
