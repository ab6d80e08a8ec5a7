#pragma once
// Stacked byte columns against horizontal ceilings, on a value axis that is linear from 0 and breaks above the ceilings
// when a column towers over them (0.1 GB to 30 TB in one picture, each segment honest about proportions).
//
// Usage: make a StackAxis for the plot's pixel range, draw the axis, the ceilings, then each column; every block gets a
// label beside the column (moved apart and tied back with a leader line when blocks are too thin to hold one).
#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

namespace widgets {

struct StackAxis {
    double break_bytes = 0;   // 0: one linear segment 0..top; otherwise 0..break below and break..top above
    double top_bytes = 1;
    float lower_share = 1;    // the lower segment's share of the height
    float y_bottom = 0;       // pixels of 0 bytes
    float y_top = 0;          // pixels of top_bytes

    float y_of(double bytes) const;
    bool has_break() const { return break_bytes > 0; }
};

// Covers content_max_bytes and every ceiling; breaks just above the highest ceiling when content towers over it, and
// just above the content when it is dwarfed by the ceilings.
StackAxis make_stack_axis(double content_max_bytes, double highest_ceiling_bytes, float y_bottom, float y_top);

// Ticks and their byte labels right-aligned left of x, faint grid lines to x_right, the title above, and the break mark.
// A tick's label is left out where it would touch one of busy_rows (screen y ranges: the ceilings' labels set there).
void draw_stack_axis(ImDrawList* draw, const StackAxis& axis, float x, float x_right, const char* title,
                     const std::vector<std::pair<float, float>>& busy_rows = {});

struct StackedBlock {
    std::string label;        // "fp32 master"
    std::string value;        // "282 GB"
    double bytes = 0;
    ImU32 color = 0;
    bool visible = true;      // false: not yet in the stack (animation); no block, no label
    std::string tooltip;      // formula with the numbers, shown on hover
};

struct ColumnLabels {
    float lane_left = 0;      // labels start here (right of the column)
    float lane_right = 0;     // and are clipped here
    float wide_right = 0;     // > lane_right: a row clear of every busy row may run on to here (the last column)
    std::vector<std::pair<float, float>> busy_rows;  // screen y ranges taken beyond lane_right (the ceilings' labels)
};

struct HorizontalLine {
    double bytes = 0;
    std::string label;        // "H100 SXM  80.0 GB"
    bool emphasised = false;  // the selected GPU
};

// The room the ceilings' labels need at the right end of their lines.
float ceiling_labels_width(const std::vector<HorizontalLine>& lines);
// The screen y range each ceiling's label takes (moved apart when they would touch), in the lines' order.
std::vector<std::pair<float, float>> ceiling_label_rows(const StackAxis& axis, const std::vector<HorizontalLine>& lines);
// Dashed ceilings from x_left to x_right, labels right-aligned at labels_right (0: at x_right; left of x_left: in the byte
// axis' lane, where a narrow plot has room for them). Returns the screen y range of each label's row, for labels that
// would run on into the ceilings' lane.
std::vector<std::pair<float, float>> draw_ceilings(ImDrawList* draw, const StackAxis& axis, const std::vector<HorizontalLine>& lines,
                                                   float x_left, float x_right, float labels_right = 0);

// Draws the blocks bottom-up and their labels; from red_from_bytes up (if > 0 and below the top) the column is marked
// over budget. Returns the index of the hovered block or label, -1 if none.
int draw_stacked_column(ImDrawList* draw, const StackAxis& axis, float x_left, float width, const std::vector<StackedBlock>& blocks,
                        const ColumnLabels& labels, double red_from_bytes, bool hover_enabled);

// A tooltip in the style of figure.h's explain_last_item, for areas that are not ImGui items.
void area_tooltip(const std::string& text, const char* source = nullptr);

}  // namespace widgets
