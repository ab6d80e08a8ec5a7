// Seed 000's three walls (memory, time, serving) and its table "Where each wall sends you", through core::walls_of.
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/lessons/walls.h"
#include "core/model/format.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "core/cost/serving/serving.h"
#include "tests/test_scenarios.h"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

core::Scenario scenario_from(const std::string& json) { return core::parse_scenario(json); }

core::WallsReport walls_for(const std::string& json) {
    const core::Scenario scenario = scenario_from(json);
    return core::walls_of(scenario, core::evaluate(scenario));
}

const core::Wall& wall(const core::WallsReport& walls, core::WallKind kind) { return walls.walls[static_cast<int>(kind)]; }

}  // namespace

TEST_CASE("Seed 000 time wall: 6 N D / (GPUs x peak x MFU) against the deadline, 70B on 64 H100s at 40 % MFU", "[walls]") {
    const core::WallsReport walls = walls_for(R"({"model": {"params": 70e9}, "efficiency": {"mfu": 0.4}})");
    // Kaplan et al. 2020: 6 x 70e9 x 15e12 = 6.3e24 FLOP; / (64 x 989e12 x 0.4) = 2.488e8 s = 2880 days; / 90 days.
    const double train_seconds = 6.0 * 70e9 * 15e12 / (64 * 989e12 * 0.4);
    const core::Wall& time = wall(walls, core::WallKind::time);
    REQUIRE(time.used == Approx(train_seconds));
    REQUIRE(time.budget == Approx(90 * 86400.0));
    REQUIRE(time.fraction == Approx(train_seconds / (90 * 86400.0)));
    REQUIRE(time.fraction == Approx(32.0).epsilon(0.01));
    REQUIRE(time.over);
    REQUIRE(time.fraction_text == "32.0x");
}

TEST_CASE("Seed 000 time wall beside Daly 2006's goodput: the wall stays failure-free, its text adds the calendar with failures",
          "[walls][reliability]") {
    const core::Scenario scenario = core_tests::shipped("llama3-405b-16k.json");
    const core::Report report = core::evaluate(scenario);
    const core::WallsReport walls = core::walls_of(scenario, report);
    const core::Wall& time = wall(walls, core::WallKind::time);
    REQUIRE(time.used == Approx(report.compute.train_seconds));  // the formula the seed teaches
    // 16,384 GPUs fail often: checkpoints, rework and restarts stretch the calendar past the training time.
    REQUIRE(report.reliability.wall_seconds > report.compute.train_seconds);
    CHECK(time.used_text == core::format_seconds(report.compute.train_seconds) + " of training (" +
                                core::format_seconds(report.reliability.wall_seconds) + " with failures)");
}

TEST_CASE("Seed 000 memory wall: the peak per GPU over HBM, 70B with full recompute on an H100: the seed's state + activations "
          "(13.3x) and what the step holds beside them", "[walls]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"params": 70e9}, "train": {"recompute": "full"}})");
    // synthesize_shape(70e9): l = round(cbrt(70e9 / (12 x 128^2))) = 71, h = 128 x round(sqrt(70e9 / (12 l)) / 128) = 9088.
    REQUIRE(scenario.model.layers == 71);
    REQUIRE(scenario.model.hidden == 9088);
    const core::Report report = core::evaluate(scenario);
    const core::WallsReport walls = core::walls_of(scenario, report);
    // No ZeRO: each GPU holds 16 B x 70e9; full recompute keeps each layer's input, 2 s b h bytes (Korthikanti 2022 sec 4.3).
    const double state = 16.0 * 70e9;
    const double activations = 2.0 * 8192 * 1 * 9088 * 71;
    REQUIRE(report.memory.per_gpu.total_bytes == Approx(state + activations));
    REQUIRE((state + activations) / core_tests::h100_hbm_bytes == Approx(13.30).epsilon(0.001));
    const core::Wall& memory = wall(walls, core::WallKind::memory);
    REQUIRE(memory.used == report.memory.per_gpu.peak_bytes);
    REQUIRE(memory.used > state + activations);
    REQUIRE(memory.budget == core_tests::h100_hbm_bytes);
    REQUIRE(memory.fraction == Approx(memory.used / core_tests::h100_hbm_bytes));
    REQUIRE(memory.over == !report.memory.fits);

    // ZeRO-3 over the 64 data-parallel GPUs shards the state: 1.12 TB / 64 = 17.5 GB, and the wall drops under 100 %.
    const core::Scenario sharded =
        scenario_from(R"({"model": {"params": 70e9}, "train": {"recompute": "full"}, "parallel": {"zero": 3}})");
    const core::Report sharded_report = core::evaluate(sharded);
    REQUIRE(sharded_report.memory.per_gpu.total_bytes == Approx(state / 64 + activations));
    const core::WallsReport sharded_walls = core::walls_of(sharded, sharded_report);
    const core::Wall& sharded_memory = wall(sharded_walls, core::WallKind::memory);
    REQUIRE(sharded_memory.used == sharded_report.memory.per_gpu.peak_bytes);
    REQUIRE_FALSE(sharded_memory.over);
}

