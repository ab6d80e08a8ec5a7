#pragma once
// The Report as the JSON `shardscope eval` prints.
#include "core/cost/report/report.h"

#include <string>

namespace core {

// The Report as `shardscope eval` prints it: numbers, and the text of core/cost/report/explain.h where a field is words.
std::string report_to_json(const Scenario&, const Report&);

}  // namespace core
