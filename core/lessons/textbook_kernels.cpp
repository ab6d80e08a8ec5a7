#include "core/lessons/textbook_kernels.h"

#include "core/model/errors.h"
#include "core/model/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace core {
namespace {

// Communication intensities run to millions: "19780", then "129 k", "7.88 M" rather than "7.88e+06".
std::string format_intensity(double flops_per_byte) {
    return flops_per_byte < 1e5 ? format_number(flops_per_byte) : format_count(flops_per_byte);
}

}  // namespace

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

std::vector<TrafficPoint> traffic_points(const Scenario& scenario, const Report& report) {
    require_positive("roofline.traffic.gpus", report.layout.gpus);
    const double flops_per_gpu = report.compute.hardware_flops_per_step / report.layout.gpus;
    std::vector<TrafficPoint> points;
    for (const AxisComm& axis : report.comm.axes) {
        const LinkSpec& link_spec = axis.crosses_nodes ? scenario.cluster.scale_out : scenario.cluster.scale_up;
        const Ceiling link{link_spec.name, report.compute.peak_flops_per_s, axis.bus_bytes_per_s};
        std::string name = comm_axis_name(axis.axis);
        for (char& c : name) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        TrafficPoint point = place_traffic(name + " " + std::to_string(axis.degree), flops_per_gpu, axis.bytes_per_gpu, link);
        // The plot draws the link's line rate; say why this ridge lies right of the one drawn.
        if (axis.bytes_per_gpu > 0 && axis.bus_bytes_per_s < 0.995 * link_spec.bytes_per_s) {
            point.explanation += " (NCCL reaches " + format_bandwidth(axis.bus_bytes_per_s) + " of the link's " +
                                 format_bandwidth(link_spec.bytes_per_s) + ")";
        }
        points.push_back(point);
    }
    return points;
}

}  // namespace core
