#pragma once
// `shardscope plan SCENARIO.json --size [--deadline-days D] [--budget DOLLARS] [--max-gpus N] [--gpu-types a,b]
// [--top N] [--json]`: the cheapest GPU type x count x layout that trains the scenario's model on its token budget.
#include "core/model/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace app {

struct SizeCommandOptions {
    int top = 10;                              // rows printed (the front is printed whole)
    bool json = false;
    std::optional<double> deadline_days;       // default: the scenario's train.deadline_days
    std::optional<double> budget_dollars;      // default: the scenario's budget.dollars, if any
    int max_gpus = 4096;
    std::vector<std::string> gpu_types;        // default: every catalog GPU with a price
};

// Prints the ranking (a table, or JSON); returns 0, or 3 when no row meets the deadline and the budget.
int run_size(const core::Scenario& scenario, const SizeCommandOptions& options);

}  // namespace app
