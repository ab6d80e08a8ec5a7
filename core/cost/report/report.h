#pragma once
// Every derived figure, as plain typed data: numbers and enums, no presentation text (core/cost/report/explain.h writes the
// formulas and sources, once per scenario). Widgets draw these; they never compute a figure themselves.
#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/kernels.h"
#include "core/cost/memory/memory_report.h"
#include "core/cost/report/budget.h"
#include "core/cost/report/expected_error.h"
#include "core/cost/report/reliability.h"
#include "core/cost/serving/serving.h"
#include "core/cost/step/step_report.h"
#include "core/model/layout.h"

#include <vector>

namespace core {

// How the step time was obtained.
// How the step time was obtained: modelled, or held at the best MFU published for the framework on that GPU when the
// model would go above it (core/cost/report/expected_error.h).
enum class StepBasis { modelled, assumed_mfu, measured_step, published_ceiling };

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
    ExpectedError expected_error;           // the model's error over the validation runs of this regime
    MfuCeiling mfu_ceiling;                 // the best MFU published for this framework on this GPU (0: none)
    StepBasis step_basis = StepBasis::modelled;
    double mfu = 0;
    double hfu = 0;                         // hardware FLOPs over peak: under MFU with causal flash at long sequences
    double achieved_flops_per_s_per_gpu = 0;
    double steps = 0;                       // tokens / tokens per step
    double compile_seconds = 0;             // torch.compile's first step, once (counted in train_seconds)
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

// The scenario's layout (dp resolved) and where it runs.
struct LayoutReport : Layout {
    int gpus = 1;
    int nodes = 1;
    int gpus_per_node = 8;
    int microbatches = 1;

    bool operator==(const LayoutReport&) const = default;
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

enum class WarningKind { tp_crosses_nodes, uneven_pipeline_stages, does_not_fit, global_batch_fitted, mfu_capped, field_set_by_recipe };
struct Warning {
    WarningKind kind = WarningKind::does_not_fit;
    double value = 0;   // tp_crosses_nodes: the TP degree; uneven: the heaviest stage's layers; does_not_fit: bytes per GPU;
                        // global_batch_fitted: the batch the file got; field_set_by_recipe: its recipe_set_field index
    double limit = 0;   // GPUs per node; pp; HBM bytes; dp x micro-batch
};

// The peak per GPU in groups, as a single bar shows it: each training-state kind and the stored activations in the stack's
// order (Adam's m and v make one group), then one group for all the peak holds beside them (weight copies, working sets,
// workspace, buffers, fragmentation), which the stack panel names one by one.
struct PeakGroup {
    MemoryKind kind = MemoryKind::weights;  // the group's kind; for the group held beside, its first block's
    bool held_beside = false;
    double per_gpu_bytes = 0;               // the sum of its blocks' per_gpu_bytes
    std::vector<int> blocks;                // indices into memory.blocks, in order
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
    std::vector<PeakGroup> peak_groups;  // memory.blocks gathered by kind at the peak, empty blocks and the KV cache left out
    ServingReport serving;               // the service: prefill, decode, replicas x TP against the rate and the latency targets
};

}  // namespace core
