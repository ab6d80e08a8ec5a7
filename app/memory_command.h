#pragma once
// `shardscope memory SCENARIO [--csv|--json|--table] [--stage N]`: memory over one training step, point by point (each
// layer's forward and backward, the loss, the optimizer step, zero_grad), allocated and reserved, for the heaviest
// pipeline stage or the one asked for (core/cost/report/stage_timelines.h).
#include "app/eval_command.h"
#include "core/model/scenario.h"

namespace app {

enum class MemoryFormat { csv, json, table };
int run_memory(const core::Scenario&, MemoryFormat, int stage);  // stage < 0: the heaviest

}  // namespace app
