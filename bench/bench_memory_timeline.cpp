// BM_MemoryTimeline: the memory timeline of Llama 3 405B's heaviest pipeline stage on 16,384 H100s, its micro-batches in
// the order 1F1B runs them, walked point by point. Target: under 1 ms.
#include "bench/bench_scenarios.h"
#include "core/cost/memory/timeline.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/step/step.h"
#include "core/model/layout.h"

#include <benchmark/benchmark.h>

namespace {

void BM_MemoryTimeline(benchmark::State& state) {
    const core::Scenario scenario = bench::llama3_405b_scenario();
    const core::Report report = core::evaluate(scenario);
    // What evaluate hands the walk, made once: the layout, the memory constants and the stage's order from its schedule.
    const core::Layout layout = core::layout_of(scenario);
    const core::MemoryConstants constants = core::memory_constants(scenario);
    const core::LayerCost cost = core::layer_cost(scenario, core::split_of(layout), false);
    const core::StepInputs inputs = core::step_inputs(scenario, layout, cost);
    const core::ScheduleParams schedule = core::schedule_params(scenario, layout, cost, inputs);
    const core::ScheduleTimeline* generated = core::generated_schedule(schedule, core::PipelineTiming::timeline);
    const int stage = report.memory.peak_stage;
    const std::vector<core::StageOp> order = core::stage_order(generated, stage);
    const double inflight = report.memory.per_stage[static_cast<std::size_t>(stage)].inflight_microbatches;
    std::size_t points = 0;
    for (auto _ : state) {
        core::MemoryTimeline timeline = core::memory_timeline(constants, layout, stage, order, inflight);
        points = timeline.points.size();
        benchmark::DoNotOptimize(timeline);
    }
    state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_MemoryTimeline)->Unit(benchmark::kMicrosecond);

}  // namespace
