#pragma once
// Drawing helpers every panel shares: axis ticks on a 1-2-5 step, their labels, dimmed text, legend swatches.
// The tick arithmetic is pure (unit-tested in tests/render/test_draw_helpers.cpp); the rest draws with ImGui.
#include <imgui.h>

#include <string>
#include <vector>

namespace widgets {

// The 1-2-5 step (1, 2 or 5 times a power of ten) that splits `span` into at most `max_intervals` intervals,
// the fewest such steps being the largest that still gives that many. 0 when span is not positive and finite.
double tick_step_125(double span, double max_intervals);

// The multiples of tick_step_125(max - min, max_intervals) from min to max, both ends included when they fall on one.
std::vector<double> linear_ticks(double min, double max, double max_intervals);

// A tick's label, with no more decimals than its step needs: 0.25 for a step of 0.05, 40 for a step of 20.
std::string tick_label(double value, double step);

// A line as ImGui's AddLine draws it (centred half a pixel in), but a plain rectangle when it runs along an axis: grid
// lines and dashes are most of a frame's lines, and a rectangle skips the stroke's path and its anti-aliased fringe.
void add_axis_line(ImDrawList* draw, ImVec2 from, ImVec2 to, ImU32 color, float thickness = 1.0f);

// A corner radius worth drawing: none under 1.5 px, where the edge's anti-aliasing already softens a square corner and the
// arcs would only add vertices (a pipeline grid has thousands of cells).
float visible_rounding(float radius);

// How much of the segment from-to runs inside the rectangle min-max, in pixels: what a label placed there would hide.
float segment_length_inside(ImVec2 from, ImVec2 to, ImVec2 min, ImVec2 max);

// ImGui's float colour from a packed one.
ImVec4 color4(ImU32 color);

// Wrapped text (at spaces, widgets/text_wrap.h) in the theme's dim colour: captions, notes, units.
void dim_text(const std::string& text);

// A legend's colour key at the cursor, one text line high, followed by SameLine: a filled square (categories on a
// bar), a filled disc (points) or a ring (the scenario's own point).
enum class SwatchShape { square, disc, ring };
void legend_swatch(ImU32 color, SwatchShape shape = SwatchShape::square);

// The text as it fits in max_width with the current font: whole if it fits, else cut with an ellipsis (U+2026) at the end,
// or in the middle for a path (keeps the file name). Never wider than max_width unless even "..." is not.
std::string fit_text(const std::string& text, float max_width, bool keep_end = false);

// A label that abbreviates: the first of its variants (longest first: "Whole model, 70.6 B params", "Whole model") that fits
// in max_width with the current font, else the last one cut by fit_text.
std::string fit_variant(const std::vector<std::string>& variants, float max_width);

// How a panel splits its width between a first column (controls, a table) and the rest (the figure): side by side while
// both keep their minimum widths, else one column, the first above the rest. first_width is the first column's width
// side by side (its share of the width, clamped to [first_min, first_max]), or the whole width stacked.
struct ColumnSplit {
    bool side_by_side = true;
    float first_width = 0;
};
ColumnSplit split_columns(float available_width, float first_share, float first_min, float first_max, float rest_min);

// For two columns of figures: the next item at x = column_x (window coordinates, as SameLine takes it) when the last one
// ended before it, else on the next line, so a long first figure never runs into the second.
void second_column(float column_x);

// SameLine when an item `next_width` wide still fits on this line after `spacing`; else a new line.
void same_line_if_fits(float next_width, float spacing);
// Which of a table's columns to show in `available` width: all when their widths (each column's widest cell, padding
// included) fit, else dropping columns in drop_order, least needed first, until the rest fit or drop_order runs out.
std::vector<bool> columns_that_fit(const std::vector<float>& widths, const std::vector<int>& drop_order, float available);
// The width a labelled control takes: its frame plus its label, for same_line_if_fits.
float labelled_width(float frame_width, const char* label);

}  // namespace widgets
