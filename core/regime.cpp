#include "core/regime.h"

#include "core/errors.h"
#include "core/evaluate.h"
#include "core/format.h"

#include <algorithm>
#include <cmath>

namespace core {

const char* wall_name(Wall wall) {
    switch (wall) {
        case Wall::memory: return "memory";
        case Wall::time: return "time";
        case Wall::serving: return "serving";
    }
    return "?";
}

Wall binding_wall(double memory_fraction, double compute_fraction, double bandwidth_fraction) {
    if (memory_fraction >= compute_fraction && memory_fraction >= bandwidth_fraction) return Wall::memory;
    if (compute_fraction >= bandwidth_fraction) return Wall::time;
    return Wall::serving;
}

namespace {

std::string times(double fraction) { return format_number(fraction) + "x"; }

std::string layout_of(const Report& report) {
    return "dp " + std::to_string(report.layout.dp) + " x tp " + std::to_string(report.layout.tp) + " x pp " +
           std::to_string(report.layout.pp) + (report.layout.cp > 1 ? " x cp " + std::to_string(report.layout.cp) : std::string()) +
           ", ZeRO-" + std::to_string(report.layout.zero);
}

// The scenario's layout with pipeline stages halved until the preset has a layer for each: the nearest layout that can hold it.
Scenario fewer_stages(Scenario scenario) {
    ParallelSpec& parallel = scenario.parallel;
    while (parallel.pp > 1 && parallel.pp * parallel.virtual_stages > scenario.model.layers) parallel.pp /= 2;
    while (parallel.virtual_stages > 1 && parallel.pp * parallel.virtual_stages > scenario.model.layers) parallel.virtual_stages /= 2;
    return scenario;
}

// Pure data parallelism over the whole cluster: the layout every preset can take when the scenario's cannot hold it.
Scenario data_parallel_only(Scenario scenario) {
    ParallelSpec& parallel = scenario.parallel;
    parallel.dp = 0;
    parallel.tp = 1;
    parallel.pp = 1;
    parallel.cp = 1;
    parallel.schedule = ScheduleKind::one_f_one_b;
    parallel.virtual_stages = 1;
    return scenario;
}

}  // namespace

RegimePoint regime_point(const Scenario& scenario, const Report& report) {
    RegimePoint point;
    point.model_id = scenario.model.id;
    point.model_name = scenario.model.name;
    point.params = report.memory.params;
    point.layout = layout_of(report);

    const MemoryReport& memory = report.memory;
    point.memory_fraction = memory.per_gpu.total_bytes / memory.hbm_bytes;
    point.memory_formula = format_bytes(memory.per_gpu.total_bytes) + " per GPU (" + point.layout + ") / " + format_bytes(memory.hbm_bytes) +
                           " HBM = " + times(point.memory_fraction);

    const double deadline_seconds = scenario.train.deadline_days * 86400.0;
    point.compute_fraction = report.compute.train_seconds / deadline_seconds;
    point.compute_formula = format_count(scenario.train.tokens) + " tokens on " + std::to_string(report.layout.gpus) + " GPUs take " +
                            format_seconds(report.compute.train_seconds) + " (" + report.compute.step_basis + ") / " +
                            format_seconds(deadline_seconds) + " deadline = " + times(point.compute_fraction);

    // One decode step of the replica's batch reads every weight and the batch's KV cache once, and yields one token per sequence.
    const ServingSpec& serving = scenario.serving;
    const double bytes_per_step = memory.inference_weight_bytes + memory.kv_cache_bytes;
    const double bytes_per_token = bytes_per_step / serving.batch;
    const double target_tokens_per_s = serving.target_qps * serving.output_tokens;
    const double hbm_bytes_per_s = scenario.cluster.gpu.hbm_bytes_per_s;
    point.bandwidth_fraction = bytes_per_token * target_tokens_per_s / hbm_bytes_per_s;
    point.bandwidth_formula = "(" + format_bytes(memory.inference_weight_bytes) + " weights + " + format_bytes(memory.kv_cache_bytes) +
                              " KV cache) / batch " + std::to_string(serving.batch) + " = " + format_bytes(bytes_per_token) +
                              " read per token; x " + format_number(target_tokens_per_s) + " tokens/s (" +
                              format_number(serving.target_qps) + " queries/s x " + std::to_string(serving.output_tokens) + " tokens) / " +
                              format_bandwidth(hbm_bytes_per_s) + " HBM = " + times(point.bandwidth_fraction);

    point.binding_wall = binding_wall(point.memory_fraction, point.compute_fraction, point.bandwidth_fraction);
    point.binding_fraction = std::max({point.memory_fraction, point.compute_fraction, point.bandwidth_fraction});
    return point;
}

Scenario scenario_with_preset(const Scenario& scenario, const ModelSpec& preset) {
    Scenario result = scenario;
    result.model = preset;
    result.train.seq_len = preset.default_seq_len;
    result.parallel.tp = std::min(result.parallel.tp, preset.heads);
    while (preset.heads % result.parallel.tp != 0) result.parallel.tp /= 2;
    // A measured step time belongs to the model it was measured on.
    if (preset.id != scenario.model.id) result.efficiency.step_seconds.reset();
    return result;
}

RegimeCube regime_cube(const Scenario& scenario) {
    RegimeCube cube;
    cube.gpu_name = scenario.cluster.gpu.name;
    for (const ModelSpec& preset : builtin_models()) {
        const Scenario with_preset = scenario_with_preset(scenario, preset);
        std::string first_error;
        for (const Scenario& candidate : {with_preset, fewer_stages(with_preset), data_parallel_only(with_preset)}) {
            try {
                RegimePoint point = regime_point(candidate, evaluate(candidate));
                if (!first_error.empty()) point.layout_note = "evaluated as " + point.layout + " because " + first_error;
                cube.points.push_back(point);
                first_error.clear();
                break;
            } catch (const InputError& error) {
                if (first_error.empty()) first_error = error.what();
            }
        }
        if (!first_error.empty()) cube.unplaced.push_back(preset.name + ": " + first_error);
    }
    try {
        RegimePoint current = regime_point(scenario, evaluate(scenario));
        current.is_current = true;
        cube.points.push_back(current);
    } catch (const InputError& error) {
        cube.unplaced.push_back(scenario.model.name + " (this scenario): " + error.what());
    }

    // Whole decades around every finite fraction and 1.0, at most six either side so the tick labels stay legible.
    double low = 0, high = 0;
    for (const RegimePoint& point : cube.points) {
        for (double fraction : {point.memory_fraction, point.compute_fraction, point.bandwidth_fraction}) {
            if (!(fraction > 0) || !std::isfinite(fraction)) continue;
            low = std::min(low, std::floor(std::log10(fraction)));
            high = std::max(high, std::ceil(std::log10(fraction)));
        }
    }
    cube.log10_min = std::max(low, -6.0);
    cube.log10_max = std::min(std::max(high, cube.log10_min + 1.0), 6.0);
    for (double decade = cube.log10_min; decade <= cube.log10_max + 0.5; decade += 1.0) cube.ticks.push_back(std::pow(10.0, decade));
    return cube;
}

double regime_axis_position(double fraction, double log10_min, double log10_max) {
    if (!(log10_max > log10_min)) throw InputError("regime.log10_max", "must be greater than log10_min");
    if (!(fraction > 0)) return 0.0;  // nothing needed: the low corner
    if (!std::isfinite(fraction)) return 1.0;
    return std::clamp((std::log10(fraction) - log10_min) / (log10_max - log10_min), 0.0, 1.0);
}

}  // namespace core
