#pragma once
// File > Open / Save for the window: a refused file leaves the app as it was; a save never truncates what was there.
#include "app/app_state.h"

#include <string>

namespace app {

// Opens a scenario file, or a Hugging Face config.json (recognised by its keys) onto the current scenario.
// Returns "" on success; otherwise the one-line error, and the state is untouched.
std::string open_scenario(AppState& state, const std::string& path);
// Writes the applied scenario (only what differs from the defaults) atomically. Returns "" or the error.
std::string save_scenario(AppState& state, const std::string& path);
// Remembers path at the front of the recent list (at most 8, no duplicates).
void remember_recent(AppState& state, const std::string& path);

}  // namespace app
