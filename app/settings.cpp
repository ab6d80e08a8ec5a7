#include "app/settings.h"

#include "app/files.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace app {

WindowSettings load_settings(const std::string& config_dir) {
    WindowSettings settings;
    if (config_dir.empty()) return settings;
    const std::string path = config_dir + "/settings.json";
    std::error_code error;
    if (!std::filesystem::exists(path, error)) return settings;  // the first run: nothing remembered yet
    try {
        const nlohmann::json json = core::parse_json_text(read_text_file(path, "settings"), "settings");
        core::JsonObjectReader reader(json, "settings");
        WindowSettings read;
        read.zoom = static_cast<float>(reader.number("zoom", kZoomMin, kZoomMax).value_or(1.0));
        read.light_theme = reader.boolean("light_theme").value_or(false);
        read.hidden_panels = reader.string("hidden_panels").value_or("");
        if (reader.has("recent_files")) {
            const nlohmann::json& recent = reader.raw("recent_files");
            const bool paths = recent.is_array() && std::all_of(recent.begin(), recent.end(), [](const nlohmann::json& file) { return file.is_string(); });
            if (!paths) throw core::InputError("settings.recent_files", "must be an array of paths");
            for (const nlohmann::json& file : recent) {
                if (read.recent_files.size() < kRecentFilesKept) read.recent_files.push_back(file.get<std::string>());
            }
        }
        reader.reject_unknown_keys();
        settings = read;
    } catch (const core::InputError& damaged) {
        // A damaged settings file means defaults, never a refusal to start; the status line says which file and key.
        settings.problem = std::string(in_file(path, damaged, "settings").what()) + " (defaults used)";
    } catch (const std::exception& damaged) {
        settings.problem = path + ": " + damaged.what() + " (defaults used)";
    }
    return settings;
}

void save_settings(const std::string& config_dir, const WindowSettings& settings) {
    if (config_dir.empty()) return;
    const nlohmann::json json = {{"zoom", settings.zoom}, {"light_theme", settings.light_theme}, {"hidden_panels", settings.hidden_panels},
                                 {"recent_files", settings.recent_files}};
    const std::string text = json.dump(2) + "\n";
    try {
        write_file_atomic(config_dir + "/settings.json", text.data(), text.size());
    } catch (const std::exception&) {
    }
}

void apply_settings(AppState& state, const WindowSettings& settings) {
    state.recent_files = settings.recent_files;
    if (!settings.problem.empty()) state.status = settings.problem;
    for (std::size_t i = 0; i < state.panels.size(); ++i) {
        const std::string name = state.panels[i].name;
        state.visible[i] = ("," + settings.hidden_panels + ",").find("," + name + ",") == std::string::npos;
    }
}

WindowSettings capture_settings(const AppState& state, float zoom, bool light_theme) {
    WindowSettings settings;
    settings.zoom = zoom;
    settings.light_theme = light_theme;
    settings.recent_files = state.recent_files;
    for (std::size_t i = 0; i < state.panels.size(); ++i) {
        if (!state.visible[i]) settings.hidden_panels += (settings.hidden_panels.empty() ? "" : ",") + std::string(state.panels[i].name);
    }
    return settings;
}

}  // namespace app
