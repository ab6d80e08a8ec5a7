// The contract for `eval`: compute.kernels and compute.breakdown_seconds show the step's work, and they add up.
// The breakdown sums to compute.step_seconds; each kernel's step_seconds (its time x its runs per step on the busiest
// GPU) sums to the breakdown's GEMM + attention + elementwise + optimizer parts. Read from the JSON eval prints.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/report_json.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The shipped scenarios, read as the app reads them.
core::Scenario preset(const std::string& name) { return core_tests::shipped(name); }

// Layouts that exercise every part: the presets, and the default under ZeRO-3, CP, full recompute and a pipeline.
std::vector<std::pair<std::string, core::Scenario>> scenarios() {
    std::vector<std::pair<std::string, core::Scenario>> result = {
        {"default", core::default_scenario()},
        {"llama3-405b-16k", preset("llama3-405b-16k.json")},
        {"gpt3-175b-megatron", preset("gpt3-175b-megatron.json")},
    };
    core::Scenario scenario = core::default_scenario();
    scenario = core::with_zero(scenario, 3).scenario;
    result.push_back({"default, ZeRO-3", scenario});
    scenario = core::with_axis(core::default_scenario(), core::LayoutAxis::tp, 8).scenario;
    scenario = core::with_axis(scenario, core::LayoutAxis::pp, 4).scenario;
    scenario = core::with_schedule(scenario, core::ScheduleKind::zb_h1).scenario;
    result.push_back({"default, TP 8 PP 4 ZB-H1", scenario});
    scenario = core::with_axis(core::default_scenario(), core::LayoutAxis::cp, 4).scenario;
    scenario = core::with_recompute(scenario, core::Recompute::full).scenario;
    result.push_back({"default, CP 4, full recompute", scenario});
    return result;
}

}  // namespace

TEST_CASE("eval: compute.breakdown_seconds sums to compute.step_seconds, and the kernels' step_seconds to its compute parts",
          "[step][eval]") {
    for (const auto& [name, scenario] : scenarios()) {
        INFO(name);
        const nlohmann::json json = nlohmann::json::parse(core::report_to_json(scenario, core::evaluate(scenario)));
        const nlohmann::json& compute = json.at("compute");
        const nlohmann::json& parts = compute.at("breakdown_seconds");
        double exposed = 0;
        for (const auto& [axis, seconds] : parts.at("exposed_comm").items()) exposed += seconds.get<double>();
        const double compute_parts = parts.at("gemm").get<double>() + parts.at("attention").get<double>() +
                                     parts.at("elementwise").get<double>() + parts.at("optimizer").get<double>();
        const double step = compute.at("step_seconds").get<double>();
        CHECK(compute_parts + exposed + parts.at("bubble").get<double>() + parts.at("host").get<double>() + parts.at("stragglers").get<double>() ==
              Approx(step).epsilon(1e-9));

        REQUIRE(compute.at("kernels").size() > 10);
        double kernels = 0;
        for (const nlohmann::json& kernel : compute.at("kernels")) {
            CHECK(kernel.at("step_seconds").get<double>() ==
                  Approx(kernel.at("seconds").get<double>() * kernel.at("count").get<double>() * kernel.at("runs_per_step").get<double>()));
            kernels += kernel.at("step_seconds").get<double>();
        }
        // The elementwise part also takes what rounding leaves and an edge stage's work hidden in a bubble: a hair.
        CHECK(kernels == Approx(compute_parts).epsilon(0.005));
    }
}
