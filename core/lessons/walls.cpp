#include "core/lessons/walls.h"

#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/model/format.h"
#include "core/lessons/stack_animation.h"
#include "core/cost/kernels/flops.h"
#include "core/model/scenario_edits.h"
#include "core/cost/serving/serving_text.h"

#include <algorithm>
#include <cmath>

namespace core {

const std::vector<WallVerdict>& where_each_wall_sends_you() {
    static const std::vector<WallVerdict> rows = {
        {"Memory (state)", "OOM at step 0", "FSDP / ZeRO-3 → activation checkpointing → TP", "05, then 06"},
        {"Memory (activations)", "OOM at longer sequence", "Activation checkpointing → SP → CP", "05, 08"},
        {"Memory (KV cache)", "OOM serving long context", "GQA → KV quantization → paged KV", "vLLM 09, vLLM 02"},
        {"Time (training)", "One-step time x steps > deadline", "DP → FSDP-HSDP → 3D parallelism", "04, 05, 10"},
        {"Latency (inference)", "TTFT or ITL miss target", "TP per replica → speculative decode → PD-disagg", "11, 12"},
        {"Throughput (inference)", "QPS shortfall", "Replicate → continuous batching → APC", "11, vLLM 04"},
    };
    return rows;
}

namespace {

enum VerdictRow { memory_state = 0, memory_activations = 1, memory_kv_cache = 2, time_training = 3, latency_inference = 4, throughput_inference = 5 };

// Percent reads well up to 10x; past that "320x" is what a room can take in; tiny shares keep three digits.
std::string fraction_text(double fraction) {
    if (!std::isfinite(fraction)) return "n/a";
    if (fraction > 0 && fraction < 0.01) return format_number(fraction * 100.0) + " %";
    return fraction < 10.0 ? format_percent(fraction) : format_number(fraction) + "x";
}

void finish(Wall& wall) {
    wall.fraction = wall.budget > 0 ? wall.used / wall.budget : INFINITY;
    wall.over = wall.fraction > 1.0;
    wall.fraction_text = fraction_text(wall.fraction);
}

Wall memory_wall(const Scenario& scenario, const Report& report) {
    const MemoryReport& memory = report.memory;
    Wall wall;
    wall.kind = WallKind::memory;
    wall.title = "Memory";
    wall.question = "Does the training state fit in one GPU's HBM?";
    wall.used = memory.per_gpu.peak_bytes;  // what memory.fits compares: the step's peak, not the textbook sum
    wall.budget = memory.hbm_bytes;
    wall.used_text = format_bytes(wall.used) + " per GPU";
    wall.budget_text = format_bytes(wall.budget) + " of HBM (" + scenario.cluster.gpu.name + ")";
    const double state = per_gpu_state_bytes(memory.per_gpu);
    wall.formula = "(state " + format_bytes(state) + " + activations " + format_bytes(memory.per_gpu.activations_bytes) + " + at the peak " +
                   format_bytes(held_beside_sum_bytes(memory.per_gpu)) + ") per GPU / " + format_bytes(wall.budget) + " HBM";
    finish(wall);
    wall.formula += " = " + wall.fraction_text;
    return wall;
}

Wall time_wall(const Scenario& scenario, const Report& report) {
    const ComputeReport& compute = report.compute;
    Wall wall;
    wall.kind = WallKind::time;
    wall.title = "Time";
    wall.question = "Does training finish by the deadline?";
    wall.used = compute.train_seconds;
    wall.budget = scenario.train.deadline_days * 86400.0;
    wall.used_text = format_seconds(wall.used) + " of training";
    // Seed 000's wall is failure-free; the reliability figures add checkpoints, rework and restarts to the calendar.
    if (report.reliability.wall_seconds > wall.used) wall.used_text += " (" + format_seconds(report.reliability.wall_seconds) + " with failures)";
    wall.budget_text = format_number(scenario.train.deadline_days) + " days deadline";
    const double training_flops = compute.model_flops_per_token * scenario.train.tokens;
    wall.formula = format_flops(training_flops) + " / (" + format_counted(report.layout.gpus, "GPU", "GPUs") + " x " +
                   format_flops_rate(compute.peak_flops_per_s) + " x " + format_percent(compute.mfu) + " MFU) = " +
                   format_seconds(wall.used) + " vs " + wall.budget_text;
    finish(wall);
    wall.formula += " = " + wall.fraction_text;
    return wall;
}

Wall serving_wall(const Scenario& scenario, const Report& report) {
    const ServingReport& serving = report.serving;
    const ServingAnswer& answer = serving.answer;
    const ServingText text = serving_text(scenario, serving);
    Wall wall;
    wall.kind = WallKind::serving;
    wall.title = "Serving";
    wall.question = "Do the GPUs meet the target rate within TTFT and TPOT?";
    wall.asked = scenario.serving.asked;
    wall.budget = serving.gpu_budget;
    wall.budget_text = text.budget;
    if (answer.verdict == ServingVerdict::meets) {
        wall.used = answer.gpus;
        wall.used_text = format_counted(answer.gpus, "GPU", "GPUs") + " needed (" + format_whole(answer.replicas) + " x " +
                         replica_shape_label(answer.shape) + ")";
        wall.formula = text.load + ": " + text.answer + "; " + format_counted(answer.gpus, "GPU", "GPUs") + " / " + wall.budget_text;
    } else {
        // No shape meets the service: no GPU count does, so the wall is over whatever the budget.
        wall.used = INFINITY;
        wall.used_text = answer.verdict == ServingVerdict::kv_cache ? "no replica holds the KV cache" : "no replica meets the targets";
        wall.formula = text.load + ": " + text.answer + ". " + text.shortfall;
    }
    finish(wall);
    if (answer.verdict != ServingVerdict::meets) wall.fraction_text = "unmet";
    wall.formula += " = " + wall.fraction_text;
    return wall;
}

int verdict_row(const WallsReport& walls, const Scenario&, const Report& report) {
    if (!walls.any_over) return -1;
    const MemoryReport& memory = report.memory;
    switch (walls.walls[walls.binding].kind) {
        case WallKind::memory:
            return memory.per_gpu.activations_bytes > per_gpu_state_bytes(memory.per_gpu)
                       ? memory_activations : memory_state;
        case WallKind::time: return time_training;
        case WallKind::serving:
            switch (report.serving.answer.verdict) {
                case ServingVerdict::kv_cache: return memory_kv_cache;
                case ServingVerdict::latency: return latency_inference;
                case ServingVerdict::meets: return throughput_inference;
            }
            return throughput_inference;
    }
    return -1;
}

}  // namespace

int binding_wall(const std::array<Wall, wall_count>& walls) {
    const int memory = static_cast<int>(WallKind::memory), time = static_cast<int>(WallKind::time), serving = static_cast<int>(WallKind::serving);
    // A layout whose step does not fit never runs: its time to train is moot, so over HBM the memory wall comes first.
    const int training = walls[memory].over || walls[memory].fraction >= walls[time].fraction ? memory : time;
    return walls[serving].asked && walls[serving].fraction > walls[training].fraction ? serving : training;
}

WallsReport walls_of(const Scenario& scenario, const Report& report) {
    WallsReport walls;
    walls.params = report.memory.params;
    walls.walls = {memory_wall(scenario, report), time_wall(scenario, report), serving_wall(scenario, report)};
    walls.binding = binding_wall(walls.walls);
    const Wall& binding = walls.walls[walls.binding];
    walls.any_over = binding.over;
    walls.verdict_row = verdict_row(walls, scenario, report);
    if (!std::isfinite(binding.fraction)) walls.summary = "Binding: " + binding.title + ", " + binding.used_text;
    else walls.summary = walls.any_over ? "Binding: " + binding.title + ", " + binding.fraction_text + " of its budget"
                                        : "No wall is hit; the closest is " + binding.title + " at " + binding.fraction_text;
    // A service the scenario does not ask about is not claimed as served.
    if (!walls.any_over) {
        walls.within_text = std::string(walls.walls[static_cast<int>(WallKind::serving)].asked
                                            ? "It fits, trains in time and serves the target within its GPUs"
                                            : "It fits and trains in time (no service asked)") +
                            ": no need to distribute. " + binding.title + " is the first wall it would hit.";
    }
    return walls;
}

WallsReport walls_at(const Scenario& scenario, double params) {
    const Edit sized = with_model_scaled(scenario, params);
    if (!sized.ok()) throw InputError(sized.problem->field, sized.problem->reason);
    return walls_of(sized.scenario, evaluate(sized.scenario));
}

WallCurves wall_curves(const Scenario& scenario, double min_params, double max_params, int points) {
    if (!(min_params > 0 && max_params > min_params)) throw InputError("wall_curves", "needs 0 < min_params < max_params");
    if (points < 2) throw InputError("wall_curves", "needs at least 2 points, got " + std::to_string(points));
    WallCurves curves;
    const double decades = std::log10(max_params / min_params);
    std::vector<double> sizes;
    for (int i = 0; i < points; ++i) sizes.push_back(min_params * std::pow(10.0, decades * i / (points - 1)));
    // The scenario's own size is a point of every line, so each line passes through the scenario's own dot.
    const double own = count_params(scenario.model, scenario.train.seq_len).total;
    if (own >= min_params && own <= max_params) sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), own), own);
    for (double params : sizes) {
        WallsReport walls;
        try {
            walls = walls_at(scenario, params);
        } catch (const InputError&) {
            continue;  // below the family's smallest member, or a layout that cannot hold it: the line starts later
        }
        if (!curves.params.empty() && walls.params <= curves.params.back()) continue;  // whole layers: keep x increasing
        curves.params.push_back(walls.params);
        for (int w = 0; w < wall_count; ++w) curves.fractions[w].push_back(walls.walls[w].fraction);
    }
    if (curves.params.size() < 2) throw InputError("wall_curves", scenario.model.name + " cannot be scaled across this range");
    for (int w = 0; w < wall_count; ++w) {
        const std::vector<double>& fraction = curves.fractions[w];
        for (int i = 0; i < static_cast<int>(fraction.size()); ++i) {
            if (fraction[i] < 1.0) continue;
            if (i == 0) {
                curves.crossing_params[w] = curves.params[0];
            } else {
                // Log-log interpolation: the walls are power laws in N.
                const double span = std::log(fraction[i] / fraction[i - 1]);
                const double share = span > 0 ? std::log(1.0 / fraction[i - 1]) / span : 1.0;
                curves.crossing_params[w] = curves.params[i - 1] * std::pow(curves.params[i] / curves.params[i - 1], share);
            }
            break;
        }
    }
    return curves;
}

}  // namespace core
