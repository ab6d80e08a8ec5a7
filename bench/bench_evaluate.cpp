// BM_Evaluate: one full core::evaluate of Llama 3 405B on 16,384 H100s. Target: under 20 us.
#include "bench/bench_scenarios.h"
#include "core/cost/report/evaluate.h"

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

}  // namespace
