#include "core/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/errors.h"
#include "core/format.h"

namespace core {
namespace {

// Shapes are whole numbers: "4096", "1", not format_number's "1.00" (a candidate for core/format.h).
std::string format_whole(double value) {
    if (value != std::floor(value) || std::fabs(value) >= 1e15) return format_number(value);
    char text[24];
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
}

// Communication intensities run to millions: "19780", then "129 k", "7.88 M" rather than "7.88e+06".
std::string format_intensity(double flops_per_byte) {
    return flops_per_byte < 1e5 ? format_number(flops_per_byte) : format_count(flops_per_byte);
}

void require_positive(const char* field, double value) {
    if (!std::isfinite(value) || value <= 0) {
        throw InputError(field, "must be a finite number > 0, got " + std::to_string(value));
    }
}

void require_non_negative(const char* field, double value) {
    if (!std::isfinite(value) || value < 0) {
        throw InputError(field, "must be a finite number >= 0, got " + std::to_string(value));
    }
}

}  // namespace

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

KernelCost decode_gemv_cost(double batch, double d_in, double d_out, double element_bytes) {
    require_positive("roofline.decode.batch", batch);
    KernelCost cost = gemm_cost(batch, d_out, d_in, element_bytes);
    cost.label = "decode b=" + format_whole(batch) + ", " + format_whole(d_in) + "x" + format_whole(d_out);
    cost.formula = "GEMM with M = batch: the whole weight is read for only b rows, so intensity ~ b";
    return cost;
}

KernelCost prefill_cost(double tokens, double d_in, double d_out, double element_bytes) {
    require_positive("roofline.prefill.tokens", tokens);
    KernelCost cost = gemm_cost(tokens, d_out, d_in, element_bytes);
    cost.label = "prefill " + format_whole(tokens) + " tokens, " + format_whole(d_in) + "x" + format_whole(d_out);
    cost.formula = "GEMM with M = prompt tokens: one weight read serves every token";
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

KernelCost relu_cost(double elements, double element_bytes) {
    require_positive("roofline.relu.elements", elements);
    require_positive("roofline.element_bytes", element_bytes);
    KernelCost cost;
    cost.label = "ReLU " + format_count(elements) + " elements";
    cost.formula = "1 FLOP per element; each element read and written once (2 x " + format_whole(element_bytes) + " B)";
    cost.flops = elements;
    cost.bytes = 2 * element_bytes * elements;
    return cost;
}

double decode_batch_for_intensity(double intensity_flops_per_byte, double d_in, double d_out, double element_bytes) {
    require_positive("roofline.decode.intensity", intensity_flops_per_byte);
    require_positive("roofline.decode.d_in", d_in);
    require_positive("roofline.decode.d_out", d_out);
    require_positive("roofline.element_bytes", element_bytes);
    // Solve 2 b di do = I e (b di + di do + b do) for b.
    const double scaled = intensity_flops_per_byte * element_bytes;
    const double denominator = 2 * d_in * d_out - scaled * (d_in + d_out);
    if (denominator <= 0) return std::numeric_limits<double>::infinity();
    return scaled * d_in * d_out / denominator;
}

const char* bound_name(Bound bound) {
    return bound == Bound::memory ? "memory-bound" : "compute-bound";
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

TrafficPoint place_traffic(const std::string& axis, double flops, double bytes_sent, const Ceiling& link_ceiling) {
    validate_ceiling(link_ceiling);
    require_non_negative("roofline.traffic.flops", flops);
    require_non_negative("roofline.traffic.bytes_sent", bytes_sent);
    TrafficPoint point;
    point.axis = axis;
    point.link_label = link_ceiling.label;
    point.flops = flops;
    point.bytes_sent = bytes_sent;
    point.compute_seconds = flops / link_ceiling.peak_flops_per_s;
    point.network_seconds = bytes_sent / link_ceiling.bytes_per_s;
    if (bytes_sent == 0) {
        point.comm_intensity_flops_per_byte = std::numeric_limits<double>::infinity();
        point.attainable_flops_per_s = link_ceiling.peak_flops_per_s;
        point.network_bound = false;
        point.explanation = axis + " sends nothing: never network-bound";
        return point;
    }
    point.comm_intensity_flops_per_byte = flops / bytes_sent;
    point.attainable_flops_per_s = attainable_flops_per_s(link_ceiling, point.comm_intensity_flops_per_byte);
    point.network_bound = point.network_seconds > point.compute_seconds;
    const std::string intensity = format_intensity(point.comm_intensity_flops_per_byte) + " FLOP per byte sent";
    const std::string ridge = "ridge " + format_intensity(ridge_flops_per_byte(link_ceiling));
    point.explanation = point.network_bound
        ? axis + " network-bound on " + link_ceiling.label + ": " + intensity + " < " + ridge + "; at most " +
              format_flops_rate(point.attainable_flops_per_s) + " of " + format_flops_rate(link_ceiling.peak_flops_per_s)
        : axis + " compute-bound over " + link_ceiling.label + ": " + intensity + " > " + ridge;
    return point;
}

std::vector<TrafficPoint> traffic_points(const Report& report) {
    require_positive("roofline.traffic.gpus", report.layout.gpus);
    const double flops_per_gpu = report.compute.hardware_flops_per_step / report.layout.gpus;
    std::vector<TrafficPoint> points;
    for (const AxisComm& axis : report.comm.axes) {
        const Ceiling link{axis.link, report.compute.peak_flops_per_s, axis.link_bytes_per_s};
        std::string name = axis.axis;
        for (char& c : name) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        points.push_back(place_traffic(name + " " + std::to_string(axis.degree), flops_per_gpu, axis.bytes_per_gpu, link));
    }
    return points;
}

}  // namespace core
