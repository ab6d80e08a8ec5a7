#pragma once
// `shardscope eval SCENARIO.json [--json | --table]`: every figure of the Report, the three walls and the serving
// figures, as an aligned table on a terminal or as JSON (today's keys, then "walls" and "serving").
#include "app/table.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace app {

// report_to_json's object with "walls" and "serving" appended; every key report_to_json writes is kept as it is.
std::string eval_json(const core::Scenario& scenario, const core::Report& report);
// The same figures for people: section, figure, value, aligned.
std::string eval_table(const core::Scenario& scenario, const core::Report& report);

// Evaluates and prints; returns the exit status (InputError propagates to the caller, which exits with 2).
int run_eval(const core::Scenario& scenario, OutputFormat format);

// The "serving" object of eval --json (and serve --json): the service asked, the quoted pass and the answer.
nlohmann::ordered_json serving_json(const core::Scenario& scenario, const core::Report& report);
// The serving section of eval's table (and serve's), one figure and its value per call of row.
void serving_rows(const core::Scenario& scenario, const core::Report& report,
                  const std::function<void(const std::string&, const std::string&)>& row);

}  // namespace app
