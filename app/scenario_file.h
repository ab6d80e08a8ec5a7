#pragma once
// Reading a scenario file: the file, any Hugging Face config it names (relative to the file), and the parse.
#include "core/model/scenario.h"
#include "core/model/scenario_json.h"

#include <string>

namespace app {

// Throws core::InputError naming the field (or "scenario" for an unreadable file). For planning, the file's own layout
// is set aside (core::ScenarioUse::plan).
core::Scenario load_scenario_file(const std::string& path, core::ScenarioUse use = core::ScenarioUse::evaluate);
// A Hugging Face transformers config.json on its own, as the default scenario with that model.
core::Scenario load_hf_config_file(const std::string& path, const core::Scenario& base);

}  // namespace app
