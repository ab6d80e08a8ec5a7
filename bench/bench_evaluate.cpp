// BM_Evaluate: one full core::evaluate of Llama 3 405B on 16,384 H100s. Target: under 20 us.
// BM_EvaluateQlora: the same for a fine-tune, assets/scenarios/llama3-8b-qlora-rtx4090.json (an operator recipe, its
// caching allocator replayed): the same target.
// BM_EvaluateCompiled: the same for Llama 3.2 1B on one H200 under torch.compile (the recipe's compiled kernels in place
// of the eager ones, chosen once per distinct block): the same target.
// BM_Scaling: a whole strong-scaling curve, Llama 3 8B under ZeRO-3 from 1 to 16,384 H100s (15 points, each evaluated
// once). Target: under 1 ms.
// BM_RunSimulation: 100 seeded simulations of the Llama 3 405B run with Table 5's failures (54-day window, ~466
// interruptions each). Target: under 100 ms.
#include "bench/bench_scenarios.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/run_simulation.h"
#include "core/cost/report/scaling.h"
#include "core/model/scenario_json.h"

#include <benchmark/benchmark.h>

namespace {

void BM_Evaluate(benchmark::State& state) {
    const core::Scenario scenario = bench::llama3_405b_scenario();
    for (auto _ : state) {
        core::Report report = core::evaluate(scenario);
        benchmark::DoNotOptimize(report);
    }
}
BENCHMARK(BM_Evaluate)->Unit(benchmark::kMicrosecond);

void BM_EvaluateQlora(benchmark::State& state) {
    // assets/scenarios/llama3-8b-qlora-rtx4090.json, compiled in so the benchmark reads no files.
    const core::Scenario scenario = core::parse_scenario(R"({
        "model": {"preset": "llama3-8b"},
        "train": {"seq_len": 2048, "micro_batch": 1, "global_batch": 16, "tokens": 1e8, "framework": "hf-transformers",
                  "recompute": "full", "dropout": false},
        "precision": {"recipe": "pytorch-amp-adam"},
        "cluster": {"gpu": "rtx-4090", "gpus_per_node": 1, "gpus": 1},
        "finetune": {"method": "qlora", "rank": 16, "alpha": 32, "targets": "all-linear", "double_quant": true}})");
    for (auto _ : state) {
        core::Report report = core::evaluate(scenario);
        benchmark::DoNotOptimize(report);
    }
}
BENCHMARK(BM_EvaluateQlora)->Unit(benchmark::kMicrosecond);

void BM_EvaluateCompiled(benchmark::State& state) {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3.2-1b"},
        "train": {"framework": "hf-transformers", "seq_len": 2048, "micro_batch": 4, "global_batch": 4, "compile": true},
        "precision": {"recipe": "bf16-pure-adamw"}, "cluster": {"gpu": "h200-sxm", "gpus": 1, "gpus_per_node": 1}})");
    for (auto _ : state) {
        core::Report report = core::evaluate(scenario);
        benchmark::DoNotOptimize(report);
    }
}
BENCHMARK(BM_EvaluateCompiled)->Unit(benchmark::kMicrosecond);

void BM_Scaling(benchmark::State& state) {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-8b"},
        "train": {"seq_len": 8192, "micro_batch": 1, "global_batch": 16384}, "parallel": {"tp": 1, "pp": 1, "zero": 3},
        "cluster": {"gpu": "h100-sxm", "gpus_per_node": 8, "gpus": 1024}})");
    for (auto _ : state) {
        core::ScalingCurve curve = core::scaling_curve(scenario, core::ScalingMode::strong);
        benchmark::DoNotOptimize(curve);
    }
}
BENCHMARK(BM_Scaling)->Unit(benchmark::kMicrosecond);

void BM_RunSimulation(benchmark::State& state) {
    core::Scenario scenario = bench::llama3_405b_scenario();
    scenario.operations.failures = *core::find_failure_table("llama3-405b-54-days");
    scenario.operations.checkpoint_bytes_per_s = 2e12;
    const core::RunPlan plan = core::run_plan(scenario, core::evaluate(scenario));
    for (auto _ : state) {
        core::RunDistribution spread = core::simulate_runs(plan, 1, 100, 54 * 86400.0);
        benchmark::DoNotOptimize(spread);
    }
}
BENCHMARK(BM_RunSimulation)->Unit(benchmark::kMillisecond);

}  // namespace
