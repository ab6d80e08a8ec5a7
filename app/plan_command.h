#pragma once
// `shardscope plan SCENARIO.json [--top N]`: the planner's ranking as JSON on stdout.
#include "core/model/layout.h"
#include "core/model/scenario.h"

#include <nlohmann/json.hpp>

namespace app {

// Returns the exit status; prints the JSON to stdout, errors as one line to stderr.
int run_plan(const core::Scenario& scenario, int top);

// A layout as the plan JSON writes it (plan --size writes the same).
nlohmann::ordered_json layout_json(const core::Layout& layout);

}  // namespace app
