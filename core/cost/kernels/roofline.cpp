#include "core/cost/kernels/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/model/errors.h"
#include "core/model/format.h"

namespace core {
void validate_ceiling(const Ceiling& ceiling) {
    require_positive("roofline.ceiling.peak_flops_per_s", ceiling.peak_flops_per_s);
    require_positive("roofline.ceiling.bytes_per_s", ceiling.bytes_per_s);
}

double attainable_flops_per_s(const Ceiling& ceiling, double intensity_flops_per_byte) {
    validate_ceiling(ceiling);
    require_non_negative("roofline.intensity_flops_per_byte", intensity_flops_per_byte);
    return std::min(ceiling.peak_flops_per_s, intensity_flops_per_byte * ceiling.bytes_per_s);
}

double ridge_flops_per_byte(const Ceiling& ceiling) {
    validate_ceiling(ceiling);
    return ceiling.peak_flops_per_s / ceiling.bytes_per_s;
}

double roof_fraction(const Ceiling& ceiling, double intensity_flops_per_byte, double flops_per_s) {
    require_non_negative("roofline.measured.flops_per_s", flops_per_s);
    const double roof = attainable_flops_per_s(ceiling, intensity_flops_per_byte);
    return roof > 0 ? flops_per_s / roof : 0;
}

double element_bytes(Precision precision) {
    switch (precision) {
        case Precision::fp32: return 4;
        case Precision::bf16: return 2;
        case Precision::fp8: return 1;
    }
    return 2;
}

Ceiling hbm_ceiling(const GpuSpec& gpu, Precision precision) {
    return {gpu.name + " " + precision_name(precision), gpu.peak_flops_per_s(precision), gpu.hbm_bytes_per_s};
}

std::vector<RoofVertex> roof_outline(const Ceiling& ceiling, double min_intensity, double max_intensity) {
    require_positive("roofline.outline.min_intensity", min_intensity);
    require_positive("roofline.outline.max_intensity", max_intensity);
    if (max_intensity <= min_intensity) {
        throw InputError("roofline.outline.max_intensity", "must be above min_intensity");
    }
    std::vector<RoofVertex> vertices{{min_intensity, attainable_flops_per_s(ceiling, min_intensity)}};
    const double ridge = ridge_flops_per_byte(ceiling);
    if (ridge > min_intensity && ridge < max_intensity) {
        vertices.push_back({ridge, ceiling.peak_flops_per_s});
    }
    vertices.push_back({max_intensity, attainable_flops_per_s(ceiling, max_intensity)});
    return vertices;
}

KernelCost gemm_cost(double m, double n, double k, double element_bytes) {
    require_positive("roofline.gemm.m", m);
    require_positive("roofline.gemm.n", n);
    require_positive("roofline.gemm.k", k);
    require_positive("roofline.element_bytes", element_bytes);
    KernelCost cost;
    cost.label = "GEMM " + format_whole(m) + "x" + format_whole(n) + "x" + format_whole(k);
    cost.formula = "2MNK FLOPs; (MK + KN + MN) x " + format_whole(element_bytes) + " B: A and B read once, C written once";
    cost.flops = 2 * m * n * k;
    cost.bytes = element_bytes * (m * k + k * n + m * n);
    return cost;
}

KernelCost attention_cost(const AttentionShape& shape, double element_bytes) {
    require_positive("roofline.attention.batch", shape.batch);
    require_positive("roofline.attention.sequence", shape.sequence);
    require_positive("roofline.attention.head_dim", shape.head_dim);
    require_positive("roofline.attention.heads", shape.heads);
    require_positive("roofline.element_bytes", element_bytes);
    const double b = shape.batch, s = shape.sequence, d = shape.head_dim, h = shape.heads;
    KernelCost cost;
    cost.label = std::string(shape.flash ? "flash attention" : "attention (unfused)") + " s=" + format_whole(s);
    cost.flops = 4 * b * h * s * s * d;  // QK^T and AV, 2 s^2 d each per head
    const double qkvo_elements = 4 * b * h * s * d;
    // Unfused: scores written by QK^T, read and written by softmax, read by AV.
    const double score_elements = shape.flash ? 0 : 4 * b * h * s * s;
    cost.bytes = element_bytes * (qkvo_elements + score_elements);
    cost.formula = shape.flash
        ? "4bhs^2d FLOPs; Q,K,V,O each moved once (4bhsd elements): intensity s / element bytes"
        : "4bhs^2d FLOPs; Q,K,V,O plus the s x s scores written, re-read, re-written, re-read (4bhs^2)";
    return cost;
}

const char* bound_name(Bound bound) {
    switch (bound) {
        case Bound::memory: return "memory-bound";
        case Bound::compute: return "compute-bound";
        case Bound::launch: return "launch-bound";
    }
    return "?";
}

PlacedKernel place_kernel(const KernelCost& cost, const Ceiling& ceiling) {
    validate_ceiling(ceiling);
    require_non_negative("roofline.kernel.flops", cost.flops);
    require_positive("roofline.kernel.bytes", cost.bytes);
    PlacedKernel placed;
    placed.cost = cost;
    placed.intensity_flops_per_byte = cost.intensity_flops_per_byte();
    placed.attainable_flops_per_s = attainable_flops_per_s(ceiling, placed.intensity_flops_per_byte);
    placed.compute_seconds = cost.flops / ceiling.peak_flops_per_s;
    placed.memory_seconds = cost.bytes / ceiling.bytes_per_s;
    placed.seconds = std::max(placed.compute_seconds, placed.memory_seconds);
    placed.bound = placed.memory_seconds > placed.compute_seconds ? Bound::memory : Bound::compute;
    const std::string intensity = format_number(placed.intensity_flops_per_byte) + " FLOP/B";
    const std::string ridge = "ridge " + format_number(ridge_flops_per_byte(ceiling));
    placed.explanation = placed.bound == Bound::memory
        ? "memory-bound: " + format_flops_rate(placed.attainable_flops_per_s) + " of " +
              format_flops_rate(ceiling.peak_flops_per_s) + " (" + intensity + " < " + ridge + ")"
        : "compute-bound: the full " + format_flops_rate(ceiling.peak_flops_per_s) + " (" + intensity + " > " + ridge + ")";
    return placed;
}

}  // namespace core
