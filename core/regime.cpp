#include "core/regime.h"

#include "core/errors.h"
#include "core/evaluate.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

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
    const WallsReport walls = walls_of(scenario, report);
    const Wall& memory = walls.walls[static_cast<int>(WallKind::memory)];
    const Wall& time = walls.walls[static_cast<int>(WallKind::time)];
    const Wall& serving = walls.walls[static_cast<int>(WallKind::serving)];
    RegimePoint point;
    point.model_id = scenario.model.id;
    point.model_name = scenario.model.name;
    point.params = report.memory.params;
    point.layout = layout_of(report);
    point.memory_fraction = memory.fraction;
    point.compute_fraction = time.fraction;
    // Tokens/s asked over tokens/s one replica decodes = decode bytes/s asked over HBM bandwidth: the same ratio.
    point.bandwidth_fraction = serving.fraction;
    point.memory_formula = memory.formula;
    point.compute_formula = time.formula;
    point.bandwidth_formula = serving.formula;
    const Wall& binding = walls.walls[walls.binding];
    point.binding_wall = binding.kind;
    point.binding_fraction = binding.fraction;
    point.binding_title = binding.title;
    return point;
}

Scenario scenario_with_preset(const Scenario& scenario, const ModelSpec& preset) {
    return with_model(scenario, preset);  // the same rule as picking the preset in the sidebar
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
