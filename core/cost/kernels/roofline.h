#pragma once
// The roofline (Williams et al. 2009) and its network extension: ceilings, kernels placed under them, traffic points.
#include <string>
#include <vector>

#include "core/model/hardware.h"

namespace core {

// One roof: a flat compute peak and a bandwidth slope (HBM for kernels, a link for network traffic).
struct Ceiling {
    std::string label;             // "H100 SXM bf16", "NVLink 4"
    double peak_flops_per_s = 0;
    double bytes_per_s = 0;
};

// Throws InputError("roofline.ceiling.peak_flops_per_s" / ".bytes_per_s", ...) unless both are finite and > 0.
void validate_ceiling(const Ceiling& ceiling);

// min(peak, intensity * bytes_per_s): the best FLOP/s any kernel of this intensity can reach.
double attainable_flops_per_s(const Ceiling& ceiling, double intensity_flops_per_byte);

// peak / bytes_per_s: below it a kernel waits for bytes, above it for arithmetic (H100 bf16: 295 FLOP/B).
double ridge_flops_per_byte(const Ceiling& ceiling);

// Bytes per element of a precision: fp32 4, bf16 2, fp8 1.
double element_bytes(Precision precision);

// A GPU's roof in one precision over its HBM: label "H100 SXM bf16". Peak is 0 where the GPU lacks the precision
// (A100 fp8): check gpu.peak_flops_per_s(precision) > 0 before placing anything under it.
Ceiling hbm_ceiling(const GpuSpec& gpu, Precision precision);

// The share of the roof a measured kernel reaches: flops_per_s / attainable(intensity), e.g. 787 of 989 TFLOP/s = 0.80.
double roof_fraction(const Ceiling& ceiling, double intensity_flops_per_byte, double flops_per_s);

// A vertex of the roof drawn between two intensities; on log-log axes the roof is straight between vertices.
struct RoofVertex {
    double intensity_flops_per_byte = 0;
    double flops_per_s = 0;
};

// The roof from min_intensity to max_intensity: 2 vertices if the ridge lies outside that range, else 3.
std::vector<RoofVertex> roof_outline(const Ceiling& ceiling, double min_intensity, double max_intensity);

// What a kernel does and moves, counted from its shape; no hardware in it yet.
struct KernelCost {
    std::string label;     // "GEMM 4096x4096x4096", "decode b=1, 8192x8192"
    std::string formula;   // how flops and bytes were counted, one line for a tooltip
    double flops = 0;
    double bytes = 0;      // to and from HBM
    double intensity_flops_per_byte() const { return flops / bytes; }
};

// C[m,n] = A[m,k] B[k,n]: 2mnk FLOPs, element_bytes (mk + kn + mn) bytes (inputs read once, output written once).
KernelCost gemm_cost(double m, double n, double k, double element_bytes);

struct AttentionShape {
    double batch = 1;
    double sequence = 4096;   // s, keys and queries (self-attention, no causal skipping)
    double head_dim = 128;    // d_head
    double heads = 64;
    bool flash = true;        // fused: only Q, K, V, O touch HBM; else the s x s scores are written and read back
};

// QK^T and AV: 4 b h s^2 d FLOPs (softmax not counted). Bytes: 4 b h s d elements, plus 4 b h s^2 if not flash.
KernelCost attention_cost(const AttentionShape& shape, double element_bytes);

// memory: HBM bytes set its time; compute: FLOPs do; launch: the CPU could not launch it sooner (eager frameworks).
enum class Bound { memory, compute, launch };

// "memory-bound" / "compute-bound" / "launch-bound".
const char* bound_name(Bound bound);

// A kernel under one ceiling: what it can reach, how long it takes and what holds it back.
struct PlacedKernel {
    KernelCost cost;
    double intensity_flops_per_byte = 0;
    double attainable_flops_per_s = 0;
    double compute_seconds = 0;   // flops / peak
    double memory_seconds = 0;    // bytes / bandwidth
    double seconds = 0;           // max of the two: the roofline's best case
    Bound bound = Bound::memory;
    std::string explanation;      // "memory-bound: 3.35 TFLOP/s of 989 TFLOP/s (1.000 FLOP/B < ridge 295)"
};

// Throws InputError("roofline.kernel.bytes", ...) unless bytes > 0, ("roofline.kernel.flops", ...) if flops < 0.
PlacedKernel place_kernel(const KernelCost& cost, const Ceiling& ceiling);

}  // namespace core
