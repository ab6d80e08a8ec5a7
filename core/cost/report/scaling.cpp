#include "core/cost/report/scaling.h"

#include "core/cost/report/evaluate.h"
#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <nlohmann/json.hpp>

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
    const std::string mode_name = curve.mode == ScalingMode::strong ? "Strong" : "Weak";
    if (feasible == 1) {
        return mode_name + " scaling, " + batch + ": only " + format_grouped(last->gpus) + " GPUs have a layout that fits, so there is no curve to read.";
    }
    const std::string end = format_grouped(last->gpus) + " GPUs reach " + format_percent(last->scaling_efficiency) + " of linear scaling";
    if (curve.wall_point < 0) {
        return mode_name + " scaling, " + batch + ": the compute sets the step at every point; " + end + ".";
    }
    const ScalingPoint& wall = curve.points[curve.wall_point];
    return mode_name + " scaling, " + batch + ": from " + format_grouped(wall.gpus) +
           " GPUs on, " + scaling_wall_name(curve.wall) + " (" + format_seconds(wall.largest_overhead_seconds) + ") takes longer than the compute (" +
           format_seconds(wall.compute_seconds) + "); " + end + ".";
}

PublishedSweep read_sweep(const nlohmann::json& object, const std::string& path) {
    JsonObjectReader reader(object, path);
    PublishedSweep sweep;
    sweep.id = reader.string("id").value_or("");
    sweep.name = reader.string("name").value_or(sweep.id);
    sweep.source = reader.string("source").value_or("");
    if (reader.string("mode").value_or("strong") == "weak") sweep.mode = ScalingMode::weak;
    JsonObjectReader match(reader.raw("match"), path + ".match");
    sweep.layers = static_cast<int>(match.integer("layers", 1, 100000).value_or(0));
    sweep.hidden = static_cast<int>(match.integer("hidden", 1, 10000000).value_or(0));
    sweep.tp = static_cast<int>(match.integer("tp", 1, 100000).value_or(1));
    sweep.pp = static_cast<int>(match.integer("pp", 1, 100000).value_or(1));
    sweep.zero = static_cast<int>(match.integer("zero", 0, 3).value_or(-1));
    sweep.global_batch = static_cast<int>(match.integer("global_batch", 1, 100000000).value_or(0));
    sweep.gpu = match.string("gpu").value_or("");
    sweep.framework = match.string("framework").value_or("");
    match.reject_unknown_keys();
    const nlohmann::json& points = reader.raw("points");
    if (!points.is_array()) throw InputError(path + ".points", "must be an array");
    for (std::size_t i = 0; i < points.size(); ++i) {
        JsonObjectReader point(points[i], path + ".points[" + std::to_string(i) + "]");
        PublishedSweepPoint p;
        p.gpus = static_cast<int>(point.integer("gpus", 1, 100000000).value_or(0));
        p.tokens_per_s_per_gpu = point.number("tokens_per_s_per_gpu", 1e-6, 1e12).value_or(0);
        point.reject_unknown_keys();
        sweep.points.push_back(p);
    }
    reader.reject_unknown_keys();
    return sweep;
}

}  // namespace

const std::vector<PublishedSweep>& published_sweeps() {
    static const std::vector<PublishedSweep> sweeps = [] {
        std::vector<PublishedSweep> out;
        const nlohmann::json root = parse_json_text(embedded_asset("published_sweeps.json"), "published_sweeps");
        JsonObjectReader reader(root, "published_sweeps");
        reader.string("_about");
        const nlohmann::json& list = reader.raw("sweeps");
        for (std::size_t i = 0; i < list.size(); ++i) out.push_back(read_sweep(list[i], "published_sweeps.sweeps[" + std::to_string(i) + "]"));
        reader.reject_unknown_keys();
        return out;
    }();
    return sweeps;
}

const PublishedSweep* matching_sweep(const Scenario& scenario, ScalingMode mode) {
    for (const PublishedSweep& sweep : published_sweeps()) {
        const bool matches = sweep.mode == mode && scenario.model.layers == sweep.layers && scenario.model.hidden == sweep.hidden &&
                             scenario.parallel.tp == sweep.tp && scenario.parallel.pp == sweep.pp &&
                             (sweep.zero < 0 || scenario.parallel.zero == sweep.zero) &&
                             (sweep.global_batch == 0 || scenario.train.global_batch == sweep.global_batch) &&
                             (sweep.gpu.empty() || scenario.cluster.gpu.id == sweep.gpu) &&
                             (sweep.framework.empty() || framework_name(scenario.train.framework) == sweep.framework);
        if (matches) return &sweep;
    }
    return nullptr;
}

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
    curve.published = matching_sweep(scenario, mode);
    return curve;
}

}  // namespace core
