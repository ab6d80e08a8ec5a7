#pragma once
// File > Open / Save for the window: a refused file leaves the app as it was; a save never truncates what was there,
// never writes over a file ShardScope did not write without asking, and never writes into the shipped assets.
#include "app/app_state.h"

#include <string>

namespace app {

// Opens a scenario file, or a Hugging Face config.json (recognised by its keys) onto the current scenario; the import is
// untitled (Save becomes Save As) and a file under the asset directory opens read-only.
// Returns "" on success; otherwise the one-line error, and the state is untouched.
std::string open_scenario(AppState& state, const std::string& path);
// Makes a scenario file (or a Hugging Face config.json, onto the current scenario) the baseline the panels compare with;
// the scenario and its history stay as they are. Returns "" or the one-line error naming the file and the field.
std::string open_baseline(AppState& state, const std::string& path);
// Writes the applied scenario (only what differs from the defaults, marked as ShardScope's) atomically, with no questions:
// callers ask check_save / check_save_as first. Returns "" or the error.
std::string save_scenario(AppState& state, const std::string& path);
// Remembers path at the front of the recent list (at most kRecentFilesKept, no duplicates).
void remember_recent(AppState& state, const std::string& path);

// What a save may do.
enum class SaveVerdict {
    write,      // go ahead
    ask_first,  // the file exists: write only after the user says yes
    save_as,    // Save cannot write here: ask for another path (reason says why)
    refused,    // not this path (reason says why)
};
struct SaveCheck {
    SaveVerdict verdict = SaveVerdict::write;
    std::string reason;
};
// Ctrl+S: writes in place only over a scenario file ShardScope wrote (or one that is gone); otherwise Save As.
SaveCheck check_save(const AppState& state);
// Save As to path: refused for an empty path, a directory, a missing folder or a shipped file; ask_first when it exists.
SaveCheck check_save_as(const std::string& path);

// The mark ShardScope writes into its scenario files ("_" keys are comments to the parser).
inline constexpr const char* kWrittenByKey = "_written_by";
bool written_by_shardscope(const std::string& path);
// Under the asset directory: the shipped scenarios and lessons, which Save never changes.
bool is_shipped_path(const std::string& path);
// The shipped files of a kind ("scenarios", "lessons"), sorted by name: full paths.
std::vector<std::string> shipped_files(const char* kind);

// "llama.json", "Untitled (from config.json)", "default.json (read-only)", "Untitled".
std::string document_name(const AppState& state);

}  // namespace app