TEST_CASE("Seed 000 serving wall: the GPUs the service needs over the GPUs it has; Llama 3 70B at 10 QPS on 64 H100s needs 8 "
          "(2 x TP 4: bf16 weights do not leave TP 1 room for a KV cache)", "[walls][serving]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3-70b"}})");
    const core::Report report = core::evaluate(scenario);
    const core::ServingAnswer& answer = report.serving.answer;
    REQUIRE(answer.verdict == core::ServingVerdict::meets);
    const core::WallsReport walls = core::walls_of(scenario, report);
    const core::Wall& serving = wall(walls, core::WallKind::serving);
    REQUIRE(serving.used == answer.gpus);
    REQUIRE(serving.budget == 64);
    REQUIRE(serving.fraction == Approx(answer.gpus / 64.0));
    CHECK(answer.gpus == 8);
    CHECK(answer.replicas * answer.shape.gpus() == answer.gpus);
    CHECK(serving.used_text == "8 GPUs needed (" + std::to_string(answer.replicas) + " x TP " + std::to_string(answer.shape.tp) + ")");
    CHECK(serving.budget_text == "64 GPUs (the cluster's)");
    CHECK(serving.formula.find("10.0 QPS x (1024 prompt + 256 output tokens)") == 0);
    // The targets hold at the batch each replica runs, and the replicas carry the rate.
    CHECK(answer.point.tpot_seconds <= 0.2);
    CHECK(answer.point.ttft_seconds <= 2.0);
    CHECK(answer.replicas * answer.point.replica_queries_per_s >= 10.0 * (1 - 1e-9));

    SECTION("a budget of serving GPUs replaces the cluster's: 4 GPUs cannot carry what needs 8") {
        const core::Scenario small = scenario_from(R"({"model": {"preset": "llama3-70b"}, "serving": {"gpus": 4}})");
        const core::WallsReport small_walls = core::walls_of(small, core::evaluate(small));
        const core::Wall& over = wall(small_walls, core::WallKind::serving);
        CHECK(over.budget == 4);
        CHECK(over.fraction == Approx(2.0));
        CHECK(over.over);
        CHECK(over.budget_text == "4 GPUs for serving");
    }
    SECTION("ten times the rate needs about ten times the GPUs") {
        const core::Scenario busy = scenario_from(R"({"model": {"preset": "llama3-70b"}, "serving": {"target_qps": 100}})");
        const core::Report busy_report = core::evaluate(busy);
        CHECK(busy_report.serving.answer.gpus >= 5 * answer.gpus);
        CHECK(busy_report.serving.answer.gpus <= 12 * answer.gpus);
    }
}

