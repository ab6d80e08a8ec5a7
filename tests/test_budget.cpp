// Seed 004's budget sentence and guard: GPUs x price per GPU-hour x (modelled run + setup) hours = total, budget - total
// = buffer; the catalog's rental prices (each dated, with its source, in assets/hardware.json) and how a scenario picks one.
#include "core/cost/report/budget.h"
#include "core/cost/report/budget_text.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace {

using core_tests::shipped;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("Seed 004: 2x RTX 4090 spot, GPUs x price x (run + setup) hours = total and budget - total = buffer", "[budget]") {
    const core::Scenario scenario = shipped("gpt2-124m-2x-rtx4090-spot.json");
    const core::Report report = core::evaluate(scenario);
    const core::BudgetReport& budget = report.budget;
    // RunPod's RTX 4090 spot price, March 2026 (its source in assets/hardware.json; seed 004 quotes ~$0.35).
    CHECK(scenario.cluster.gpu.id == "rtx-4090");
    CHECK(budget.gpus == 2);
    CHECK(budget.price_basis == core::PriceBasis::spot);
    CHECK(budget.dollars_per_gpu_hour == Approx(0.34));
    CHECK(budget.dollars_per_hour == Approx(0.68));
    CHECK(budget.setup_hours == Approx(0.5));
    const double run_hours = report.compute.train_seconds / 3600.0;
    CHECK(budget.run_hours == Approx(run_hours));
    CHECK(budget.billed_hours == Approx(run_hours + 0.5));
    CHECK(budget.total_dollars == Approx(2 * 0.34 * (run_hours + 0.5)));
    REQUIRE(budget.has_budget);
    CHECK(budget.budget_dollars == Approx(3.00));
    CHECK(budget.buffer_dollars == Approx(3.00 - budget.total_dollars));
    CHECK(budget.within_budget == (budget.total_dollars <= 3.00));
    // A learner's lab: a couple of hours of training, not seconds, not weeks.
    CHECK(run_hours > 0.5);
    CHECK(run_hours < 6.0);

    const std::string sentence = core::explain(scenario, report).budget_sentence;
    CHECK(contains(sentence, "This will spin up 2\u00d7 RTX 4090 (spot) at $0.34/hr each = $0.68/hr total, run for "));
    CHECK(contains(sentence, " = " + core::format_dollars(budget.total_dollars) + ". Budget: $3.00. "));
    CHECK(contains(sentence, budget.within_budget ? "Within budget, " + core::format_dollars(budget.buffer_dollars) + " buffer."
                                                  : "Over budget by " + core::format_dollars(-budget.buffer_dollars)));
}

TEST_CASE("Seed 004's own sentence: 2x $0.35/hr for 3 hours including setup = $2.10 of a $3.00 budget, $0.90 buffer", "[budget]") {
    // 2.5 h of training (a measured step of 9 s, 1,000 steps) and 0.5 h of setup, at the seed's $0.35 per GPU-hour.
    core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "gpt2-124m"},
        "train": {"seq_len": 1024, "global_batch": 64, "tokens": 65536000}, "parallel": {"dp": 2},
        "cluster": {"gpu": "rtx-4090", "gpus_per_node": 2, "gpus": 2}, "efficiency": {"step_seconds": 9},
        "operations": {"dollars_per_gpu_hour": 0.35}, "budget": {"setup_hours": 0.5, "dollars": 3}})");
    const core::Report report = core::evaluate(scenario);
    CHECK(report.budget.price_basis == core::PriceBasis::custom);
    CHECK(report.budget.run_hours == Approx(2.5));
    CHECK(report.budget.total_dollars == Approx(2.10));
    CHECK(report.budget.buffer_dollars == Approx(0.90));
    CHECK(core::budget_sentence(scenario, report.budget) ==
          "This will spin up 2\u00d7 RTX 4090 at $0.35/hr each = $0.70/hr total, run for 3.00 h (2.50 h of training + 30.0 min of "
          "setup) = $2.10. Budget: $3.00. Within budget, $0.90 buffer.");

    SECTION("the guard: a $1.00 budget is overrun by $1.10") {
        const core::Edit edit = core::with_budget_dollars(scenario, 1.0);
        REQUIRE(edit.ok());
        const core::BudgetReport budget = core::evaluate(edit.scenario).budget;
        CHECK_FALSE(budget.within_budget);
        CHECK(budget.buffer_dollars == Approx(-1.10));
        CHECK(core::budget_verdict(budget) == "Over budget by $1.10: do not run it.");
    }
    SECTION("no budget: the sentence says so") {
        const core::BudgetReport budget = core::evaluate(core::with_budget_dollars(scenario, std::nullopt).scenario).budget;
        CHECK_FALSE(budget.has_budget);
        CHECK(budget.within_budget);
        CHECK(core::budget_verdict(budget) == "No budget set.");
    }
}

