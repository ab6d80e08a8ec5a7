#include "app/serve_command.h"

#include "app/eval_command.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/serving/serving_text.h"
#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace app {
namespace {

std::string shape_cells_state(const core::ServingShapeRow& row) {
    if (!row.fits) return "does not fit";
    return row.meets ? "meets" : "misses a target";
}

}  // namespace

int run_serve(const core::Scenario& scenario, OutputFormat format) {
    const core::Report report = core::evaluate(scenario);
    const core::ServingCurves curves = core::serving_curves(scenario, report.serving);
    // The exit status follows the budget: a service that needs more GPUs than it may use is not met.
    const bool met = core::serving_outcome(report.serving) == core::ServingOutcome::meets;
    if (format != OutputFormat::table) {
        nlohmann::ordered_json json = serving_json(scenario, report);
        nlohmann::ordered_json shapes = nlohmann::ordered_json::array();
        for (const core::ServingShapeRow& row : curves.shapes) {
            nlohmann::ordered_json entry;
            entry["tp"] = row.shape.tp;
            entry["pp"] = row.shape.pp;
            entry["fits"] = row.fits;
            entry["max_batch"] = row.max_batch;
            entry["meets"] = row.meets;
            if (row.fits) {
                entry["batch"] = row.point.batch;
                entry["ttft_seconds"] = row.point.ttft_seconds;
                entry["tpot_seconds"] = row.point.tpot_seconds;
                entry["tokens_per_s_per_gpu"] = row.point.tokens_per_s_per_gpu;
            }
            if (row.meets) {
                entry["replicas"] = row.replicas;
                entry["gpus"] = row.gpus;
            }
            shapes.push_back(entry);
        }
        json["shapes"] = shapes;
        std::fputs((json.dump(2) + "\n").c_str(), stdout);
        return met ? 0 : kServiceUnmet;
    }
    TextTable figures;
    serving_rows(scenario, report, [&](const std::string& figure, const std::string& value) { figures.rows.push_back({figure, value}); });
    TextTable shapes;
    shapes.headers = {"replica", "fits", "KV batch", "batch", "TTFT", "TPOT", "tokens/s per GPU", "replicas", "GPUs"};
    shapes.right_aligned = {false, false, true, true, true, true, true, true, true};
    for (const core::ServingShapeRow& row : curves.shapes) {
        const bool fits = row.fits;
        shapes.rows.push_back({core::replica_shape_label(row.shape), shape_cells_state(row), fits ? core::format_whole(row.max_batch) : "-",
                               fits ? core::format_whole(row.point.batch) : "-", fits ? core::format_seconds(row.point.ttft_seconds) : "-",
                               fits ? core::format_seconds(row.point.tpot_seconds) : "-", fits ? core::format_number(row.point.tokens_per_s_per_gpu) : "-",
                               row.meets ? core::format_whole(row.replicas) : "-", row.meets ? core::format_whole(row.gpus) : "-"});
    }
    const std::string text = figures.render() + "\n" + shapes.render() + core::kUnitConvention + ". --json prints every figure for scripts.\n";
    std::fputs(text.c_str(), stdout);
    return met ? 0 : kServiceUnmet;
}

}  // namespace app
