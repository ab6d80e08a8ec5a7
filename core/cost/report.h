#pragma once
// Every derived figure, as plain typed data: numbers and enums, no presentation text (core/cost/explain.h writes the
// formulas and sources, once per scenario). Widgets draw these; they never compute a figure themselves.
#include "core/cost/budget.h"
#include "core/cost/comm.h"
#include "core/cost/kernels.h"
#include "core/cost/reliability.h"

#include <vector>

namespace core {

// What a block of memory holds. The state kinds follow the recipe's components; the rest is what a step allocates:
// the stored activations, and what is live beside them at the step's peak (core/cost/memory.h).
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
    // What else is live at the peak, on the stage and at the moment the peak is (core/cost/memory.h):
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

struct MemoryReport {
    double params = 0;
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
};

// How the step time was obtained.
enum class StepBasis { modelled, assumed_mfu, measured_step };

// The step split into what it is spent on, on the busiest GPU; the parts sum to compute.step_seconds.
struct StepBreakdown {
    double gemm_seconds = 0;             // the GEMMs of the layers, the logits, and recompute
    double attention_seconds = 0;        // fused attention, or the unfused scores, softmax, dropout and context
    double elementwise_seconds = 0;      // norms, activations, residual adds, casts, embedding, loss
    double optimizer_seconds = 0;
    double exposed_comm_seconds[kCommAxes] = {0, 0, 0, 0, 0};  // by CommAxis: what compute could not hide, and the SMs overlap took
    double bubble_seconds = 0;           // the pipeline standing idle
    double exposed_comm_total() const {
        double sum = 0;
        for (double seconds : exposed_comm_seconds) sum += seconds;
        return sum;
    }
    double total() const { return gemm_seconds + attention_seconds + elementwise_seconds + optimizer_seconds + exposed_comm_total() + bubble_seconds; }
};

// Which stream an operation of the layer timeline runs on.
enum class Stream { compute, tp, dp, pp, cp, ep };
const char* stream_name(Stream);

// One operation of one layer's forward and backward on the busiest GPU, placed in time: what the anatomy panel draws.
struct TimelineOp {
    Stream stream = Stream::compute;
    int kernel = -1;                 // index into ComputeReport::kernels (compute stream), -1 for communication
    KernelPass pass = KernelPass::forward;
    double start_seconds = 0;
    double duration_seconds = 0;
    bool exposed = false;            // communication the compute stream waited for
};

struct ComputeReport {
    double tokens_per_step = 0;
    double model_flops_per_token = 0;       // forward + backward, no recompute
    double model_flops_per_step = 0;        // Korthikanti eq. 7 for GPT: every attention score, causal or not (what MFU counts)
    double hardware_flops_per_step = 0;     // what runs: + recompute (eq. 8, eq. 3); causal flash kernels only half the scores
    double six_n_flops_per_step = 0;        // Kaplan's 6 N D, for comparison
    double peak_flops_per_s = 0;            // one GPU, bf16
    bool fp8_gemms = false;                 // the linear layers' GEMMs run on the fp8 tensor cores (above the bf16 roof)
    double compute_seconds = 0;             // the busiest GPU's kernels over the step (the breakdown's first four parts)
    double bubble_seconds = 0;
    double exposed_comm_seconds = 0;
    double step_seconds = 0;
    double modelled_step_seconds = 0;       // the model's own step, whatever the basis
    StepBasis step_basis = StepBasis::modelled;
    double mfu = 0;
    double hfu = 0;                         // hardware FLOPs over peak: under MFU with causal flash at long sequences
    double achieved_flops_per_s_per_gpu = 0;
    double steps = 0;                       // tokens / tokens per step
    double train_seconds = 0;
    double gpu_hours = 0;
    double cost_dollars = 0;
    std::vector<Kernel> kernels;            // one layer (all passes), the stage edges and the optimizer, each timed
    StepBreakdown breakdown_seconds;
    std::vector<TimelineOp> layer_timeline; // one layer, forward then backward, one micro-batch
    double layer_timeline_seconds = 0;
    int busiest_stage = 0;                  // the pipeline stage the breakdown describes: 0 first, pp - 1 last
};

struct AxisComm {
    CommAxis axis = CommAxis::dp;
    int degree = 1;
    Collective collective = Collective::all_reduce;  // the main one (ZeRO-3: all-gather; SP: all-gather + reduce-scatter)
    bool crosses_nodes = false;
    double bus_bytes_per_s = 0;      // what NCCL reaches for this group on its links
    double message_bytes = 0;        // one collective's buffer S
    double bytes_per_gpu = 0;        // sent by one GPU per optimizer step
    double seconds = 0;              // per step, all of it
    double exposed_seconds = 0;      // per step: the part compute did not hide, plus the compute slowed while it overlapped
    bool hidden = false;
    double algbw_bytes_per_s = 0;    // nccl-tests: S / t, one collective
    double busbw_bytes_per_s = 0;    // algbw x the collective's factor
};

struct CommReport {
    std::vector<AxisComm> axes;      // only axes of degree > 1
    double total_seconds = 0;
    double exposed_seconds = 0;
};

struct PipelineReport {
    ScheduleKind schedule = ScheduleKind::one_f_one_b;
    int stages = 1;
    int microbatches = 1;
    int virtual_stages = 1;
    double bubble_fraction = 0;      // idle share of all stage-time in one step, measured from the generated timeline
    double bubble_overhead = 0;      // idle over ideal compute: the papers' (p-1)/m
    double closed_form_bubble_overhead = 0;
    double makespan_seconds = 0;     // the pipelined part of the step, from the generated schedule
    double forward_seconds = 0;      // one micro-batch on a middle stage, exposed communication included
    double backward_seconds = 0;     // B + W
    double weight_grad_seconds = 0;  // W
    // The edge stages against a middle one, per micro-batch: the embedding's forward and backward on the first, the final
    // norm, logits and loss on the last, less the layers the stage lacks (negative when they weigh more than the edge).
    double first_extra_seconds = 0;
    double last_extra_seconds = 0;
    double p2p_seconds = 0;          // one send between stages
    int peak_inflight_microbatches = 0;  // on the first device
};

struct RooflineReport {
    double ridge_flops_per_byte = 0;     // bf16 peak / HBM bandwidth of the scenario's GPU
};

struct LayoutReport {
    int gpus = 1, dp = 1, tp = 1, pp = 1, cp = 1, zero = 0;
    int nodes = 1;
    int gpus_per_node = 8;
    int microbatches = 1;
    int ep = 1, etp = 1;    // expert parallel and expert tensor parallel (folded over tp x cp x dp)
};

// Mixtures of experts: what the step model says of the routing, per MoE layer (what DualPipe overlaps: per-layer all-to-all).
struct MoeReport {
    bool has_experts = false;
    int experts = 0, experts_per_token = 0, shared_experts = 0;
    int moe_layers = 0, dense_layers = 0;   // of the whole model
    int stage_moe_layers = 0;               // on the heaviest pipeline stage
    int ep = 1, etp = 1, expert_data_parallel = 1;
    int local_experts = 0;                  // E / ep on each GPU
    int ep_nodes = 1;                       // nodes one EP group spans
    double load_factor = 1;                 // the busiest GPU's tokens over the mean (imbalance, or the capacity factor)
    double tokens_per_gpu = 0;              // tokens entering the router on one GPU per micro-batch, b s / (tp cp)
    double tokens_per_expert = 0;           // routed copies each local expert computes on the busiest GPU: tokens x etp x k x ep / E x load
    double scale_up_copies = 0;             // per token, copies that travel on NVLink (node-limited forwarding included)
    double scale_out_copies = 0;            // per token, copies that cross the node boundary
    double dispatch_bytes_per_layer = 0;    // one GPU, one MoE layer, one micro-batch: sent in the forward dispatch
    double combine_bytes_per_layer = 0;     // and in the forward combine
    double all_to_all_forward_seconds_per_layer = 0;   // dispatch + combine (+ ETP), one MoE layer, one micro-batch
    double all_to_all_backward_seconds_per_layer = 0;  // their gradients
    double all_to_all_exposed_seconds_per_layer = 0;   // forward + recompute + backward, what the compute stream waited
    double expert_compute_seconds_per_layer = 0;       // router, permutations and expert GEMMs, all passes, one micro-batch
    double layer_forward_seconds = 0;       // one MoE layer's compute, one micro-batch: forward (DualPipe's F chunk per layer)
    double layer_backward_seconds = 0;      // and backward, recompute included (B + W)
    double dropped_share = 0;               // capacity factor below the imbalance: the busiest GPU's tokens over capacity
};

enum class WarningKind { tp_crosses_nodes, uneven_pipeline_stages, does_not_fit, global_batch_fitted };
struct Warning {
    WarningKind kind = WarningKind::does_not_fit;
    double value = 0;   // tp_crosses_nodes: the TP degree; uneven: the heaviest stage's layers; does_not_fit: bytes per GPU;
                        // global_batch_fitted: the batch the file got
    double limit = 0;   // GPUs per node; pp; HBM bytes; dp x micro-batch
};

struct Report {
    LayoutReport layout;
    MemoryReport memory;
    ComputeReport compute;
    CommReport comm;
    PipelineReport pipeline;
    RooflineReport roofline;
    ReliabilityReport reliability;       // failures, checkpoints and goodput from scenario.operations
    std::vector<Warning> warnings;
    MoeReport moe;                       // mixtures of experts (has_experts false for a dense model)
    BudgetReport budget;                 // what the run costs with its setup, against scenario.budget
};

}  // namespace core
