#pragma once
// A figure on screen that can explain itself: hover shows the formula with the numbers substituted and its source.
#include <string>

namespace widgets {

// "label  value" on one line; hovering shows formula and source (explain mode). Tooltips are skipped while exporting.
void figure(const char* label, const std::string& value, const std::string& formula = {}, const char* source = nullptr);

// A tooltip for the last item, if it is hovered: formula and source, wrapped at a readable width.
void explain_last_item(const std::string& formula, const char* source = nullptr);

// The explanation tooltip itself, for drawn areas that are not ImGui items (bars, blocks); skipped when explain mode is off.
void explain_tooltip(const std::string& formula, const char* source = nullptr);

// A heading in the bold font, with a thin rule under it.
void section_heading(const char* text);

// Explain mode on (hover tooltips) or off; the app owns the toggle.
void set_explain_mode(bool on);
bool explain_mode();

}  // namespace widgets