TEST_CASE("Rental prices: a scenario pays its GPU's catalog price for its basis, or its own", "[budget][price]") {
    SECTION("the default scenario rents H100 SXM on demand at the 37-provider median, $2.95 (May 2026)") {
        const core::Scenario scenario = core::default_scenario();
        CHECK(scenario.budget.price == core::PriceBasis::on_demand);
        CHECK(scenario.operations.dollars_per_gpu_hour == Approx(2.95));
        CHECK(core::evaluate(scenario).compute.cost_dollars == Approx(core::evaluate(scenario).compute.gpu_hours * 2.95));
    }
    SECTION("spot and on-demand come from the catalog; a GPU change follows them") {
        const core::Scenario spot = core::parse_scenario(R"({"cluster": {"gpu": "rtx-3090", "gpus": 8}, "budget": {"price": "spot"}})");
        CHECK(spot.operations.dollars_per_gpu_hour == Approx(0.22));
        const core::Edit to_l40s = core::with_gpu(spot, *core::builtin_hardware().find_gpu("l40s"));
        REQUIRE(to_l40s.ok());
        CHECK(to_l40s.scenario.operations.dollars_per_gpu_hour == Approx(0.79));
        const core::Edit on_demand = core::with_price_basis(to_l40s.scenario, core::PriceBasis::on_demand);
        CHECK(on_demand.scenario.operations.dollars_per_gpu_hour == Approx(1.40));
    }
    SECTION("a price of one's own stays when the GPU changes") {
        const core::Scenario own = core::parse_scenario(R"({"operations": {"dollars_per_gpu_hour": 1.25}})");
        CHECK(own.budget.price == core::PriceBasis::custom);
        const core::Edit to_b200 = core::with_gpu(own, *core::builtin_hardware().find_gpu("b200"));
        CHECK(to_b200.scenario.operations.dollars_per_gpu_hour == Approx(1.25));
        CHECK(core::with_dollars_per_gpu_hour(core::default_scenario(), 0.5).scenario.budget.price == core::PriceBasis::custom);
    }
    SECTION("the A10G has no spot price: spot falls back to the scenario's own figure, and says so") {
        const core::Scenario a10g = core::parse_scenario(R"({"cluster": {"gpu": "a10g", "gpus": 8}})");
        CHECK(a10g.operations.dollars_per_gpu_hour == Approx(1.006));
        const core::Edit spot = core::with_price_basis(a10g, core::PriceBasis::spot);
        CHECK(spot.scenario.budget.price == core::PriceBasis::custom);
        CHECK(spot.scenario.operations.dollars_per_gpu_hour == Approx(1.006));
        CHECK_FALSE(spot.notes.empty());
    }
    SECTION("written and read back, a scenario keeps its price, setup and budget") {
        for (const char* json : {R"({"cluster": {"gpu": "rtx-4090", "gpus": 2}, "budget": {"price": "spot", "setup_hours": 1, "dollars": 5}})",
                                 R"({"operations": {"dollars_per_gpu_hour": 0.35}, "budget": {"dollars": 3}})",
                                 R"({"cluster": {"gpu": "l4", "gpus": 8}})"}) {
            const core::Scenario scenario = core::parse_scenario(json);
            const core::Scenario read_back = core::parse_scenario(core::scenario_to_json(scenario));
            CHECK(read_back.budget == scenario.budget);
            CHECK(read_back.operations == scenario.operations);
            CHECK(read_back.cluster == scenario.cluster);
        }
    }
}

