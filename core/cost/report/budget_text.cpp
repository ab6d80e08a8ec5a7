#include "core/cost/report/budget_text.h"

#include "core/model/format.h"

namespace core {
namespace {

std::string price_words(const BudgetReport& budget) {
    switch (budget.price_basis) {
        case PriceBasis::on_demand: return " (on-demand)";
        case PriceBasis::spot: return " (spot)";
        case PriceBasis::custom: return "";
    }
    return "";
}

}  // namespace

std::string budget_verdict(const BudgetReport& budget) {
    if (!budget.has_budget) return "No budget set.";
    if (budget.within_budget) return "Within budget, " + format_dollars(budget.buffer_dollars) + " buffer.";
    return "Over budget by " + format_dollars(-budget.buffer_dollars) + ": do not run it.";
}

std::string budget_sentence(const Scenario& scenario, const BudgetReport& budget) {
    std::string text = "This will spin up " + std::to_string(budget.gpus) + "\u00d7 " + scenario.cluster.gpu.name + price_words(budget) + " at " +
                       format_dollars(budget.dollars_per_gpu_hour) + "/hr each";
    if (budget.gpus > 1) text += " = " + format_dollars(budget.dollars_per_hour) + "/hr total";
    text += ", run for " + format_seconds(budget.billed_hours * 3600.0) + " (" + format_seconds(budget.run_hours * 3600.0) + " of training + " +
            format_seconds(budget.setup_hours * 3600.0) + " of setup) = " + format_dollars(budget.total_dollars) + ".";
    if (budget.has_budget) text += " Budget: " + format_dollars(budget.budget_dollars) + ".";
    return text + " " + budget_verdict(budget);
}

std::vector<std::string> budget_warnings(const Scenario& scenario, const Report& report) {
    std::vector<std::string> warnings;
    if (!report.memory.fits) {
        warnings.push_back("the layout does not fit: " + format_bytes(report.memory.per_gpu.peak_bytes) + " per GPU against " +
                           format_bytes(report.memory.hbm_bytes) + " of HBM, so this run would not start");
    }
    const double deadline_seconds = scenario.train.deadline_days * 86400.0;
    if (report.budget.run_hours * 3600.0 > deadline_seconds) {
        warnings.push_back("training takes " + format_seconds(report.budget.run_hours * 3600.0) + ", past the deadline of " +
                           format_seconds(deadline_seconds) + " (train.deadline_days)");
    }
    return warnings;
}

}  // namespace core
