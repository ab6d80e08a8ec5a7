#pragma once
// Reading a scenario file: the file, any Hugging Face config it names (relative to the file), and the parse.
#include "core/model/scenario.h"
#include "core/model/scenario_json.h"

#include <string>

namespace app {

// Throws core::InputError naming the field (or "scenario" for an unreadable file). For planning, the file's own layout
// is set aside (core::ScenarioUse::plan). A Hugging Face config.json is read as the default scenario with its model
// (load_hf_config_file), so every command takes one where it takes a scenario.
core::Scenario load_scenario_file(const std::string& path, core::ScenarioUse use = core::ScenarioUse::evaluate);
// load_scenario_file for a command that reads two scenarios (diff, export --baseline), evaluated too: a refusal names the
// file first, then the field ("b.json: parallel.tp: ...").
core::Scenario load_named_scenario_file(const std::string& path);
// A Hugging Face transformers config.json on its own: `base` with that model (core::with_imported_model: base's
// sequence length kept, within the model's context window).
core::Scenario load_hf_config_file(const std::string& path, const core::Scenario& base);
// A transformers config has the model's own keys at the top level (hidden_size, n_embd or d_model), or under text_config
// (Llama 4); a scenario has sections.
bool is_hf_config_text(const std::string& text);

}  // namespace app
