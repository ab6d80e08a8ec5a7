#include "core/cost/collectives.h"

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

BandwidthFigures nccl_bandwidth(Collective collective, int ranks, double buffer_bytes, double seconds) {
    BandwidthFigures figures;
    if (seconds <= 0) return figures;
    figures.algbw_bytes_per_s = buffer_bytes / seconds;
    figures.busbw_bytes_per_s = figures.algbw_bytes_per_s * busbw_factor(collective, ranks);
    return figures;
}

}  // namespace core
