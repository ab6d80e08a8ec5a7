// The benchmark runner: Google Benchmark's usual table, then each figure against its target.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <unistd.h>

namespace {

using Run = benchmark::BenchmarkReporter::Run;

struct Target {
    const char* benchmark;        // family name, "BM_Evaluate"
    const char* figure;           // what is compared
    const char* unit;             // the unit it is printed in
    double per_si_unit;           // the SI figure times this is in `unit`
    double limit;                 // in `unit`
    bool below;                   // true: must stay under the limit; false: must reach it
    double (*measure)(const Run&);  // the SI figure (seconds, or per second) of one run
};

double seconds_per_unit(const Run& run) { return 1.0 / benchmark::GetTimeUnitMultiplier(run.time_unit); }
double cpu_seconds(const Run& run) { return run.GetAdjustedCPUTime() * seconds_per_unit(run); }
double real_seconds(const Run& run) { return run.GetAdjustedRealTime() * seconds_per_unit(run); }
double candidates_per_second(const Run& run) {
    const auto counter = run.counters.find("candidates_per_second");
    return counter == run.counters.end() ? 0.0 : counter->second.value;
}

const Target kTargets[] = {
    {"BM_Evaluate", "CPU time of one evaluate()", "us", 1e6, 20, true, cpu_seconds},
    {"BM_EvaluateQlora", "CPU time of one fine-tune evaluate()", "us", 1e6, 20, true, cpu_seconds},
    {"BM_Plan", "CPU time of one 405B search", "ms", 1e3, 16, true, cpu_seconds},
    {"BM_Plan", "candidates per second", "M/s", 1e-6, 25, false, candidates_per_second},
    {"BM_FrameAllPanels", "CPU time of one frame", "ms", 1e3, 2, true, cpu_seconds},
    {"BM_ExportAll", "wall time of export all", "s", 1, 3, true, real_seconds},
    {"BM_SizeCluster", "CPU time of the 7B sizing, one thread", "s", 1, 2, true, cpu_seconds},
    {"BM_MemoryTimeline", "CPU time of the 405B timeline", "ms", 1e3, 1, true, cpu_seconds},
};

// Prints the usual console table and keeps, per benchmark, the median run (or the only one) for the summary.
class TargetReporter : public benchmark::ConsoleReporter {
public:
    using benchmark::ConsoleReporter::ConsoleReporter;

    void ReportRuns(const std::vector<Run>& runs) override {
        benchmark::ConsoleReporter::ReportRuns(runs);
        for (const Run& run : runs) {
            const bool is_median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            const bool is_single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
            if (is_median || is_single || run.error_occurred) results_[run.run_name.function_name] = run;
        }
    }

    void Finalize() override {
        benchmark::ConsoleReporter::Finalize();
        std::ostream& out = GetOutputStream();
        out << "\nTargets: the median when run with --benchmark_repetitions, else the one run\n";
        char line[256];
        for (const Target& target : kTargets) {
            const auto found = results_.find(target.benchmark);
            std::string verdict;
            std::string figure = "-";
            if (found == results_.end()) verdict = "not run";
            else if (found->second.error_occurred) verdict = "skipped: " + found->second.error_message;
            else {
                const double value = target.measure(found->second) * target.per_si_unit;
                std::snprintf(line, sizeof line, "%.3g %s", value, target.unit);
                figure = line;
                verdict = (target.below ? value < target.limit : value >= target.limit) ? "met" : "MISSED";
            }
            std::snprintf(line, sizeof line, "  %-18s %-28s %12s   target %s %g %-3s  %s\n", target.benchmark, target.figure,
                          figure.c_str(), target.below ? "< " : ">=", target.limit, target.unit, verdict.c_str());
            out << line;
        }
    }

    // A benchmark that skipped with an error (no display, export failed) fails the smoke run in CI.
    bool any_error() const {
        for (const auto& [name, run] : results_) if (run.error_occurred) return true;
        return false;
    }

private:
    std::map<std::string, Run> results_;
};

bool asks_for_other_format(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    const bool other_format = asks_for_other_format(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    bool failed = false;
    if (other_format) {
        benchmark::RunSpecifiedBenchmarks();
    } else {
        TargetReporter reporter(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular);
        benchmark::RunSpecifiedBenchmarks(&reporter);
        failed = reporter.any_error();
    }
    benchmark::Shutdown();
    return failed ? 1 : 0;
}
