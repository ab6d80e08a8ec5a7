#include "core/lessons/regime.h"

#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

// Pure data parallelism over the whole cluster: the layout every preset can take when the scenario's cannot hold it.
Edit data_parallel_only(const Scenario& scenario) {
    Layout layout = layout_of(scenario);
    layout.tp = layout.pp = layout.cp = 1;
    layout.dp = scenario.cluster.gpus;
    layout.schedule = ScheduleKind::one_f_one_b;
    layout.virtual_stages = 1;
    Edit edit = with_layout(scenario, layout);
    edit.scenario.efficiency = scenario.efficiency;
    return edit;
}

std::string joined(const std::vector<std::string>& notes) {
    std::string text;
    for (const std::string& note : notes) text += (text.empty() ? "" : "; ") + note;
    return text;
}

}  // namespace

RegimePoint regime_point(const Scenario& scenario, const Report& report) {
    // The cube places every model on all three axes, so its service is asked whether or not the scenario names one.
    Scenario asking = scenario;
    asking.serving.asked = true;
    const WallsReport walls = walls_of(asking, report);
    const Wall& memory = walls.walls[static_cast<int>(WallKind::memory)];
    const Wall& time = walls.walls[static_cast<int>(WallKind::time)];
    const Wall& serving = walls.walls[static_cast<int>(WallKind::serving)];
    RegimePoint point;
    point.model_id = scenario.model.id;
    point.model_name = scenario.model.name;
    point.params = report.memory.params;
    point.layout = layout_label(layout_of(scenario));
    point.memory_fraction = memory.fraction;
    point.compute_fraction = time.fraction;
    point.serving_fraction = serving.fraction;
    point.memory_formula = memory.formula;
    point.compute_formula = time.formula;
    point.serving_formula = serving.formula;
    const Wall& binding = walls.walls[walls.binding];
    point.binding_wall = binding.kind;
    point.binding_fraction = binding.fraction;
    point.binding_title = binding.title;
    return point;
}

RegimeCube regime_cube(const Scenario& scenario) {
    RegimeCube cube;
    cube.gpu_name = scenario.cluster.gpu.name;
    for (const ModelSpec& preset : builtin_models()) {
        // The same rule as picking the preset in the sidebar; where the layout cannot hold it, pure data parallelism.
        const Edit picked = with_model(scenario, preset);
        std::string first_error = picked.ok() ? std::string() : picked.problem->field + ": " + picked.problem->reason;
        for (const Edit& candidate : {picked, data_parallel_only(picked.scenario)}) {
            if (!candidate.ok()) continue;
            try {
                RegimePoint point = regime_point(candidate.scenario, evaluate(candidate.scenario));
                const std::string why = first_error.empty() ? joined(candidate.notes) : first_error;
                if (!why.empty()) point.layout_note = "evaluated as " + point.layout + " because " + why;
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
        for (double fraction : {point.memory_fraction, point.compute_fraction, point.serving_fraction}) {
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
