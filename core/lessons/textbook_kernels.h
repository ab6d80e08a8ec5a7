#pragma once
// The textbook kernels the seeds teach the roofline with (a decode GEMV, a prefill GEMM, a ReLU) and the extended
// roofline of seed 002: a GPU's FLOPs over the bytes it sends on one parallel axis, under the link's ceiling.
#include "core/cost/report/report.h"
#include "core/cost/kernels/roofline.h"

#include <string>
#include <vector>

namespace core {

// Decode: batch rows through a d_in x d_out weight; a GEMM with m = batch, so intensity ~ batch at small batch (bf16).
KernelCost decode_gemv_cost(double batch, double d_in, double d_out, double element_bytes);

// Prefill: all prompt tokens through the same weight at once; a GEMM with m = tokens.
KernelCost prefill_cost(double tokens, double d_in, double d_out, double element_bytes);

// ReLU: 1 FLOP per element, each element read and written once (bf16: 1 / 4 = 0.25 FLOP/B).
KernelCost relu_cost(double elements, double element_bytes);

// The batch at which a decode GEMV reaches a given intensity (the ridge), or +infinity if it never can.
double decode_batch_for_intensity(double intensity_flops_per_byte, double d_in, double d_out, double element_bytes);

// The extended roofline (seed 002): a GPU's FLOPs per step over the bytes it sends on one parallel axis,
// under a network ceiling whose slope is the link bandwidth: attainable = min(peak, comm_intensity * link).
struct TrafficPoint {
    std::string axis;                    // "DP", "TP", "PP"
    std::string link_label;              // the ceiling's label, e.g. "InfiniBand NDR"
    double flops = 0;                    // per GPU per step
    double bytes_sent = 0;               // per GPU per step on this axis
    double comm_intensity_flops_per_byte = 0;  // flops / bytes_sent; +infinity when nothing is sent
    double attainable_flops_per_s = 0;
    double compute_seconds = 0;          // flops / peak
    double network_seconds = 0;          // bytes_sent / link bandwidth
    bool network_bound = false;          // network_seconds > compute_seconds: below the link's ridge
    std::string explanation;
};

// Throws InputError("roofline.traffic.flops" / ".bytes_sent", ...) for negative or non-finite values.
TrafficPoint place_traffic(const std::string& axis, double flops, double bytes_sent, const Ceiling& link_ceiling);

// The Report's traffic on the extended roofline, one point per parallel axis of degree > 1: the per-GPU hardware
// FLOPs of a step over the bytes one GPU sends on that axis, under the axis's link at the GPU's bf16 peak.
std::vector<TrafficPoint> traffic_points(const Scenario& scenario, const Report& report);

}  // namespace core
