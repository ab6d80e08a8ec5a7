// Fuzz entry "hf_config": a Hugging Face config.json opened on its own (File > Open, `shardscope eval config.json`):
// app::load_hf_config_file puts its model on the default scenario, which is then evaluated. The bytes are the file.
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "app/scenario_file.h"
#include "core/cost/report/evaluate.h"

namespace {

std::optional<std::string> hf_config_problem(std::string_view input) {
    return fuzz::problem_of([&] {
        const core::Scenario scenario = app::load_hf_config_file(fuzz::scratch_file("config.json", input), core::default_scenario());
        return fuzz::report_problem(scenario, core::evaluate(scenario));
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(hf_config, hf_config_problem);
