#include "core/cost/comm.h"

#include "core/cost/collectives.h"
#include "core/model/layout.h"
#include "core/model/format.h"

#include <algorithm>

namespace core {

namespace {

AxisComm make_axis(const Scenario& scenario, const char* name, int degree, int span_gpus) {
    AxisComm axis;
    axis.axis = name;
    axis.degree = degree;
    axis.crosses_nodes = !within_node(span_gpus, scenario.cluster.gpus_per_node);
    const LinkSpec& link = axis.crosses_nodes ? scenario.cluster.scale_out : scenario.cluster.scale_up;
    axis.link = link.name;
    axis.link_bytes_per_s = link.bytes_per_s;
    return axis;
}

const LinkSpec& link_of(const Scenario& scenario, const AxisComm& axis) {
    return axis.crosses_nodes ? scenario.cluster.scale_out : scenario.cluster.scale_up;
}

// one_collective_seconds times one collective of message_bytes: nccl-tests' algbw and busbw are per collective.
void finish(AxisComm& axis, Collective collective, double one_collective_seconds, double overlap_window_seconds) {
    axis.exposed_seconds = std::max(0.0, axis.seconds - overlap_window_seconds);
    axis.hidden = axis.exposed_seconds <= 0.0;
    const int ranks = collective == Collective::send_recv ? 2 : axis.degree;
    const BandwidthFigures figures = nccl_bandwidth(collective, ranks, axis.message_bytes, one_collective_seconds);
    axis.algbw_bytes_per_s = figures.algbw_bytes_per_s;
    axis.busbw_bytes_per_s = figures.busbw_bytes_per_s;
}

}  // namespace

CommReport communication(const Scenario& scenario, const CommInputs& inputs) {
    CommReport report;
    const ParallelSpec& parallel = scenario.parallel;
    const TrainSpec& train = scenario.train;
    const ModelSpec& model = scenario.model;
    const double activation_element_bytes = 2.0;  // bf16 activations on the wire
    const double tokens_local = static_cast<double>(train.micro_batch) * train.seq_len / parallel.cp;
    const double m = inputs.microbatches;
    const double per_microbatch_compute = inputs.compute_seconds / m;

    if (parallel.tp > 1) {
        AxisComm axis = make_axis(scenario, "tp", parallel.tp, parallel.tp);
        const int allreduces_per_layer = train.recompute == Recompute::full ? 6 : 4;  // 2 forward + 2 backward (+2 in the recomputed forward)
        axis.collective = train.sequence_parallel ? "reduce-scatter + all-gather" : "all-reduce";
        axis.message_bytes = tokens_local * model.hidden * activation_element_bytes;
        const double collectives = static_cast<double>(allreduces_per_layer) * inputs.stage_layers * m;
        axis.bytes_per_gpu = collectives * ring_bytes_sent_per_rank(Collective::all_reduce, parallel.tp, axis.message_bytes);
        axis.seconds = collectives * ring_seconds(Collective::all_reduce, parallel.tp, axis.message_bytes, link_of(scenario, axis));
        axis.formula = std::to_string(allreduces_per_layer) + " all-reduces x " + std::to_string(inputs.stage_layers) + " layers x " +
                       format_number(m) + " micro-batches of b s h x 2 B = " + format_bytes(axis.message_bytes) +
                       "; 8 b s h (t-1)/t elements per layer per micro-batch (Narayanan 2021 sec 3.2)";
        finish(axis, Collective::all_reduce, axis.seconds / collectives, 0.0);  // on the critical path: Megatron does not overlap TP collectives
        report.axes.push_back(axis);
    }
    if (parallel.cp > 1) {
        AxisComm axis = make_axis(scenario, "cp", parallel.cp, parallel.tp * parallel.cp);
        axis.collective = "ring send/recv of K, V";
        const double kv_width = static_cast<double>(model.kv_heads) * model.head_dim() / parallel.tp;
        axis.message_bytes = 2.0 * tokens_local * kv_width * activation_element_bytes;  // K and V of the local chunk
        const double sends = 3.0 * (parallel.cp - 1) * inputs.stage_layers * m;          // forward K,V; backward K,V and dK,dV
        axis.bytes_per_gpu = sends * axis.message_bytes;
        axis.seconds = sends * ring_seconds(Collective::send_recv, 2, axis.message_bytes, link_of(scenario, axis));
        axis.formula = "3 (cp-1) sends of K and V (" + format_bytes(axis.message_bytes) + ") per layer per micro-batch (ring attention)";
        finish(axis, Collective::send_recv, axis.seconds / sends, inputs.compute_seconds * inputs.attention_share);
        report.axes.push_back(axis);
    }
    if (parallel.pp > 1) {
        AxisComm axis = make_axis(scenario, "pp", parallel.pp, parallel.tp * parallel.cp * parallel.pp);
        axis.collective = "send/recv";
        const double sharded = train.sequence_parallel ? parallel.tp : 1.0;  // with SP the boundary tensor is split over TP
        axis.message_bytes = tokens_local * model.hidden * activation_element_bytes / sharded;
        const double sends = 2.0 * m * parallel.virtual_stages;  // activations forward, gradients backward, per chunk
        axis.bytes_per_gpu = sends * axis.message_bytes;
        const double one_send = ring_seconds(Collective::send_recv, 2, axis.message_bytes, link_of(scenario, axis));
        axis.seconds = sends * one_send;
        axis.formula = "2 x " + format_number(m) + " micro-batches x " + std::to_string(parallel.virtual_stages) +
                       " chunks x b s h x 2 B = " + format_bytes(axis.message_bytes) + " each (Narayanan 2021 sec 3.2)";
        // Steady-state sends overlap compute; the fill and the drain each wait on p v - 1 boundaries.
        const double exposed = 2.0 * (parallel.pp * parallel.virtual_stages - 1) * one_send;
        finish(axis, Collective::send_recv, one_send, std::max(0.0, axis.seconds - exposed));
        report.axes.push_back(axis);
    }
    const int gradient_ranks = data_parallel_degree(scenario) * parallel.cp;
    if (gradient_ranks > 1) {
        AxisComm axis = make_axis(scenario, "dp", gradient_ranks, scenario.cluster.gpus);
        const PrecisionRecipe& recipe = scenario.precision;
        const double grad_bytes = inputs.params_per_gpu * recipe.grad_comm_bytes_per_param();
        const double weight_bytes = inputs.params_per_gpu * recipe.weight_comm_bytes_per_param();
        const LinkSpec& link = link_of(scenario, axis);
        const int n = gradient_ranks;
        axis.message_bytes = grad_bytes;
        double overlap_window = scenario.efficiency.overlap_dp_comm ? per_microbatch_compute * 2.0 / 3.0 : 0.0;
        if (parallel.zero == 3) {
            axis.collective = "all-gather x 2 per micro-batch + reduce-scatter";
            const double gathers = 2.0 * m;
            axis.bytes_per_gpu = gathers * ring_bytes_sent_per_rank(Collective::all_gather, n, weight_bytes) +
                                 ring_bytes_sent_per_rank(Collective::reduce_scatter, n, grad_bytes);
            axis.seconds = gathers * ring_seconds(Collective::all_gather, n, weight_bytes, link) +
                           ring_seconds(Collective::reduce_scatter, n, grad_bytes, link);
            axis.formula = "ZeRO-3: gather the weights (" + format_bytes(weight_bytes) + ") twice per micro-batch, reduce-scatter the grads " +
                           "(" + format_bytes(grad_bytes) + "); 3 Psi per step at one micro-batch (ZeRO sec 7)";
            if (scenario.efficiency.overlap_dp_comm) overlap_window = inputs.compute_seconds;  // gathers are prefetched under compute
        } else if (parallel.zero >= 1 || recipe.sharded_optimizer) {
            axis.collective = "reduce-scatter + all-gather";
            axis.bytes_per_gpu = ring_bytes_sent_per_rank(Collective::reduce_scatter, n, grad_bytes) +
                                 ring_bytes_sent_per_rank(Collective::all_gather, n, weight_bytes);
            axis.seconds = ring_seconds(Collective::reduce_scatter, n, grad_bytes, link) + ring_seconds(Collective::all_gather, n, weight_bytes, link);
            axis.formula = "reduce-scatter the grads, all-gather the updated weights: 2 Psi per step (ZeRO sec 7), " +
                           format_bytes(grad_bytes) + " of gradients";
        } else {
            axis.collective = "all-reduce (ring)";
            axis.bytes_per_gpu = ring_bytes_sent_per_rank(Collective::all_reduce, n, grad_bytes);
            axis.seconds = ring_seconds(Collective::all_reduce, n, grad_bytes, link);
            axis.formula = "ring all-reduce of " + format_bytes(grad_bytes) + " of gradients: 2 (n-1)/n x S sent per GPU";
        }
        finish(axis, parallel.zero == 3 ? Collective::reduce_scatter : Collective::all_reduce,
               parallel.zero == 3 ? ring_seconds(Collective::reduce_scatter, n, grad_bytes, link) : axis.seconds, overlap_window);
        report.axes.push_back(axis);
    }
    for (const AxisComm& axis : report.axes) {
        report.total_seconds += axis.seconds;
        report.exposed_seconds += axis.exposed_seconds;
    }
    return report;
}

}  // namespace core
