// BM_ExportAll: `shardscope export --panel all` at 1600x900 (every panel and the window to PNG) on llvmpipe. Target: under 3 s.
#include <benchmark/benchmark.h>

#if defined(SHARDSCOPE_ASSET_DIR)  // defined by shardscope_app: the GUI is built and linked
#include "app/export.h"
#include "bench/bench_scenarios.h"
#include "bench/display_retry.h"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

void BM_ExportAll(benchmark::State& state) {
    app::ExportOptions options;
    options.scenario = bench::llama3_405b_scenario();
    std::string error;
    options.panels = app::export_targets("all", &error);
    options.width = 1600;
    options.height = 900;
    // A directory of the benchmark's own, removed afterwards: it never writes where the user did not ask.
    const std::filesystem::path out_dir = std::filesystem::temp_directory_path() / ("shardscope-bench-export-" + std::to_string(getpid()));
    options.out_dir = out_dir.string();
    for (auto _ : state) {
        error = app::run_export(options);
        for (int attempt = 1; attempt < bench::kDisplayAttempts && error.rfind("cannot open a display", 0) == 0; ++attempt) {
            state.PauseTiming();
            bench::wait_for_display_reset();
            state.ResumeTiming();
            error = app::run_export(options);
        }
        if (!error.empty()) {
            state.SkipWithError(error.c_str());
            break;
        }
    }
    std::error_code ignored;
    std::filesystem::remove_all(out_dir, ignored);
    state.counters["pngs"] = static_cast<double>(options.panels.size());
}
// Wall time is the target; CPU time counts every thread, since llvmpipe rasterises on its own (the main thread's alone
// would miss them). On a busy machine the CPU column is the steadier of the two.
BENCHMARK(BM_ExportAll)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();

}  // namespace
#endif
