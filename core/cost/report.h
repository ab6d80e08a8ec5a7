#pragma once
// Every derived figure, as plain data. Widgets draw these; they never compute a figure themselves.
#include "core/cost/reliability.h"

#include <string>
#include <vector>

namespace core {

// One piece of training state (a recipe component) or activations: its bytes for the whole model and on one GPU.
struct MemoryBlock {
    std::string label;            // "fp32 master"
    std::string kind;             // "weights", "grads", "master", "optimizer", "activations", "kv_cache"
    double bytes_per_param = 0;   // 0 for activations and KV cache
    double whole_bytes = 0;       // unsharded: the whole model's
    double per_gpu_bytes = 0;     // under the current DP / ZeRO / TP / PP / CP layout
    std::string whole_formula;    // "fp32 master: 4 B x 70.6e9 = 282 GB"
    std::string per_gpu_formula;  // "4 B x 70.6e9 / (tp 1 x pp 1) / dp 64 (ZeRO-1) = 4.41 GB"
};

struct PerGpuMemory {
    double weights_bytes = 0;
    double grads_bytes = 0;
    double master_bytes = 0;
    double optimizer_bytes = 0;
    double activations_bytes = 0;
    double total_bytes = 0;
};

struct ActivationReport {
    double bytes_per_layer = 0;             // one micro-batch, Korthikanti et al. 2022 Table 2 (generalised to GQA / gated MLP)
    double sbh_coefficient = 0;             // the bracket of Table 2: bytes per layer = s b h x this (+ the attention term)
    double attention_score_bytes = 0;       // the 5 a s^2 b / t part (0 with flash attention or selective recompute)
    int layers_on_first_stage = 0;
    double inflight_microbatches = 0;       // on the first stage: 1F1B p, GPipe m, interleaved p (1 + (p-1)/(p v)), v model chunks
    double first_stage_bytes = 0;           // bytes_per_layer x layers x in-flight
    std::string formula;
    std::string configuration;              // "tensor + sequence parallel + selective recompute"
};

struct MemoryReport {
    double params = 0;
    double params_per_gpu = 0;              // the heaviest pipeline stage's parameters / tp
    double bytes_per_param = 0;             // the recipe's total
    double state_bytes = 0;                 // whole training state, unsharded
    std::vector<MemoryBlock> blocks;        // recipe components in order, then activations
    PerGpuMemory per_gpu;
    ActivationReport activations;
    double hbm_bytes = 0;
    bool fits = false;
    double headroom_bytes = 0;              // hbm - per-GPU total (negative when it does not fit)
    double state_gpus_worth = 0;            // state_bytes / hbm: "14x an H100"
    double per_gpu_over_hbm = 0;            // per-GPU total / hbm
    double inference_weight_bytes = 0;      // serving: weights in the serving precision
    double kv_cache_bytes_per_token = 0;    // 2 x layers x kv_heads x head_dim x bytes
    double kv_cache_bytes = 0;              // for the serving batch and context
};

struct ComputeReport {
    double tokens_per_step = 0;
    double model_flops_per_token = 0;       // forward + backward, no recompute
    double model_flops_per_step = 0;        // Korthikanti eq. 7 for GPT
    double hardware_flops_per_step = 0;     // + recompute (eq. 8 selective, Narayanan eq. 3 full)
    double six_n_flops_per_step = 0;        // Kaplan's 6 N D, for comparison
    double peak_flops_per_s = 0;            // one GPU, bf16
    double compute_seconds = 0;             // hardware FLOPs per GPU / (peak x compute efficiency)
    double bubble_seconds = 0;
    double exposed_comm_seconds = 0;
    double step_seconds = 0;
    double mfu = 0;
    double hfu = 0;
    double achieved_flops_per_s_per_gpu = 0;
    double steps = 0;                       // tokens / tokens per step
    double train_seconds = 0;
    double gpu_hours = 0;
    double cost_dollars = 0;
    std::string step_basis;                 // "assumed MFU 40 %", "measured step 1.10 s", "modelled"
};

struct AxisComm {
    std::string axis;                // "dp", "tp", "pp", "cp"
    int degree = 1;
    std::string collective;          // "all-reduce (ring)", "reduce-scatter + all-gather", "send/recv"
    std::string link;                // "NVLink 4", "InfiniBand NDR"
    bool crosses_nodes = false;
    double link_bytes_per_s = 0;
    double message_bytes = 0;        // one collective's buffer S
    double bytes_per_gpu = 0;        // sent by one GPU per optimizer step
    double seconds = 0;              // alpha-beta time per step
    double exposed_seconds = 0;      // the part not hidden behind compute
    bool hidden = false;
    double algbw_bytes_per_s = 0;    // nccl-tests: S / t
    double busbw_bytes_per_s = 0;    // algbw x the collective's factor
    std::string formula;
};

struct CommReport {
    std::vector<AxisComm> axes;      // only axes of degree > 1
    double total_seconds = 0;
    double exposed_seconds = 0;
};

struct PipelineReport {
    std::string schedule;            // "1f1b"
    int stages = 1;
    int microbatches = 1;
    int virtual_stages = 1;
    double bubble_fraction = 0;      // idle share of all stage-time in one step, measured from the generated timeline
    double bubble_overhead = 0;      // idle over ideal compute: the papers' (p-1)/m
    double closed_form_bubble_overhead = 0;
    double makespan_seconds = 0;     // of one step's schedule, in the model's own time units
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
    std::string gpu_name;
    std::string model_name;
    std::string recipe_name;
};

struct Report {
    LayoutReport layout;
    MemoryReport memory;
    ComputeReport compute;
    CommReport comm;
    PipelineReport pipeline;
    RooflineReport roofline;
    ReliabilityReport reliability;       // failures, checkpoints and goodput from scenario.operations
    std::vector<std::string> warnings;   // "TP 16 crosses the node boundary (8 GPUs per node)"
};

}  // namespace core
