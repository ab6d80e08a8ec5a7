#pragma once
// Everything the window shows: the scenario being edited, the last valid one and its Report, the panels and their clocks.
#include "core/cost/report/diff_report.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"
#include "core/model/scenario_history.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/sidebar.h"

#include <optional>
#include <string>
#include <vector>

namespace app {

// A baseline the panels draw the scenario against. Pinning, unpinning and opening one are steps of the undo history (the
// scenario stays, the baseline changes); the baseline stays while the scenario is edited, reset or opened.
struct PinnedBaseline {
    core::Scenario scenario;
    core::Report report;
    core::ReportText text;
    std::string name;                 // "llama.json as pinned", "baseline.json": where it came from, for the banner
    std::uint64_t revision = 0;       // unique to each pinned or opened baseline: the panels key their caches on it
};

constexpr std::size_t kRecentFilesKept = 8;  // File > Open Recent lists this many; the settings file keeps as many

struct AppState {
    core::Scenario scenario;           // edited by the sidebar and panels during a frame
    core::Scenario applied;            // the last scenario that evaluated cleanly
    core::Report report;               // evaluate(applied)
    core::ReportText text;             // explain(applied, report), rebuilt with it
    std::uint64_t scenario_revision = 1;  // bumped with every newly applied scenario, so panels key caches without serialising
    std::vector<widgets::PanelDef> panels;
    std::vector<widgets::Playback> playbacks;  // one clock per panel
    std::vector<bool> visible;         // View menu
    int current_panel = 0;             // the selected tab
    int select_panel_request = -1;     // a tab to bring to front next frame
    widgets::SidebarState sidebar;
    widgets::EditFeedback feedback;    // what the last control edit changed besides itself
    widgets::SharedAssets assets;
    std::string scenario_path;         // the file the scenario came from, if any
    std::vector<std::string> recent_files;  // newest first, at most kRecentFilesKept
    std::string status;                // last message shown in the status bar
    std::string file_error;            // a refused open or save, shown in a dialog until dismissed
    widgets::KernelSelection kernel_selection;  // the kernel picked in one panel, highlighted in the others
    // The open document: Save never writes over a file ShardScope did not write.
    core::Scenario saved_scenario;     // the applied scenario as last opened or saved: unsaved changes differ from it
    bool read_only = false;            // a shipped scenario under the asset directory: Save becomes Save As
    std::string imported_from;         // an imported Hugging Face config.json: the document is untitled, Save becomes Save As
    // Undo and redo over every applied edit. Opening a file (or importing a config) starts it afresh; a lesson's scenes
    // have their own, and the user's comes back when presentation ends.
    core::ScenarioHistory history;
    std::optional<PinnedBaseline> baseline;  // none: one scenario, as before
    core::Comparison comparison;       // the baseline against the applied scenario, rebuilt when either changes
    std::uint64_t comparison_scenario_revision = 0, comparison_baseline_revision = 0;  // what the comparison was built for
};

// Builds the state over a valid scenario (throws InputError if it is not).
AppState make_app_state(const core::Scenario& scenario);
// After a frame: evaluate the edited scenario; on InputError restore the last valid one and keep the message. A valid
// edit becomes a step of the history; gesture_id, when not 0, is the control being dragged (ImGui's active id): every
// change while the same drag lasts is one step, closed when a frame ends with no drag.
void apply_scenario_edits(AppState& state, unsigned int gesture_id = 0);
// Edit > Undo, Redo and Reset to the file. Each returns whether the scenario changed; the status bar says what was done.
bool undo_edit(AppState& state);
bool redo_edit(AppState& state);
// Back to the scenario as the file was opened or last saved (the import, for an untitled import): one undoable step.
bool reset_to_file(AppState& state);
// Replaces the scenario wholesale (File > Open); on InputError the state is untouched and the message returned.
std::string replace_scenario(AppState& state, const core::Scenario& scenario);
// Moves every playing panel's clock by dt seconds (the app's only notion of time).
void advance_playbacks(AppState& state, double dt_seconds);
// Pins the applied scenario as the baseline, or unpins the one pinned (the same key does both); the status bar says which.
void toggle_baseline(AppState& state);
// Makes a scenario the baseline (File > Open baseline, export --baseline, a lesson scene's); "" or the error, with the
// state untouched on error.
std::string set_baseline(AppState& state, const core::Scenario& scenario, const std::string& name);
// The pinned baseline as the undo history keeps it (nullopt: none).
core::BaselineSlot baseline_slot(const AppState& state);
// The baseline as the panels see it, its comparison with the applied scenario brought up to date; null when none is pinned.
std::optional<widgets::BaselineView> baseline_view(AppState& state);
int panel_index(const AppState& state, const std::string& name);  // -1 if unknown
std::string panel_names(const AppState& state);                    // "stack, walls, ..."

}  // namespace app
