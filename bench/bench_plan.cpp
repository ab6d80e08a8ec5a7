// BM_Plan: the planner's full search for Llama 3 405B on 16,384 GPUs. Target: under 16 ms per search, at least
// 25 M candidates per second, one core.
#include "bench/bench_scenarios.h"
#include "core/cost/search/planner.h"

#include <benchmark/benchmark.h>

namespace {

void BM_Plan(benchmark::State& state) {
    const core::Scenario scenario = bench::llama3_405b_scenario();
    double layouts_considered = 0;
    for (auto _ : state) {
        core::Plan plan = core::plan_layouts(scenario);
        layouts_considered += static_cast<double>(plan.layouts_considered);
        benchmark::DoNotOptimize(plan);
    }
    // kIsRate divides the total by the CPU seconds spent: candidates per second on this one thread.
    state.counters["candidates_per_second"] = benchmark::Counter(layouts_considered, benchmark::Counter::kIsRate);
    state.counters["candidates"] = layouts_considered / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Plan)->Unit(benchmark::kMillisecond);

}  // namespace
