#pragma once
// `shardscope scaling SCENARIO.json [--weak] [--max-gpus N] [--json|--csv|--table]`: the step, MFU, throughput and each
// overhead against the GPU count (core/cost/report/scaling.h), every point with its reason where it has no layout.
#include "app/table.h"
#include "core/cost/report/scaling.h"

namespace app {

int run_scaling(const core::Scenario& scenario, core::ScalingMode mode, int max_gpus, OutputFormat format);

}  // namespace app
