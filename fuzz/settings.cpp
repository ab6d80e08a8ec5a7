// Fuzz entry "settings": the window's settings.json in the config directory (app::load_settings). A damaged file means
// the defaults, never a refusal to start: whatever the bytes, loading must not throw, must give a zoom the window can
// use and no more recent files than the list keeps, and what it gives must survive save_settings and a second load unchanged.
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "app/settings.h"

#include <cmath>
#include <filesystem>

namespace {

bool same(const app::WindowSettings& a, const app::WindowSettings& b) {
    return a.zoom == b.zoom && a.light_theme == b.light_theme && a.hidden_panels == b.hidden_panels && a.recent_files == b.recent_files;
}

std::optional<std::string> settings_problem(std::string_view input) {
    return fuzz::problem_of([&]() -> std::optional<std::string> {
        const std::string directory = std::filesystem::path(fuzz::scratch_file("settings.json", input)).parent_path().string();
        const app::WindowSettings loaded = app::load_settings(directory);
        if (!std::isfinite(loaded.zoom) || loaded.zoom < 0.5f || loaded.zoom > 4.0f) return "zoom " + std::to_string(loaded.zoom) + " outside 0.5 to 4";
        if (loaded.recent_files.size() > app::kRecentFilesKept) return std::to_string(loaded.recent_files.size()) + " recent files, more than the list keeps";
        app::save_settings(directory, loaded);
        if (!same(app::load_settings(directory), loaded)) return "save_settings then load_settings changes the settings";
        return std::nullopt;
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(settings, settings_problem);
