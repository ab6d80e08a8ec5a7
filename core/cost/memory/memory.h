#pragma once
// Memory per GPU at the step's peak. The training state: the recipe's components under DP / ZeRO / TP / PP /
// CP. The activations each layer stores (Korthikanti et al. 2022 Table 2, as each framework keeps them). And what a step
// holds beside them at its peak, which is the largest of three moments on each pipeline stage: the end of the last
// forward in flight (the loss computed), the loss's backward, and a layer's backward (recomputed under recompute). Weight
// copies, ZeRO-3's gathered layers, library and communication buffers and the allocator's fragmentation come on top.
// Scalar functions of the scenario and a layout, so evaluate() and the planner decide "fits" by the same arithmetic.
#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/memory/layer_memory.h"
#include "core/cost/memory/memory_report.h"
#include "core/model/layout.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

// The most MoE layers any pipeline stage holds under the scenario's split (0 for a dense model).
int moe_layers_on_heaviest_stage(const Scenario&, int pp);

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

// Korthikanti et al. 2022 Table 2 for one layer and one micro-batch, generalised to GQA, gated MLPs, the recipe's dtypes
// and what the framework keeps (core/cost/kernels/framework.h).
ActivationReport activation_per_layer(const Scenario&, const Layout&);
// The same for a layer with routed experts: its attention as above; in place of the dense MLP the router's probabilities,
// each routed copy's expert input, intermediates and output (x the busiest GPU's load factor; expert_bytes), and the
// shared experts as a TP-split MLP.
ActivationReport moe_activation_per_layer(const Scenario&, const Layout&);

// What memory needs of a scenario that no layout changes: built once (a search builds it once for all its layouts).
struct MemoryConstants {
    FrameworkTraits framework;
    int layers = 1;
    bool embedding_and_loss_as_layers = false;  // train.embedding_and_loss_as_layers: how a pipeline splits the layers
    PipelineSplit split(int stages) const { return PipelineSplit{layers, stages, embedding_and_loss_as_layers}; }
    double seq_len = 0, hidden = 0, heads = 0, kv_share = 1, ffn_ratio = 4, vocab = 0;
    bool gated_mlp = false, flash_attention = true, dropout = false;
    double layer_params = 0;        // one transformer layer
    double first_extra_params = 0;  // the embedding (and learned positions) on the first stage
    double last_extra_params = 0;   // the final norm and the head on the last (a tied head keeps its copy of the embedding)
    double head_params = 0;         // the weights the logits GEMM reads
    double total_params = 0;
    double state_bytes_per_param[4] = {0, 0, 0, 0};  // the recipe's components summed by StateKind
    bool sharded_optimizer = false;
    double compute_bytes = 2, gemm_input_bytes = 2, weight_copy_bytes = 0, gather_bytes = 0, grad_comm_bytes = 0;
    double comm_bucket_bytes = 0;
    bool head_copied = true;        // the weight copies cover the head too (not Transformer Engine's fp8: its head is bf16)
    MemorySpec spec;
    double hbm_bytes = 0;
    // One layer, one micro-batch, before a layout splits it: bytes per s b h element outside the TP regions (the
    // norms' inputs, the GEMMs' inputs, the dropout masks) and inside them (Q, K, V, the attention output, the MLP);
    // bytes per a s^2 b element of the stored probabilities (0 with flash attention) and of their backward's gradients.
    double replicated_coefficient = 0, sharded_coefficient = 0, probs_coefficient = 0, probs_backward_coefficient = 0;
    double mlp_half_replicated = 0, mlp_half_sharded = 0;  // what a layer's backward frees before it reaches its attention
    double mlp_gradient_coefficient = 0;                   // the MLP's backward: two ffn-wide gradients
    // Mixtures of experts (zero for a dense model). Layer i has routed experts when moe_layers_in says so.
    bool moe = false;
    bool bare_count = false;              // a bare parameter count: every stage holds all of it (heaviest_stage_params)
    int first_dense_layers = 0, moe_layer_step = 1;
    double moe_layer_params = 0;          // one MoE layer: attention, router, shared and routed experts, norms
    double expert_layer_params = 0;       // of which the routed experts: split over EP x ETP, sharded over EDP
    // An MoE layer's bytes per s b h element inside the TP regions (attention and the shared experts), the MLP half of
    // them, and its shared experts' backward gradients; the routed part per token at the router (fp32 probabilities) and
    // per routed copy (its expert input, the intermediates, the output the combine's backward needs, their gradients).
    double moe_sharded_coefficient = 0, moe_mlp_half_sharded = 0, moe_mlp_gradient_coefficient = 0;
    double router_bytes_per_token = 0, copies_per_token = 0;
    double copy_input_bytes = 0, copy_ffn_bytes = 0, copy_output_bytes = 0, copy_gradient_bytes = 0;
    // An operator recipe (assets/frameworks): the blocks' memory comes from walking their tensors (layer_memory.h),
    // for each split a layout has, built once and kept here.
    bool operator_recipe = false;
    std::shared_ptr<const Scenario> scenario;  // what the blocks are built from
    bool fsdp_kept_under_pipeline = false;  // ZeRO-3 under a pipeline: the stage's weights stay gathered and its gradients
                                            // unsharded, in the reduce dtype, through the step (PipelineShardingRecipe)
    bool grads_from_start = true;   // the gradients exist before the backward: a buffer (Megatron, the probe), zero_grad
                                    // without set_to_none, or an earlier micro-batch's (gradient accumulation)
    int global_batch = 1;
    // LoRA and QLoRA (finetune.method): the frozen base and the adapters in place of the recipe's state per parameter.
    bool lora = false;
    LoraCounts lora_counts;
    struct OperatorBlocks {
        LayerSplit split;
        bool grads_allocated = false;
        std::string key;            // the layer block's key (recipe_ops.h block_key) with the gradients' flag
        BlockMemory embedding, layer, head;
    };
    mutable std::vector<std::shared_ptr<const OperatorBlocks>> held_blocks;  // what operator_blocks handed out
};
// ZeRO's sharding: the stage from which a kind of state is split, over how many ranks, and whether this layout splits it.
int sharded_from_stage(StateKind, bool sharded_optimizer);
int shard_ranks(const Layout&);
bool is_sharded(StateKind, bool sharded_optimizer, const Layout&);
double shard_share(StateKind, bool sharded_optimizer, const Layout&);  // the part of that state one GPU holds: 1 / ranks or 1
// The blocks of an operator recipe for a layout: walked once per distinct block and shared (a bounded cache).
const MemoryConstants::OperatorBlocks& operator_blocks(const MemoryConstants&, const Layout&);
MemoryConstants memory_constants(const Scenario&);
// heaviest_stage_params from the constants a search already holds.
StageParams heaviest_stage_params(const MemoryConstants&, int pp, int tp, int expert_shards = 1);

