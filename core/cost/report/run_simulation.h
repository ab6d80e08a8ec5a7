#pragma once
// A whole training run, simulated: failures drawn from the scenario's failure table (core/model/failures.h), the
// checkpoints of its mode, restarts, spares and repairs, elastic shrinking, rollbacks after silent corruption and slow
// hosts drained. Deterministic for a seed; its expected figures meet the closed form of reliability.h where that holds
// (a pool of free nodes, no waiting for repairs), and its spread over many seeds is what the closed form cannot give.
#include "core/cost/report/report.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

// What the cluster is doing at a moment of the run.
enum class RunActivity { training, checkpoint, lost_work, restart, waiting, drained };
constexpr int kRunActivities = 6;
const char* run_activity_name(RunActivity);  // "training", "checkpoint stalls", ...

// Everything the simulation reads, from the scenario and its report, once.
struct RunPlan {
    FailureTable table;
    std::vector<double> cause_rate_per_second;  // each cause's interruptions per second of wall time
    double rate_per_second = 0;                 // their sum: 1 / the job's MTBF
    double train_seconds = 0;                   // failure-free training time
    double interval_seconds = 0;                // work between checkpoints
    double stall_seconds = 0;                   // the step's wait per checkpoint
    double durable_lag_seconds = 0;             // after the stall, until the checkpoint survives a failure
    double restart_seconds = 0;                 // detection, rescheduling, initialisation and loading the checkpoint
    std::optional<int> spare_nodes;             // none: the building's free pool
    double repair_seconds = 0;                  // a replaced node's return
    bool elastic = false;
    int replicas = 1;                           // data-parallel replicas: an elastic job loses one per node it cannot replace
    ReliabilityReport closed_form;              // eval's reliability figures for the same inputs
};

RunPlan run_plan(const Scenario&, const Report&);

// One stretch of the run's wall time doing one thing.
struct RunSegment {
    double start_seconds = 0;
    double end_seconds = 0;
    RunActivity activity = RunActivity::training;
    int cause = -1;  // for lost work, restarts and waits: the table's cause that brought them
};

struct RunResult {
    bool finished = false;              // false: the window (or a run that makes no progress) ended it first
    double wall_seconds = 0;            // until the training finished, or the window
    double work_seconds = 0;            // failure-free training done and kept
    double activity_seconds[kRunActivities] = {};  // wall time by activity; they sum to wall_seconds
    int interruptions = 0;
    std::vector<int> interruptions_by_cause;        // per table cause
    double goodput = 0;                 // useful training (work kept) over wall time
    std::vector<RunSegment> segments;   // in order, when kept
};

// seed: the run's draws; window_seconds > 0 stops the run there (a snapshot like Llama 3's 54 days);
// keep_segments: the timeline for a panel or --csv, otherwise only the totals.
RunResult simulate_run(const RunPlan&, std::uint64_t seed, double window_seconds = 0, bool keep_segments = false);

struct RunSpread {
    double p10 = 0, p50 = 0, p90 = 0, mean = 0;
};

struct RunDistribution {
    int runs = 0;
    RunSpread wall_days, interruptions, goodput;
    std::vector<double> mean_interruptions_by_cause;
};

// Runs seeds seed, seed + 1, ... seed + runs - 1.
RunDistribution simulate_runs(const RunPlan&, std::uint64_t seed, int runs, double window_seconds = 0);

// The run in one sentence, for the command line, the panel and the lesson: what one seeded run did and the spread
// over the distribution's runs, beside the closed form. window_seconds as given to the simulation.
std::string run_sentence(const RunPlan&, const RunResult&, const RunDistribution&, double window_seconds);
// The run's figures as the panel lists them, label and value with its unit: goodput, interruptions, each activity's
// wall time, the checkpoint and restart the plan takes, and the three causes that struck most.
struct RunFigure {
    std::string label, value;
};
std::vector<RunFigure> run_figures(const RunPlan&, const RunResult&, const RunDistribution&);

// Interruptions the table expects over wall_seconds, by cause (rate x time): the closed form's count.
std::vector<double> expected_interruptions(const RunPlan&, double wall_seconds);

// A run's wall time as whole days, each split into its activities' shares (a timeline of days for the panel).
struct RunDay {
    double activity_share[kRunActivities] = {};
};
std::vector<RunDay> run_days(const RunResult&);
// Days taken days_per_bin at a time, each bin's shares the mean of its days (a long run drawn in a narrow chart).
std::vector<RunDay> binned_days(const std::vector<RunDay>& days, int days_per_bin);

// Everything the run panel draws and a lesson caption quotes, computed once the same way for both: the run of the
// scenario's operations.run_seed with its segments, the spread over `runs` seeds from it, its days, sentence and
// figures, over its operations.window_days (0: the whole run).
struct RunView {
    RunPlan plan;
    RunResult run;
    RunDistribution spread;
    std::vector<RunDay> days;
    std::string sentence;
    std::vector<RunFigure> figures;
};
constexpr int kRunsInSpread = 100;
RunView run_view(const Scenario&, const Report&, int runs = kRunsInSpread);

}  // namespace core
