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

namespace core {

struct ReliabilityInputs {
    double gpu_mtbf_seconds = 50000.0 * 3600.0;  // one GPU's mean time between failures
    double gpus = 1;                             // failures of any GPU stop the synchronous job
    double checkpoint_bytes = 0;                 // what one checkpoint writes
    double checkpoint_bytes_per_s = 100e9;       // aggregate write bandwidth to storage
    double restart_seconds = 600;                // detect, reschedule, reload after a failure
    double interval_seconds = 0;                 // work between checkpoints; 0 = Daly's optimum
    double train_seconds = 0;                    // failure-free training time, for failures and wall time
};

struct ReliabilityReport {
    double cluster_mtbf_seconds = 0;     // M = GPU MTBF / GPUs
    double checkpoint_bytes = 0;
    double checkpoint_seconds = 0;       // delta = bytes / bandwidth
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

}  // namespace core
