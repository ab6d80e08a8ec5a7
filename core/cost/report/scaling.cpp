#include "core/cost/report/scaling.h"

#include "core/cost/report/evaluate.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <algorithm>

namespace core {

const char* scaling_mode_name(ScalingMode mode) { return mode == ScalingMode::weak ? "weak" : "strong"; }

const char* scaling_wall_name(ScalingWall wall) {
    switch (wall) {
        case ScalingWall::none: return "none";
        case ScalingWall::tp: return "exposed TP communication";
        case ScalingWall::cp: return "exposed CP communication";
        case ScalingWall::pp: return "exposed PP communication";
        case ScalingWall::dp: return "exposed DP communication";
        case ScalingWall::ep: return "exposed EP communication";
        case ScalingWall::bubble: return "the pipeline bubble";
        case ScalingWall::stragglers: return "waiting for stragglers";
        case ScalingWall::host: return "the host's kernel launches";
    }
    return "?";
}

namespace {

// The largest divisor of n that is at most cap: the micro-batch a replica's share of the batch splits into.
int largest_divisor_within(int n, int cap) {
    for (int d = std::min(n, cap); d > 1; --d) {
        if (n % d == 0) return d;
    }
    return 1;
}

void fill_point(ScalingPoint& point, const Report& report) {
    const ComputeReport& compute = report.compute;
    const StepBreakdown& parts = compute.breakdown_seconds;
    point.fits = report.memory.fits;
    point.feasible = point.fits;
    if (!point.fits) point.reason = "the peak per GPU, " + format_bytes(report.memory.per_gpu.peak_bytes) + ", exceeds HBM";
    point.step_seconds = compute.step_seconds;
    point.mfu = compute.mfu;
    point.tokens_per_s = compute.tokens_per_step / compute.step_seconds;
    point.tokens_per_s_per_gpu = point.tokens_per_s / point.gpus;
    point.compute_seconds = compute.compute_seconds;
    std::copy(std::begin(parts.exposed_comm_seconds), std::end(parts.exposed_comm_seconds), std::begin(point.exposed_comm_seconds));
    point.bubble_seconds = parts.bubble_seconds;
    point.straggler_seconds = parts.straggler_seconds;
    point.host_seconds = parts.host_seconds;
    const std::pair<ScalingWall, double> overheads[] = {
        {ScalingWall::tp, parts.exposed_comm_seconds[static_cast<int>(CommAxis::tp)]},
        {ScalingWall::cp, parts.exposed_comm_seconds[static_cast<int>(CommAxis::cp)]},
        {ScalingWall::pp, parts.exposed_comm_seconds[static_cast<int>(CommAxis::pp)]},
        {ScalingWall::dp, parts.exposed_comm_seconds[static_cast<int>(CommAxis::dp)]},
        {ScalingWall::ep, parts.exposed_comm_seconds[static_cast<int>(CommAxis::ep)]},
        {ScalingWall::bubble, parts.bubble_seconds},
        {ScalingWall::stragglers, parts.straggler_seconds},
        {ScalingWall::host, parts.host_seconds},
    };
    for (const auto& [wall, seconds] : overheads) {
        if (seconds > point.largest_overhead_seconds) {
            point.largest_overhead = wall;
            point.largest_overhead_seconds = seconds;
        }
    }
}

std::string curve_sentence(const ScalingCurve& curve) {
    const auto feasible = std::count_if(curve.points.begin(), curve.points.end(), [](const ScalingPoint& p) { return p.feasible; });
    if (feasible == 0) return "No GPU count up to the sweep's end has a layout that fits.";
    const std::string batch = curve.mode == ScalingMode::strong
                                  ? "the global batch held at " + format_grouped(curve.points.front().global_batch) + " sequences"
                                  : format_grouped(curve.per_replica_batch) + " sequences per replica";
    const ScalingPoint* last = nullptr;
    for (const ScalingPoint& point : curve.points) if (point.feasible) last = &point;
    const std::string end = format_grouped(last->gpus) + " GPUs reach " + format_percent(last->scaling_efficiency) + " of linear scaling";
    if (curve.wall_point < 0) {
        return std::string(curve.mode == ScalingMode::strong ? "Strong" : "Weak") + " scaling, " + batch + ": the compute sets the step at every point; " + end + ".";
    }
    const ScalingPoint& wall = curve.points[curve.wall_point];
    return std::string(curve.mode == ScalingMode::strong ? "Strong" : "Weak") + " scaling, " + batch + ": from " + format_grouped(wall.gpus) +
           " GPUs on, " + scaling_wall_name(curve.wall) + " (" + format_seconds(wall.largest_overhead_seconds) + ") takes longer than the compute (" +
           format_seconds(wall.compute_seconds) + "); " + end + ".";
}

}  // namespace

ScalingCurve scaling_curve(const Scenario& scenario, ScalingMode mode, int max_gpus) {
    ScalingCurve curve;
    curve.mode = mode;
    const ParallelSpec& parallel = scenario.parallel;
    curve.model_parallel_gpus = parallel.tp * parallel.pp * parallel.cp;
    const int scenario_dp = std::max(1, data_parallel_degree(scenario));
    curve.per_replica_batch = std::max(1, scenario.train.global_batch / scenario_dp);
    double first_tokens_per_s_per_gpu = 0;
    // Doublings of the scenario's own data-parallel degree's odd part (384 = 3 x 2^7: 3, 6, ..., 384, 768, ...), so the
    // scenario's point is on the curve.
    long long first_dp = scenario_dp;
    while (first_dp % 2 == 0) first_dp /= 2;
    for (long long dp = first_dp; 1LL * dp * curve.model_parallel_gpus <= max_gpus && curve.points.size() < 15; dp *= 2) {
        ScalingPoint point;
        point.dp = static_cast<int>(dp);
        point.gpus = static_cast<int>(dp * curve.model_parallel_gpus);
        point.global_batch = mode == ScalingMode::strong ? scenario.train.global_batch : static_cast<int>(curve.per_replica_batch * dp);
        Scenario at = scenario;
        at.parallel.dp = point.dp;
        at.cluster.gpus = point.gpus;
        at.train.global_batch = point.global_batch;
        at.train.global_batch_fitted = false;
        if (point.global_batch % point.dp != 0) {
            point.reason = "train.global_batch: " + format_grouped(point.global_batch) + " sequences do not divide over " +
                           format_grouped(point.dp) + " replicas";
            curve.points.push_back(point);
            continue;
        }
        point.micro_batch = largest_divisor_within(point.global_batch / point.dp, scenario.train.micro_batch);
        at.train.micro_batch = point.micro_batch;
        if (const auto problem = check_layout(at, layout_of(at))) {
            point.reason = problem->field + ": " + problem->reason;
            curve.points.push_back(point);
            continue;
        }
        try {
            fill_point(point, evaluate(at));
        } catch (const InputError& error) {
            point.reason = error.what();
        }
        if (point.feasible && first_tokens_per_s_per_gpu == 0) first_tokens_per_s_per_gpu = point.tokens_per_s_per_gpu;
        if (point.feasible) {
            point.ideal_tokens_per_s = first_tokens_per_s_per_gpu * point.gpus;
            point.scaling_efficiency = point.tokens_per_s / point.ideal_tokens_per_s;
            if (curve.wall_point < 0 && point.largest_overhead_seconds > point.compute_seconds) {
                curve.wall_point = static_cast<int>(curve.points.size());
                curve.wall = point.largest_overhead;
            }
        }
        curve.points.push_back(point);
    }
    curve.sentence = curve_sentence(curve);
    return curve;
}

}  // namespace core
