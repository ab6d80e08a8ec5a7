// Seed 000's three walls (memory, time, serving) and its table "Where each wall sends you", through core::walls_of.
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/lessons/walls.h"
#include "core/model/format.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

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

TEST_CASE("Seed 000 serving wall: one replica decodes HBM bandwidth / (weights + KV cache), Llama 3 70B on an H100", "[walls]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3-70b"}})");
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.memory.params == Approx(70.55e9).epsilon(0.001));
    // bf16 weights 2 B x P; KV cache 2 (K, V) x 80 layers x 8 kv heads x 128 x 2 B = 327,680 B per token, x 8192 tokens.
    const double bytes_per_step = 2.0 * report.memory.params + 327680.0 * 8192;
    const double decode_tokens_per_s = 3.35e12 / bytes_per_step;  // about 23 tokens/s
    const core::WallsReport walls = core::walls_of(scenario, report);
    const core::Wall& serving = wall(walls, core::WallKind::serving);
    REQUIRE(serving.budget == Approx(decode_tokens_per_s));
    REQUIRE(serving.budget == Approx(23.3).epsilon(0.01));
    REQUIRE(serving.used == Approx(10.0 * 256));  // 10 QPS x 256 output tokens
    REQUIRE(serving.fraction == Approx(2560.0 / decode_tokens_per_s));
    CHECK(serving.used_text == "2560 tokens/s asked (10.0 QPS x 256 tokens)");
    // One output token per query: the count agrees with its noun.
    const core::Scenario one_token = scenario_from(R"({"model": {"preset": "llama3-70b"}, "serving": {"output_tokens": 1}})");
    const core::WallsReport one_token_walls = core::walls_of(one_token, core::evaluate(one_token));
    CHECK(wall(one_token_walls, core::WallKind::serving).used_text == "10.0 tokens/s asked (10.0 QPS x 1 token)");

    // A batch of 8 reads the weights once per step for eight sequences: nearly 8x the tokens/s.
    const core::Scenario batched = scenario_from(R"({"model": {"preset": "llama3-70b"}, "serving": {"batch": 8}})");
    const core::Report batched_report = core::evaluate(batched);
    const core::WallsReport batched_walls = core::walls_of(batched, batched_report);
    const core::Wall& batched_serving = wall(batched_walls, core::WallKind::serving);
    REQUIRE(batched_serving.budget == Approx(8 * 3.35e12 / (2.0 * report.memory.params + 8 * 327680.0 * 8192)));
}

TEST_CASE("Seed 000 'Where each wall sends you': the binding wall is the largest fraction and picks its row", "[walls]") {
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
    SECTION("Time (training): 1B on 64 GPUs for 1e14 tokens at 40 % MFU, 3x the 90-day deadline") {
        const core::WallsReport walls = walls_for(
            R"({"model": {"params": 1e9}, "train": {"tokens": 1e14}, "efficiency": {"mfu": 0.4}, "serving": {"target_qps": 1}})");
        REQUIRE(wall(walls, core::WallKind::time).fraction == Approx(6.0 * 1e9 * 1e14 / (64 * 989e12 * 0.4) / (90 * 86400.0)));
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::time));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response == "DP → FSDP-HSDP → 3D parallelism");
    }
    SECTION("Throughput (inference): a 1B replica fits one GPU but cannot decode 10 QPS x 256 tokens") {
        const core::WallsReport walls = walls_for(R"({"model": {"params": 1e9}, "train": {"tokens": 1e9}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::serving));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response == "Replicate → continuous batching → APC");
    }
    SECTION("Latency (inference): a 70B replica's 141 GB of bf16 weights need TP before replication") {
        const core::WallsReport walls = walls_for(R"({"model": {"preset": "llama3-70b"}, "train": {"tokens": 1e9}})");
        REQUIRE(walls.binding == static_cast<int>(core::WallKind::serving));
        REQUIRE(core::where_each_wall_sends_you().at(walls.verdict_row).first_response ==
                "TP per replica → speculative decode → PD-disagg");
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
    for (int w = 0; w < core::wall_count; ++w) {
        INFO("wall " << w);
        for (std::size_t i = 1; i < curves.params.size(); ++i) REQUIRE(curves.fractions[w][i] > curves.fractions[w][i - 1]);
        REQUIRE(curves.crossing_params[w] > 1e8);
        // At the interpolated crossing the wall is at its budget, within the interpolation's error.
        REQUIRE(core::walls_at(scenario, curves.crossing_params[w]).walls[w].fraction == Approx(1.0).epsilon(0.1));
    }
    // The time wall is linear in N (6 N D): at 40 % MFU on 64 H100s, 15T tokens reach 90 days at N = 2.19e9.
    REQUIRE(curves.crossing_params[static_cast<int>(core::WallKind::time)] ==
            Approx(90 * 86400.0 * 64 * 989e12 * 0.4 / (6.0 * 15e12)).epsilon(0.02));
}