TEST_CASE("Bad budget input is refused with the field named", "[budget][errors]") {
    const auto refuses = [](const char* json, const std::string& field) {
        try {
            core::parse_scenario(json);
            FAIL("accepted " << json);
        } catch (const core::InputError& error) {
            CHECK(contains(error.what(), field));
        }
    };
    refuses(R"({"budget": {"setup_hourz": 1}})", "budget.setup_hourz");
    refuses(R"({"budget": {"price": "cheap"}})", "budget.price");
    refuses(R"({"budget": {"setup_hours": -1}})", "budget.setup_hours");
    refuses(R"({"budget": {"dollars": "3"}})", "budget.dollars");
    refuses(R"({"budget": 3})", "budget");
    refuses(R"({"budget": {"price": "spot"}, "operations": {"dollars_per_gpu_hour": 1}})", "operations.dollars_per_gpu_hour");
    refuses(R"({"cluster": {"gpu": {"id": "x", "bf16_flops_per_s": 1e14, "price": {"spot": 1}}}})", "cluster.gpu.price.spot");
    CHECK_FALSE(core::with_setup_hours(core::default_scenario(), -2).ok());
    CHECK_FALSE(core::with_budget_dollars(core::default_scenario(), -1.0).ok());
}

TEST_CASE("Dollars are printed with cents while they matter", "[budget][format]") {
    CHECK(core::format_dollars(2.1) == "$2.10");
    CHECK(core::format_dollars(0.9) == "$0.90");
    CHECK(core::format_dollars(0.0040) == "$0.0040");
    CHECK(core::format_dollars(0) == "$0.00");
    CHECK(core::format_dollars(999.99) == "$999.99");
    CHECK(core::format_dollars(12345.4) == "$12,345");
    CHECK(core::format_dollars(1234567) == "$1.23 M");
    CHECK(core::format_dollars(-1.1) == "-$1.10");
    // MiniGPT's 8 MB of state against 24 GB: a share that is not zero is never printed as "0.0 %".
    CHECK(core::format_percent(8e6 / 24e9) == "0.033 %");
    CHECK(core::format_percent(0.0094) == "0.9 %");
    CHECK(core::format_percent(0) == "0.0 %");
}

TEST_CASE("The budget sentence warns when the run as written cannot happen: a layout over HBM, a time to train past the deadline",
          "[budget][warnings]") {
    const core::Scenario rtx = shipped("gpt2-124m-2x-rtx4090-spot.json");
    const core::Report fitting = core::evaluate(rtx);
    REQUIRE(fitting.memory.fits);
    REQUIRE(fitting.compute.train_seconds < rtx.train.deadline_days * 86400.0);
    CHECK(core::budget_warnings(rtx, fitting).empty());

    // Seed 000's arithmetic: 405B x 16 B of state cannot sit on 8 H100s (85.0 GB each); the cost is priced, and it says so.
    core::Scenario too_big = core::parse_scenario(R"({"model": {"preset": "llama3-405b"}, "train": {"global_batch": 64, "tokens": 1e9},
        "parallel": {"tp": 8, "pp": 1, "dp": 1}, "cluster": {"gpu": "h100-sxm", "gpus": 8}})");
    const core::Report over = core::evaluate(too_big);
    REQUIRE_FALSE(over.memory.fits);
    const std::vector<std::string> warnings = core::budget_warnings(too_big, over);
    REQUIRE(warnings.size() == 1);
    CHECK(contains(warnings[0], "does not fit: " + core::format_bytes(over.memory.per_gpu.peak_bytes) + " per GPU against 85.0 GB"));

    // The same run with a deadline shorter than its time to train: a second line, naming the field.
    too_big.train.deadline_days = over.compute.train_seconds / 86400.0 / 2;
    const std::vector<std::string> late = core::budget_warnings(too_big, core::evaluate(too_big));
    REQUIRE(late.size() == 2);
    CHECK(contains(late[1], "past the deadline of " + core::format_seconds(too_big.train.deadline_days * 86400.0) + " (train.deadline_days)"));
}
