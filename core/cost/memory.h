#pragma once
// Memory per GPU: the recipe's training state under DP / ZeRO / TP / PP / CP, and activations (Korthikanti et al. 2022).
// Scalar functions of the scenario and a layout, so evaluate() and the planner decide "fits" by the same arithmetic.
#include "core/cost/report.h"
#include "core/model/layout.h"

namespace core {

// The heaviest pipeline stage's layer count: ceil(L / pp) (Llama 3 trims the first and last stages instead).
int layers_on_first_stage(int layers, int pp);

struct StageParams {
    double total = 0;    // the whole model
    double params = 0;   // the heaviest pipeline stage
    double per_gpu = 0;  // that stage / tp
};
StageParams heaviest_stage_params(const Scenario&, int pp, int tp);
// What a device of the layout's schedule holds: DualPipe keeps every stage twice (SchedulePlacement::parameter_copies).
StageParams held_stage_params(StageParams stage, const Layout&);

// The recipe's state on one GPU of the heaviest stage: each component sharded over DP x CP from its ZeRO stage.
double state_bytes_per_gpu(const Scenario&, const Layout&, double params_per_gpu);

// Korthikanti et al. 2022 Table 2 for one layer and one micro-batch, generalised to GQA and gated MLPs.
ActivationReport activation_per_layer(const Scenario&, const Layout&);

// State plus the in-flight activations of the heaviest stage: what "fits" compares with HBM.
struct MemoryEstimate {
    double state_bytes = 0;
    double activation_bytes = 0;
    double total_bytes = 0;
    bool fits = false;
};
// A layout's memory before its schedule is known: the state, and the activations of one micro-batch in flight through
// the heaviest stage's layers. The schedule then says how many are in flight.
struct MemoryBasis {
    double state_bytes = 0;
    double activation_bytes_per_microbatch = 0;
    double hbm_bytes = 0;
    MemoryEstimate at(double inflight_microbatches) const;
};
MemoryBasis memory_basis(const Scenario&, const Layout&, const StageParams& stage);

// The memory part of the Report: blocks, per-GPU totals, activations, HBM fit and the serving memory.
void fill_memory_report(const Scenario&, double inflight_microbatches, MemoryReport&);

}  // namespace core
