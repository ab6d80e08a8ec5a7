// BM_SizeCluster: plan --size for the sizing question, a 7B model on 140B tokens within 14 days, over the whole catalog
// at 1 to 4,096 GPUs, on one thread (the command and the configurator share the searches out over the cores).
// Target: under 2 s of CPU, so the command answers in seconds and the configurator's plot within a few.
#include "core/cost/search/sizing.h"
#include "core/model/scenario_json.h"

#include <benchmark/benchmark.h>

namespace {

void BM_SizeCluster(benchmark::State& state) {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama2-7b"},
        "train": {"seq_len": 4096, "global_batch": 1024, "tokens": 140e9, "deadline_days": 14}, "budget": {"setup_hours": 2}})");
    core::SizingOptions options;
    options.deadline_seconds = 14 * 86400.0;
    options.threads = 1;
    double searches = 0;
    for (auto _ : state) {
        core::Sizing sizing = core::size_cluster(scenario, options);
        searches += static_cast<double>(sizing.searches);
        benchmark::DoNotOptimize(sizing);
    }
    state.counters["searches"] = searches / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SizeCluster)->Unit(benchmark::kMillisecond);

}  // namespace
