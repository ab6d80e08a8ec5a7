#pragma once
// Headless export: the same draw functions as the window, rendered offscreen and written as PNG files.
#include "core/scenario.h"

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
    double t_seconds = 0;             // every panel's animation time
    bool light_theme = false;
    int settle_frames = 4;            // frames rendered before the read-back, so the layout settles
};

// Writes <out_dir>/<panel>.png for each; returns an empty string or the one-line error.
std::string run_export(const ExportOptions& options);

// The names export accepts: every panel, "window", and "all" (every panel plus window).
std::vector<std::string> export_targets(const std::string& panel_argument, std::string* error);

}  // namespace app
