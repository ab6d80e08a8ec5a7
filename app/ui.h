#pragma once
// One frame of the UI, shared by the window and the headless export: the main layout, one panel alone, or a lesson scene.
#include "app/app_state.h"
#include "app/presentation.h"

#include <string>

namespace app {

// What the UI asks of whoever owns the window; handled after the frame.
struct UiRequests {
    float zoom_factor = 1.0f;        // multiply the UI zoom by this (Ctrl+= / Ctrl+-)
    bool zoom_reset = false;         // Ctrl+0
    bool theme_toggle = false;
    bool toggle_fullscreen = false;  // F11
    bool presentation_changed = false;  // entered or left presentation mode: the UI scale changes
    bool export_current_panel = false;  // Ctrl+E
    bool save_trace = false;         // File > Save step trace, or a panel's "Save trace...": a Chrome trace in the working directory
    bool quit = false;
};

// UI state that is not the scenario: dialogs, presentation, help.
struct UiSession {
    PresentationState presentation;
    bool show_shortcuts = false;
    bool open_dialog_request = false;
    bool save_dialog_request = false;
    std::string path_input;           // the path typed into the open / save dialog
};

// The main window: menu bar, the shared sidebar on the left, the visible panels as tabs beside it (or the lesson scene).
void draw_main_ui(AppState& state, UiSession& session, UiRequests& requests, bool exporting);
// One panel filling the display, titled, as `export --panel NAME` renders it.
void draw_single_panel(AppState& state, int panel, bool exporting);
// Starts presentation mode on the default lesson (or the loaded one); returns "" or the error.
std::string start_presentation(AppState& state, UiSession& session);

}  // namespace app
