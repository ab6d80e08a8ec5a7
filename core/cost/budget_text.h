#pragma once
// The budget as one sentence a user can paste into a lab notebook or a design doc (seed 004): "This will spin up 2×
// RTX 4090 (spot) at $0.34/hr each = $0.68/hr total, run for 2.93 h (2.43 h of training + 30.0 min of setup) = $1.99.
// Budget: $3.00. Within budget, $1.01 buffer."
#include "core/cost/budget.h"

#include <string>

namespace core {

std::string budget_sentence(const Scenario&, const BudgetReport&);
// The verdict alone: "Within budget, $1.01 buffer." / "Over budget by $1.10: do not run it." / "No budget set."
std::string budget_verdict(const BudgetReport&);

}  // namespace core
