#pragma once
// The scenario drawn against a pinned baseline, the same way in every panel: the baseline's ghost as a dashed
// outline, a trail from where a point was to where it is, and each difference labelled with its sign and unit. The words
// come from core (core/cost/report/diff_report.h): a widget prints them and formats none. Colour never says the
// difference alone: the ghost is dashed, the trail ends in an arrowhead, and every change is written out.
#include "widgets/panel.h"

#include <imgui.h>

#include <string>

namespace widgets {

// The ghost's ink: the dim text colour, the same "before" in both themes and under deuteranopia.
ImU32 baseline_ink();

// The two lines above a panel while a baseline is pinned: where it came from and the inputs that differ, then the
// headline changes (peak memory, step, MFU). Their height, for panels that lay out below them. unpin_hint: where Ctrl+P
// unpins it (not in a lesson's scene, whose baseline is the scene's).
void draw_baseline_banner(const BaselineView& baseline, bool unpin_hint = true);
float baseline_banner_height();

// Dashed lines and outlines (ImGui draws only solid ones), dashes and gaps `dash` pixels long.
void add_dashed_line(ImDrawList* draw, ImVec2 from, ImVec2 to, ImU32 color, float thickness, float dash);
void add_dashed_rect(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 color, float thickness, float dash);

// Where a point was and where it went: a ring at the baseline's point and a dashed trail to the scenario's, ending in an
// arrowhead at its edge. Nothing when the two coincide.
void add_trail(ImDrawList* draw, ImVec2 baseline, ImVec2 scenario, ImU32 color, float em);

// A change drawn at `at` in the bold font ("+0.600 s, +4.5 %"); returns its size. A label's width, to place it first.
ImVec2 add_change_label(ImDrawList* draw, ImVec2 at, const std::string& text, ImU32 color);
ImVec2 change_label_size(const std::string& text);

// A headline figure's line in a column of figures: "vs baseline: +0.600 s, +4.5 % against 13.4 s", wrapped, dim; the
// figure's own line stays as it is above it.
void figure_change_line(const core::FigureComparison& figure);

}  // namespace widgets
