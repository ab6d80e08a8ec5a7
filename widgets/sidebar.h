#pragma once
// The scenario controls every panel shares (model, GPU, GPU count, parallel layout, training) and the headline figures.
#include "core/report.h"
#include "core/scenario.h"

#include <string>

namespace widgets {

struct SidebarState {
    std::string error;  // the last edit the app refused, shown in red until the next valid edit
};

// The GPU picker both the sidebar and the stack panel show: sets the GPU and its NVLink generation.
void gpu_combo(const char* label, core::Scenario& scenario);

// Draws into the current window; edits scenario in place (the app validates and may roll back).
void draw_sidebar(SidebarState& state, core::Scenario& scenario, const core::Report& report);

}  // namespace widgets
