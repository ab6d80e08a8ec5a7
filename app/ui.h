#pragma once
// One frame of the UI, shared by the window and the headless export: the main layout, one panel alone, or a lesson scene.
#include "app/app_state.h"
#include "app/presentation.h"

#include <string>
#include <vector>

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
    bool quit = false;               // nothing unsaved, or the user chose to discard it
};

// The scenario sidebar: shown, folded to a strip, or folded only while the window is narrow.
enum class SidebarMode { automatic, shown, folded };

// What waits for "discard unsaved changes?".
enum class PendingAction { none, open, quit };

// UI state that is not the scenario: dialogs, presentation, help.
struct UiSession {
    PresentationState presentation;
    bool show_shortcuts = false;
    bool open_dialog_request = false;
    bool open_baseline = false;       // the open dialog reads a baseline (File > Open baseline...), not the scenario
    bool save_dialog_request = false;
    std::string path_input;           // the path typed into the open / save dialog
    std::string dialog_error;         // why the dialog's path was refused; stays until the path changes or the dialog closes
    std::string save_reason;          // why Save became Save As ("a shipped scenario stays as it is: save a copy")
    std::string confirm_replace;      // the path Save As would replace, waiting for the user's yes
    PendingAction pending = PendingAction::none;
    std::string pending_path;         // the file to open once unsaved changes are saved or discarded
    bool quit_request = false;        // the window's close button or Ctrl+Q: asks first when there are unsaved changes
    std::vector<std::string> dropped_paths;  // files dropped on the window, opened by the next frame
    bool welcome = false;             // first launch: one line on how to start (F5, shipped scenarios), until dismissed
    SidebarMode sidebar = SidebarMode::automatic;  // Ctrl+B or the strip's button folds and unfolds it
    bool tabs_wrapped = false;        // the last frame's tabs wrapped onto rows (the tab bar did not hold their short titles)
};

// The main window: menu bar, the shared sidebar on the left, the visible panels as tabs beside it (or the lesson scene).
void draw_main_ui(AppState& state, UiSession& session, UiRequests& requests, bool exporting);
// The control the held mouse button drags this frame (ImGui's active id), 0 when none: a drag is one undo step.
unsigned int dragged_item();
// One panel filling the display, titled, as `export --panel NAME` renders it.
void draw_single_panel(AppState& state, int panel, bool exporting);
// Starts presentation mode on the default lesson (or the loaded one), keeping the user's scenario; "" or the error.
std::string start_presentation(AppState& state, UiSession& session);
// Whether the sidebar is folded now: the user's choice, else folded when the window is narrower than 68 em.
bool sidebar_folded(const UiSession& session, float window_width_em);
// "*llama.json - ShardScope": the document and a leading * for unsaved changes; the lesson while presenting.
std::string window_title(const AppState& state, const UiSession& session);
// Unsaved changes to the user's own scenario (presentation's scenes are never the user's).
bool user_has_unsaved_changes(const AppState& state, const UiSession& session);

}  // namespace app
