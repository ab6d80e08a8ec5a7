#include "core/cost/report/budget.h"

#include "core/model/framework_recipe.h"

namespace core {

double time_to_train_seconds(const Scenario& scenario, double step_seconds) {
    const double tokens_per_step = 1.0 * scenario.train.global_batch * scenario.train.seq_len;
    return scenario.train.tokens / tokens_per_step * step_seconds + compile_seconds(scenario);  // the first step compiles once
}

double billed_dollars(int gpus, double dollars_per_gpu_hour, double train_seconds, double setup_hours) {
    return gpus * dollars_per_gpu_hour * (train_seconds / 3600.0 + setup_hours);
}

BudgetReport budget_report(const Scenario& scenario, int gpus, double train_seconds) {
    BudgetReport budget;
    budget.gpus = gpus;
    budget.price_basis = scenario.budget.price;
    budget.dollars_per_gpu_hour = scenario.operations.dollars_per_gpu_hour;
    budget.dollars_per_hour = gpus * budget.dollars_per_gpu_hour;
    budget.run_hours = train_seconds / 3600.0;
    budget.setup_hours = scenario.budget.setup_hours;
    budget.billed_hours = budget.run_hours + budget.setup_hours;
    budget.total_dollars = billed_dollars(gpus, budget.dollars_per_gpu_hour, train_seconds, budget.setup_hours);
    if (scenario.budget.budget_dollars) {
        budget.has_budget = true;
        budget.budget_dollars = *scenario.budget.budget_dollars;
        budget.buffer_dollars = budget.budget_dollars - budget.total_dollars;
        budget.within_budget = budget.buffer_dollars >= 0;
    }
    return budget;
}

}  // namespace core
