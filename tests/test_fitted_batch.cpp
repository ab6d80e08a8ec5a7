// A scenario file that names no global batch gets the smallest multiple of dp x micro-batch not below the default
// (DeepSpeed derives train_batch_size = micro-batch x accumulation steps x data-parallel size); an explicit batch that
// does not divide is refused; `plan` reads a file without its own layout.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/search/planner.h"
#include "core/model/errors.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

const core::Warning* fitted_note(const core::Report& report) {
    for (const core::Warning& warning : report.warnings) {
        if (warning.kind == core::WarningKind::global_batch_fitted) return &warning;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("No global batch on 48 GPUs: 528 = 11 x 48, the first multiple of dp x micro-batch from 512, with a note", "[scenario][batch]") {
    const core::Scenario scenario = core::parse_scenario(R"({"cluster": {"gpus": 48}})");
    CHECK(core::data_parallel_degree(scenario) == 48);
    CHECK(scenario.train.global_batch == 528);
    CHECK(scenario.train.global_batch_fitted);
    const core::Report report = core::evaluate(scenario);
    const core::Warning* note = fitted_note(report);
    REQUIRE(note);
    CHECK(note->value == 528);
    CHECK(note->limit == 48);
    const std::string text = core::warning_text(scenario, *note);
    CHECK(text.find("528") != std::string::npos);
    CHECK(text.find("512") != std::string::npos);
    CHECK(text.find("48") != std::string::npos);
}

TEST_CASE("No global batch, micro-batch 2 on 48 GPUs: 576 = 6 x 96; on 16,384 GPUs: 16,384", "[scenario][batch]") {
    CHECK(core::parse_scenario(R"({"cluster": {"gpus": 48}, "train": {"micro_batch": 2}})").train.global_batch == 576);
    const core::Scenario big = core::parse_scenario(R"({"cluster": {"gpus": 16384}})");
    CHECK(big.train.global_batch == 16384);
    CHECK(core::microbatches_per_step(big) == 1);
}

TEST_CASE("No global batch where 512 divides: 512 as before, and no note", "[scenario][batch]") {
    const core::Scenario scenario = core::parse_scenario(R"({"cluster": {"gpus": 64}})");
    CHECK(scenario.train.global_batch == 512);
    CHECK_FALSE(scenario.train.global_batch_fitted);
    CHECK(scenario == core::default_scenario());
    CHECK(fitted_note(core::evaluate(scenario)) == nullptr);
}

TEST_CASE("An explicit global batch that does not divide over dp is still refused, naming train.global_batch", "[scenario][batch]") {
    try {
        core::parse_scenario(R"({"cluster": {"gpus": 48}, "train": {"global_batch": 512}})");
        FAIL("accepted a batch of 512 over dp 48");
    } catch (const core::InputError& error) {
        CHECK(error.field() == "train.global_batch");
        CHECK(std::string(error.what()).find("512") != std::string::npos);
    }
}

TEST_CASE("A fitted batch round-trips through the file (not written, fitted again) and a chosen one is the user's", "[scenario][batch]") {
    const core::Scenario scenario = core::parse_scenario(R"({"cluster": {"gpus": 48}})");
    const std::string json = core::scenario_to_json(scenario);
    CHECK(json.find("global_batch") == std::string::npos);
    CHECK(core::parse_scenario(json).train == scenario.train);
    // Chosen in the UI, the batch is no longer fitted and is written.
    const core::Edit chosen = core::with_global_batch(scenario, 1056);
    REQUIRE(chosen.ok());
    CHECK_FALSE(chosen.scenario.train.global_batch_fitted);
    CHECK(core::parse_scenario(core::scenario_to_json(chosen.scenario)).train == chosen.scenario.train);
    // A layout edit that moves the batch off the fitted value leaves a batch the user has to own, written as such.
    const core::Edit regrown = core::with_gpus(scenario, 64);
    REQUIRE(regrown.ok());
    CHECK(regrown.scenario.train.global_batch == 576);
    CHECK_FALSE(regrown.scenario.train.global_batch_fitted);
    CHECK(core::parse_scenario(core::scenario_to_json(regrown.scenario)).train == regrown.scenario.train);
}

TEST_CASE("plan reads a file without its layout: 16,384 GPUs with batch 2,048 and no parallel section is searched", "[scenario][plan]") {
    const std::string file = R"({"model": {"preset": "llama3-405b"}, "cluster": {"gpus": 16384},
                                 "train": {"global_batch": 2048, "seq_len": 8192}, "parallel": {"tp": 3}})";
    // Evaluated, its own layout is refused (dp 16,384 does not divide 2,048; tp 3 does not divide 128 heads).
    CHECK_THROWS_AS(core::parse_scenario(file), core::InputError);
    const core::Scenario scenario = core::parse_scenario(file, nullptr, core::ScenarioUse::plan);
    CHECK(scenario.train.global_batch == 2048);
    CHECK(scenario.cluster.gpus == 16384);
    CHECK(scenario.parallel == core::ParallelSpec{});
    core::PlanOptions options;
    options.top = 3;
    const core::Plan plan = core::plan_layouts(scenario, options);
    REQUIRE_FALSE(plan.best.empty());
    for (const core::PlanEntry& entry : plan.best) CHECK(2048 % entry.layout.dp == 0);
    // A malformed parallel section is still refused: the file is read, only its layout is set aside.
    CHECK_THROWS_AS(core::parse_scenario(R"({"parallel": {"tpp": 2}})", nullptr, core::ScenarioUse::plan), core::InputError);
}
