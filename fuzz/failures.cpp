// Fuzz entry "failures": a failure table file as `shardscope run --failures` reads it (core::parse_failure_table_text).
// Refused naming the file and the field, or read into a table whose rates are finite and whose simulated day on the
// default scenario ends, with finite figures that fill the day.
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "core/cost/report/evaluate.h"
#include "core/cost/report/run_simulation.h"
#include "core/model/failures.h"
#include "core/model/scenario_json.h"

#include <cmath>

namespace {

std::optional<std::string> failures_problem(std::string_view input) {
    return fuzz::problem_of([&]() -> std::optional<std::string> {
        const core::FailureTable table = core::parse_failure_table_text(input, "failures.json");
        if (table.causes.empty()) return "a table without causes was accepted";
        if (!std::isfinite(core::failures_per_hour(table, 64, 8))) return "a table with a non-finite failure rate was accepted";
        core::Scenario scenario = core::default_scenario();
        scenario.operations.failures = table;
        const core::RunPlan plan = core::run_plan(scenario, core::evaluate(scenario));
        const core::RunResult run = core::simulate_run(plan, 1, 86400.0, true);
        double total = 0;
        for (double seconds : run.activity_seconds) {
            if (!std::isfinite(seconds) || seconds < -1e-6) return "a simulated run spent " + std::to_string(seconds) + " s on an activity";
            total += seconds;
        }
        if (!std::isfinite(run.goodput)) return std::string("a simulated run's goodput is not finite");
        if (run.interruptions < 1000000 && std::abs(total - run.wall_seconds) > 1e-6 * std::max(1.0, run.wall_seconds)) {
            return "a simulated run's activities sum to " + std::to_string(total) + " s of " + std::to_string(run.wall_seconds) + " s";
        }
        return std::nullopt;
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(failures, failures_problem);
