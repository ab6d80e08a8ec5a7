#include "app/scenario_file.h"

#include "app/files.h"
#include "core/errors.h"

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

core::Scenario load_scenario_file(const std::string& path) {
    const std::string text = read_text_file(path, "scenario");
    g_scenario_directory = std::filesystem::path(path).parent_path().string();
    core::Scenario scenario = core::parse_scenario(text, load_relative);
    g_scenario_directory.clear();
    return scenario;
}

core::Scenario load_hf_config_file(const std::string& path, const core::Scenario& base) {
    core::Scenario scenario = base;
    scenario.model = core::parse_hf_config(read_text_file(path, "model.hf_config"));
    scenario.train.seq_len = std::min(scenario.train.seq_len, scenario.model.default_seq_len);
    while (scenario.model.heads % scenario.parallel.tp != 0) scenario.parallel.tp /= 2;
    core::validate_scenario(scenario);
    return scenario;
}

}  // namespace app
