#include "app/run_command.h"

#include "core/cost/report/evaluate.h"
#include "core/cost/report/run_simulation.h"
#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace app {
namespace {

nlohmann::ordered_json spread_json(const core::RunSpread& spread) {
    return {{"p10", spread.p10}, {"p50", spread.p50}, {"p90", spread.p90}, {"mean", spread.mean}};
}

}  // namespace

int run_run(const core::Scenario& scenario, const RunCommandOptions& options, OutputFormat format) {
    const core::RunView view = core::run_view(scenario, core::evaluate(scenario), format == OutputFormat::csv ? 1 : options.runs);
    const core::RunPlan& plan = view.plan;
    const core::RunResult& run = view.run;
    const core::RunDistribution& spread = view.spread;
    const double window_seconds = scenario.operations.window_days * 86400.0;
    const std::uint64_t seed = static_cast<std::uint64_t>(scenario.operations.run_seed);
    if (format == OutputFormat::csv) {
        std::string text = csv_record({"start_seconds", "end_seconds", "activity", "cause"});
        for (const core::RunSegment& segment : run.segments) {
            text += csv_record({exact_number(segment.start_seconds), exact_number(segment.end_seconds), core::run_activity_name(segment.activity),
                                segment.cause >= 0 ? plan.table.causes[segment.cause].name : ""});
        }
        std::fputs(text.c_str(), stdout);
        return 0;
    }
    const std::vector<double> expected = core::expected_interruptions(plan, run.wall_seconds);
    const std::string& sentence = view.sentence;
    if (format == OutputFormat::json) {
        nlohmann::ordered_json out;
        out["sentence"] = sentence;
        out["failure_table"] = {{"id", plan.table.id}, {"name", plan.table.name}, {"source", plan.table.source}};
        out["seed"] = seed;
        if (window_seconds > 0) out["window_seconds"] = window_seconds;
        out["plan"] = {{"mtbf_seconds", plan.rate_per_second > 0 ? 1.0 / plan.rate_per_second : 0.0}, {"train_seconds", plan.train_seconds},
                       {"interval_seconds", plan.interval_seconds}, {"stall_seconds", plan.stall_seconds},
                       {"durable_lag_seconds", plan.durable_lag_seconds}, {"restart_seconds", plan.restart_seconds}};
        nlohmann::ordered_json activities;
        for (int activity = 0; activity < core::kRunActivities; ++activity) {
            activities[core::run_activity_name(static_cast<core::RunActivity>(activity))] = run.activity_seconds[activity];
        }
        nlohmann::ordered_json causes = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < plan.table.causes.size(); ++i) {
            const core::FailureCause& cause = plan.table.causes[i];
            causes.push_back({{"name", cause.name}, {"component", core::failure_component_name(cause.component)},
                              {"recovery", core::failure_recovery_name(cause.recovery)}, {"expected", expected[i]},
                              {"this_run", run.interruptions_by_cause[i]}, {"mean_over_runs", spread.mean_interruptions_by_cause[i]}});
        }
        out["run"] = {{"finished", run.finished}, {"wall_seconds", run.wall_seconds}, {"work_seconds", run.work_seconds},
                      {"goodput", run.goodput}, {"interruptions", run.interruptions}, {"activity_seconds", activities}, {"causes", causes}};
        out["runs"] = {{"count", spread.runs}, {"wall_days", spread_json(spread.wall_days)}, {"interruptions", spread_json(spread.interruptions)},
                       {"goodput", spread_json(spread.goodput)}};
        const core::ReliabilityReport& closed = plan.closed_form;
        out["closed_form"] = {{"goodput", closed.goodput}, {"wall_seconds", closed.wall_seconds}, {"expected_failures", closed.expected_failures},
                              {"makes_progress", closed.makes_progress}};
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    TextTable table;
    table.headers = {"cause", "component", "recovery", "expected", "this run", "mean of runs"};
    table.right_aligned = {false, false, false, true, true, true};
    for (std::size_t i = 0; i < plan.table.causes.size(); ++i) {
        const core::FailureCause& cause = plan.table.causes[i];
        table.rows.push_back({cause.name, core::failure_component_name(cause.component), core::failure_recovery_name(cause.recovery),
                              core::format_number(expected[i]), std::to_string(run.interruptions_by_cause[i]),
                              core::format_number(spread.mean_interruptions_by_cause[i])});
    }
    std::string time_lost;
    for (int activity = 1; activity < core::kRunActivities; ++activity) {
        if (run.activity_seconds[activity] <= 0) continue;
        time_lost += (time_lost.empty() ? "" : ", ") + std::string(core::run_activity_name(static_cast<core::RunActivity>(activity))) + " " +
                     core::format_seconds(run.activity_seconds[activity]);
    }
    std::printf("%s\nFailure table: %s (%s).\nWall time not training: %s.\n%s", sentence.c_str(), plan.table.name.c_str(), plan.table.source.c_str(),
                time_lost.empty() ? "none" : time_lost.c_str(), table.render().c_str());
    return 0;
}

}  // namespace app
