#pragma once
// Scaling: the scenario's step, MFU, throughput and each overhead against the GPU count (seed lessons 02 and 05: "add GPUs
// until the all-reduce stops scaling"). The model parallel layout (TP x PP x CP, EP, ZeRO) stays; data parallelism grows
// by doubling. Strong scaling holds the global batch (each replica's share shrinks); weak scaling holds each replica's.
#include "core/cost/kernels/comm.h"
#include "core/model/scenario.h"

#include <string>
#include <vector>

namespace core {

enum class ScalingMode { strong, weak };
const char* scaling_mode_name(ScalingMode);  // "strong", "weak"

// What sets a point's step beyond its compute: the largest of these takes over where it exceeds the compute.
enum class ScalingWall { none, tp, cp, pp, dp, ep, bubble, stragglers, host };
const char* scaling_wall_name(ScalingWall);  // "exposed DP communication", "the pipeline bubble", ...

struct ScalingPoint {
    int gpus = 0;
    int dp = 0;
    int micro_batch = 0;
    int global_batch = 0;                   // sequences per step
    bool feasible = false;                  // false: no such layout (reason) or the model does not fit (fits)
    std::string reason;                     // the layout rule it breaks, e.g. "train.global_batch: ..."
    bool fits = true;                       // the peak fits in HBM
    double step_seconds = 0;                // the modelled step, held to the published ceiling as evaluate holds it
    double mfu = 0;
    double tokens_per_s = 0;                // the whole cluster
    double tokens_per_s_per_gpu = 0;
    double ideal_tokens_per_s = 0;          // the first feasible point's throughput per GPU times this point's GPUs
    double scaling_efficiency = 0;          // tokens_per_s over the ideal
    double compute_seconds = 0;             // the busiest GPU's kernels
    double exposed_comm_seconds[kCommAxes] = {};  // by CommAxis
    double bubble_seconds = 0;
    double straggler_seconds = 0;
    double host_seconds = 0;
    ScalingWall largest_overhead = ScalingWall::none;
    double largest_overhead_seconds = 0;
};

// A published scaling sweep (assets/published_sweeps.json): one model and layout at several GPU counts, as its source gives.
struct PublishedSweepPoint {
    int gpus = 0;
    double tokens_per_s_per_gpu = 0;
};
struct PublishedSweep {
    std::string id, name, source;
    ScalingMode mode = ScalingMode::strong;
    int layers = 0, hidden = 0, tp = 1, pp = 1, zero = -1, global_batch = 0;  // what a scenario must have to match; zero -1: any
    std::string gpu, framework;                  // empty: any
    std::vector<PublishedSweepPoint> points;
};
const std::vector<PublishedSweep>& published_sweeps();
// The sweep the scenario is a point of, for this mode (its model's shape, GPU, framework, ZeRO stage, TP, PP, batch), or null.
const PublishedSweep* matching_sweep(const Scenario&, ScalingMode);

struct ScalingCurve {
    ScalingMode mode = ScalingMode::strong;
    int model_parallel_gpus = 1;            // tp x pp x cp: the GPUs one replica takes
    int per_replica_batch = 0;              // weak scaling: sequences per replica per step
    std::vector<ScalingPoint> points;       // every doubling of dp up to max_gpus, feasible or not
    int wall_point = -1;                    // the first feasible point where one overhead exceeds the compute; -1: none
    ScalingWall wall = ScalingWall::none;
    std::string sentence;                   // the figure's sentence: where the wall takes over, or that none does
    const PublishedSweep* published = nullptr;  // the published sweep the scenario matches, drawn beside the curve
};

// At most 15 points: dp doubles from the odd part of the scenario's own (1, 2, 4, ...; 3, 6, ..., 384, 768, ...) while the
// GPUs stay within max_gpus. Each point is evaluated once.
ScalingCurve scaling_curve(const Scenario&, ScalingMode, int max_gpus = 16384);

}  // namespace core
