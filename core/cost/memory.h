#pragma once
// For evaluate(): the memory part of the Report.
#include "core/cost/report.h"
#include "core/model/scenario.h"

namespace core {

// Korthikanti et al. 2022 Table 2, generalised to GQA and gated MLPs; exposed for the panels and tests.
ActivationReport activation_memory(const Scenario&, int layers_on_first_stage, double inflight_microbatches);

// The heaviest pipeline stage's layer count: ceil(L / pp) (Llama 3 trims the first and last stages instead).
int layers_on_first_stage(int layers, int pp);

struct StageParams {
    double total = 0;    // the whole model
    double params = 0;   // the heaviest pipeline stage
    double per_gpu = 0;  // that stage / tp
};
StageParams heaviest_stage_params(const Scenario&);

// Fills params, state, blocks, per-GPU totals, activations, HBM fit and the serving memory.
void fill_state_memory(const Scenario&, double inflight_microbatches, MemoryReport&);

}  // namespace core
