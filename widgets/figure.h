#pragma once
// A figure on screen that can explain itself: hover shows the formula with the numbers substituted and its source.
#include "core/cost/report/figure_text.h"

#include <string>

namespace widgets {

// "label  value" on one line; hovering shows formula and source (explain mode). Tooltips are skipped while exporting.
void figure(const char* label, const std::string& value, const std::string& formula = {}, const char* source = nullptr);

// A figure that only means something if the layout runs (step time, MFU, time to train, cost): when it does not fit in
// HBM, the label says "if it fit" and the value is dim, so nobody reads a time to train for a run that cannot start.
void run_figure(bool fits, const char* label, const std::string& value, const std::string& formula = {}, const char* source = nullptr);

// A figure as core words it (core/cost/report/figure_text.h): its label, value, formula and source, printed as they are.
void figure(const core::FigureText&);
void run_figure(bool fits, const core::FigureText&);

// A tooltip for the last item, if it is hovered: formula and source, wrapped at a readable width.
void explain_last_item(const std::string& formula, const char* source = nullptr);

// The explanation tooltip itself, for drawn areas that are not ImGui items (bars, blocks); skipped when explain mode is off.
void explain_tooltip(const std::string& formula, const char* source = nullptr);

// A heading in the bold font, with a thin rule under it.
void section_heading(const char* text);

// Explain mode on (hover tooltips) or off; the app owns the toggle.
void set_explain_mode(bool on);
bool explain_mode();

// Figure mode: a clean picture for a document (export's default). Panels draw the figure, its title and its legend, and
// no live controls (play, sliders, combos, buttons) or key hints; the shared controls and the transport skip themselves.
void set_figure_mode(bool on);
bool figure_mode();

}  // namespace widgets
