#pragma once
// The scenario controls every panel shares (model, GPU, GPU count, parallel layout, training) and the headline figures.
#include "core/cost/report/explain.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"
#include "widgets/controls.h"

#include <string>

namespace widgets {

struct SidebarState {
    std::string error;  // the last edit the app refused, shown in red until the next valid edit
};

// Draws into the current window; edits scenario in place (the app validates and may roll back).
void draw_sidebar(SidebarState& state, core::Scenario& scenario, const core::Report& report, const core::ReportText& text,
                  EditFeedback& feedback);

}  // namespace widgets
