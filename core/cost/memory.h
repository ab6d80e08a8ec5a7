#pragma once
// Memory per GPU: the recipe's training state under DP / ZeRO / TP / PP / CP, and activations (Korthikanti et al. 2022).
// Scalar functions of the scenario and a layout, so evaluate() and the planner decide "fits" by the same arithmetic.
#include "core/cost/report.h"
#include "core/model/layout.h"

namespace core {

// The heaviest pipeline stage's layer count: ceil(L / pp) (Llama 3 trims the first and last stages instead).
int layers_on_first_stage(int layers, int pp);

// The most MoE layers any pipeline stage holds (stages of ceil(L / pp) consecutive layers): the heaviest stage's.
int moe_layers_on_heaviest_stage(const ModelSpec&, int pp);

struct StageParams {
    double total = 0;    // the whole model
    double params = 0;   // the heaviest pipeline stage
    double per_gpu = 0;  // that stage on one GPU: the dense part / tp, plus the routed experts / (ep x etp)
    double expert = 0;           // the stage's routed-expert parameters (0 for a dense model)
    double expert_per_gpu = 0;   // expert / (ep x etp)
    double dense_per_gpu() const { return per_gpu - expert_per_gpu; }
};
// expert_shards = ep x etp: Megatron-Core's buckets, attention and dense MLPs split over TP, routed experts over EP x ETP.
StageParams heaviest_stage_params(const Scenario&, int pp, int tp, int expert_shards = 1);

// The recipe's state on one GPU of the heaviest stage: each component sharded over DP x CP from its ZeRO stage.
double state_bytes_per_gpu(const Scenario&, const Layout&, double params_per_gpu);
// The routed experts' state on one GPU: each component sharded over the expert data parallel group (EDP = tp cp dp /
// (ep etp)) from its ZeRO stage (Megatron-Core moe/README.md: the distributed optimizer shards expert state over EDP).
double expert_state_bytes_per_gpu(const Scenario&, const Layout&, double expert_params_per_gpu);

// Korthikanti et al. 2022 Table 2 for one layer and one micro-batch, generalised to GQA and gated MLPs.
ActivationReport activation_per_layer(const Scenario&, const Layout&);
// The same for an MoE layer: its attention as above; in place of the dense MLP the router's probabilities, each routed
// copy's expert input, intermediates and output (x the busiest GPU's load factor), and the shared experts as a TP-split MLP.
ActivationReport moe_activation_per_layer(const Scenario&, const Layout&);
// One micro-batch's activations through the heaviest stage: its dense layers and its MoE layers.
double stage_activation_bytes_per_microbatch(const Scenario&, const Layout&);

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
