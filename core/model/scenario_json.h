#pragma once
// Scenario files: JSON text in, a validated Scenario out; a Scenario back to JSON naming only what differs from the defaults.
#include "core/model/scenario.h"

#include <string>
#include <string_view>

namespace core {

// Returns the text of a Hugging Face config named by "model.hf_config" (core reads no files; the app supplies this).
using TextLoader = std::string (*)(const std::string& path);

// Reads a scenario file's text over the defaults; throws InputError naming the field for anything invalid.
Scenario parse_scenario(std::string_view json_text, TextLoader hf_config_loader = nullptr);

// The scenario as JSON naming only what differs from the defaults; parse_scenario(scenario_to_json(s)) == s.
std::string scenario_to_json(const Scenario&);

}  // namespace core
