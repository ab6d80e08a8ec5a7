#include "app/scenario_io.h"

#include "app/files.h"
#include "app/scenario_file.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace app {
namespace {

namespace fs = std::filesystem;

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

bool is_inside(const fs::path& path, const fs::path& directory) {
    const auto [end, _] = std::mismatch(directory.begin(), directory.end(), path.begin(), path.end());
    return end == directory.end();
}

}  // namespace

void remember_recent(AppState& state, const std::string& path) {
    auto& recent = state.recent_files;
    recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
    recent.insert(recent.begin(), path);
    if (recent.size() > kRecentFilesKept) recent.resize(kRecentFilesKept);
}

std::string open_scenario(AppState& state, const std::string& path) {
    try {
        const std::string text = read_text_file(path, "scenario");
        const bool import = is_hf_config_text(text);
        core::Scenario scenario = import ? load_hf_config_file(path, state.applied) : load_scenario_file(path);
        const std::string error = replace_scenario(state, scenario);
        if (!error.empty()) return error;
        state.scenario_path = import ? std::string() : path;
        state.imported_from = import ? path : std::string();
        state.read_only = !import && is_shipped_path(path);
        state.saved_scenario = state.applied;
        state.history.clear();  // the opened file is where undo stops
        remember_recent(state, path);
        return {};
    } catch (const core::InputError& error) {
        return in_file(path, error, "scenario").what();
    } catch (const std::exception& error) {
        return path + ": " + error.what();
    }
}

std::string open_baseline(AppState& state, const std::string& path) {
    if (path.empty()) return "baseline: no file name given";
    try {
        // A Hugging Face config is a model: the baseline is the current scenario with that model, as File > Open imports it.
        const bool import = is_hf_config_text(read_text_file(path, "scenario"));
        const core::Scenario baseline = import ? load_hf_config_file(path, state.applied) : load_scenario_file(path);
        const core::BaselineSlot before = baseline_slot(state);
        const std::string error = set_baseline(state, baseline, file_name(path));
        if (!error.empty()) return path + ": " + error;
        state.history.record_baseline(state.applied, before, baseline_slot(state), "Open baseline");
        return {};
    } catch (const core::InputError& error) {
        return in_file(path, error, "scenario").what();
    } catch (const std::exception& error) {
        return path + ": " + error.what();
    }
}

std::string save_scenario(AppState& state, const std::string& path) {
    if (path.empty()) return "scenario: no file name given";
    try {
        nlohmann::json json = nlohmann::json::parse(core::scenario_to_json(state.applied));
        json[kWrittenByKey] = std::string("ShardScope ") + SHARDSCOPE_VERSION + ": only what differs from the defaults";
        const std::string text = json.dump(2) + "\n";
        write_file_atomic(path, text.data(), text.size());
        state.scenario_path = path;
        state.imported_from.clear();
        state.read_only = false;
        state.saved_scenario = state.applied;
        remember_recent(state, path);
        return {};
    } catch (const std::exception& error) {
        return error.what();
    }
}

bool written_by_shardscope(const std::string& path) {
    try {
        const nlohmann::json json = nlohmann::json::parse(read_text_file(path, "scenario"));
        return json.is_object() && json.contains(kWrittenByKey) && json[kWrittenByKey].is_string() &&
               json[kWrittenByKey].get<std::string>().rfind("ShardScope", 0) == 0;
    } catch (const std::exception&) {
        return false;
    }
}

bool is_shipped_path(const std::string& path) {
    std::error_code error;
    const fs::path file = fs::weakly_canonical(fs::absolute(path, error), error);
    if (error) return false;
    const fs::path assets = fs::weakly_canonical(fs::path(asset_directory()), error);
    return !error && is_inside(file, assets);
}

std::vector<std::string> shipped_files(const char* kind) {
    std::vector<std::string> files;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(asset_directory()) / kind, error)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

SaveCheck check_save(const AppState& state) {
    if (!state.imported_from.empty()) {
        return {SaveVerdict::save_as, file_name(state.imported_from) + " is a Hugging Face config, not a scenario: save the scenario as a new file."};
    }
    if (state.scenario_path.empty()) return {SaveVerdict::save_as, {}};
    if (state.read_only || is_shipped_path(state.scenario_path)) {
        return {SaveVerdict::save_as, file_name(state.scenario_path) + " is a shipped scenario and stays as it is: save a copy."};
    }
    std::error_code error;
    if (!fs::exists(state.scenario_path, error)) return {SaveVerdict::write, {}};
    if (!written_by_shardscope(state.scenario_path)) {
        return {SaveVerdict::save_as, file_name(state.scenario_path) + " was not written by ShardScope: save as a new file, or confirm to replace it."};
    }
    return {SaveVerdict::write, {}};
}

SaveCheck check_save_as(const std::string& path) {
    if (path.empty()) return {SaveVerdict::refused, "Type a file name to save to."};
    std::error_code error;
    const fs::path file(path);
    if (fs::is_directory(file, error)) return {SaveVerdict::refused, path + " is a folder: add a file name, such as " + (file / "scenario.json").string()};
    const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, error)) return {SaveVerdict::refused, "No folder " + folder.string() + ": create it first or choose another."};
    if (is_shipped_path(path)) return {SaveVerdict::refused, "The shipped scenarios and lessons are read-only: save somewhere else."};
    if (fs::exists(file, error)) {
        return {SaveVerdict::ask_first, written_by_shardscope(path) ? path + " exists. Replace it?"
                                                                     : path + " exists and is not a scenario ShardScope wrote. Replace it?"};
    }
    return {SaveVerdict::write, {}};
}

std::string document_name(const AppState& state) {
    if (!state.imported_from.empty()) return "Untitled (from " + file_name(state.imported_from) + ")";
    if (state.scenario_path.empty()) return "Untitled";
    return file_name(state.scenario_path) + (state.read_only ? " (read-only)" : "");
}

}  // namespace app
