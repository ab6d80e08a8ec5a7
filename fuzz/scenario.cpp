// Fuzz entry "scenario": a scenario file as `shardscope eval`, `plan` and the window read it. The bytes are the file's
// text; a Hugging Face config that "model.hf_config" loads may follow a line "---".
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "core/cost/report/evaluate.h"
#include "core/model/scenario_json.h"

namespace {

thread_local std::string hf_config_text;
std::string load_hf_config(const std::string&) { return hf_config_text; }

std::optional<std::string> scenario_problem(std::string_view input) {
    const std::size_t separator = input.find("\n---\n");
    const std::string_view scenario_text = input.substr(0, separator);
    hf_config_text = separator == std::string_view::npos ? "{}" : std::string(input.substr(separator + 5));
    // `plan` reads the file with its layout set aside; the refusal, if any, must name its field too.
    if (auto problem = fuzz::problem_of([&] {
            core::parse_scenario(scenario_text, load_hf_config, core::ScenarioUse::plan);
            return std::optional<std::string>();
        })) {
        return "read for plan: " + *problem;
    }
    return fuzz::problem_of([&] {
        const core::Scenario scenario = core::parse_scenario(scenario_text, load_hf_config);
        return fuzz::report_problem(scenario, core::evaluate(scenario));
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(scenario, scenario_problem);
