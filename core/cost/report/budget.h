#pragma once
// What a run costs before it runs (seed 004's budget sentence and guard): GPUs x price per GPU-hour x (modelled run
// + setup) hours = total; budget - total = buffer (negative: the overrun).
#include "core/model/scenario.h"

namespace core {

struct BudgetReport {
    int gpus = 1;
    PriceBasis price_basis = PriceBasis::on_demand;
    double dollars_per_gpu_hour = 0;   // operations.dollars_per_gpu_hour
    double dollars_per_hour = 0;       // the whole cluster: gpus x dollars_per_gpu_hour
    double run_hours = 0;              // the time to train (Report.compute.train_seconds), no failures
    double setup_hours = 0;            // budget.setup_hours: billed, not training
    double billed_hours = 0;           // run + setup
    double total_dollars = 0;          // dollars_per_hour x billed_hours
    bool has_budget = false;
    double budget_dollars = 0;
    double buffer_dollars = 0;         // budget - total; negative when the estimate overruns the budget
    bool within_budget = true;         // no budget, or total <= budget
};

// Time to train: the token budget's steps (tokens / (global batch x sequence)) at step_seconds each.
double time_to_train_seconds(const Scenario&, double step_seconds);

// The one formula for what renting `gpus` GPUs for a run costs: gpus x price x (run + setup) hours.
double billed_dollars(int gpus, double dollars_per_gpu_hour, double train_seconds, double setup_hours);

// The scenario's estimate for a run of train_seconds on `gpus` GPUs (evaluate() passes its time to train).
BudgetReport budget_report(const Scenario&, int gpus, double train_seconds);

}  // namespace core
