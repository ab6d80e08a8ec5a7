// The regime cube (seed 000, "3D - the regime cube"): each axis is what one rank needs over what the GPU gives.
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/lessons/regime.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

const core::RegimePoint& point_of(const core::RegimeCube& cube, const std::string& model_id) {
    const auto found = std::find_if(cube.points.begin(), cube.points.end(),
                                    [&](const core::RegimePoint& point) { return point.model_id == model_id && !point.is_current; });
    REQUIRE(found != cube.points.end());
    return *found;
}

}  // namespace

TEST_CASE("Seed 000 accounting: 70B x 16 B = 1.12 TB is 13.2x an H100 (14 GPUs to hold it), and 1.0 is exactly the GPU's budget", "[regime]") {
    // A bare 70B count on one GPU holds the whole 16-byte state plus its activations.
    const core::Scenario one_gpu = core::parse_scenario(R"({"model": {"params": 70e9}, "cluster": {"gpus": 1}})");
    const core::Report report = core::evaluate(one_gpu);
    const core::RegimePoint point = core::regime_point(one_gpu, report);
    REQUIRE(report.memory.state_bytes == Approx(1.12e12));
    REQUIRE(point.memory_fraction == Approx(report.memory.per_gpu.peak_bytes / core_tests::h100_hbm_bytes));  // the peak, as memory.fits
    REQUIRE(point.memory_fraction >= 1.12e12 / core_tests::h100_hbm_bytes);  // the state alone is 13.2 H100s; the rest only adds

    SECTION("a GPU with more HBM shrinks the memory axis by exactly its ratio, and serves with no more GPUs") {
        core::Scenario on_b200 = core::parse_scenario(R"({"model": {"params": 70e9}, "cluster": {"gpus": 1, "gpu": "b200"}})");
        const core::RegimePoint b200 = core::regime_point(on_b200, core::evaluate(on_b200));
        REQUIRE(b200.memory_fraction == Approx(point.memory_fraction * core_tests::h100_hbm_bytes / on_b200.cluster.gpu.hbm_bytes));
        REQUIRE(b200.serving_fraction <= point.serving_fraction);
    }
}

TEST_CASE("Seed 000: 70B x 15T tokens = 6.3e24 FLOPs, ~500 years on one GPU at 0.4 PFLOP/s, over a 90-day deadline", "[regime]") {
    const core::Scenario one_gpu =
        core::parse_scenario(R"({"model": {"params": 70e9}, "cluster": {"gpus": 1}, "efficiency": {"mfu": 0.4}})");
    const core::RegimePoint point = core::regime_point(one_gpu, core::evaluate(one_gpu));
    const double seconds_per_year = 365.25 * 86400.0;
    const double train_years = point.compute_fraction * 90.0 * 86400.0 / seconds_per_year;
    REQUIRE(train_years == Approx(500).epsilon(0.02));  // 6.3e24 / (989e12 x 0.4) = 505 years
    REQUIRE(point.compute_fraction == Approx(6.3e24 / (989e12 * 0.4) / (90.0 * 86400.0)));
}

TEST_CASE("Serving axis: the GPUs the service needs over the GPUs it has, Llama 3 70B at 10 QPS on 64 H100s", "[regime][serving]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const core::RegimePoint point = core::regime_point(scenario, report);
    REQUIRE(point.serving_fraction == Approx(report.serving.answer.gpus / 64.0));
    REQUIRE(point.serving_fraction == Approx(8.0 / 64.0));
}

TEST_CASE("Binding wall: over HBM memory binds first, however long the training would take; else the largest fraction", "[regime]") {
    core::Scenario scenario = core::default_scenario();
    SECTION("the default 70B does not fit one H100 (16x) and would train 22x past the deadline: memory binds") {
        const core::RegimePoint point = core::regime_point(scenario, core::evaluate(scenario));
        REQUIRE(point.memory_fraction > 1.0);
        REQUIRE(point.compute_fraction > point.memory_fraction);
        REQUIRE(point.binding_wall == core::WallKind::memory);
        REQUIRE(point.binding_fraction == point.memory_fraction);
        REQUIRE(point.binding_title == "Memory");
    }
    SECTION("ZeRO-3 and full recompute make it fit: then 15T tokens on 64 GPUs bind on time") {
        scenario.parallel.zero = 3;
        scenario.train.recompute = core::Recompute::full;
        const core::RegimePoint point = core::regime_point(scenario, core::evaluate(scenario));
        REQUIRE(point.memory_fraction < 1.0);
        REQUIRE(point.binding_wall == core::WallKind::time);
        REQUIRE(point.binding_fraction == point.compute_fraction);
    }
}

