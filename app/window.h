#pragma once
// The interactive window.
#include "core/model/scenario.h"

#include <string>

namespace app {

struct WindowOptions {
    core::Scenario scenario;
    std::string scenario_path;   // shown in the title; empty for the default scenario
    bool light_theme = false;
    bool persist_settings = true; // read and write the XDG config directory
};

// Runs until the window closes; returns the process exit status.
int run_window(const WindowOptions& options);

}  // namespace app
