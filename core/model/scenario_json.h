#pragma once
// Scenario files: JSON text in, a validated Scenario out; a Scenario back to JSON naming only what differs from the defaults.
#include "core/model/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace core {

// Returns the text of a Hugging Face config named by "model.hf_config" (core reads no files; the app supplies this).
using TextLoader = std::string (*)(const std::string& path);

// What a scenario file is read for. To evaluate it, its layout must hold; to plan, the planner searches the layouts for
// its model, cluster and batch, so its own layout is read (and type-checked) but set aside for tp = pp = cp = 1.
enum class ScenarioUse { evaluate, plan };

// Reads a scenario file's text over the defaults; throws InputError naming the field for anything invalid. A file that
// leaves train.global_batch out gets fitted_global_batch() when the default does not divide over its layout (the
// report notes it); an explicit batch that does not divide is refused.
Scenario parse_scenario(std::string_view json_text, TextLoader hf_config_loader = nullptr, ScenarioUse use = ScenarioUse::evaluate);

// The scenario as JSON naming only what differs from the defaults; parse_scenario(scenario_to_json(s)) == s.
std::string scenario_to_json(const Scenario&);

// Every field of the scenario as a file writes it, defaults included (a catalog GPU, link, preset or recipe by its id):
// what scenario_to_json compares with the defaults, and what a comparison of two scenarios compares field by field
// (core/cost/report/diff_report.h), so a new field is written, read and compared once.
nlohmann::json scenario_fields_json(const Scenario&);

}  // namespace core
