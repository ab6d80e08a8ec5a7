#pragma once
// The one entry point of the cost model: a Scenario in, every derived figure out.
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

namespace core {

// Validates (throws InputError naming the field) and computes the whole Report. Pure: same input, same output.
Report evaluate(const Scenario&);

}  // namespace core
