#pragma once
// Collective costs in the alpha-beta model and nccl-tests' bandwidth conventions (published.md section 5).
#include "core/model/hardware.h"

namespace core {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, send_recv };
const char* collective_name(Collective);

// nccl-tests doc/PERFORMANCE.md: busbw = algbw x factor; all-reduce 2(n-1)/n, reduce-scatter / all-gather / all-to-all (n-1)/n,
// broadcast / reduce / send-recv 1.
double busbw_factor(Collective, int ranks);

// Bytes one rank sends for a ring collective over a buffer of S bytes (S is the whole buffer, as nccl-tests counts it).
double ring_bytes_sent_per_rank(Collective, int ranks, double buffer_bytes);

// Ring time: all-reduce 2(n-1) alpha + 2 (n-1)/n S beta; reduce-scatter and all-gather (n-1) alpha + (n-1)/n S beta;
// send/recv alpha + S beta.
double ring_seconds(Collective, int ranks, double buffer_bytes, const LinkSpec& link);

// Where a parallel group sits: `ranks` GPUs, `ranks_per_node` of them in each node the group spans.
struct GroupPlacement {
    int ranks = 1;
    int ranks_per_node = 1;
    // The share of each GPU's scale-out line rate the group's ring reaches on the fabric it crosses: its NIC's rate and
    // rail (one NIC per GPU: 1), and each tier above a leaf or a pod that the group spans (comm.h on_fabric).
    double scale_out_share = 1;

    int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
    bool crosses_nodes() const { return ranks > ranks_per_node; }
};

// The bus bandwidth NCCL reaches for a ring over the group: inside one node, the scale-up link at its NCCL efficiency;
// across nodes each ring leaves a node through a different GPU's NIC, so the node's NICs work at once:
// min(scale-up, ranks_per_node x NIC) (DGX A100: 8 x 24 = 192 GB/s; DGX H100: 8 x 47.5 = 380, NVIDIA GTC24 S62129).
double group_bus_bytes_per_s(const GroupPlacement&, const LinkSpec& scale_up, const LinkSpec& scale_out);

// One collective over the group, as NCCL prices it (src/graph/tuning.cc ncclTopoTuneModel, 2.2x): the ring, and for an
// all-reduce across nodes the tree where it is faster (latency 2 ((ranks per node - 1) x intra hop + log2(nodes) x inter
// hop); bus bandwidth x 0.92 x 0.85, and an algorithm bandwidth of half of it). The ring: the bus bandwidth above, plus one hop of latency per ring step, the
// inter-node steps at the scale-out link's (NCCL tuning.cc: latency = intra steps x intra hop + inter steps x inter hop).
// send_recv: one message between two neighbours, on scale-out if the group crosses nodes.
double collective_seconds(Collective, const GroupPlacement&, double buffer_bytes, const LinkSpec& scale_up, const LinkSpec& scale_out);

// One GPU's all-to-all over two tiers, pairwise exchange in the alpha-beta model (Thakur, Rabenseifner and Gropp 2005:
// (p - 1) alpha + the bytes sent x beta): what is bound for GPUs of its own node on the scale-up link, the rest through its
// own NIC (an all-to-all cannot spread one GPU's traffic over the node's NICs: sjeaugey, nccl-tests #267). The two tiers
// run at once, so the slower decides (moe.md).
struct AllToAllTraffic {
    double scale_up_bytes = 0;
    double scale_up_peers = 0;
    double scale_out_bytes = 0;
    double scale_out_peers = 0;
};
double all_to_all_seconds(const AllToAllTraffic&, const LinkSpec& scale_up, const LinkSpec& scale_out);

struct BandwidthFigures {
    double algbw_bytes_per_s = 0;  // S / t
    double busbw_bytes_per_s = 0;  // algbw x factor: comparable with the link's bandwidth
};
BandwidthFigures nccl_bandwidth(Collective, int ranks, double buffer_bytes, double seconds);

}  // namespace core
