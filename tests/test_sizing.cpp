// Cost-optimal sizing: the cheapest way to train a 7B model on 140B tokens within 14 days. Every row is the
// planner's fastest layout on that many GPUs of that type, priced by the budget's formula; the ranking puts the
// cheapest feasible row first and the Pareto front of cost against time is non-dominated.
#include "core/cost/report/budget.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/search/sizing.h"
#include "core/model/errors.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using core_tests::shipped;

bool dominates(const core::SizingRow& a, const core::SizingRow& b) {
    return a.train_seconds <= b.train_seconds && a.cost.total_dollars <= b.cost.total_dollars &&
           (a.train_seconds < b.train_seconds || a.cost.total_dollars < b.cost.total_dollars);
}

}  // namespace

TEST_CASE("Sizing grid: powers of two and 1.5 times them, whole nodes beyond one", "[sizing]") {
    CHECK(core::sizing_gpu_counts(64, 8) == std::vector<int>{1, 2, 3, 4, 6, 8, 16, 24, 32, 48, 64});
    CHECK(core::sizing_gpu_counts(64, 4) == std::vector<int>{1, 2, 3, 4, 8, 12, 16, 24, 32, 48, 64});
    CHECK(core::sizing_gpu_counts(1, 8) == std::vector<int>{1});
    CHECK(core::sizing_gpu_counts(5, 8) == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("Pareto front: what no other point beats on both time and cost, fastest first", "[sizing]") {
    // (days, dollars): 8 H100s are fastest and dearest, 2 cheapest and slowest; (10, 900) is beaten by (8, 800).
    const std::vector<double> days{4, 8, 10, 16, 16, 30};
    const std::vector<double> dollars{1000, 800, 900, 700, 700, 710};
    CHECK(core::pareto_front(days, dollars) == std::vector<std::size_t>{0, 1, 3});
    CHECK(core::pareto_front({}, {}).empty());
}

TEST_CASE("plan --size: 7B on 140B tokens within 14 days, cheapest feasible first, a non-dominated front", "[sizing]") {
    const core::Scenario scenario = shipped("llama2-7b-140b-tokens-14-days.json");
    REQUIRE(scenario.train.tokens == Approx(140e9));
    core::SizingOptions options;
    options.deadline_seconds = scenario.train.deadline_days * 86400.0;
    options.max_gpus = 512;
    options.gpu_ids = {"h100-sxm", "a100-sxm", "l40s", "rtx-4090"};
    const core::Sizing sizing = core::size_cluster(scenario, options);
    // Every count of every type, but for a type that stops once two larger counts train no faster (the L40S and RTX 4090
    // machines, joined at 100 Mb/s, stop past one node).
    CHECK(sizing.searches < static_cast<std::int64_t>(options.gpu_ids.size() * sizing.gpu_counts.size()));
    CHECK(sizing.searches >= static_cast<std::int64_t>(2 * sizing.gpu_counts.size()));
    REQUIRE(sizing.feasible_rows > 0);
    REQUIRE_FALSE(sizing.rows.empty());

    const core::SizingRow& first = sizing.rows.front();
    CHECK(first.feasible());
    for (const core::SizingRow& row : sizing.rows) {
        CHECK(row.best.estimate.fits);
        CHECK(row.meets_deadline == (row.train_seconds <= 14 * 86400.0));
        if (row.feasible()) CHECK(first.cost.total_dollars <= row.cost.total_dollars);
    }
    // 140B tokens need ~5.9e21 FLOPs (6 N D): no GPU type does that inside 14 days on a single card.
    CHECK(first.gpus > 1);

    REQUIRE_FALSE(sizing.front.empty());
    for (std::size_t i : sizing.front) {
        CHECK(sizing.rows[i].on_front);
        for (const core::SizingRow& row : sizing.rows) CHECK_FALSE(dominates(row, sizing.rows[i]));
    }
    for (std::size_t i = 1; i < sizing.front.size(); ++i) {
        CHECK(sizing.rows[sizing.front[i]].train_seconds > sizing.rows[sizing.front[i - 1]].train_seconds);
        CHECK(sizing.rows[sizing.front[i]].cost.total_dollars < sizing.rows[sizing.front[i - 1]].cost.total_dollars);
    }
    // One row per GPU type, each its type's cheapest feasible cluster, in rank order.
    const std::vector<std::size_t> per_type = core::cheapest_of_each_type(sizing);
    CHECK(per_type.size() == options.gpu_ids.size());
    CHECK(per_type.front() == 0);
    for (std::size_t k = 0; k < per_type.size(); ++k) {
        const core::SizingRow& best = sizing.rows[per_type[k]];
        if (k > 0) CHECK(per_type[k] > per_type[k - 1]);
        for (const core::SizingRow& row : sizing.rows) {
            if (row.gpu_id == best.gpu_id && row.feasible()) CHECK(best.cost.total_dollars <= row.cost.total_dollars);
        }
    }
    // Every row off the front is beaten by one on it.
    for (const core::SizingRow& row : sizing.rows) {
        if (row.on_front) continue;
        bool beaten = false;
        for (std::size_t i : sizing.front) beaten = beaten || dominates(sizing.rows[i], row) ||
                                                    (sizing.rows[i].train_seconds == row.train_seconds &&
                                                     sizing.rows[i].cost.total_dollars == row.cost.total_dollars);
        CHECK(beaten);
    }
}

TEST_CASE("Sizing gives the same ranking on one thread as on several", "[sizing]") {
    const core::Scenario scenario = shipped("llama2-7b-140b-tokens-14-days.json");
    core::SizingOptions options;
    options.max_gpus = 64;
    options.gpu_ids = {"h100-sxm", "rtx-4090", "b200"};
    options.threads = 1;
    const core::Sizing one = core::size_cluster(scenario, options);
    options.threads = 3;
    const core::Sizing three = core::size_cluster(scenario, options);
    REQUIRE(one.rows.size() == three.rows.size());
    for (std::size_t i = 0; i < one.rows.size(); ++i) {
        CHECK(one.rows[i].gpu_id == three.rows[i].gpu_id);
        CHECK(one.rows[i].gpus == three.rows[i].gpus);
        CHECK(one.rows[i].cost.total_dollars == three.rows[i].cost.total_dollars);
    }
    CHECK(one.front == three.front);
}

TEST_CASE("A sizing row costs what the budget sentence says for that cluster and layout", "[sizing][budget]") {
    const core::Scenario scenario = shipped("llama2-7b-140b-tokens-14-days.json");
    core::SizingOptions options;
    options.max_gpus = 64;
    options.gpu_ids = {"a100-sxm"};
    const core::Sizing sizing = core::size_cluster(scenario, options);
    REQUIRE_FALSE(sizing.rows.empty());
    for (const core::SizingRow& row : {sizing.rows.front(), sizing.rows.back()}) {
        const core::Scenario sized = core::sized_scenario(scenario, *core::builtin_hardware().find_gpu(row.gpu_id), row.gpus,
                                                          core::PriceBasis::on_demand);
        const core::Edit applied = core::with_layout(sized, row.best.layout);
        REQUIRE(applied.ok());
        const core::Report report = core::evaluate(applied.scenario);
        CHECK(report.compute.train_seconds == Approx(row.train_seconds));
        CHECK(report.budget.total_dollars == Approx(row.cost.total_dollars));
        // A100 SXM 80GB on demand, RunPod March 2026: $2.45 per GPU-hour, 2 h of setup in this scenario.
        CHECK(row.cost.total_dollars == Approx(row.gpus * 2.45 * (row.train_seconds / 3600.0 + 2.0)));
    }
}

TEST_CASE("Sizing refuses what it cannot price", "[sizing][errors]") {
    core::SizingOptions options;
    options.gpu_ids = {"a10g"};
    options.price = core::PriceBasis::spot;
    CHECK_THROWS_AS(core::size_cluster(core::default_scenario(), options), core::InputError);
    options.gpu_ids = {"nope"};
    CHECK_THROWS_AS(core::size_cluster(core::default_scenario(), options), core::InputError);
    options.gpu_ids = {};
    options.price = core::PriceBasis::custom;
    CHECK_THROWS_AS(core::size_cluster(core::default_scenario(), options), core::InputError);
    options.price = core::PriceBasis::spot;
    options.max_gpus = 8;
    const core::Sizing sizing = core::size_cluster(core::default_scenario(), options);
    bool a10g_skipped = false;
    for (const std::string& reason : sizing.skipped) a10g_skipped = a10g_skipped || reason.rfind("A10G", 0) == 0;
    CHECK(a10g_skipped);
}

TEST_CASE("Sizing rows name expert parallelism: DeepSeek-V3's fastest H800 layouts read with their EP", "[sizing][moe]") {
    core::Layout dense;
    dense.tp = 2, dense.pp = 4, dense.cp = 4, dense.dp = 64, dense.zero = 1;
    CHECK(core::layout_label(dense) == "TP 2 PP 4 CP 4 DP 64 ZeRO 1");
    core::Layout experts;
    experts.pp = 2, experts.dp = 1024, experts.ep = 256, experts.zero = 1;
    CHECK(core::layout_label(experts) == "TP 1 PP 2 DP 1024 EP 256 ZeRO 1");
    experts.etp = 2;
    CHECK(core::layout_label(experts) == "TP 1 PP 2 DP 1024 EP 256 ETP 2 ZeRO 1");

    core::SizingOptions options;
    options.gpu_ids = {"h800-sxm"};
    options.max_gpus = 256;
    const core::Sizing sizing = core::size_cluster(shipped("deepseek-v3.json"), options);
    REQUIRE_FALSE(sizing.rows.empty());
    int with_experts = 0;
    for (const core::SizingRow& row : sizing.rows) {
        const std::string label = core::layout_label(row.best.layout);
        CHECK((label.find(" EP " + std::to_string(row.best.layout.ep) + " ") != std::string::npos) == (row.best.layout.ep > 1));
        with_experts += row.best.layout.ep > 1;
    }
    CHECK(with_experts > 0);  // 256 routed experts: the fastest layouts split them
}

// RunPod rents RTX 3090s as pods that reach one another at 100 Mb/s (runpod/docs @a900806, pods/networking.mdx): Llama 2
// 7B's gradients cannot be synchronised across them, so the cheapest RTX 3090 cluster for it stays inside one machine.
TEST_CASE("plan --size on RunPod's RTX 3090 pods: the 7B's cheapest cluster is one machine of 8, not 96 GPUs over 100 Mb/s",
          "[sizing][network]") {
    const core::Scenario scenario = shipped("llama2-7b-140b-tokens-14-days.json");
    core::SizingOptions options;
    options.deadline_seconds = scenario.train.deadline_days * 86400.0;
    options.max_gpus = 128;
    options.gpu_ids = {"rtx-3090"};
    const core::Sizing sizing = core::size_cluster(scenario, options);
    REQUIRE_FALSE(sizing.rows.empty());
    const core::SizingRow& cheapest = sizing.rows.front();
    CHECK(cheapest.gpus == 8);
    CHECK_FALSE(cheapest.meets_deadline);  // 5.9e21 FLOPs on eight 71-TFLOP/s cards: months, not 14 days
    for (const core::SizingRow& row : sizing.rows) CHECK((row.gpus % 8 == 0 || row.gpus < 8));  // whole machines
}
