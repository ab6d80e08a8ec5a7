#pragma once
// The clip checker: every text drawn during a frame, with its extent and the rectangle it was clipped to, so tests can
// say that no label is cut at a given window size or zoom, measured on the text's own extent (not on pixels), and can
// find what a panel printed. The app never records; a test build forwards ImDrawList::AddText here
// (tests/render/text_hook.cpp).
#include <imgui.h>

#include <string>
#include <vector>

namespace widgets {

struct DrawnText {
    std::string text;
    ImVec2 min, max;        // the text's extent on screen, wrapped as drawn
    ImVec4 clip;            // what it was clipped to: the draw list's clip rectangle, and the fine clip if one was given
    std::string window;     // the ImGui window it was drawn in
    bool scrolls_y = false; // that window scrolls vertically: text past its bottom edge is scrolled, not cut
    float wrap_width = 0;   // AddText's own wrap width: 0 unless ImGui's word wrap (which splits "10.0" after '.') drew it
    bool combo_preview = false;  // a combo's preview shortened to its box by design (fitted_preview): the list shows it whole
};

// A log plot as it was laid out (widgets/log_plot.h), all in screen pixels as (min x, min y, max x, max y): so a test can
// say that its legend covers none of its points and labels.
struct PlotLayout {
    ImVec4 plot;                 // the data rectangle
    ImVec4 legend{0, 0, 0, 0};   // empty (zero size) without a legend
    std::vector<ImVec4> points;  // every marker drawn inside the plot
    std::vector<ImVec4> labels;  // every text placed on the plot
};

void start_text_record();  // also starts recording plot layouts
std::vector<DrawnText> stop_text_record();
// The plots laid out since start_text_record (stop_text_record leaves them here until the next start).
std::vector<PlotLayout> recorded_plots();
void record_plot(PlotLayout layout);
bool text_record_active();
// fitted_preview tells the recorder which shortened texts are combo previews, so a test can tell them from labels cut.
void note_combo_preview(const std::string& shown);
// Called for each ImDrawList::AddText while recording (font and size may be null / 0: the draw list's own).
void record_text(const ImDrawList* list, const ImFont* font, float font_size, const ImVec2& pos, const char* text_begin,
                 const char* text_end, float wrap_width, const ImVec4* fine_clip);

// Whether a drawn text is cut: seen in part but not whole, across its clip rectangle's left or right edge, or across its
// top or bottom edge in a window that does not scroll. Half a pixel of slack for rounding.
bool is_cut(const DrawnText& text);
std::vector<DrawnText> cut_texts(const std::vector<DrawnText>& texts);

// Two texts drawn over each other ("27.0 GA100 / H100"): the seen parts of their extents (each clipped to its own clip
// rectangle) intersect by more than a pixel across and a quarter of the shorter one's height. Whitespace-only texts are
// left out.
struct TextOverlap {
    DrawnText first, second;
};
std::vector<TextOverlap> overlapping_texts(const std::vector<DrawnText>& texts);

}  // namespace widgets
