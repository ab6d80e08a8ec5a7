#pragma once
// `shardscope plan SCENARIO.json [--top N] [--json | --csv | --table]`: the planner's ranking, near-duplicates folded
// (core/cost/search/plan_rows.h), as an aligned table on a terminal, JSON otherwise, or CSV with one row per layout and the
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

// Exit status when no layout fits in HBM: the ranking (empty) is printed, and one line on stderr says why. The same 3 as
// plan --size finding no cluster and cost over its budget: what was asked for cannot be had.
inline constexpr int kNothingFits = 3;

// Returns the exit status (0, or kNothingFits); prints to stdout, errors as one line to stderr.
int run_plan(const core::Scenario& scenario, const PlanCommandOptions& options);

// A layout as the plan JSON writes it (plan --size writes the same).
nlohmann::ordered_json layout_json(const core::Layout& layout);

}  // namespace app
