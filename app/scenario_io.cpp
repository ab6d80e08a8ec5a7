#include "app/scenario_io.h"

#include "app/files.h"
#include "app/scenario_file.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace app {
namespace {

// A transformers config has the model's own keys at the top level; a scenario has sections.
bool looks_like_hf_config(const std::string& text) {
    try {
        const nlohmann::json json = nlohmann::json::parse(text);
        return json.is_object() && !json.contains("model") && (json.contains("hidden_size") || json.contains("n_embd") || json.contains("d_model"));
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

void remember_recent(AppState& state, const std::string& path) {
    auto& recent = state.recent_files;
    recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
    recent.insert(recent.begin(), path);
    if (recent.size() > 8) recent.resize(8);
}

std::string open_scenario(AppState& state, const std::string& path) {
    try {
        const std::string text = read_text_file(path, "scenario");
        core::Scenario scenario = looks_like_hf_config(text) ? load_hf_config_file(path, state.applied) : load_scenario_file(path);
        const std::string error = replace_scenario(state, scenario);
        if (!error.empty()) return error;
        state.scenario_path = path;
        remember_recent(state, path);
        return {};
    } catch (const core::InputError& error) {
        return error.what();
    } catch (const std::exception& error) {
        return std::string("scenario: ") + error.what();
    }
}

std::string save_scenario(AppState& state, const std::string& path) {
    if (path.empty()) return "scenario: no file name given";
    try {
        const std::string text = core::scenario_to_json(state.applied);
        write_file_atomic(path, text.data(), text.size());
        state.scenario_path = path;
        remember_recent(state, path);
        return {};
    } catch (const std::exception& error) {
        return error.what();
    }
}

}  // namespace app
