#pragma once
// `shardscope plan SCENARIO.json [--top N]`: the planner's ranking as JSON on stdout.
#include "core/model/scenario.h"

namespace app {

// Returns the exit status; prints the JSON to stdout, errors as one line to stderr.
int run_plan(const core::Scenario& scenario, int top);

}  // namespace app