// One pipeline stage's GPU at its peak with this many micro-batches in flight (in whole-stage activations).
StageMemory stage_memory(const MemoryConstants&, const Layout&, int stage, double inflight_microbatches);

// The heaviest stage's peak, and the textbook sum (state + stored activations) on it.
struct MemoryEstimate {
    double state_bytes = 0;
    double activation_bytes = 0;
    double total_bytes = 0;
    bool fits = false;
    double peak_bytes = 0;
    int peak_stage = 0;
};

// A layout's memory before its schedule is known: the first and the last stage, the only candidates for the heaviest
// (the first holds the most layers and micro-batches in flight, the last the head and the loss; a middle stage holds no
// more than the first). Each grows linearly with its micro-batches in flight; the schedule then says how many.
// With experts a middle stage may hold more: the stage whose GPU holds the most MoE layers (the earliest of them, which
// has the most in flight) is a third candidate (middle_stage, -1 when there is none). So is stage 1 when the embedding and
// the loss take a layer's place (train.embedding_and_loss_as_layers): it holds a layer more than the first.
struct MemoryBasis {
    StageMemory first, last;               // with one micro-batch in flight
    double first_per_microbatch = 0;       // the peak each further micro-batch in flight adds (fragmentation included)
    double last_per_microbatch = 0;
    double first_activations_per_microbatch = 0;
    double last_activations_per_microbatch = 0;
    double hbm_bytes = 0;
    int middle_stage = -1;
    double middle_peak_bytes = 0, middle_state_bytes = 0;  // with one micro-batch in flight (what at() needs of it)
    double middle_per_microbatch = 0;
    double middle_activations_per_microbatch = 0;
    // inflight_middle < 0: the first stage's count, which no later stage exceeds.
    MemoryEstimate at(double inflight_first, double inflight_last, double inflight_middle = -1) const;
};
MemoryBasis memory_basis(const MemoryConstants&, const Layout&);
// The same for ZeRO 0 to 3 of one layout (its zero ignored), the layer's bytes worked out once: what a search tries in a row.
// Every field of the 4 is written, so a search may reuse one array.
void memory_bases_by_zero(const MemoryConstants&, const Layout&, MemoryBasis (&bases)[4]);
inline MemoryBasis memory_basis(const Scenario& scenario, const Layout& layout) { return memory_basis(memory_constants(scenario), layout); }

// The memory part of the Report: every stage at its peak (stage_inflight: each stage's micro-batches in flight, in
// whole-stage activations, as the schedule has them), the heaviest stage's blocks, HBM fit and the serving memory.
// schedule: the step's generated pipeline schedule (null: none, or one stage), whose order the timeline walks.
void fill_memory_report(const Scenario&, const std::vector<double>& stage_inflight, MemoryReport&, const ScheduleTimeline* schedule = nullptr);

}  // namespace core
