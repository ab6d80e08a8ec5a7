#pragma once
// Communication per parallel axis, each on the link its group runs over (published.md sections 3 and 5; NCCL's
// two-tier rings in collectives.h). Scalar functions of the scenario and a layout: evaluate() and the planner call
// the same ones. How much of each hides behind compute is decided where the step is put together (step.h).
#include "core/cost/kernels/collectives.h"
#include "core/model/framework_recipe.h"
#include "core/model/layout.h"

namespace core {

enum class CommAxis { tp, cp, pp, dp, ep };
inline constexpr int kCommAxes = 5;
const char* comm_axis_name(CommAxis);  // "tp", "cp", "pp", "dp", "ep"

// Where an axis's group sits: ranks run TP fastest, then CP, PP, DP; the DP group (gradients) is DP x CP ranks,
// since context-parallel ranks hold the same weights. The EP group: ep ranks etp apart among a stage's tp x cp x dp GPUs.
GroupPlacement axis_placement(CommAxis, const Layout&, int gpus_per_node);
// The same on the cluster's fabric (scale_out_share): what every cost of the step uses.
GroupPlacement axis_placement(CommAxis, const Layout&, const ClusterSpec&);
// A group of GPUs spanning span_gpus consecutive ranks, on the fabric: the NIC's rate over the link's, the node's rails over
// its GPUs, and for each tier the group crosses (a leaf, a pod) the most a ring edge through it gets: a ring leaves a
// group of g nodes once per channel while all g nodes' NICs carry its other edges, so an oversubscription x caps that
// edge at min(1, g / x) of a NIC (NCCL orders each ring node by node; nccl docs, rail-optimised topologies).
GroupPlacement on_fabric(GroupPlacement, long long span_gpus, const ClusterSpec&);
// The expert tensor parallel group (etp consecutive ranks of a stage) and the expert data parallel group (EDP ranks,
// ep x etp apart), over which the routed experts' gradients are reduced and their optimizer state sharded.
GroupPlacement expert_tp_placement(const Layout&, int gpus_per_node);
GroupPlacement expert_dp_placement(const Layout&, int gpus_per_node);
GroupPlacement expert_tp_placement(const Layout&, const ClusterSpec&);
GroupPlacement expert_dp_placement(const Layout&, const ClusterSpec&);

// Tensor parallelism, one layer, one micro-batch: Megatron's two all-reduces forward and two backward of the b s h
// activations (Narayanan 2021 sec 3.2), or with sequence parallelism an all-gather and a reduce-scatter in their place
// (Korthikanti 2022 sec 4.2.2); a full recompute repeats the forward's.
struct TpComm {
    Collective collective = Collective::all_reduce;  // all_reduce, or all_gather + reduce_scatter under SP
    double message_bytes = 0;       // one collective's buffer: b s h x 2 B (the whole of it, as nccl-tests count)
    double forward_seconds = 0;     // all of the layer's forward collectives
    double backward_seconds = 0;
    double recompute_seconds = 0;
    double bytes_per_gpu = 0;       // sent by one GPU, all passes
    int collectives = 0;            // per layer per micro-batch, all passes
};
TpComm tp_layer_comm(const Scenario&, const Layout&);
// Whether the TP collectives run behind the GEMMs: the scenario's switch, and only inside one node, since Transformer
// Engine's comm-GEMM overlap moves the data through CUDA IPC userbuffers, which do not reach across the network.
bool tp_comm_overlapped(const Scenario&, const Layout&);

// Context parallelism, one layer, one micro-batch: ring attention passes the local K and V chunk cp - 1 times forward,
// and K, V with their gradients cp - 1 times backward (Liu et al. 2023; Megatron-Core context parallel).
struct CpComm {
    CpRotation rotation = CpRotation::ring;  // the framework's (framework_recipe.h ContextParallelRecipe)
    double message_bytes = 0;       // K and V of the local chunk
    double step_forward_seconds = 0;   // ring: one step's send/recv, forward
    double step_backward_seconds = 0;  // ring: one step backward (K, V and dK, dV); all_gather: one step's dK, dV
    double grad_message_bytes = 0;  // all_gather: one step's dK and dV
    double gather_seconds = 0;      // all_gather: every rank's K and V, once a pass, waited for after the first chunk
    int steps = 0;                  // cp - 1 per pass
    double bytes_per_gpu = 0;       // one layer, one micro-batch, both passes
    double seconds(Recompute recompute) const;  // one layer, one micro-batch, every pass: the time on the link
};
CpComm cp_layer_comm(const Scenario&, const Layout&);

// Pipeline parallelism: one activation (forward) or gradient (backward) crossing a stage boundary, per micro-batch.
struct PpComm {
    double message_bytes = 0;       // b s h x 2 B, split over TP under sequence parallelism
    double send_seconds = 0;        // one send/recv, on the link between two stages
};
PpComm pp_comm(const Scenario&, const Layout&);

// Data parallelism over DP x CP ranks, for params_per_gpu parameters on a GPU: ZeRO-0 all-reduces the gradients once
// per step; ZeRO-1 and the distributed optimizer reduce-scatter them and all-gather the updated weights; ZeRO-2 also
// shards gradients, so each micro-batch's are reduce-scattered; ZeRO-3 gathers every layer's weights forward and
// backward and reduce-scatters its gradients, every micro-batch (Rajbhandari et al. 2019 sec 7).
struct DpComm {
    double grad_bytes = 0;          // the gradient buffer reduced (widest gradient dtype)
    double weight_bytes = 0;        // the weights gathered (compute dtype)
    double grad_reduce_seconds = 0;     // all-reduce (ZeRO-0) or reduce-scatter of the whole buffer, once
    double param_gather_seconds = 0;    // all-gather of the updated weights after the optimizer (ZeRO-1/2, distributed optimizer)
    double layer_gather_seconds = 0;    // ZeRO-3: one layer's weights, once
    double layer_reduce_seconds = 0;    // ZeRO-3: one layer's gradients, once
    int reduces_per_step = 1;       // how many times grad_reduce runs per step (ZeRO-2: once per micro-batch)
    int gathers_per_microbatch = 2; // ZeRO-3: each layer's weights gathered forward and backward (and for a recompute)
    bool gathers_overlap = true;    // ZeRO-3: a gather may run behind the layer before it (false: the engine waits for it)
    double bytes_per_gpu = 0;       // per step
    bool all_reduce = true;         // ZeRO-0 without a sharded optimizer
    bool once_a_step = false;       // ZeRO-3 under a pipeline that keeps the weights gathered (framework_recipe.h
                                    // PipelineShardingRecipe): the stage gathered once, as param_gather, and reduced
                                    // once after the last backward, as grad_reduce; no per-layer gathers
};
DpComm dp_comm(const Scenario&, const Layout&, double params_per_gpu, int stage_layers, int microbatches);

// A ZeRO-3 engine's rules, read from its code (scenario.h ShardingEngine).
struct Zero3EngineRules {
    int gathers_per_layer = 1;          // all-gathers one layer's weights take: 1 coalesced, else one per weight matrix
    bool synchronised = false;          // the device is synchronised before each gather: none hides behind compute
    bool reduce_by_all_reduce = false;  // gradients all-reduced in buckets (each rank keeps its slice), not reduce-scattered
    double bucket_elements = 0;         // the all-reduce's bucket, in elements (0: one reduce-scatter per layer)
    double reuse_distance_params = 0;   // weights gathered for a recompute are kept for the backward when the layer is
                                        // under this many parameters (0: the backward's gather serves both)
    bool per_rank_copies = false;       // the list form of all_gather: one host-launched copy per rank per gather
    const char* source = "";
};
const Zero3EngineRules& zero3_engine_rules(ShardingEngine);
// The same over another group: the routed experts' parameters over the expert data parallel group.
DpComm dp_comm_over(const Scenario&, const Layout&, const GroupPlacement&, double params_per_gpu, int stage_layers, int microbatches);
// Both buckets reduced one after the other on the data-parallel stream: the sums of their figures.
DpComm combined(const DpComm& dense, const DpComm& experts);

// Expert parallelism, one MoE layer, one micro-batch, on the busiest GPU: the all-to-all that dispatches each token's
// hidden state to its top-k experts and the one that combines their outputs, forward; both again backward (the output
// gradients to the experts, the input gradients back); a full recompute repeats the forward's (moe.md; Megatron-Core's
// alltoall dispatcher). Uniform routing: a share (ep - 1) / ep of the copies leaves the GPU and (ep - g) / ep its node
// (g EP ranks per node); node-limited routing sends one InfiniBand copy per destination node and fans out over NVLink
// there (DeepSeek-V3 sec 3.2.2). The busiest GPU receives load_factor x the mean. With ETP > 1 the dispatched tokens are
// all-gathered over the ETP group and the outputs reduce-scattered.
struct EpComm {
    double tokens = 0;                 // tokens entering the router on one GPU, b s / (tp cp) (sequence parallel under TP)
    double load_factor = 1;            // the busiest GPU's received tokens over the mean
    double scale_up_copies = 0;        // per token: copies sent to GPUs of the same node (NVLink), forwarding included
    double scale_out_copies = 0;       // per token: copies sent to other nodes (InfiniBand)
    double dispatch_message_bytes = 0; // one dispatch's buffer: tokens x top-k x h x dispatch bytes
    double dispatch_bytes = 0;         // sent by one GPU in one dispatch (copies leaving it)
    double combine_bytes = 0;          // in one combine (bf16)
    double dispatch_seconds = 0;       // one dispatch all-to-all on the busiest GPU, two tiers at once (the slower decides)
    double combine_seconds = 0;
    double etp_seconds = 0;            // ETP: the all-gather after the dispatch and the reduce-scatter before the combine
    double forward_seconds = 0;        // dispatch + combine (+ ETP)
    double backward_seconds = 0;       // their gradients, the same volumes
    double recompute_seconds = 0;      // full recompute repeats the forward's
    double bytes_per_gpu = 0;          // one layer, all passes
    int all_to_alls = 0;               // per layer per micro-batch, all passes: 4, or 6 recomputed
    int nodes = 1;                     // nodes the EP group spans
};
EpComm ep_layer_comm(const Scenario&, const Layout&);

}  // namespace core