TEST_CASE("Seed 000 regime cube: frontier 405B presses on memory and time; its service takes 2 x TP 8 x PP 2 of the 64 GPUs", "[regime]") {
    const core::RegimeCube cube = core::regime_cube(core::default_scenario());
    const core::RegimePoint& llama405 = point_of(cube, "llama3-405b");
    REQUIRE(llama405.memory_fraction > 1.0);
    REQUIRE(llama405.compute_fraction > 1.0);
    REQUIRE(llama405.binding_wall == core::WallKind::memory);
    // 812 GB of bf16 weights outgrow a node of H100s: a replica is two nodes (TP 8 x PP 2), and 10 QPS need two of them.
    REQUIRE(llama405.serving_fraction == Approx(32.0 / 64.0));
}

TEST_CASE("Seed 000 regime cube: a small model sits near the origin, inside every budget", "[regime]") {
    const core::RegimeCube cube = core::regime_cube(core::default_scenario());
    const core::RegimePoint& gpt2 = point_of(cube, "gpt2-124m");
    for (double fraction : {gpt2.memory_fraction, gpt2.compute_fraction, gpt2.serving_fraction}) {
        REQUIRE(fraction < 1.0);
        // Below the cube's middle: nearer the low corner than the far one.
        REQUIRE(core::regime_axis_position(fraction, cube.log10_min, cube.log10_max) <
                core::regime_axis_position(1.0, cube.log10_min, cube.log10_max));
    }
}

TEST_CASE("Seed 000 regime cube: on the default 64 H100s a 7B model presses on memory (16 B per parameter, unsharded)", "[regime]") {
    const core::RegimeCube cube = core::regime_cube(core::default_scenario());
    const core::RegimePoint& llama7 = point_of(cube, "llama2-7b");
    REQUIRE(llama7.memory_fraction > 1.0);
    REQUIRE(llama7.binding_wall == core::WallKind::memory);
    REQUIRE(llama7.serving_fraction == Approx(1.0 / 64.0));  // one GPU serves 10 QPS
}

TEST_CASE("Seed 000 regime cube: a 7B model presses against the memory axis when time and serving are funded", "[regime]") {
    // 1024 GPUs finish 15T tokens in time, one query every 10 s is easy to serve: only the unsharded 16-byte state is left.
    const core::Scenario scenario = core::parse_scenario(R"({"cluster": {"gpus": 1024}, "train": {"global_batch": 1024}, "serving": {"target_qps": 0.1}})");
    const core::RegimeCube cube = core::regime_cube(scenario);
    const core::RegimePoint& llama7 = point_of(cube, "llama2-7b");
    REQUIRE(llama7.memory_fraction > 1.0);
    REQUIRE(llama7.memory_fraction >= 16.0 * llama7.params / 80e9);  // 16 B x 6.74e9 = 108 GB of state, before activations
    REQUIRE(llama7.binding_wall == core::WallKind::memory);
}

