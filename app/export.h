#pragma once
// Headless export: the same draw functions as the window, rendered offscreen and written as PNG files.
#include "app/app_state.h"
#include "app/lesson.h"
#include "app/ui.h"
#include "core/model/scenario.h"
#include "widgets/clip_check.h"

#include <optional>

#include <string>
#include <vector>

namespace app {

struct ExportOptions {
    core::Scenario scenario;          // already parsed and valid
    std::vector<std::string> panels;  // panel names to write; "window" writes window.png
    std::string out_dir = ".";
    int width = 1600;                 // logical size; the PNG is width x scale by height x scale
    int height = 900;
    float scale = 1.0f;
    std::optional<double> t_seconds;  // every panel's animation time; unset: each panel settled, at the end of its animation
    bool light_theme = false;
    int settle_frames = 4;            // frames rendered before the read-back, so the layout settles
    std::optional<Lesson> lesson;     // also write one PNG per scene: NN-<title>.png
    bool controls = false;            // keep the live controls and key hints; by default a panel is a clean figure
    // Draw each panel as the window shows it, its tab selected beside the scenario sidebar open (shown) or folded, with
    // the menu, the tabs and the panel's controls; "window" follows it too. automatic: a panel alone, as a figure.
    SidebarMode sidebar = SidebarMode::automatic;
    std::optional<core::Scenario> baseline;  // already parsed and valid: every panel drawn against it (export --baseline)
    std::string baseline_name;        // its file's name, for the banner
    std::vector<double>* settled_t_out = nullptr;  // if set, receives each exported panel's animation time, in panels order
    std::vector<std::vector<widgets::DrawnText>>* texts_out = nullptr;  // if set, each target's (then each lesson scene's) last frame's texts
    std::vector<std::vector<widgets::PlotLayout>>* plots_out = nullptr;  // if set, each target's (then each lesson scene's) last frame's plot layouts
};

// Writes <out_dir>/<panel>.png for each; returns an empty string or the one-line error. `written`, when given, gets the
// path of each file written, in order (the files written before an error too).
std::string run_export(const ExportOptions& options, std::vector<std::string>* written = nullptr);

// Inside a running window (Ctrl+E): renders one panel offscreen at width x height pixels and writes path.
std::string export_panel_in_context(AppState& state, int panel, int width, int height, const std::string& path);

// The names export accepts: every panel, "window", and "all" (every panel plus window).
std::vector<std::string> export_targets(const std::string& panel_argument, std::string* error);

}  // namespace app
