#pragma once
// The budget as one sentence a user can paste into a lab notebook or a design doc (seed 004): "This will spin up 2×
// RTX 4090 (spot) at $0.34/hr each = $0.68/hr total, run for 2.93 h (2.43 h of training + 30.0 min of setup) = $1.99.
// Budget: $3.00. Within budget, $1.01 buffer."
#include "core/cost/report/budget.h"
#include "core/cost/report/report.h"

#include <string>
#include <vector>

namespace core {

std::string budget_sentence(const Scenario&, const BudgetReport&);
// The verdict alone: "Within budget, $1.01 buffer." / "Over budget by $1.10: do not run it." / "No budget set."
std::string budget_verdict(const BudgetReport&);
// What the sentence prices but cannot happen as written, one line each: a layout that does not fit in HBM (the run would not
// start), a time to train past the scenario's deadline. Empty when neither.
std::vector<std::string> budget_warnings(const Scenario&, const Report&);

}  // namespace core
