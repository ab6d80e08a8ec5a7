#pragma once
// `shardscope diff BASELINE.json SCENARIO.json [--json|--csv|--table]`: the inputs that differ, then every figure that
// changed, largest relative change first (core/cost/report/diff_report.h over the two reports of `eval --json`).
#include "app/table.h"

#include <string>

namespace app {

// Reads both files (a scenario or a Hugging Face config.json each), evaluates them and prints the comparison; throws
// core::InputError naming the file and the field for a file that is not a valid scenario.
int run_diff(const std::string& baseline_path, const std::string& scenario_path, OutputFormat format);

}  // namespace app