TEST_CASE("Seed 000 'Where each wall sends you': over HBM the memory wall binds first (the run cannot start), else the largest "
          "fraction binds and picks its row", "[walls]") {
    SECTION("Memory (state): 70B state on one GPU, a trivial token budget and service") {
        const core::WallsReport walls =
            walls_for(R"({"model": {"params": 70e9}, "train": {"tokens": 1e9}, "serving": {"target_qps": 0.01}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::memory));
        REQUIRE(walls.any_over);
        const core::WallVerdict& verdict = core::where_each_wall_sends_you().at(walls.verdict_row);
        REQUIRE(verdict.wall == "Memory (state)");
        REQUIRE(verdict.symptom == "OOM at step 0");
        REQUIRE(verdict.first_response == "FSDP / ZeRO-3 → activation checkpointing → TP");
    }
    SECTION("Memory (activations): ZeRO-3 shards the state, a 64k sequence's activations remain") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"params": 7e9}, "train": {"tokens": 1e9, "seq_len": 65536}, "parallel": {"zero": 3}, "serving": {"target_qps": 0.01}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::memory));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).wall == "Memory (activations)");
    }
    SECTION("Memory first: the default 70B does not fit (16x HBM), and its 5-year training time (22x the deadline) waits on that") {
        const core::WallsReport walls = walls_for("{}");
        const core::Wall& memory = wall(walls, core::WallKind::memory);
        const core::Wall& time = wall(walls, core::WallKind::time);
        REQUIRE(memory.over);
        REQUIRE(time.fraction > memory.fraction);
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::memory));
        CHECK(walls.summary == "Binding: Memory, " + memory.fraction_text + " of its budget");
    }
    SECTION("Time (training): 1B on 64 GPUs for 1e14 tokens at 40 % MFU, 3x the 90-day deadline") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"params": 1e9}, "train": {"tokens": 1e14}, "efficiency": {"mfu": 0.4}, "serving": {"target_qps": 1}})");
        REQUIRE(wall(walls, core::WallKind::time).fraction == Approx(6.0 * 1e9 * 1e14 / (64 * 989e12 * 0.4) / (90 * 86400.0)));
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::time));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response == "DP → FSDP-HSDP → 3D parallelism");
    }
    SECTION("Throughput (inference): a 1B service at 10,000 QPS needs more than its 8 serving GPUs") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"params": 1e9}, "train": {"tokens": 1e9}, "parallel": {"zero": 3}, "serving": {"target_qps": 10000, "gpus": 8}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::serving));
        REQUIRE(wall(walls, core::WallKind::serving).used > 8);
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response == "Replicate → continuous batching → APC");
    }
    SECTION("Latency (inference): 1 ms per output token of 70B is beyond any replica of H100s") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"preset": "llama3-70b"}, "train": {"tokens": 1e9, "recompute": "full"}, "parallel": {"zero": 3}, "serving": {"tpot_ms": 1}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::serving));
        const core::Wall& serving = wall(walls, core::WallKind::serving);
        CHECK(serving.fraction_text == "unmet");
        CHECK(serving.used_text == "no replica meets the targets");
        CHECK(walls.summary == "Binding: Serving, no replica meets the targets");
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response == "TP per replica → speculative decode → PD-disagg");
    }
    SECTION("Memory (KV cache): a 100-million-token prompt's KV cache fits no replica") {
        const core::WallsReport walls = walls_for(R"({"model": {"preset": "llama3-70b"}, "serving": {"prompt_tokens": 100000000}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::serving));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).wall == "Memory (KV cache)");
    }
    SECTION("No wall: 1B with ZeRO-3, a small token budget and one query a second") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"params": 1e9}, "train": {"tokens": 1e9}, "parallel": {"zero": 3}, "serving": {"target_qps": 1}})");
        REQUIRE_FALSE(walls.any_over);
        REQUIRE(walls.verdict_row == -1);
        REQUIRE(walls.summary.rfind("No wall is hit", 0) == 0);
    }
}

TEST_CASE("Walls slider: a bare parameter count keeps the scenario's layout valid (tp 8 divides the heads)", "[walls]") {
    const core::Scenario scenario = core::with_params(scenario_from(R"({"parallel": {"tp": 8, "pp": 4}})"), 7e10).scenario;
    const core::Scenario sized = core::with_params(scenario, 70e9).scenario;
    REQUIRE(sized.model.is_bare_count());
    REQUIRE(sized.model.heads % 8 == 0);
    REQUIRE(sized.parallel.tp == 8);
    const core::WallsReport walls = core::walls_at(scenario, 20e9);
    REQUIRE(walls.params == 20e9);
    REQUIRE(core::walls_at(scenario, 1e8).params == 1e8);  // 8 layers still hold pp 4
    REQUIRE_FALSE(core::with_params(scenario, 0).ok());
    REQUIRE_THROWS_AS(core::walls_at(scenario, 0), core::InputError);
}

