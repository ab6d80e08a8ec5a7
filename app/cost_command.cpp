#include "app/cost_command.h"

#include "core/cost/report/budget_text.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/figure_text.h"
#include "core/model/format.h"
#include "core/model/scenario_edits.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace app {
namespace {

std::string price_origin(const core::Scenario& scenario) {
    if (scenario.budget.price == core::PriceBasis::custom) return "the scenario's own price";
    const core::GpuPrice& price = scenario.cluster.gpu.price;
    return std::string(core::price_basis_name(scenario.budget.price)) + ", " + price.source + " (" + price.date + ")";
}

// The sentence to paste, then the figures it is made of, one per line.
std::string plain_text(const core::Scenario& scenario, const core::Report& report, const std::string& sentence,
                       const std::vector<std::string>& warnings) {
    const core::BudgetReport& budget = report.budget;
    const core::FigureTexts figures = core::figure_texts(scenario, report);
    std::string text = sentence + "\n";
    for (const std::string& warning : warnings) text += "Warning: " + warning + ".\n";
    text += "\n";
    const auto line = [&](const char* label, const std::string& value) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "  %-13s ", label);
        text += buffer + value + "\n";
    };
    line("GPUs", std::to_string(budget.gpus) + " x " + scenario.cluster.gpu.name);
    line("price", core::format_dollars(budget.dollars_per_gpu_hour) + " per GPU-hour: " + price_origin(scenario));
    line("training", figures.time_to_train.value + ": " + figures.time_to_train.formula);
    line("step", figures.step_time.value + " (" + figures.step_time.formula + ")");
    if (report.reliability.makes_progress) line("with failures", figures.wall_time.value + ": " + figures.wall_time.formula + " (not billed here)");
    line("setup", core::format_seconds(budget.setup_hours * 3600.0) + " (budget.setup_hours: provisioning, data download, compile)");
    line("total", figures.billed_cost.value + ": " + figures.billed_cost.formula);
    if (budget.has_budget) {
        line("budget", core::format_dollars(budget.budget_dollars));
        line(budget.within_budget ? "buffer" : "overrun", core::format_dollars(std::abs(budget.buffer_dollars)));
    }
    return text;
}

}  // namespace

int run_cost(const core::Scenario& input, bool json, std::optional<double> budget_dollars) {
    core::Scenario scenario = input;
    if (budget_dollars) scenario = core::with_budget_dollars(scenario, budget_dollars).scenario;  // checked by the caller
    const core::Report report = core::evaluate(scenario);
    const core::BudgetReport& budget = report.budget;
    const std::string sentence = core::budget_sentence(scenario, budget);
    const std::vector<std::string> warnings = core::budget_warnings(scenario, report);
    if (json) {
        nlohmann::ordered_json out;
        out["sentence"] = sentence;
        out["gpu"] = scenario.cluster.gpu.id;
        out["gpu_name"] = scenario.cluster.gpu.name;
        out["gpus"] = budget.gpus;
        out["price"] = core::price_basis_name(budget.price_basis);
        out["dollars_per_gpu_hour"] = budget.dollars_per_gpu_hour;
        out["dollars_per_hour"] = budget.dollars_per_hour;
        out["run_hours"] = budget.run_hours;
        out["setup_hours"] = budget.setup_hours;
        out["billed_hours"] = budget.billed_hours;
        out["total_dollars"] = budget.total_dollars;
        if (budget.has_budget) {
            out["budget_dollars"] = budget.budget_dollars;
            out["buffer_dollars"] = budget.buffer_dollars;
        }
        out["within_budget"] = budget.within_budget;
        out["fits"] = report.memory.fits;
        out["warnings"] = warnings;
        std::fputs((out.dump(2) + "\n").c_str(), stdout);
    } else {
        std::fputs(plain_text(scenario, report, sentence, warnings).c_str(), stdout);
    }
    // Priced as asked, but said where a script looks: the run as written cannot happen.
    for (const std::string& warning : warnings) std::fprintf(stderr, "shardscope: cost: warning: %s\n", warning.c_str());
    if (budget.within_budget) return 0;
    std::fprintf(stderr, "shardscope: cost: the estimate %s exceeds the budget %s by %s\n", core::format_dollars(budget.total_dollars).c_str(),
                 core::format_dollars(budget.budget_dollars).c_str(), core::format_dollars(-budget.buffer_dollars).c_str());
    return kOverBudget;
}

}  // namespace app
