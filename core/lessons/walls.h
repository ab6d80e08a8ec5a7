#pragma once
// Seed 000's three walls: does the state fit one GPU's HBM (memory), does training finish before the deadline (time),
// do the GPUs meet the service's rate and latency targets (serving: the GPUs it needs over the GPUs it has). Each is a
// fraction of its budget; one binds (binding_wall) and sends you to its row of the seed's "Where each wall sends you".
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <array>
#include <string>
#include <vector>

namespace core {

enum class WallKind { memory, time, serving };
inline constexpr int wall_count = 3;

struct Wall {
    WallKind kind = WallKind::memory;
    std::string title;          // "Memory", "Time", "Serving"
    std::string question;       // the seed's question for this wall
    double used = 0;            // bytes per GPU, seconds of training, GPUs the service needs (infinite: no replica meets it)
    double budget = 0;          // HBM bytes, deadline seconds, GPUs it may use (serving.gpus, or the cluster's)
    double fraction = 0;        // used / budget; > 1 means the wall is hit
    bool over = false;
    bool asked = true;          // false: a serving wall the scenario does not ask about (no service set): drawn, not a verdict
    std::string used_text;      // "1.32 TB per GPU"
    std::string budget_text;    // "80.0 GB of HBM (H100 SXM)"
    std::string fraction_text;  // "27.3 %" up to 10x, then "16.5x"; "unmet" where no GPU count serves
    std::string formula;        // with the numbers substituted
};

// Which wall binds: the largest fraction, but for training a layout over HBM binds on memory whatever its time, since it
// cannot start ("OOM at step 0"). Serving is a separate deployment: it binds when its fraction is the larger,
// and only where the scenario asks about a service (a fine-tune is not failed by a service it never named).
int binding_wall(const std::array<Wall, wall_count>& walls);

// One row of seed 000's table "Where each wall sends you".
struct WallVerdict {
    std::string wall;            // "Memory (state)"
    std::string symptom;         // "OOM at step 0"
    std::string first_response;  // "FSDP / ZeRO-3 -> activation checkpointing -> TP"
    std::string lessons;         // "05, then 06"
};
// The six rows, in the seed's order.
const std::vector<WallVerdict>& where_each_wall_sends_you();

struct WallsReport {
    double params = 0;
    std::array<Wall, wall_count> walls;  // memory, time, serving
    int binding = 0;                     // the wall that binds (or is closest to): binding_wall
    bool any_over = false;
    int verdict_row = -1;                // row of where_each_wall_sends_you() for the binding wall; -1 when no wall is hit
    std::string summary;                 // "Binding: Memory, 16.5x of its budget"
    std::string within_text;             // where no wall is hit: why no distribution is needed, and the first wall it would hit
};

// The three walls of an evaluated scenario. Serving: the fewest GPUs that meet the rate, TTFT and TPOT (report.serving,
// core/cost/serving/serving.h) over the serving GPU budget.
WallsReport walls_of(const Scenario& scenario, const Report& report);

// walls_of(evaluate(with_model_scaled(scenario, params))): the scenario's own model family at about that size (its
// params holds the exact count). Throws InputError if the family or the layout cannot reach that size.
WallsReport walls_at(const Scenario& scenario, double params);

// Each wall's fraction over a log-spaced range of the scenario's model family, plus the scenario's own size, so every
// line passes through the scenario's own point; sizes the family cannot reach are left out. x is each point's exact
// parameter count. Also where each line crosses 100 %.
struct WallCurves {
    std::vector<double> params;
    std::array<std::vector<double>, wall_count> fractions;
    std::array<double, wall_count> crossing_params{};  // log-interpolated size where the fraction reaches 1 (min_params if
                                                       // already there, 0 if never)
};
WallCurves wall_curves(const Scenario& scenario, double min_params, double max_params, int points);

}  // namespace core