TEST_CASE("Walls slider: Llama 3 70B scaled keeps its 128-wide heads, 8 query heads per KV head and 3.5x MLP, in a layout tp 8 x pp 4 holds", "[walls]") {
    const core::Scenario scenario = scenario_from(R"({"parallel": {"tp": 8, "pp": 4}})");
    const core::Edit scaled = core::with_model_scaled(scenario, 8e9);
    REQUIRE(scaled.ok());
    const core::ModelSpec& model = scaled.scenario.model;
    CHECK(model.head_dim() == 128);
    CHECK(model.heads / model.kv_heads == 8);
    CHECK(model.heads % 8 == 0);
    CHECK(model.layers >= 4);
    CHECK(model.vocab == 128256);
    CHECK(static_cast<double>(model.ffn_hidden) / model.hidden == Approx(3.5).epsilon(0.02));
    CHECK(core::count_params(model, 8192).total == Approx(8e9).epsilon(0.1));
    // At its own size it is the model itself; below one layer of the narrowest width it is refused.
    CHECK(core::with_model_scaled(scenario, core::count_params(scenario.model, 8192).total).scenario.model == scenario.model);
    CHECK_FALSE(core::with_model_scaled(scenario, 1e8).ok());
}

TEST_CASE("Walls slider: DeepSeek-V3 (moe.md: 61 layers, 3 dense, 256 routed experts) scales across the chart's range, at 671B to its own shape", "[walls][moe]") {
    // Its layers are not alike (dense first layers, then expert layers): a depth fitted from one dense layer's count
    // missed by 10x at every size, and the chart stayed empty.
    const core::Scenario scenario = core_tests::shipped("deepseek-v3.json");
    const core::ModelSpec& own = scenario.model;
    const core::Edit same = core::with_model_scaled(scenario, 671e9);
    REQUIRE(same.ok());
    CHECK(same.scenario.model.layers == own.layers);
    CHECK(same.scenario.model.hidden == own.hidden);
    CHECK(same.scenario.model.expert_ffn_hidden == own.expert_ffn_hidden);
    for (double params : {1e9, 1e11, 2e12}) {
        INFO(params);
        const core::Edit scaled = core::with_model_scaled(scenario, params);
        REQUIRE(scaled.ok());
        const core::ModelSpec& model = scaled.scenario.model;
        CHECK(model.experts == own.experts);
        CHECK(model.layers >= scenario.parallel.pp);
        CHECK(core::count_params(model, scenario.train.seq_len).total == Approx(params).epsilon(0.1));
        // the experts keep their width's ratio to the model's (2048 / 7168)
        CHECK(static_cast<double>(model.expert_ffn_hidden) / model.hidden == Approx(2048.0 / 7168.0).epsilon(0.15));
    }
    const core::WallCurves curves = core::wall_curves(scenario, 1e9, 2e12, 9);
    CHECK(curves.params.size() >= 9);
}

TEST_CASE("Walls chart: each scaling line passes through the scenario's own point, at 32K context and serving batch 64", "[walls]") {
    // The case where lines drawn through bare-count shapes missed the dot by 4-5x: GQA's small KV cache and long sequences.
    const core::Scenario scenario =
        scenario_from(R"({"train": {"seq_len": 32768, "global_batch": 512}, "serving": {"batch": 64, "context_tokens": 32768}})");
    const core::Report report = core::evaluate(scenario);
    const core::WallsReport own = core::walls_of(scenario, report);
    const core::WallCurves curves = core::wall_curves(scenario, 1e8, 2e12, 33);
    const auto at = std::find(curves.params.begin(), curves.params.end(), report.memory.params);
    REQUIRE(at != curves.params.end());
    const std::size_t index = static_cast<std::size_t>(at - curves.params.begin());
    for (int w = 0; w < core::wall_count; ++w) {
        INFO("wall " << w);
        CHECK(curves.fractions[w][index] == Approx(own.walls[w].fraction).epsilon(1e-12));
        for (std::size_t i = 1; i < curves.params.size(); ++i) CHECK(curves.params[i] > curves.params[i - 1]);
    }
}

