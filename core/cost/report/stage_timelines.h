#pragma once
// Memory over one step on every pipeline stage (core/cost/memory/timeline.h), each walked in the order the step's
// schedule runs its micro-batches: the memory panel draws them side by side, `shardscope memory` prints them. Built on
// demand, not by evaluate (which keeps the heaviest stage's, report.memory.timeline).
#include "core/cost/memory/memory_report.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <vector>

namespace core {

std::vector<MemoryTimeline> stage_memory_timelines(const Scenario&, const Report&);

}  // namespace core
