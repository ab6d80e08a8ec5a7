#pragma once
// What the window remembers between runs, kept in the XDG config directory (never the working directory).
#include "app/app_state.h"

#include <string>
#include <vector>

namespace app {

// The zoom Ctrl+= and Ctrl+- reach, and what a settings file may hold.
constexpr float kZoomMin = 0.5f;
constexpr float kZoomMax = 4.0f;

struct WindowSettings {
    float zoom = 1.0f;
    bool light_theme = false;
    std::string hidden_panels;  // comma-separated names
    std::vector<std::string> recent_files;  // File > Open Recent, newest first
    std::string problem;  // a damaged file read as defaults: its name and key, shown on the status line
};

WindowSettings load_settings(const std::string& config_dir);
void save_settings(const std::string& config_dir, const WindowSettings& settings);
void apply_settings(AppState& state, const WindowSettings& settings);
WindowSettings capture_settings(const AppState& state, float zoom, bool light_theme);

}  // namespace app
