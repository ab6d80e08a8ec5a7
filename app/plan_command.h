#pragma once
// `shardscope plan SCENARIO.json [--top N] [--json | --csv | --table]`: the planner's ranking, near-duplicates folded
// (core/cost/plan_rows.h), as an aligned table on a terminal, JSON otherwise, or CSV with one row per layout and the
// same columns as the JSON ranking's entries.
#include "app/table.h"
#include "core/model/layout.h"
#include "core/model/scenario.h"

#include <nlohmann/json.hpp>

namespace app {

struct PlanCommandOptions {
    int top = 10;                            // rows to print, after folding
    OutputFormat format = OutputFormat::json;
};

// Returns the exit status; prints to stdout, errors as one line to stderr.
int run_plan(const core::Scenario& scenario, const PlanCommandOptions& options);

// A layout as the plan JSON writes it (plan --size writes the same).
nlohmann::ordered_json layout_json(const core::Layout& layout);

}  // namespace app