TEST_CASE("Regime cube: every preset plus the scenario, on one shared log range containing 1.0", "[regime]") {
    const core::Scenario scenario = core::default_scenario();
    const core::RegimeCube cube = core::regime_cube(scenario);
    REQUIRE(cube.points.size() == core::builtin_models().size() + 1);
    REQUIRE(cube.points.back().is_current);
    REQUIRE(cube.gpu_name == "H100 SXM");
    REQUIRE(cube.log10_min <= 0);
    REQUIRE(cube.log10_max >= 0);
    REQUIRE(cube.ticks.size() == static_cast<std::size_t>(cube.log10_max - cube.log10_min) + 1);
    for (const core::RegimePoint& point : cube.points) {
        for (double fraction : {point.memory_fraction, point.compute_fraction, point.serving_fraction}) {
            REQUIRE(std::isfinite(fraction));
            REQUIRE(fraction >= std::pow(10.0, cube.log10_min));
            REQUIRE(fraction <= std::pow(10.0, cube.log10_max));
        }
    }
    // The scenario's own model, picked as a preset, lands exactly on its preset's dot.
    const core::RegimePoint& preset = point_of(cube, "llama3-70b");
    REQUIRE(cube.points.back().memory_fraction == Approx(preset.memory_fraction));
    REQUIRE(cube.points.back().compute_fraction == Approx(preset.compute_fraction));
}

TEST_CASE("Regime cube: a preset the scenario's layout cannot hold takes the nearest layout that can, and says why", "[regime]") {
    // pp 16 needs 16 layers: GPT-2 has 12, so it gets pp 8 (and TP 4, the most that divides its 12 heads).
    const core::Scenario scenario = core::parse_scenario(R"({"parallel": {"tp": 8, "pp": 16}, "cluster": {"gpus": 1024}})");
    const core::RegimeCube cube = core::regime_cube(scenario);
    const core::RegimePoint& gpt2 = point_of(cube, "gpt2-124m");
    REQUIRE(gpt2.layout == "TP 4 PP 8 DP 32 ZeRO 0");
    REQUIRE(gpt2.layout_note.find("PP 16 -> 8") != std::string::npos);
    REQUIRE(gpt2.layout_note.find("TP 8 -> 4") != std::string::npos);
    const core::RegimePoint& llama405 = point_of(cube, "llama3-405b");
    REQUIRE(llama405.layout == "TP 8 PP 16 DP 8 ZeRO 0");
    REQUIRE(llama405.layout_note.empty());

    SECTION("context parallelism shrinks to a divisor of the preset's sequence") {
        // Context parallelism over 2048 ranks splits Llama's 8192 tokens but not GPT-2's 1024: CP 1024 is the nearest.
        const core::Scenario long_context =
            core::parse_scenario(R"({"parallel": {"cp": 2048}, "cluster": {"gpus": 2048}, "train": {"global_batch": 2048}})");
        const core::RegimeCube long_context_cube = core::regime_cube(long_context);
        const core::RegimePoint& small = point_of(long_context_cube, "gpt2-124m");
        REQUIRE(small.layout == "TP 1 PP 1 CP 1024 DP 2 ZeRO 0");
        REQUIRE(small.layout_note.find("CP 2048 -> 1024") != std::string::npos);
    }
    SECTION("a batch that no longer divides over DP grows to the next multiple, and the note says so") {
        // GPT-2 keeps TP 4 x PP 8 of the 4096 GPUs: DP 128 cannot split 32 sequences, so the batch becomes 128.
        const core::Scenario small_batch = core::parse_scenario(R"({"parallel": {"tp": 8, "pp": 16}, "cluster": {"gpus": 4096}, "train": {"global_batch": 32}})");
        const core::RegimeCube cube_of_small_batch = core::regime_cube(small_batch);
        REQUIRE(cube_of_small_batch.unplaced.empty());
        REQUIRE(point_of(cube_of_small_batch, "gpt2-124m").layout_note.find("Global batch 32 -> 128") != std::string::npos);
    }
}

TEST_CASE("Regime cube axis: log10 position, 1.0 in the middle of 10^-2..10^2, clamped at the faces", "[regime]") {
    REQUIRE(core::regime_axis_position(1.0, -2, 2) == Approx(0.5));
    REQUIRE(core::regime_axis_position(10.0, -2, 2) == Approx(0.75));
    REQUIRE(core::regime_axis_position(100.0, -2, 2) == Approx(1.0));
    REQUIRE(core::regime_axis_position(1e-3, -2, 2) == 0.0);
    REQUIRE(core::regime_axis_position(1e9, -2, 2) == 1.0);
    REQUIRE_THROWS_AS(core::regime_axis_position(1.0, 2, 2), core::InputError);
}
