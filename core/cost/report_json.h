#pragma once
// The Report as the JSON `shardscope eval` prints.
#include "core/cost/report.h"

#include <string>

namespace core {

std::string report_to_json(const Report&);

}  // namespace core
