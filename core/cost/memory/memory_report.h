#pragma once
// What the memory model reports: the blocks live at a GPU's peak, every pipeline stage at its own peak, the activations
// per layer. Plain typed data; core/cost/memory/memory.h fills it, the Report carries it.
#include "core/model/precision.h"

#include <vector>

namespace core {

// What a block of memory holds. The state kinds follow the recipe's components; the rest is what a step allocates:
// the stored activations, and what is live beside them at the step's peak (core/cost/memory/memory.h).
enum class MemoryKind {
    weights, grads, master, optimizer, activations, kv_cache,
    weight_copies,         // the narrower copies the GEMMs read: autocast's bf16, Transformer Engine's fp8
    gathered_weights,      // ZeRO-3: the current and the prefetched layer gathered, and one layer's unsharded gradients
    logits,                // the last stage's final norm and head inputs, the logits and the loss's working set
    backward_working_set,  // one layer's backward: its recomputed activations (recompute) and its gradients
    workspace,             // cuBLAS workspaces
    comm_buffers,          // NCCL communicators' buffers, gradient buckets
    fragmentation,         // what the caching allocator reserves beyond what it hands out
};
const char* memory_kind_name(MemoryKind);  // "weights", "grads", ... (the eval keys)
MemoryKind memory_kind_of(StateKind);
bool is_training_state(MemoryKind);        // weights, grads, master, optimizer: scales with the parameters

// When in the step a GPU's memory peaks: the end of the last forward in flight (the loss computed), the loss's backward,
// or the backward of a layer (with its recompute).
enum class MemoryPhase { forward_end, loss_backward, layer_backward };
const char* memory_phase_name(MemoryPhase);  // "forward_end", "loss_backward", "layer_backward"

// One pipeline stage's GPU at its peak: what is live then, block by block (PerGpuMemory's fields, for this stage).
struct StageMemory {
    int stage = 0;                     // 0 first .. pp - 1 last
    int layers = 0;
    double params_per_gpu = 0;         // its layers (+ the embedding on the first, the final norm and head on the last) / tp
    double inflight_microbatches = 0;  // in whole-stage activations
    double weights_bytes = 0, grads_bytes = 0, master_bytes = 0, optimizer_bytes = 0;
    double state_bytes = 0;
    double activations_bytes = 0;      // the layers' stored activations x in flight
    double weight_copies_bytes = 0;
    double gathered_weights_bytes = 0;
    double logits_bytes = 0;
    double backward_working_set_bytes = 0;
    double workspace_bytes = 0;
    double comm_buffers_bytes = 0;
    double fragmentation_bytes = 0;
    double peak_bytes = 0;             // all of the above
    MemoryPhase phase = MemoryPhase::layer_backward;
    int moe_layers = 0;                // of its layers, those with routed experts
    double expert_params_per_gpu = 0;  // of params_per_gpu, the routed experts': the stage's / (ep x etp)
    int device_layers = 0;             // on its GPU: layers, or with DualPipe(V) its mirror stage's too
    bool holds_embedding = false;      // the first stage's, or under DualPipe(V) a mirror's
    bool holds_head = false;           // the last stage's final norm, head and loss, likewise
};

// One piece of training state (a recipe component) or activations: its bytes for the whole model and on one GPU.
struct MemoryBlock {
    MemoryKind kind = MemoryKind::weights;
    int component = -1;             // the recipe component it comes from (its label), -1 for the others
    double bytes_per_param = 0;     // 0 for activations and KV cache
    double whole_bytes = 0;         // unsharded: the whole model's
    double per_gpu_bytes = 0;       // under the current DP / ZeRO / TP / PP / CP layout
    bool sharded_over_dp = false;   // divided over the DP x CP ranks by ZeRO or the distributed optimizer
    double expert_per_gpu_bytes = 0;  // of per_gpu_bytes, the routed experts' part: split over EP x ETP, sharded over EDP
};

struct PerGpuMemory {
    double weights_bytes = 0;
    double grads_bytes = 0;
    double master_bytes = 0;
    double optimizer_bytes = 0;
    double activations_bytes = 0;
    double total_bytes = 0;                 // the textbook sum: state + stored activations
    // What else is live at the peak, on the stage and at the moment the peak is (core/cost/memory/memory.h):
    double weight_copies_bytes = 0;
    double gathered_weights_bytes = 0;
    double logits_bytes = 0;
    double backward_working_set_bytes = 0;
    double workspace_bytes = 0;
    double comm_buffers_bytes = 0;
    double fragmentation_bytes = 0;
    double peak_bytes = 0;                  // total_bytes + all of these: what memory.fits compares with HBM
};

// What the peak holds beside the textbook sum (weight copies, working sets, workspace, buffers, fragmentation).
inline double held_beside_sum_bytes(const PerGpuMemory& per_gpu) { return per_gpu.peak_bytes - per_gpu.total_bytes; }

struct ActivationReport {
    double bytes_per_layer = 0;             // one micro-batch, Korthikanti et al. 2022 Table 2 (generalised to GQA / gated MLP)
    double sbh_coefficient = 0;             // the bracket of Table 2: bytes per layer = s b h x this (+ the attention term)
    double attention_score_bytes = 0;       // the 5 a s^2 b / t part (0 with flash attention or selective recompute)
    bool sequence_parallel = false;         // applied (TP > 1 and on)
    int layers_on_first_stage = 0;
    double inflight_microbatches = 0;       // on the first stage: 1F1B p, GPipe m, interleaved p (1 + (p-1)/(p v)), v model chunks
    double first_stage_bytes = 0;           // bytes_per_layer x layers x in-flight
    double bytes_per_score = 0;             // of attention_score_bytes, per a s^2 b / t element: 5 with dropout (Korthikanti)
    double expert_bytes = 0;                // an MoE layer: the routed experts' part of bytes_per_layer (0 for a dense layer)
};

// Mixtures of experts: the routed experts' share of memory per GPU (Megatron-Core's buckets: attention, dense MLPs and
// shared experts split over TP and sharded over DP; routed experts split over EP x ETP and sharded over EDP).
struct ExpertMemory {
    double params = 0;                      // routed-expert parameters of the whole model
    double stage_params = 0;                // on the heaviest pipeline stage
    double params_per_gpu = 0;              // that / (ep x etp)
    int expert_data_parallel = 1;           // EDP = tp cp dp / (ep etp): the group their gradients and optimizer state shard over
    double weights_bytes = 0, grads_bytes = 0, master_bytes = 0, optimizer_bytes = 0;  // included in per_gpu's
    double activations_bytes = 0;           // the routed experts' activations in flight, included in per_gpu.activations_bytes
    double moe_layer_activation_bytes = 0;  // one MoE layer, one micro-batch, all of it
};

enum class TimelinePhase { forward, loss, backward, optimizer, zero_grad };
const char* timeline_phase_name(TimelinePhase);  // "forward", "loss", "backward", "optimizer", "zero_grad"

struct TimelinePoint {
    TimelinePhase phase = TimelinePhase::forward;
    int layer = -1;              // the stage's layer (0 first), -1 at a phase boundary
    int microbatch = 0;
    double allocated_bytes = 0;
    double reserved_bytes = 0;
    // What the allocated bytes are, for the panel's stacked area: state + grads + activations + transient = allocated.
    double state_bytes = 0;      // weights, master copy, optimizer state
    double weights_bytes = 0;    // of state_bytes: the weights
    double master_bytes = 0;     // of state_bytes: the fp32 master copy
    double optimizer_bytes = 0;  // of state_bytes: the optimizer's state (Adam's m and v)
    double grads_bytes = 0;
    double activations_bytes = 0;// what the layers keep for the backward
    double transient_bytes = 0;  // the rest: the head's logits and loss, working sets, copies, buffers
    double logits_bytes = 0;     // of transient_bytes: the head's logits, the loss's working set and their gradients
    bool inside_op = false;      // the step's allocated peak, inside an op between two boundaries (a working set at its height)
};

struct MemoryTimeline {
    int stage = 0;
    std::vector<TimelinePoint> points;          // the step's, in order
    double peak_allocated_bytes = 0;            // over the warm-up step and the step
    double peak_reserved_bytes = 0;
    int peak_point = 0;                         // the point nearest the allocated peak
    bool allocator_model = false;               // reserved from the caching allocator's model (operator recipes)
};

struct MemoryReport {
    double params = 0;
    // A LoRA or QLoRA fine-tune (finetune.method): the adapters alone train; the frozen base in the bytes it is stored in.
    bool finetune_adapters = false;
    double trainable_params = 0;            // every parameter for a full fine-tune; the adapters for LoRA
    double frozen_params = 0, frozen_bytes = 0;
    double params_per_gpu = 0;              // the heaviest pipeline stage's parameters / tp
    double bytes_per_param = 0;             // the recipe's total
    double state_bytes = 0;                 // whole training state, unsharded
    std::vector<MemoryBlock> blocks;        // recipe components in order, activations, then what is live at the peak
    PerGpuMemory per_gpu;                   // the heaviest stage's GPU at its peak
    ActivationReport activations;
    double hbm_bytes = 0;
    bool fits = false;                      // per_gpu.peak_bytes <= hbm
    double headroom_bytes = 0;              // hbm - per-GPU peak (negative when it does not fit)
    double state_gpus_worth = 0;            // state_bytes / hbm: "14x an H100"
    double per_gpu_over_hbm = 0;            // per-GPU peak / hbm
    double inference_weight_bytes = 0;      // serving: weights in the serving precision
    double kv_cache_bytes_per_token = 0;    // 2 x layers x kv_heads x head_dim x bytes
    double kv_cache_bytes = 0;              // for the serving batch and context
    double params_active = 0;               // parameters one token uses (= params for a dense model; moe.md)
    ExpertMemory experts;                   // zero for a dense model
    std::vector<StageMemory> per_stage;     // every pipeline stage's GPU at its own peak
    int peak_stage = 0;                     // the heaviest: per_gpu and the blocks describe it
    MemoryPhase peak_phase = MemoryPhase::layer_backward;
    int tipping_block = -1;                 // stacked in block order, the block that crosses HBM; -1 when it fits
    MemoryTimeline timeline;                // the heaviest stage over one step (core/cost/memory/timeline.h)
    double peak_allocated_bytes = 0;        // the step's allocated peak (tensors and workspaces, the allocator's view)
    double peak_reserved_bytes = 0;         // what the caching allocator holds then: what memory.fits compares with HBM,
                                            // with NCCL's buffers, which live outside it
};

}  // namespace core
