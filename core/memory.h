#pragma once
// For evaluate(): the memory part of the Report.
#include "core/report.h"
#include "core/scenario.h"

namespace core {

struct StageParams {
    double total = 0;    // the whole model
    double params = 0;   // the heaviest pipeline stage
    double per_gpu = 0;  // that stage / tp
};
StageParams heaviest_stage_params(const Scenario&);

// Fills params, state, blocks, per-GPU totals, activations, HBM fit and the serving memory.
void fill_state_memory(const Scenario&, double inflight_microbatches, MemoryReport&);

}  // namespace core
