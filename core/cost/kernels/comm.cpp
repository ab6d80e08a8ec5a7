#include "core/cost/kernels/comm.h"

#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/kernels.h"
#include "core/cost/kernels/lora_ops.h"
#include "core/model/framework_recipe.h"

#include <algorithm>

namespace core {

const char* comm_axis_name(CommAxis axis) {
    switch (axis) {
        case CommAxis::tp: return "tp";
        case CommAxis::cp: return "cp";
        case CommAxis::pp: return "pp";
        case CommAxis::dp: return "dp";
        case CommAxis::ep: return "ep";
    }
    return "?";
}

namespace {

constexpr double kActivationBytes = 2.0;  // bf16 on the wire

// How many of rank 0's group share its node, the first `node_ranks` ranks. Ranks run TP fastest, then CP, PP, DP
// (rank_coordinates): a group whose members are `stride` ranks apart has ceil(node_ranks / stride) of them there.
// How many of a group of the first pipeline stage's GPUs lie in the first node_ranks ranks: the group holds the GPUs with
// stage indices start, start + stride, ... (size of them), an index running over tp, then cp, then dp (stage_rank_index).
int stage_members_in_first_node(const Layout& layout, long long stride, long long size, int node_ranks) {
    int members = 0;  // ranks grow with the stage index, so the count stops at the first beyond the node
    for (long long i = 0; i < size && rank_of_stage_index(layout, 0, i * stride) < node_ranks; ++i) ++members;
    return std::max(1, members);
}

int members_in_first_node(CommAxis axis, const Layout& layout, int node_ranks) {
    const auto within = [&](long long stride, long long size) { return static_cast<int>(std::min(size, (node_ranks + stride - 1) / stride)); };
    switch (axis) {
        case CommAxis::tp: return within(1, layout.tp);
        case CommAxis::cp: return within(layout.tp, layout.cp);
        case CommAxis::pp: return within(1LL * layout.tp * layout.cp, layout.pp);
        case CommAxis::dp: {
            // DP and CP reduce together: the ranks with tp = 0 and pp = 0, i.e. in each model replica (tp cp pp ranks)
            // the CP ranks of its first stage, which come first in it.
            const long long replica_ranks = 1LL * layout.tp * layout.cp * layout.pp;
            int members = 0;
            for (long long start = 0, replica = 0; start < node_ranks && replica < layout.dp; start += replica_ranks, ++replica) {
                members += static_cast<int>(std::min<long long>(layout.cp, (node_ranks - start + layout.tp - 1) / layout.tp));
            }
            return members;
        }
        case CommAxis::ep: return stage_members_in_first_node(layout, layout.etp, layout.ep, node_ranks);
    }
    return 1;
}

long long layout_span(const Layout& layout) { return 1LL * layout.tp * layout.cp * layout.pp * layout.dp; }

// A group of the first stage's GPUs `stride` apart in stage index: where it sits.
GroupPlacement stage_group(const Layout& layout, int gpus_per_node, long long stride, int ranks) {
    GroupPlacement group;
    group.ranks = ranks;
    const int node_ranks = static_cast<int>(std::min<long long>(gpus_per_node, layout_span(layout)));
    group.ranks_per_node = std::min(ranks, stage_members_in_first_node(layout, stride, ranks, node_ranks));
    return group;
}

}  // namespace

GroupPlacement axis_placement(CommAxis axis, const Layout& layout, int gpus_per_node) {
    GroupPlacement group;
    switch (axis) {
        case CommAxis::tp: group.ranks = layout.tp; break;
        case CommAxis::cp: group.ranks = layout.cp; break;
        case CommAxis::pp: group.ranks = layout.pp; break;
        case CommAxis::dp: group.ranks = layout.dp * layout.cp; break;
        case CommAxis::ep: group.ranks = layout.ep; break;
    }
    const long long span = 1LL * layout.tp * layout.cp * layout.pp * layout.dp;
    group.ranks_per_node = std::min<long long>(group.ranks, members_in_first_node(axis, layout, static_cast<int>(std::min<long long>(gpus_per_node, span))));
    return group;
}

GroupPlacement on_fabric(GroupPlacement group, long long span_gpus, const ClusterSpec& cluster) {
    const FabricSpec& fabric = cluster.fabric;
    const LinkSpec& link = cluster.scale_out;
    const double nic = fabric.nic_bytes_per_s > 0 ? std::min(fabric.nic_bytes_per_s, link.bytes_per_s) : link.bytes_per_s;
    const double rails = fabric.rails > 0 ? fabric.rails : cluster.gpus_per_node;
    double share = (nic / link.bytes_per_s) * (rails / cluster.gpus_per_node);
    const long long cluster_gpus = std::max(1, cluster.gpus);
    const long long pod = fabric.pod_gpus > 0 ? std::min<long long>(fabric.pod_gpus, cluster_gpus) : cluster_gpus;
    const long long leaf = fabric.leaf_gpus > 0 ? std::min<long long>(fabric.leaf_gpus, pod) : pod;
    const auto tier = [&](long long tier_gpus, double oversubscription) {
        if (span_gpus <= tier_gpus || oversubscription <= 1) return 1.0;
        const double nodes = std::max(1.0, static_cast<double>(tier_gpus) / cluster.gpus_per_node);
        return std::min(1.0, nodes / oversubscription);
    };
    share *= std::min(tier(leaf, fabric.oversubscription), tier(pod, fabric.cross_pod_oversubscription));
    group.scale_out_share = share;
    return group;
}

namespace {

// The GPUs a group spans in rank order: its members run `stride` ranks apart (ranks run TP fastest, then CP, PP, DP).
long long axis_span(CommAxis axis, const Layout& layout) {
    switch (axis) {
        case CommAxis::tp: return layout.tp;
        case CommAxis::cp: return 1LL * layout.tp * layout.cp;
        case CommAxis::pp: return 1LL * layout.tp * layout.cp * layout.pp;
        case CommAxis::dp: return layout_span(layout);
        case CommAxis::ep: return 1LL * layout.etp * layout.ep;
    }
    return 1;
}

}  // namespace

GroupPlacement axis_placement(CommAxis axis, const Layout& layout, const ClusterSpec& cluster) {
    return on_fabric(axis_placement(axis, layout, cluster.gpus_per_node), axis_span(axis, layout), cluster);
}

GroupPlacement expert_tp_placement(const Layout& layout, const ClusterSpec& cluster) {
    return on_fabric(expert_tp_placement(layout, cluster.gpus_per_node), layout.etp, cluster);
}

GroupPlacement expert_dp_placement(const Layout& layout, const ClusterSpec& cluster) {
    return on_fabric(expert_dp_placement(layout, cluster.gpus_per_node), layout_span(layout), cluster);
}

GroupPlacement expert_tp_placement(const Layout& layout, int gpus_per_node) { return stage_group(layout, gpus_per_node, 1, layout.etp); }

GroupPlacement expert_dp_placement(const Layout& layout, int gpus_per_node) {
    return stage_group(layout, gpus_per_node, 1LL * layout.ep * layout.etp, std::max(1, layout.expert_data_parallel()));
}

TpComm tp_layer_comm(const Scenario& scenario, const Layout& layout) {
    TpComm comm;
    if (layout.tp <= 1) return comm;
    const ClusterSpec& cluster = scenario.cluster;
    const GroupPlacement group = axis_placement(CommAxis::tp, layout, cluster);
    const double tokens = layout.micro_batch * static_cast<double>(scenario.train.seq_len) / layout.cp;
    comm.message_bytes = tokens * scenario.model.hidden * kActivationBytes;
    // DTensor's TP (torchtitan, Hugging Face) rather than Megatron's: with float8 linears torchtitan casts the module's
    // input before the sequence all-gather (parallelize_llama.py 9dec370 apply_tp: PrepareFloat8ModuleInput), 1 B per
    // element on the wire; the reduce-scatters carry bf16 partial sums. The backward's gathers and scatters stay bf16.
    const bool dtensor = !is_megatron_family(scenario.train.framework);
    const double forward_gather_bytes = dtensor && fp8_gemms(cluster.gpu, framework_traits(scenario)) ? comm.message_bytes / kActivationBytes
                                                                                                        : comm.message_bytes;
    double one_pair = 0;  // what replaces one all-reduce: the all-reduce itself, or an all-gather plus a reduce-scatter
    double forward_pair = 0;
    if (layout.sequence_parallel) {
        comm.collective = Collective::all_gather;
        const double reduce_scatter = collective_seconds(Collective::reduce_scatter, group, comm.message_bytes, cluster.scale_up, cluster.scale_out);
        one_pair = collective_seconds(Collective::all_gather, group, comm.message_bytes, cluster.scale_up, cluster.scale_out) + reduce_scatter;
        forward_pair = collective_seconds(Collective::all_gather, group, forward_gather_bytes, cluster.scale_up, cluster.scale_out) + reduce_scatter;
    } else {
        comm.collective = Collective::all_reduce;
        one_pair = collective_seconds(Collective::all_reduce, group, comm.message_bytes, cluster.scale_up, cluster.scale_out);
        forward_pair = one_pair;
    }
    const double per_pair_bytes = ring_bytes_sent_per_rank(Collective::all_reduce, layout.tp, comm.message_bytes);
    // An fp8 gather sends half a bf16 one's bytes: the pair's all-gather half (ring all-reduce bytes = gather + scatter).
    const double forward_pair_bytes = per_pair_bytes * (layout.sequence_parallel ? 0.5 + 0.5 * forward_gather_bytes / comm.message_bytes : 1.0);
    const int pairs_per_pass = 2;  // after attention and after the MLP
    const int forward_passes = layout.recompute == Recompute::full ? 2 : 1;
    comm.forward_seconds = pairs_per_pass * forward_pair;
    comm.backward_seconds = pairs_per_pass * one_pair;
    comm.recompute_seconds = layout.recompute == Recompute::full ? pairs_per_pass * forward_pair : 0.0;
    const int pairs = pairs_per_pass * (forward_passes + 1);
    comm.collectives = pairs * (layout.sequence_parallel ? 2 : 1);
    comm.bytes_per_gpu = pairs_per_pass * (forward_passes * forward_pair_bytes + per_pair_bytes);
    if (layout.sequence_parallel && !dtensor) {
        // The column-parallel GEMMs keep only their sharded input: the backward gathers it again for the weight gradient
        // (Megatron's LinearWithGradAccumulationAndAsyncCommunication under sequence parallelism); DTensor's autograd
        // keeps the gathered input the GEMM read instead (the recipe's gather_sequence output, saved).
        const double gather = collective_seconds(Collective::all_gather, group, comm.message_bytes, cluster.scale_up, cluster.scale_out);
        comm.backward_seconds += 2.0 * gather;
        comm.collectives += 2;
        comm.bytes_per_gpu += 2.0 * ring_bytes_sent_per_rank(Collective::all_gather, layout.tp, comm.message_bytes);
    }
    return comm;
}

bool tp_comm_overlapped(const Scenario& scenario, const Layout& layout) {
    return scenario.overlap.tp_comm && !axis_placement(CommAxis::tp, layout, scenario.cluster).crosses_nodes();
}

CpComm cp_layer_comm(const Scenario& scenario, const Layout& layout) {
    CpComm comm;
    if (layout.cp <= 1) return comm;
    const ClusterSpec& cluster = scenario.cluster;
    const ModelSpec& model = scenario.model;
    const ContextParallelRecipe& style = framework_recipe_of(scenario).context_parallel;
    const GroupPlacement group = axis_placement(CommAxis::cp, layout, cluster);
    const double tokens = layout.micro_batch * static_cast<double>(scenario.train.seq_len) / layout.cp;
    const double heads = style.repeated_kv ? model.heads : model.kv_heads;
    const double kv_width = std::max(1.0, heads / layout.tp) * model.head_dim();
    comm.rotation = style.rotation;
    comm.message_bytes = 2.0 * tokens * kv_width * kActivationBytes;
    comm.steps = layout.cp - 1;
    const int forward_passes = layout.recompute != Recompute::none ? 2 : 1;
    if (style.rotation == CpRotation::all_gather) {
        // Each pass gathers every rank's K and V once; backward, the fp32 (or compute-dtype) dK, dV go on to the next
        // rank after every chunk, cp sends in all.
        const double grad_bytes = comm.message_bytes * (style.fp32_merge ? 4.0 : kActivationBytes) / kActivationBytes;
        comm.grad_message_bytes = grad_bytes;
        comm.gather_seconds = collective_seconds(Collective::all_gather, group, layout.cp * comm.message_bytes, cluster.scale_up, cluster.scale_out);
        comm.step_backward_seconds = collective_seconds(Collective::send_recv, group, grad_bytes, cluster.scale_up, cluster.scale_out);
        comm.bytes_per_gpu = (forward_passes + 1) * comm.steps * comm.message_bytes + layout.cp * grad_bytes;
        return comm;
    }
    comm.step_forward_seconds = collective_seconds(Collective::send_recv, group, comm.message_bytes, cluster.scale_up, cluster.scale_out);
    comm.step_backward_seconds = collective_seconds(Collective::send_recv, group, 2.0 * comm.message_bytes, cluster.scale_up, cluster.scale_out);
    comm.bytes_per_gpu = (forward_passes + 2) * comm.steps * comm.message_bytes;
    return comm;
}

double CpComm::seconds(Recompute recompute) const {
    const int forward_passes = recompute != Recompute::none ? 2 : 1;
    if (rotation == CpRotation::all_gather) return (forward_passes + 1) * gather_seconds + (steps + 1) * step_backward_seconds;
    return steps * (forward_passes * step_forward_seconds + step_backward_seconds);
}

PpComm pp_comm(const Scenario& scenario, const Layout& layout) {
    PpComm comm;
    if (layout.pp <= 1) return comm;
    const ClusterSpec& cluster = scenario.cluster;
    const double tokens = layout.micro_batch * static_cast<double>(scenario.train.seq_len) / layout.cp;
    // Megatron sends 1/t of the boundary tensor from each TP rank and all-gathers it over NVLink on arrival (Narayanan
    // et al. 2021 sec 4.1, scatter/gather); under sequence parallelism the tensor is split over TP anyway.
    const bool split_over_tp = layout.tp > 1 && (layout.sequence_parallel || is_megatron_family(scenario.train.framework));
    const double split = split_over_tp ? layout.tp : 1.0;
    comm.message_bytes = tokens * scenario.model.hidden * kActivationBytes / split;
    // Consecutive stages are tp x cp ranks apart: the boundary crosses nodes unless the whole pipeline fits in one.
    GroupPlacement pair{2, 2};
    if (1LL * layout.tp * layout.cp * layout.pp > cluster.gpus_per_node) pair.ranks_per_node = 1;
    pair = on_fabric(pair, 2LL * layout.tp * layout.cp, cluster);
    comm.send_seconds = collective_seconds(Collective::send_recv, pair, comm.message_bytes, cluster.scale_up, cluster.scale_out);
    return comm;
}

DpComm dp_comm(const Scenario& scenario, const Layout& layout, double params_per_gpu, int stage_layers, int microbatches) {
    return dp_comm_over(scenario, layout, axis_placement(CommAxis::dp, layout, scenario.cluster), params_per_gpu, stage_layers,
                        microbatches);
}

DpComm combined(const DpComm& dense, const DpComm& experts) {
    DpComm sum = dense;
    sum.grad_bytes += experts.grad_bytes;
    sum.weight_bytes += experts.weight_bytes;
    sum.grad_reduce_seconds += experts.grad_reduce_seconds;
    sum.param_gather_seconds += experts.param_gather_seconds;
    sum.layer_gather_seconds += experts.layer_gather_seconds;
    sum.layer_reduce_seconds += experts.layer_reduce_seconds;
    sum.bytes_per_gpu += experts.bytes_per_gpu;
    return sum;
}

EpComm ep_layer_comm(const Scenario& scenario, const Layout& layout) {
    EpComm comm;
    const ModelSpec& model = scenario.model;
    if (!model.is_moe()) return comm;
    const ClusterSpec& cluster = scenario.cluster;
    const MoeSpec& moe = scenario.moe;
    const double k = model.experts_per_token;
    const double h = model.hidden;
    comm.tokens = layout.micro_batch * static_cast<double>(scenario.train.seq_len) / (1.0 * layout.cp * layout.tp);
    comm.load_factor = moe.load_factor();
    comm.dispatch_message_bytes = comm.tokens * k * h * moe.dispatch_bytes;
    const int passes = layout.recompute == Recompute::full ? 3 : 2;
    double bytes_per_pass = 0;
    if (layout.ep > 1) {
        const GroupPlacement group = axis_placement(CommAxis::ep, layout, cluster);
        const double ep = group.ranks;
        const double in_node = group.ranks_per_node;
        const double nodes = group.nodes();
        comm.nodes = group.nodes();
        comm.scale_up_copies = k * (in_node - 1.0) / ep;
        comm.scale_out_copies = k * (ep - in_node) / ep;
        double scale_out_peers = ep - in_node;
        if (moe.node_limit > 0 && nodes > 1) {
            // One InfiniBand copy per destination node (the token's experts span at most node_limit of them, its own among
            // them with chance used / nodes), the rest forwarded over NVLink at the destination.
            const double used = std::min({static_cast<double>(moe.node_limit), nodes, k});
            const double remote_nodes = std::min(comm.scale_out_copies, used * (nodes - 1.0) / nodes);
            comm.scale_up_copies += comm.scale_out_copies - remote_nodes;
            comm.scale_out_copies = remote_nodes;
            scale_out_peers = nodes - 1.0;
        }
        const auto all_to_all = [&](double element_bytes) {
            const double copy_bytes = comm.tokens * h * element_bytes * comm.load_factor;  // the busiest GPU's receives
            AllToAllTraffic traffic;
            traffic.scale_up_bytes = copy_bytes * comm.scale_up_copies;
            traffic.scale_up_peers = in_node - 1.0;
            traffic.scale_out_bytes = copy_bytes * comm.scale_out_copies;
            traffic.scale_out_peers = scale_out_peers;
            return all_to_all_seconds(traffic, cluster.scale_up, cluster.scale_out);
        };
        comm.dispatch_seconds = all_to_all(moe.dispatch_bytes);
        comm.combine_seconds = all_to_all(kActivationBytes);
        const double copies = comm.scale_up_copies + comm.scale_out_copies;
        comm.dispatch_bytes = comm.tokens * copies * h * moe.dispatch_bytes;
        comm.combine_bytes = comm.tokens * copies * h * kActivationBytes;
        bytes_per_pass += comm.dispatch_bytes + comm.combine_bytes;
        comm.all_to_alls = 2 * passes;
    }
    if (layout.etp > 1) {
        // The tokens the ETP group received, gathered to every member, and the members' partial outputs reduce-scattered.
        const GroupPlacement group = expert_tp_placement(layout, cluster);
        const double buffer = comm.tokens * k * h * kActivationBytes * comm.load_factor * layout.etp;
        comm.etp_seconds = collective_seconds(Collective::all_gather, group, buffer, cluster.scale_up, cluster.scale_out) +
                           collective_seconds(Collective::reduce_scatter, group, buffer, cluster.scale_up, cluster.scale_out);
        bytes_per_pass += 2.0 * ring_bytes_sent_per_rank(Collective::all_gather, layout.etp, buffer / comm.load_factor);
    }
    comm.forward_seconds = comm.dispatch_seconds + comm.combine_seconds + comm.etp_seconds;
    comm.backward_seconds = comm.forward_seconds;
    comm.recompute_seconds = layout.recompute == Recompute::full ? comm.forward_seconds : 0.0;
    comm.bytes_per_gpu = passes * bytes_per_pass;
    return comm;
}

const Zero3EngineRules& zero3_engine_rules(ShardingEngine engine) {
    static const Zero3EngineRules coalesced{
        1, false, false, 0, 0, false,
        "FSDP2 foreach_all_gather / foreach_reduce_scatter (torch/distributed/_composable/fsdp/_fsdp_collectives.py): one "
        "all_gather_into_tensor and one reduce_scatter_tensor per module group; FSDP1 one per FlatParameter"};
    // DeepSpeed v0.4.0 (2d302d6a): partition_parameters.py _allgather_param gathers each parameter with a list
    // all_gather after torch.cuda.synchronize() (l.813, 831); parameters under stage3_param_persistence_threshold (1e5)
    // stay, leaving Megatron's four weight matrices a layer; the recompute's forward hooks fetch again, and the backward
    // reuses them only within stage3_max_reuse_distance (1e9, constants.py l.102); contiguous_gradients defaulted to
    // False for stage 3 until v0.4.3, so buffered_reduce_fallback all-reduces buckets of reduce_bucket_size (5e8,
    // constants.py l.67) in fp16; ProcessGroupNCCL's list all_gather copies each rank's piece out (c10d allgather).
    static const Zero3EngineRules deepspeed_0_4{
        4, true, true, 5e8, 1e9, true,
        "DeepSpeed 0.3.13-0.4.2 stage3.py and partition_parameters.py: per-parameter synchronised all-gathers, bucketed "
        "fp16 all-reduce of the gradients (contiguous_gradients off), stage3_max_reuse_distance 1e9"};
    return engine == ShardingEngine::deepspeed_0_4 ? deepspeed_0_4 : coalesced;
}

DpComm dp_comm_over(const Scenario& scenario, const Layout& layout, const GroupPlacement& group, double params_per_gpu, int stage_layers,
                    int microbatches) {
    DpComm comm;
    if (group.ranks <= 1 || params_per_gpu <= 0) return comm;
    const ClusterSpec& cluster = scenario.cluster;
    const PrecisionRecipe& recipe = scenario.precision;
    comm.grad_bytes = params_per_gpu * recipe.grad_comm_bytes_per_param();
    comm.weight_bytes = params_per_gpu * recipe.weight_comm_bytes_per_param();
    if (trains_adapters(scenario.finetune)) {
        // LoRA: only the adapters have gradients (DDP's buckets hold the parameters that require them), in their dtype.
        const LoraCounts lora = lora_counts(scenario);
        const double trainable_share = lora.adapter_params / std::max(1.0, lora.adapter_params + lora.frozen_params);
        comm.grad_bytes = params_per_gpu * trainable_share * lora.adapter_bytes_per_param;
    }
    const auto seconds = [&](Collective collective, double bytes) {
        return collective_seconds(collective, group, bytes, cluster.scale_up, cluster.scale_out);
    };
    const auto sent = [&](Collective collective, double bytes) { return ring_bytes_sent_per_rank(collective, group.ranks, bytes); };
    const int zero = layout.zero;
    if (zero == 3) {
        comm.all_reduce = false;
        const double layers = std::max(1, stage_layers);
        const Zero3EngineRules& rules = zero3_engine_rules(scenario.parallel.zero3_engine);
        // A list all_gather's per-rank copies, each launched from the host like an eager op (the recipe's launch cost).
        const double copies_seconds = rules.per_rank_copies ? group.ranks * framework_recipe_of(scenario).host_seconds_per_launch : 0.0;
        comm.layer_gather_seconds = rules.gathers_per_layer * (seconds(Collective::all_gather, comm.weight_bytes / layers / rules.gathers_per_layer) + copies_seconds);
        comm.gathers_overlap = !rules.synchronised;
        const bool regathers = rules.reuse_distance_params > 0 && layout.recompute == Recompute::full && params_per_gpu / layers >= rules.reuse_distance_params;
        comm.gathers_per_microbatch = regathers ? 3 : 2;
        double reduce_bytes_sent = sent(Collective::reduce_scatter, comm.grad_bytes);
        if (rules.reduce_by_all_reduce) {
            const double bucket_bytes = std::min(comm.grad_bytes, rules.bucket_elements * recipe.grad_comm_bytes_per_param());
            // No gradient bytes (a recipe without gradients on the wire): no bucket to reduce.
            comm.layer_reduce_seconds = bucket_bytes > 0 ? (comm.grad_bytes / bucket_bytes) * seconds(Collective::all_reduce, bucket_bytes) / layers : 0.0;
            reduce_bytes_sent = sent(Collective::all_reduce, comm.grad_bytes);
        } else {
            comm.layer_reduce_seconds = seconds(Collective::reduce_scatter, comm.grad_bytes / layers);
        }
        comm.reduces_per_step = microbatches;
        comm.bytes_per_gpu = microbatches * (comm.gathers_per_microbatch * sent(Collective::all_gather, comm.weight_bytes) + reduce_bytes_sent);
        if (layout.pp > 1 && framework_recipe_of(scenario).fsdp_under_pipeline.keeps_gathered) {
            // Each layer gathered at the first micro-batch's forward and kept, its gradients reduced once after the last
            // backward: the stage's collectives once a step, layer by layer.
            comm.once_a_step = true;
            comm.param_gather_seconds = layers * comm.layer_gather_seconds;
            comm.grad_reduce_seconds = layers * comm.layer_reduce_seconds;
            comm.layer_gather_seconds = comm.layer_reduce_seconds = 0;
            comm.gathers_per_microbatch = 1;
            comm.reduces_per_step = 1;
            comm.bytes_per_gpu = sent(Collective::all_gather, comm.weight_bytes) + reduce_bytes_sent;
        }
        return comm;
    }
    if (zero == 0 && !recipe.sharded_optimizer) {
        comm.grad_reduce_seconds = seconds(Collective::all_reduce, comm.grad_bytes);
        comm.bytes_per_gpu = sent(Collective::all_reduce, comm.grad_bytes);
        return comm;
    }
    comm.all_reduce = false;
    comm.grad_reduce_seconds = seconds(Collective::reduce_scatter, comm.grad_bytes);
    comm.param_gather_seconds = seconds(Collective::all_gather, comm.weight_bytes);
    comm.reduces_per_step = zero == 2 ? microbatches : 1;
    comm.bytes_per_gpu = comm.reduces_per_step * sent(Collective::reduce_scatter, comm.grad_bytes) + sent(Collective::all_gather, comm.weight_bytes);
    return comm;
}

}  // namespace core
