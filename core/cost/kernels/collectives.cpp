#include "core/cost/kernels/collectives.h"

#include <algorithm>
#include <cmath>

namespace core {

const char* collective_name(Collective collective) {
    switch (collective) {
        case Collective::all_reduce: return "all-reduce";
        case Collective::reduce_scatter: return "reduce-scatter";
        case Collective::all_gather: return "all-gather";
        case Collective::all_to_all: return "all-to-all";
        case Collective::broadcast: return "broadcast";
        case Collective::reduce: return "reduce";
        case Collective::send_recv: return "send/recv";
    }
    return "?";
}

double busbw_factor(Collective collective, int ranks) {
    const double n = ranks;
    switch (collective) {
        case Collective::all_reduce: return 2.0 * (n - 1.0) / n;
        case Collective::reduce_scatter:
        case Collective::all_gather:
        case Collective::all_to_all: return (n - 1.0) / n;
        case Collective::broadcast:
        case Collective::reduce:
        case Collective::send_recv: return 1.0;
    }
    return 1.0;
}

double ring_bytes_sent_per_rank(Collective collective, int ranks, double buffer_bytes) {
    if (ranks <= 1) return 0;
    if (collective == Collective::send_recv || collective == Collective::broadcast || collective == Collective::reduce) {
        return buffer_bytes;
    }
    return busbw_factor(collective, ranks) * buffer_bytes;
}

double ring_seconds(Collective collective, int ranks, double buffer_bytes, const LinkSpec& link) {
    if (ranks <= 1) return 0;
    const double n = ranks;
    const double beta = 1.0 / link.bytes_per_s;
    const double alpha = link.latency_seconds;
    switch (collective) {
        case Collective::all_reduce: return 2.0 * (n - 1.0) * alpha + 2.0 * ((n - 1.0) / n) * buffer_bytes * beta;
        case Collective::reduce_scatter:
        case Collective::all_gather:
        case Collective::all_to_all: return (n - 1.0) * alpha + ((n - 1.0) / n) * buffer_bytes * beta;
        case Collective::broadcast:
        case Collective::reduce: return (n - 1.0) * alpha + buffer_bytes * beta;  // pipelined ring: S once through each link
        case Collective::send_recv: return alpha + buffer_bytes * beta;
    }
    return 0;
}

double group_bus_bytes_per_s(const GroupPlacement& group, const LinkSpec& scale_up, const LinkSpec& scale_out) {
    const double inside = scale_up.bytes_per_s * scale_up.efficiency;
    if (!group.crosses_nodes()) return inside;
    return std::min(inside, group.ranks_per_node * scale_out.bytes_per_s * scale_out.efficiency * group.scale_out_share);
}

double collective_seconds(Collective collective, const GroupPlacement& group, double buffer_bytes, const LinkSpec& scale_up,
                          const LinkSpec& scale_out) {
    if (group.ranks <= 1 || buffer_bytes <= 0) return 0;
    const double n = group.ranks;
    const double inter_hops = group.nodes() - 1.0;
    const auto latency = [&](double steps, double inter_steps) {
        return (steps - inter_steps) * scale_up.latency_seconds + inter_steps * scale_out.latency_seconds;
    };
    if (collective == Collective::send_recv) {
        if (!group.crosses_nodes()) return scale_up.latency_seconds + buffer_bytes / (scale_up.bytes_per_s * scale_up.efficiency);
        return scale_out.latency_seconds + buffer_bytes / (scale_out.bytes_per_s * scale_out.efficiency * group.scale_out_share);
    }
    const double bus = group_bus_bytes_per_s(group, scale_up, scale_out);
    switch (collective) {
        case Collective::all_reduce: {
            const double ring = latency(2.0 * (n - 1.0), 2.0 * inter_hops) + busbw_factor(collective, group.ranks) * buffer_bytes / bus;
            if (group.nodes() < 2) return ring;
            // NCCL's tree (tuning.cc): a chain inside each node, a binary tree between nodes, reduced up and broadcast down.
            constexpr double kTreeBandwidth = 0.92 * 0.85;  // tuning.cc: busBw x 0.92, x 0.85 for the tree pattern
            const double tree_latency = 2.0 * ((group.ranks_per_node - 1.0) * scale_up.latency_seconds +
                                               std::ceil(std::log2(static_cast<double>(group.nodes()))) * scale_out.latency_seconds);
            const double tree = tree_latency + buffer_bytes / (0.5 * kTreeBandwidth * bus);  // tuning.cc: algbw = busbw x 0.5
            return std::min(ring, tree);
        }
        case Collective::reduce_scatter:
        case Collective::all_gather: return latency(n - 1.0, inter_hops) + busbw_factor(collective, group.ranks) * buffer_bytes / bus;
        case Collective::all_to_all: {
            // All-to-all cannot spread one GPU's traffic over the node's NICs (sjeaugey, nccl-tests #267): one NIC each.
            const double per_gpu = group.crosses_nodes() ? std::min(scale_up.bytes_per_s * scale_up.efficiency,
                                                                    scale_out.bytes_per_s * scale_out.efficiency * group.scale_out_share)
                                                         : scale_up.bytes_per_s * scale_up.efficiency;
            return latency(n - 1.0, inter_hops) + busbw_factor(collective, group.ranks) * buffer_bytes / per_gpu;
        }
        case Collective::broadcast:
        case Collective::reduce: return latency(n - 1.0, inter_hops) + buffer_bytes / bus;
        case Collective::send_recv: break;
    }
    return 0;
}

double all_to_all_seconds(const AllToAllTraffic& traffic, const LinkSpec& scale_up, const LinkSpec& scale_out) {
    const auto tier = [](double bytes, double peers, const LinkSpec& link) {
        return bytes > 0 ? peers * link.latency_seconds + bytes / (link.bytes_per_s * link.efficiency) : 0.0;
    };
    return std::max(tier(traffic.scale_up_bytes, traffic.scale_up_peers, scale_up), tier(traffic.scale_out_bytes, traffic.scale_out_peers, scale_out));
}

BandwidthFigures nccl_bandwidth(Collective collective, int ranks, double buffer_bytes, double seconds) {
    BandwidthFigures figures;
    if (seconds <= 0) return figures;
    figures.algbw_bytes_per_s = buffer_bytes / seconds;
    figures.busbw_bytes_per_s = figures.algbw_bytes_per_s * busbw_factor(collective, ranks);
    return figures;
}

}  // namespace core
