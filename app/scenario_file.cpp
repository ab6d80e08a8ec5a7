#include "app/scenario_file.h"

#include "app/files.h"
#include "core/cost/report/evaluate.h"
#include "core/model/errors.h"
#include "core/model/model_json.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

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

bool is_hf_config_text(const std::string& text) {
    try {
        const nlohmann::json json = nlohmann::json::parse(text);
        if (!json.is_object() || json.contains("model")) return false;
        const auto has_width = [](const nlohmann::json& object) {
            return object.is_object() && (object.contains("hidden_size") || object.contains("n_embd") || object.contains("d_model"));
        };
        // A config that lacks its width is still a config (its error is the missing key, not a scenario's unknown one).
        if (json.contains("architectures") || json.contains("model_type")) return true;
        return has_width(json) || (json.contains("text_config") && has_width(json.at("text_config")));  // Llama 4 nests its text model
    } catch (const std::exception&) {
        return false;
    }
}

core::Scenario load_scenario_file(const std::string& path, core::ScenarioUse use) {
    const std::string text = read_text_file(path, "scenario");
    if (is_hf_config_text(text)) {
        core::Scenario scenario = load_hf_config_file(path, core::default_scenario());
        if (use == core::ScenarioUse::plan) scenario.parallel = core::ParallelSpec{};  // as parse_scenario sets a file's layout aside
        return scenario;
    }
    g_scenario_directory = std::filesystem::path(path).parent_path().string();
    try {
        core::Scenario scenario = core::parse_scenario(text, load_relative, use);
        g_scenario_directory.clear();
        return scenario;
    } catch (const core::InputError& error) {
        g_scenario_directory.clear();
        throw in_file(path, error, "scenario");
    }
}

core::Scenario load_named_scenario_file(const std::string& path) {
    core::Scenario scenario = load_scenario_file(path);
    try {
        core::evaluate(scenario);
    } catch (const core::InputError& error) {
        throw in_file(path, error, "scenario");
    }
    return scenario;
}

core::Scenario load_hf_config_file(const std::string& path, const core::Scenario& base) {
    try {
        const std::string text = read_text_file(path, "model.hf_config");
        core::Edit edit = core::with_imported_model(base, core::parse_hf_config(text));
        // The attention implementation the config names (attn_implementation), else the scenario's.
        core::AttentionImpl attention = edit.scenario.train.attention;
        if (edit.ok() && core::hf_config_attention(text, attention)) edit = core::with_attention(edit.scenario, attention);
        if (!edit.ok()) throw core::InputError(edit.problem->field, edit.problem->reason);
        return edit.scenario;
    } catch (const core::InputError& error) {
        throw in_file(path, error, "model.hf_config");
    }
}

}  // namespace app