TEST_CASE("Seed 000 'three walls in one picture': each fraction grows with N and crosses 100 % once", "[walls]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"params": 70e9}, "efficiency": {"mfu": 0.4}})");
    const core::WallCurves curves = core::wall_curves(scenario, 1e8, 2e12, 9);
    REQUIRE(curves.params.front() == Approx(1e8));
    REQUIRE(curves.params.back() == Approx(2e12));
    for (int w : {static_cast<int>(core::WallKind::memory), static_cast<int>(core::WallKind::time)}) {
        INFO("wall " << w);
        for (std::size_t i = 1; i < curves.params.size(); ++i) REQUIRE(curves.fractions[w][i] > curves.fractions[w][i - 1]);
        REQUIRE(curves.crossing_params[w] > 1e8);
        // At the interpolated crossing the wall is at its budget, within the interpolation's error.
        REQUIRE(core::walls_at(scenario, curves.crossing_params[w]).walls[w].fraction == Approx(1.0).epsilon(0.1));
    }
    // Serving counts whole GPUs: a step line, flat while one GPU serves the rate (1/64), never falling as N grows.
    const std::vector<double>& serving = curves.fractions[static_cast<int>(core::WallKind::serving)];
    CHECK(serving.front() == Approx(1.0 / 64));
    for (std::size_t i = 1; i < serving.size(); ++i) CHECK(serving[i] >= serving[i - 1]);
    CHECK(serving.back() > serving.front());
    // The time wall is linear in N (6 N D): at 40 % MFU on 64 H100s, 15T tokens reach 90 days at N = 2.19e9.
    REQUIRE(curves.crossing_params[static_cast<int>(core::WallKind::time)] ==
            Approx(90 * 86400.0 * 64 * 989e12 * 0.4 / (6.0 * 15e12)).epsilon(0.02));
}

TEST_CASE("Every shipped scenario: a serving wall it does not ask about is no verdict, and serve's verdict follows the budget", "[walls][serving]") {
    for (const std::string& name : core_tests::shipped_scenarios()) {
        INFO(name);
        std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios/" + name);
        std::stringstream text;
        text << file.rdbuf();
        const core::Scenario scenario = core::parse_scenario(text.str());
        const core::Report report = core::evaluate(scenario);
        const core::WallsReport walls = core::walls_of(scenario, report);
        const core::Wall& serving = wall(walls, core::WallKind::serving);
        CHECK(serving.asked == (text.str().find("\"serving\"") != std::string::npos));
        if (!serving.asked) CHECK(walls.binding != static_cast<int>(core::WallKind::serving));
        // serve says "meets" (and exits 0) only where the GPUs it needs are within the budget the walls measure against.
        const core::ServingOutcome outcome = core::serving_outcome(report.serving);
        CHECK((outcome == core::ServingOutcome::meets) == (report.serving.answer.verdict == core::ServingVerdict::meets && !serving.over));
    }
}

TEST_CASE("Llama 3 8B QLoRA on one RTX 4090: the fine-tune's verdict is memory or time, and its example service is over its one-GPU budget", "[walls][serving]") {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios/llama3-8b-qlora-rtx4090.json");
    std::stringstream text;
    text << file.rdbuf();
    const core::Scenario scenario = core::parse_scenario(text.str());
    const core::Report report = core::evaluate(scenario);
    const core::WallsReport walls = core::walls_of(scenario, report);
    REQUIRE_FALSE(scenario.serving.asked);
    CHECK(walls.binding != static_cast<int>(core::WallKind::serving));
    CHECK(walls.summary.find("Serving") == std::string::npos);
    CHECK(walls.within_text == "It fits and trains in time (no service asked): no need to distribute. Memory is the first wall it would hit.");
    // 10 QPS of 1,024 + 256 tokens needs more than the single 4090 the cluster has: serve does not call that met.
    REQUIRE(report.serving.answer.verdict == core::ServingVerdict::meets);
    REQUIRE(report.serving.answer.gpus > 1);
    CHECK(core::serving_outcome(report.serving) == core::ServingOutcome::over_budget);
    CHECK(std::string(core::serving_outcome_key(core::serving_outcome(report.serving))) == "over_budget");
    // The same scenario asking about that service makes it the binding wall.
    core::Scenario asking = scenario;
    asking.serving.asked = true;
    CHECK(core::walls_of(asking, report).binding == static_cast<int>(core::WallKind::serving));
}
