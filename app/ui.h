#pragma once
// One frame of the UI, shared by the window and the headless export: the main layout, or one panel alone.
#include "app/app_state.h"

namespace app {

// What the UI asks of whoever owns the window; handled after the frame.
struct UiRequests {
    float zoom_factor = 1.0f;   // multiply the UI zoom by this (Ctrl+= / Ctrl+-)
    bool zoom_reset = false;    // Ctrl+0
    bool theme_toggle = false;
    bool quit = false;
};

// The main window: menu bar, the shared sidebar on the left, the visible panels as tabs beside it.
void draw_main_ui(AppState& state, UiRequests& requests, bool exporting);
// One panel filling the display, titled, as `export --panel NAME` renders it.
void draw_single_panel(AppState& state, int panel, bool exporting);

}  // namespace app
