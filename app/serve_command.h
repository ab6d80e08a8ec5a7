#pragma once
// `shardscope serve SCENARIO.json [--json | --table]`: the service the scenario asks for, and the fewest GPUs that meet
// it: replicas x TP, the batch each runs, TTFT, TPOT, throughput per GPU and dollars per million output tokens; then
// every replica shape the model can take, side by side.
#include "app/table.h"
#include "core/model/scenario.h"

namespace app {

// Exit status when no replica shape meets the rate, TTFT and TPOT (the shortfall and what would meet it are printed).
inline constexpr int kServiceUnmet = 3;

int run_serve(const core::Scenario& scenario, OutputFormat format);

}  // namespace app
