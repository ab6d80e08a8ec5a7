#include "app/diff_command.h"

#include "app/eval_command.h"
#include "app/scenario_file.h"
#include "core/cost/report/diff_report.h"
#include "core/cost/report/evaluate.h"
#include "core/model/errors.h"
#include "core/model/format.h"

#include <cstdio>

namespace app {
namespace {

struct Side {
    core::Scenario scenario;
    std::string report_json;  // what `eval --json` prints for it
};

// The file read and evaluated; a refusal names the file, then the field ("b.json: parallel.tp: ...").
Side read_side(const std::string& path) {
    Side side{load_named_scenario_file(path), {}};
    side.report_json = eval_json(side.scenario, core::evaluate(side.scenario));
    return side;
}

core::DiffReport diff_files(const std::string& baseline_path, const std::string& scenario_path) {
    const Side baseline = read_side(baseline_path);
    const Side scenario = read_side(scenario_path);
    return core::diff_reports(baseline.scenario, baseline.report_json, scenario.scenario, scenario.report_json);
}

std::string render_diff_table(const core::DiffReport& diff, const std::string& baseline_path, const std::string& scenario_path) {
    std::string out = "baseline: " + baseline_path + "\nscenario: " + scenario_path + "\n\n";
    if (diff.no_change()) {
        return out + "No input differs and no figure changed (" + core::format_grouped(static_cast<double>(diff.figures.size())) +
               " figures compared).\n";
    }
    TextTable inputs;
    inputs.headers = {"input that differs", "baseline", "scenario"};
    for (const core::InputChange& input : diff.inputs) {
        inputs.rows.push_back({input.field + (input.follows ? " (follows)" : ""), input.baseline.empty() ? "-" : input.baseline,
                               input.scenario.empty() ? "-" : input.scenario});
    }
    out += diff.inputs.empty() ? "No input differs.\n" : inputs.render();
    out += "\n";
    const core::DiffTable table = core::diff_table(diff);
    TextTable figures;
    figures.headers = {"figure that changed", "baseline", "scenario", "change"};
    figures.right_aligned = {false, true, true, false};
    for (const auto* rows : {&table.headline, &table.figures, &table.folded}) {
        for (const core::DiffTableRow& row : *rows) figures.rows.push_back({row.figure, row.baseline, row.scenario, row.change});
    }
    out += figures.rows.empty() ? "No figure changed at the display precision.\n" : figures.render();
    out += core::format_grouped(table.listed) + " of " + core::format_grouped(static_cast<double>(diff.figures.size())) +
           " figures changed: the headline first, then the largest relative change first, each array's points folded into one row";
    out += table.below_precision > 0 ? "; " + core::format_grouped(table.below_precision) + " more changed below the display precision.\n" : ".\n";
    if (!diff.verdicts.empty()) {
        TextTable verdicts;
        verdicts.headers = {"verdict that flipped", "baseline", "scenario"};
        for (const core::VerdictChange& verdict : diff.verdicts) {
            verdicts.rows.push_back({verdict.path, verdict.baseline ? "true" : "false", verdict.scenario ? "true" : "false"});
        }
        out += "\n" + verdicts.render();
    }
    if (!diff.only_in_baseline.empty() || !diff.only_in_scenario.empty()) {
        TextTable unpaired;
        unpaired.headers = {"figure on one side only", "baseline", "scenario"};
        unpaired.right_aligned = {false, true, true};
        for (const core::UnpairedFigure& figure : diff.only_in_baseline) unpaired.rows.push_back({figure.path, core::format_in(figure.value, figure.unit), "-"});
        for (const core::UnpairedFigure& figure : diff.only_in_scenario) unpaired.rows.push_back({figure.path, "-", core::format_in(figure.value, figure.unit)});
        out += "\n" + unpaired.render();
    }
    return out + core::kUnitConvention + ". --json pairs every figure for scripts.\n";
}

}  // namespace

int run_diff(const std::string& baseline_path, const std::string& scenario_path, OutputFormat format) {
    const core::DiffReport diff = diff_files(baseline_path, scenario_path);
    const std::string text = format == OutputFormat::table ? render_diff_table(diff, baseline_path, scenario_path)
                             : format == OutputFormat::csv ? core::diff_to_csv(diff)
                                                           : core::diff_to_json(diff, baseline_path, scenario_path);
    std::fputs(text.c_str(), stdout);
    return 0;
}

}  // namespace app
