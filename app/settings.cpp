#include "app/settings.h"

#include "app/files.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace app {

WindowSettings load_settings(const std::string& config_dir) {
    WindowSettings settings;
    if (config_dir.empty()) return settings;
    try {
        const nlohmann::json json = nlohmann::json::parse(read_text_file(config_dir + "/settings.json"));
        settings.zoom = std::clamp(json.value("zoom", 1.0f), 0.5f, 4.0f);
        settings.light_theme = json.value("light_theme", false);
        settings.hidden_panels = json.value("hidden_panels", std::string());
        for (const nlohmann::json& path : json.value("recent_files", nlohmann::json::array())) {
            if (path.is_string() && settings.recent_files.size() < 8) settings.recent_files.push_back(path.get<std::string>());
        }
    } catch (const std::exception&) {
        // A missing or damaged settings file means defaults, never a refusal to start.
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
