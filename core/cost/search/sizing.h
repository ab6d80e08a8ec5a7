#pragma once
// Cost-optimal cluster sizing: for the scenario's model, batch and token budget, every GPU type x GPU count (on a grid)
// x layout, each (type, count) with the planner's fastest layout that fits (TP inside a node), priced as the budget
// sentence prices a run (GPUs x price x (time to train + setup)), ranked by cost to train, with the Pareto front of cost
// against time. A type's counts stop early when two in a row train no faster than a smaller count: beyond, more GPUs
// only cost more. About a second of CPU for the whole catalog up to 4,096 GPUs (7B or 70B).
#include "core/cost/report/budget.h"
#include "core/cost/search/planner.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core {

struct SizingOptions {
    std::vector<std::string> gpu_ids;          // the GPU types to try; empty: every catalog GPU with a price for the basis
    PriceBasis price = PriceBasis::on_demand;  // which catalog price each type is rented at (custom is refused: one
                                               // figure cannot price every type)
    int max_gpus = 4096;                       // the largest GPU count tried
    std::optional<double> deadline_seconds;    // a row that trains slower is infeasible
    std::optional<double> budget_dollars;      // a row that costs more is infeasible
    int threads = 0;                           // searches at once, one GPU type each; 0: one per core
};

struct SizingRow {
    std::string gpu_id;
    std::string gpu_name;
    int gpus = 0;
    PlanEntry best;                // the fastest layout that fits; for a fixed count also the cheapest
    double train_seconds = 0;      // time to train: steps x the layout's modelled step
    BudgetReport cost;             // what renting them for that long costs, setup included
    bool meets_deadline = true;
    bool within_budget = true;
    bool on_front = false;         // no other row is both cheaper and faster
    bool feasible() const { return meets_deadline && within_budget; }
};

struct Sizing {
    std::vector<SizingRow> rows;       // feasible rows cheapest first, then the others cheapest first; only layouts that fit
    std::vector<std::size_t> front;    // indices into rows: the Pareto front of cost against time, fastest first
    std::vector<int> gpu_counts;       // the grid tried (sizing_gpu_counts)
    std::vector<std::string> gpu_ids;  // the GPU types tried
    std::vector<std::string> skipped;  // catalog GPUs left out and why: "A10G: no spot price in the catalog"
    std::int64_t searches = 0;         // planner runs, one per (type, count)
    std::int64_t layouts_considered = 0;
    int feasible_rows = 0;
};

// The GPU counts tried: powers of two and one and a half times them (1, 2, 3, 4, 6, 8, 12, 16, 24, ...) up to max_gpus,
// so neighbouring sizes differ by at most 1.5x while the search stays a few dozen planner runs per GPU type. Beyond one
// node only whole nodes: a cluster rents machines, and a part-filled node would put some groups across the network.
std::vector<int> sizing_gpu_counts(int max_gpus, int gpus_per_node);

// Throws InputError when the scenario's model, batch or the options are invalid.
Sizing size_cluster(const Scenario&, const SizingOptions&);

// Each GPU type's first row in the ranking (its cheapest feasible cluster, else its cheapest), in rank order: the
// catalog compared at a glance.
std::vector<std::size_t> cheapest_of_each_type(const Sizing&);

// The points no other point beats on both time and cost (of points equal in both, the first), fastest first.
std::vector<std::size_t> pareto_front(const std::vector<double>& seconds, const std::vector<double>& dollars);

// What sizing compares: the scenario as it would run on `count` GPUs of `gpu` rented at `price` (layout left to the planner).
Scenario sized_scenario(const Scenario&, const GpuSpec& gpu, int count, PriceBasis price);

}  // namespace core
