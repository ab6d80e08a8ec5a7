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

struct BandwidthFigures {
    double algbw_bytes_per_s = 0;  // S / t
    double busbw_bytes_per_s = 0;  // algbw x factor: comparable with the link's bandwidth
};
BandwidthFigures nccl_bandwidth(Collective, int ranks, double buffer_bytes, double seconds);

}  // namespace core
