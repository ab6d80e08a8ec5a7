#pragma once
// Failures and checkpoints at scale (published.md sec 8): cluster MTBF, checkpoint cost, Young's and Daly's
// optimal intervals, and the expected goodput of a run that checkpoints, fails and restarts.
//
// Goodput model (first order, independent failures at rate 1/M per second of wall time):
//   a cycle is tau seconds of work then a checkpoint of delta seconds;
//   each failure costs the restart R plus, on average, half a cycle (tau + delta) / 2 of lost work;
//   lost share f = (R + (tau + delta) / 2) / M, and goodput = (1 - f) x tau / (tau + delta).
// Minimising delta/(tau + delta) + (tau + delta)/(2M) gives tau = sqrt(2 delta M) - delta: Daly's first-order
// interval, so Young's and Daly's optima sit at or near the best goodput of this model.

#include "core/model/scenario.h"

namespace core {

struct ReliabilityInputs {
    double gpu_mtbf_seconds = 50000.0 * 3600.0;  // one GPU's mean time between failures
    double gpus = 1;                             // failures of any GPU stop the synchronous job
    double checkpoint_bytes = 0;                 // what one checkpoint writes
    double checkpoint_bytes_per_s = 100e9;       // aggregate write bandwidth to storage
    double restart_seconds = 600;                // detect, reschedule, reload after a failure
    double interval_seconds = 0;                 // work between checkpoints; 0 = Daly's optimum
    double train_seconds = 0;                    // failure-free training time, for failures and wall time
    double checkpoint_stall_seconds = -1;        // what the step waits per checkpoint; < 0: bytes / bandwidth (synchronous)
    double durable_lag_seconds = 0;              // after the stall, until the checkpoint survives a failure (a background write)
    double planned_share = 0;                    // of interruptions, planned ones: the job checkpoints first and loses no work
    double extra_loss_seconds = 0;               // mean work lost per interruption beyond the last checkpoint (a late-caught fault)
};

struct ReliabilityReport {
    double cluster_mtbf_seconds = 0;     // M = GPU MTBF / GPUs
    double checkpoint_bytes = 0;
    double checkpoint_seconds = 0;       // delta: the step's stall per checkpoint (bytes / bandwidth when synchronous)
    double young_interval_seconds = 0;   // sqrt(2 delta M)
    double daly_interval_seconds = 0;    // Daly 2006: higher-order correction of Young
    double interval_seconds = 0;         // the interval the goodput assumes (given, else Daly's)
    double checkpoint_share = 0;         // of wall time, writing checkpoints
    double rework_share = 0;             // of wall time, redoing work lost since the last checkpoint
    double restart_share = 0;            // of wall time, restarting after failures
    double goodput = 0;                  // of wall time, useful training; the four shares sum to 1
    bool makes_progress = false;         // false when failures come faster than a cycle and a restart
    double wall_seconds = 0;             // train_seconds / goodput (0 when no progress is made)
    double expected_failures = 0;        // over wall_seconds (0 when no progress is made)
};

// M = gpu_mtbf / gpus: independent failures, and any one of them stops the job.
double cluster_mtbf_seconds(double gpu_mtbf_seconds, double gpus);
// delta = bytes / bandwidth.
double checkpoint_seconds(double checkpoint_bytes, double bytes_per_s);
// Young 1974: tau = sqrt(2 delta M).
double young_interval_seconds(double checkpoint_seconds, double mtbf_seconds);
// Daly 2006: tau = sqrt(2 delta M) [1 + 1/3 sqrt(delta/(2M)) + 1/9 (delta/(2M))] - delta for delta < 2M, else M.
double daly_interval_seconds(double checkpoint_seconds, double mtbf_seconds);
// The goodput model above for one interval; returns the useful share of wall time in [0, 1].
double expected_goodput(double interval_seconds, double checkpoint_seconds, double mtbf_seconds, double restart_seconds);

// Validates (throws InputError naming "reliability.<field>") and computes every figure.
ReliabilityReport reliability(const ReliabilityInputs&);

// The inputs a scenario gives, once for eval's closed form and the simulated run (core/cost/report/run_simulation.h):
// the MTBF from its failure table, the stall and the background write of its checkpoint mode, and the restart with
// the checkpoint's load. checkpoint_bytes is the state one checkpoint holds; train_seconds the failure-free run.
ReliabilityInputs reliability_inputs(const Scenario& scenario, double checkpoint_bytes, double train_seconds);
// The failure table a scenario runs with: its own, or every GPU at operations.gpu_mtbf_hours.
FailureTable scenario_failure_table(const Scenario& scenario);
// Seconds to read a checkpoint back after a failure: from storage, or from a peer's memory in in-memory mode.
double checkpoint_load_seconds(const Scenario& scenario, double checkpoint_bytes);

}  // namespace core
