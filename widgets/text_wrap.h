#pragma once
// Wrapped text that breaks only at spaces (and at '\n'), so a figure is never split: Dear ImGui 1.86's own word wrap
// (TextWrapped, PushTextWrapPos + Text, AddText with a wrap width) also breaks after '.', ',', ';', '!', '?' and '"',
// and so turned "10.0 QPS" into "10." / "0 QPS". break_lines is the one place the rule lives; it is pure
// (tests/render/test_text_wrap.cpp), and the functions below it only measure and draw its lines with ImGui.
#include <imgui.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace widgets {

// One line of a text: bytes [begin, end) of it.
struct LineSpan {
    std::size_t begin = 0;
    std::size_t end = 0;
    bool operator==(const LineSpan&) const = default;
};

// The text's lines, each no wider than max_width as width_of measures it, broken only at spaces; the spaces at a break
// are dropped, a paragraph's leading spaces kept. A figure keeps its unit ("80.0 GB", "54.4 s", "27.3 %": a word ending
// in a digit stays with a unit after it) unless the two are wider than the line. Every '\n' ends a line (an empty one
// for "\n\n"); a final '\n' opens none, and an empty text has no lines, as ImGui::CalcTextSize counts them. A word
// wider than the line is cut between two UTF-8 characters, at least one per line, so every line moves on.
std::vector<LineSpan> break_lines(std::string_view text, float max_width, const std::function<float(std::string_view)>& width_of);

// The same lines as strings in the current font, at least one (empty for an empty text): the lesson caption's band.
std::vector<std::string> wrap_at_spaces(const std::string& text, float max_width);

// The size of text broken at wrap_width in font at font_size: its widest line by one font_size per line (one line
// for an empty text, as ImFont::CalcTextSizeA gives).
ImVec2 wrapped_text_size(std::string_view text, float wrap_width, const ImFont* font, float font_size);
// The same in the current font.
ImVec2 wrapped_text_size(std::string_view text, float wrap_width);

// Forgets the lines broken so far (each text's lines are kept by font, size and width): fonts rebuilt change the widths.
void clear_wrapped_lines();

// Draws text broken at wrap_width on a draw list from pos, one AddText per line; returns the size it took.
ImVec2 add_wrapped_text(ImDrawList* draw, const ImFont* font, float font_size, const ImVec2& pos, ImU32 color, std::string_view text,
                        float wrap_width, const ImVec4* fine_clip = nullptr);

// ImGui::TextWrapped broken at spaces: one item at the cursor in the current font and text colour, wrapped where
// TextWrapped wraps (the position PushTextWrapPos set, else the window's right edge), as tall as its lines.
void wrapped_text(std::string_view text);
// The same, printf-style.
void wrapped_textf(const char* format, ...) IM_FMTARGS(1);

}  // namespace widgets
