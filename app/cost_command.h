#pragma once
// `shardscope cost SCENARIO.json [--json] [--budget DOLLARS]`: seed 004's budget sentence, and its guard.
#include "core/model/scenario.h"

#include <optional>

namespace app {

// Exit status when the estimate exceeds the budget (the scenario's, or --budget's, which replaces it).
inline constexpr int kOverBudget = 3;

// Prints the sentence (or JSON) on stdout; over budget, also one line on stderr naming the overrun, and returns 3.
int run_cost(const core::Scenario& scenario, bool json, std::optional<double> budget_dollars);

}  // namespace app
