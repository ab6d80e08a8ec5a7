#pragma once
// `shardscope trace SCENARIO.json [--out FILE]`: the modelled step as Chrome trace-event JSON (core/cost/report/trace.h) for
// Perfetto or chrome://tracing; the pipeline panel's "Save trace..." writes the same file.
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <string>

namespace app {

// Writes the trace of `report` (= evaluate(scenario)) to path without ever leaving a truncated file; returns "" or the
// error. On success, `summary` says what was written: "Wrote PATH: 4 stages, 12345 slices (one per kernel), ...".
std::string save_trace(const core::Scenario& scenario, const core::Report& report, const std::string& path, std::string* summary = nullptr);

// The command: to standard output without --out, else to the file (and what was written on standard output).
int run_trace(const core::Scenario& scenario, const std::string& out_path);

}  // namespace app
