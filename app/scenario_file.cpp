#include "app/scenario_file.h"

#include "app/files.h"
#include "core/model/errors.h"
#include "core/model/model_json.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <filesystem>

namespace app {
namespace {

thread_local std::string g_scenario_directory;  // core's TextLoader is a plain function: relative paths resolve here

std::string load_relative(const std::string& path) {
    std::filesystem::path resolved(path);
    if (resolved.is_relative() && !g_scenario_directory.empty()) resolved = std::filesystem::path(g_scenario_directory) / resolved;
    return read_text_file(resolved.string(), "model.hf_config");
}

}  // namespace

core::Scenario load_scenario_file(const std::string& path, core::ScenarioUse use) {
    const std::string text = read_text_file(path, "scenario");
    g_scenario_directory = std::filesystem::path(path).parent_path().string();
    core::Scenario scenario = core::parse_scenario(text, load_relative, use);
    g_scenario_directory.clear();
    return scenario;
}

core::Scenario load_hf_config_file(const std::string& path, const core::Scenario& base) {
    // The same rule as picking a preset in the sidebar.
    const core::Edit edit = core::with_model(base, core::parse_hf_config(read_text_file(path, "model.hf_config")));
    if (!edit.ok()) throw core::InputError(edit.problem->field, edit.problem->reason);
    return edit.scenario;
}

}  // namespace app
