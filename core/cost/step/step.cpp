#include "core/cost/step/step.h"

#include "core/cost/kernels/recipe_ops.h"
#include "core/model/layout.h"

#include <algorithm>
#include <cmath>

namespace core {

LayerSplit split_of(const Layout& layout) {
    return LayerSplit{layout.tp, layout.cp, layout.micro_batch, layout.sequence_parallel && layout.tp > 1, layout.recompute, layout.ep, layout.etp};
}

SplitPasses split_passes(const Scenario& scenario, const LayerSplit& split, bool attention_core) {
    SplitPasses passes;
    passes.dense = layer_passes(scenario, split, false, attention_core);
    if (scenario.model.is_moe()) passes.moe = layer_passes(scenario, split, true, attention_core);
    passes.edges = edge_kernels(scenario, split);
    return passes;
}

LayerCost layer_cost_of(const SplitPasses& passes, Recompute recompute, bool keep_kernels) {
    LayerCost cost;
    cost.layer = sum_layer_passes(passes.dense, recompute);
    cost.first_stage = sum_passes(passes.edges, KernelScope::first_stage);
    cost.last_stage = sum_passes(passes.edges, KernelScope::last_stage);
    if (passes.moe) cost.moe_layer = sum_layer_passes(*passes.moe, recompute);
    if (keep_kernels) {
        // The report's layer: one with experts, the kind that dominates; room for the edges and the optimizer evaluate appends.
        cost.kernels = layer_kernels_of(passes.moe ? *passes.moe : passes.dense, recompute, passes.edges.size() + 1);
        cost.kernels.insert(cost.kernels.end(), passes.edges.begin(), passes.edges.end());
    }
    return cost;
}

LayerCost layer_cost(const Scenario& scenario, const LayerSplit& split, bool keep_kernels) {
    return layer_cost_of(split_passes(scenario, split, split.recompute == Recompute::selective), split.recompute, keep_kernels);
}

PassSeconds mean_layer(const LayerCost& cost, double moe_share) {
    if (moe_share <= 0) return cost.layer;
    const double dense_share = 1.0 - moe_share;
    const PassSeconds& a = cost.layer;
    const PassSeconds& b = cost.moe_layer;
    PassSeconds mean;
    const auto mix = [&](double PassSeconds::*field) { mean.*field = dense_share * a.*field + moe_share * b.*field; };
    for (double PassSeconds::*field : {&PassSeconds::forward, &PassSeconds::backward_input, &PassSeconds::backward_weight, &PassSeconds::recompute,
                                       &PassSeconds::gemm, &PassSeconds::attention, &PassSeconds::elementwise, &PassSeconds::attention_forward,
                                       &PassSeconds::attention_backward, &PassSeconds::flops}) {
        mix(field);
    }
    return mean;
}

double stage_moe_share(const Scenario& scenario, int pp) {
    if (!scenario.model.is_moe()) return 0.0;
    return static_cast<double>(moe_layers_on_heaviest_stage(scenario, pp)) / pipeline_split(scenario, pp).most_layers();
}

namespace {

// Communication that may hide behind `window` seconds of compute: what shows, and the compute it slows while hidden.
Overlapped overlap(double comm_seconds, double window_seconds, bool allowed, double compute_slowdown, double minimum_exposed = 0) {
    Overlapped result;
    if (!allowed) {
        result.exposed = comm_seconds;
        return result;
    }
    result.exposed = std::max(std::min(comm_seconds, minimum_exposed), comm_seconds - window_seconds);
    result.slowdown = compute_slowdown * (comm_seconds - result.exposed);
    return result;
}

double slowdown_of(const GroupPlacement& group, const ClusterSpec& cluster) {
    return group.crosses_nodes() ? cluster.scale_out.compute_slowdown : cluster.scale_up.compute_slowdown;
}

// Model chunks a device runs per L/pp share of layers: interleaved v, DualPipeV 2 (two half-share stages), else 1.
double chunks_per_device_share(const Layout& layout) {
    return 1.0 / schedule_placement(layout.schedule, layout.pp, layout.virtual_stages).activation_share();
}

// The generator is pure, so its last timeline is reused: a drag that leaves the pipeline alone costs no schedule.
// One entry per thread keeps evaluate() thread-safe.
const ScheduleTimeline& cached_schedule(const ScheduleParams& params) {
    thread_local ScheduleParams cached_params{};
    thread_local ScheduleTimeline cached_timeline;
    thread_local bool filled = false;
    if (!filled || !(params == cached_params)) {
        cached_timeline = schedule_figures(params);
        cached_params = params;
        filled = true;
    }
    return cached_timeline;
}

// A layer with routed experts and no shared experts has no TP-split MLP: its TP collectives are attention's alone
// (Megatron-Core: with ETP 1 the dispatch works on each TP rank's sequence shard). The stage's mean layer scales TP so.
void scale_tp_to_stage(TpComm& tp, const ModelSpec& model, double moe_share) {
    if (moe_share <= 0 || model.shared_experts > 0) return;
    const double scale = 1.0 - 0.5 * moe_share;
    tp.forward_seconds *= scale;
    tp.backward_seconds *= scale;
    tp.recompute_seconds *= scale;
    tp.bytes_per_gpu *= scale;
}

bool generates_timeline(const ScheduleParams& schedule, PipelineTiming timing) {
    return timing == PipelineTiming::timeline && schedule_op_count(schedule) <= max_schedule_ops;
}

// A device's closed-form in-flight, in whole-stage activations (interleaved counts chunk micro-batches: / v).
double closed_form_inflight_activations(const ScheduleParams& schedule, int device) {
    return closed_form_peak_inflight_on(schedule, device) / static_cast<double>(schedule.virtual_chunks);
}

LayerComm layer_comm(const Scenario& scenario, const Layout& layout, const PassSeconds& layer, const TpComm& tp, const CpComm& cp) {
    const ClusterSpec& cluster = scenario.cluster;
    const OverlapSpec& switches = scenario.overlap;
    LayerComm comm;
    if (layout.tp > 1) {
        const double slowdown = slowdown_of(axis_placement(CommAxis::tp, layout, cluster), cluster);
        // Transformer Engine overlaps each TP collective with the GEMM beside it; otherwise the compute stream waits.
        const bool hidden = tp_comm_overlapped(scenario, layout);
        comm.tp_forward = overlap(tp.forward_seconds, layer.forward, hidden, slowdown);
        comm.tp_recompute = overlap(tp.recompute_seconds, layer.recompute, hidden, slowdown);
        comm.tp_backward = overlap(tp.backward_seconds, layer.backward_input + layer.backward_weight, hidden, slowdown);
        comm.tp_seconds = tp.forward_seconds + tp.recompute_seconds + tp.backward_seconds;
    }
    if (layout.cp > 1) {
        const double slowdown = slowdown_of(axis_placement(CommAxis::cp, layout, cluster), cluster);
        // Ring attention: each step's K and V travel while the previous chunk's attention runs (1 / cp of the core).
        const double chunk_forward = layer.attention_forward / layout.cp;
        const double chunk_backward = layer.attention_backward / layout.cp;
        const auto ring = [&](double step_seconds, double chunk_seconds) {
            Overlapped one = overlap(step_seconds, chunk_seconds, switches.cp_ring, slowdown);
            one.exposed *= cp.steps;
            one.slowdown *= cp.steps;
            return one;
        };
        if (cp.rotation == CpRotation::all_gather) {
            // One gather a pass behind the first chunk; backward, each chunk's dK, dV behind the next chunk, the last
            // waited for with nothing left to run.
            comm.cp_forward = overlap(cp.gather_seconds, chunk_forward, switches.cp_ring, slowdown);
            comm.cp_backward = overlap(cp.gather_seconds, chunk_backward, switches.cp_ring, slowdown);
            const Overlapped passed_on = ring(cp.step_backward_seconds, chunk_backward);
            comm.cp_backward.exposed += passed_on.exposed + cp.step_backward_seconds;
            comm.cp_backward.slowdown += passed_on.slowdown;
        } else {
            comm.cp_forward = ring(cp.step_forward_seconds, chunk_forward);
            comm.cp_backward = ring(cp.step_backward_seconds, chunk_backward);
        }
        comm.cp_recompute = layout.recompute != Recompute::none ? comm.cp_forward : Overlapped{};
        comm.cp_seconds = cp.seconds(layout.recompute);
    }
    return comm;
}

// One MoE layer's all-to-alls: with the overlap switch on, each hides behind another micro-batch's compute of the same
// size as this layer's pass (DualPipe's paired chunks, Megatron-Core's EP overlap), holding the SMs that drive it.
void add_ep_comm(LayerComm& comm, const Scenario& scenario, const Layout& layout, const PassSeconds& moe_layer, const EpComm& ep) {
    if (ep.forward_seconds <= 0) return;
    const ClusterSpec& cluster = scenario.cluster;
    const bool allowed = scenario.overlap.ep_all_to_all;
    const double slowdown = layout.ep > 1 ? slowdown_of(axis_placement(CommAxis::ep, layout, cluster), cluster)
                                          : cluster.scale_up.compute_slowdown;
    comm.ep_forward = overlap(ep.forward_seconds, moe_layer.forward, allowed, slowdown);
    comm.ep_recompute = overlap(ep.recompute_seconds, moe_layer.recompute, allowed, slowdown);
    comm.ep_backward = overlap(ep.backward_seconds, moe_layer.backward_input + moe_layer.backward_weight, allowed, slowdown);
    comm.ep_seconds = ep.forward_seconds + ep.recompute_seconds + ep.backward_seconds;
}

}  // namespace

LayerStepSeconds layer_step_seconds(const Scenario& scenario, const Layout& layout, const LayerCost& cost, const PassSeconds& layer, double moe_share) {
    LayerStepSeconds one;
    one.tp = tp_layer_comm(scenario, layout);
    scale_tp_to_stage(one.tp, scenario.model, moe_share);
    one.cp = cp_layer_comm(scenario, layout);
    if (scenario.model.is_moe()) one.ep = ep_layer_comm(scenario, layout);
    one.comm = layer_comm(scenario, layout, layer, one.tp, one.cp);
    add_ep_comm(one.comm, scenario, layout, cost.moe_layer, one.ep);
    const LayerComm& comm = one.comm;
    // One micro-batch through one layer, each pass with the communication its compute could not hide (the stage's MoE
    // layers' all-to-alls spread over its mean layer).
    one.forward_seconds = layer.forward + comm.tp_forward.cost() + comm.cp_forward.cost();
    one.backward_seconds = layer.recompute + comm.tp_recompute.cost() + comm.cp_recompute.cost() + layer.backward_input +
                           layer.backward_weight + comm.tp_backward.cost() + comm.cp_backward.cost();
    if (moe_share > 0) {
        one.forward_seconds += moe_share * comm.ep_forward.cost();
        one.backward_seconds += moe_share * (comm.ep_recompute.cost() + comm.ep_backward.cost());
    }
    return one;
}

StepInputs step_inputs(const Scenario& scenario, const Layout& layout, const LayerCost& cost) {
    return step_inputs(scenario, layout, cost, memory_constants(scenario));
}

StepInputs step_inputs(const Scenario& scenario, const Layout& layout, const LayerCost& cost, const MemoryConstants& memory_constants_of_scenario) {
    StepInputs in;
    const ClusterSpec& cluster = scenario.cluster;
    const OverlapSpec& switches = scenario.overlap;
    in.microbatches = scenario.train.global_batch / (layout.dp * layout.micro_batch);
    const PipelineSplit split = pipeline_split(scenario, layout.pp);
    in.stage_layers = split.most_layers();
    in.first_stage_layers = split.layers_on(0);
    in.last_stage_layers = split.layers_on(layout.pp - 1);
    const double layers = in.stage_layers;

    in.moe_share = stage_moe_share(scenario, layout.pp);
    in.layer = mean_layer(cost, in.moe_share);
    if (runs_operator_recipe(scenario)) {
        const FrameworkRecipe& recipe = framework_recipe_of(scenario);
        in.host_seconds_per_launch = recipe.host_seconds_per_launch;
        in.host_seconds_per_recompute_launch = recipe.host_seconds_per_recompute_launch;
    }
    const PassSeconds& layer = in.layer;
    const LayerStepSeconds one_layer = layer_step_seconds(scenario, layout, cost, layer, in.moe_share);
    in.tp = one_layer.tp;
    in.cp = one_layer.cp;
    in.ep = one_layer.ep;
    in.comm = one_layer.comm;
    in.layer_forward_seconds = one_layer.forward_seconds;
    in.layer_backward_seconds = one_layer.backward_seconds;
    in.pp = pp_comm(scenario, layout);
    in.stage = heaviest_stage_params(memory_constants_of_scenario, layout.pp, layout.tp, layout.ep * layout.etp);
    in.dp = dp_comm(scenario, layout, in.stage.dense_per_gpu(), in.stage_layers, in.microbatches);
    if (in.stage.expert_per_gpu > 0) {  // the routed experts' gradients, over the expert data parallel group
        in.dp = combined(in.dp, dp_comm_over(scenario, layout, expert_dp_placement(layout, cluster), in.stage.expert_per_gpu,
                                             in.stage_layers, in.microbatches));
    }
    in.dp_group = axis_placement(CommAxis::dp, layout, cluster);
    in.dp_slowdown = slowdown_of(in.dp_group, cluster);

    // ZeRO-3 gathers each layer's weights forward and backward and reduce-scatters its gradients, every micro-batch;
    // prefetching one layer ahead hides a gather behind the layer before it, except the first.
    if (layout.zero == 3 && in.dp_group.ranks > 1) {
        const double gather = in.dp.layer_gather_seconds;
        const double backward_gathers = (in.dp.gathers_per_microbatch - 1) * gather;  // the recompute's and the backward's
        const double gather_reduce = backward_gathers + in.dp.layer_reduce_seconds;
        const bool prefetch = switches.zero3_prefetch && in.dp.gathers_overlap;
        const Overlapped per_layer_forward = overlap(gather, in.layer_forward_seconds, prefetch, in.dp_slowdown);
        in.zero3_forward.exposed = prefetch ? gather + (layers - 1) * per_layer_forward.exposed : layers * gather;
        in.zero3_forward.slowdown = (layers - 1) * per_layer_forward.slowdown;
        if (in.dp.gathers_overlap) {
            const Overlapped per_layer_backward = overlap(gather_reduce, in.layer_backward_seconds, switches.zero3_prefetch, in.dp_slowdown);
            in.zero3_backward.exposed = switches.zero3_prefetch ? gather_reduce + (layers - 1) * per_layer_backward.exposed : layers * gather_reduce;
            in.zero3_backward.slowdown = (layers - 1) * per_layer_backward.slowdown;
        } else {
            // The engine waits for every gather; the gradient buckets still reduce on their own stream behind the backward.
            const Overlapped per_layer_reduce = overlap(in.dp.layer_reduce_seconds, in.layer_backward_seconds, switches.dp_grad_reduce, in.dp_slowdown);
            in.zero3_backward.exposed = layers * backward_gathers + in.dp.layer_reduce_seconds + (layers - 1) * per_layer_reduce.exposed;
            in.zero3_backward.slowdown = (layers - 1) * per_layer_reduce.slowdown;
        }
    }
    // ZeRO-2 shards the gradients: each micro-batch's are reduce-scattered behind its backward, but for the last bucket.
    if (layout.zero == 2 && in.dp_group.ranks > 1) {
        in.zero2_backward = overlap(in.dp.grad_reduce_seconds, layers * in.layer_backward_seconds, switches.dp_grad_reduce, in.dp_slowdown,
                                    in.dp.grad_reduce_seconds / layers);
    }

    // The stage edges: the vocabulary-parallel embedding's all-reduce (reduce-scatter under SP) forward; before the
    // logits, an all-gather under SP forward and its reduce-scatter backward, else an all-reduce of the input gradient.
    if (layout.tp > 1) {
        const GroupPlacement group = axis_placement(CommAxis::tp, layout, cluster);
        const auto one = [&](Collective collective) { return collective_seconds(collective, group, in.tp.message_bytes, cluster.scale_up, cluster.scale_out); };
        in.first_tp_seconds = one(layout.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce);
        in.last_tp_forward_seconds = layout.sequence_parallel ? one(Collective::all_gather) : 0.0;
        in.last_tp_backward_seconds = one(layout.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce);
    }

    in.memory = memory_basis(memory_constants_of_scenario, layout);
    const bool optimizer_sharded = (layout.zero >= 1 || scenario.precision.sharded_optimizer) && in.dp_group.ranks > 1;
    const int expert_shards = layout.expert_data_parallel();
    const bool expert_optimizer_sharded = (layout.zero >= 1 || scenario.precision.sharded_optimizer) && expert_shards > 1;
    // LoRA and QLoRA: the optimizer updates the adapters alone (the base is frozen: it has no gradient).
    const double updated_per_gpu = memory_constants_of_scenario.lora
                                       ? memory_constants_of_scenario.lora_counts.adapter_params * in.stage.dense_per_gpu() / std::max(1.0, in.stage.total)
                                       : in.stage.dense_per_gpu();
    in.optimizer = optimizer_kernel(scenario, updated_per_gpu / (optimizer_sharded ? in.dp_group.ranks : 1) +
                                                  in.stage.expert_per_gpu / (expert_optimizer_sharded ? expert_shards : 1));
    return in;
}

EdgeShortfall edge_shortfall(const Layout& layout, const StepInputs& in) {
    if (is_dualpipe(layout.schedule)) return {};
    const int chunk_layers = in.stage_layers / std::max(1, layout.virtual_stages);
    return {std::min(chunk_layers, in.stage_layers - in.first_stage_layers), std::min(chunk_layers, in.stage_layers - in.last_stage_layers)};
}

ScheduleParams schedule_params(const Scenario& scenario, const Layout& layout, const LayerCost& cost, const StepInputs& in) {
    const double layers = in.stage_layers;
    const PassSeconds& layer = in.layer;
    ScheduleParams schedule;
    schedule.kind = layout.schedule;
    schedule.stages = layout.pp;
    schedule.microbatches = in.microbatches;
    schedule.virtual_chunks = layout.virtual_stages;
    schedule.forward_seconds = layers * in.layer_forward_seconds + in.zero3_forward.cost();
    schedule.backward_seconds = layers * in.layer_backward_seconds + in.zero3_backward.cost() + in.zero2_backward.cost();
    schedule.weight_grad_seconds = layers * layer.backward_weight;
    const EdgeShortfall shortfall = edge_shortfall(layout, in);
    const double first_missing = shortfall.first_layers, last_missing = shortfall.last_layers;
    schedule.first_forward_extra_seconds = cost.first_stage.forward + in.first_tp_seconds - first_missing * in.layer_forward_seconds;
    schedule.first_backward_extra_seconds = cost.first_stage.backward() - first_missing * in.layer_backward_seconds;
    schedule.first_weight_grad_extra_seconds = cost.first_stage.backward_weight - first_missing * layer.backward_weight;
    schedule.last_forward_extra_seconds = cost.last_stage.forward + in.last_tp_forward_seconds - last_missing * in.layer_forward_seconds;
    schedule.last_backward_extra_seconds = cost.last_stage.backward() + in.last_tp_backward_seconds - last_missing * in.layer_backward_seconds;
    schedule.last_weight_grad_extra_seconds = cost.last_stage.backward_weight - last_missing * layer.backward_weight;
    // DualPipe's F&B cells: F + B. What one chunk hides behind the other is the MoE all-to-all, which F and B already
    // leave out when overlap.ep_all_to_all is on (add_ep_comm: only the SMs it holds are charged).
    schedule.forward_backward_seconds = 0;
    if (layout.pp > 1) {
        schedule.p2p_seconds = in.pp.send_seconds;
        if (!scenario.overlap.pp_p2p) {  // a blocking send keeps the sender busy too, once per model chunk
            const double chunks = chunks_per_device_share(layout);
            schedule.forward_seconds += chunks * in.pp.send_seconds;
            schedule.backward_seconds += chunks * in.pp.send_seconds;
        }
    }
    return schedule;
}

ScheduleParams scenario_schedule_params(const Scenario& scenario) {
    const Layout layout = layout_of(scenario);
    const LayerCost cost = layer_cost(scenario, split_of(layout), false);
    return schedule_params(scenario, layout, cost, step_inputs(scenario, layout, cost));
}

namespace {

// How long the GPU waits for the host. The host launches the step's kernels in order and the GPU runs each once it is
// launched and the one before it is done, so the step ends no sooner than, for every point of it, the host's time to
// launch everything before that point plus the GPU's time for everything after it. Within a pass of identical layers
// that sum moves linearly, so only the passes' boundaries need checking: each micro-batch's forward and backward, then
// the tail (gradient reduction and the optimizer). One stage only: a pipeline's bubbles are the GPU's to wait in.
double host_bound_seconds(const StepInputs& in, const LayerCost& cost, const ScheduleParams& schedule, double gpu_step_seconds) {
    if (in.host_seconds_per_launch <= 0 || schedule.stages != 1) return 0.0;
    const double m = in.microbatches, layers = in.stage_layers;
    const PassSeconds& layer = in.layer;
    const auto edges = [&](double PassSeconds::*field) { return cost.first_stage.*field + cost.last_stage.*field; };
    const double host_forward = in.host_seconds_per_launch * (layers * layer.forward_launches + edges(&PassSeconds::forward_launches));
    const double host_backward = in.host_seconds_per_launch * (layers * layer.backward_launches + edges(&PassSeconds::backward_launches)) +
                                 in.host_seconds_per_recompute_launch * (layers * layer.recompute_launches + edges(&PassSeconds::recompute_launches));
    const double host_tail = in.host_seconds_per_launch * in.optimizer.launches;
    const double gpu_forward = schedule.forward_seconds + schedule.first_forward_extra_seconds + schedule.last_forward_extra_seconds;
    const double gpu_backward = schedule.backward_seconds + schedule.first_backward_extra_seconds + schedule.last_backward_extra_seconds;
    // Boundary k splits the 2m + 1 phases into the host's prefix and the GPU's suffix.
    double host_prefix = 0, gpu_suffix = gpu_step_seconds, bound = gpu_step_seconds;
    for (int phase = 0; phase < 2 * static_cast<int>(m); ++phase) {
        const bool forward = phase % 2 == 0;
        host_prefix += forward ? host_forward : host_backward;
        gpu_suffix -= forward ? gpu_forward : gpu_backward;
        bound = std::max(bound, host_prefix + gpu_suffix);
    }
    bound = std::max(bound, host_prefix + host_tail);
    return bound - gpu_step_seconds;
}

}  // namespace

double straggler_wait(const ClusterSpec& cluster, long long gpus) {
    const double machines = std::ceil(static_cast<double>(gpus) / std::max(1, cluster.gpus_per_node));
    if (machines < 2) return 0.0;
    return cluster.straggler_slowdown * (1.0 - std::pow(1.0 - cluster.straggler_share, machines));
}

StepEstimate estimate_step(const Scenario& scenario, const Layout& layout, const LayerCost& cost, const StepInputs& in, PipelineTiming timing) {
    StepEstimate estimate;
    const OverlapSpec& switches = scenario.overlap;
    const int microbatches = in.microbatches;
    const double m = microbatches;
    const double layers = in.stage_layers;
    const PassSeconds& layer = in.layer;
    const LayerComm& comm = in.comm;
    const DpComm& dp = in.dp;
    const PpComm& pp = in.pp;

    estimate.schedule = schedule_params(scenario, layout, cost, in);
    const ScheduleParams& schedule = estimate.schedule;

    double inflight_middle = -1;  // a middle stage's GPU with more experts than the first's (MemoryBasis::middle_stage)
    if (generates_timeline(schedule, timing)) {
        const ScheduleTimeline& timeline = cached_schedule(schedule);
        estimate.makespan_seconds = timeline.makespan_seconds;
        estimate.bubble_fraction = std::max(0.0, timeline.bubble_fraction);  // rounding leaves -2e-16 when nothing idles
        estimate.bubble_overhead = std::max(0.0, timeline.bubble_overhead);
        const bool two_way = is_dualpipe(layout.schedule);
        // The first device holds the most under the one-way schedules; DualPipe's peak may sit on any device, and every
        // device there holds a first-half and a last-half stage.
        const auto most = [](const auto& values) { return *std::max_element(values.begin(), values.end()); };
        estimate.peak_inflight_microbatches = two_way ? most(timeline.peak_inflight_microbatches) : timeline.peak_inflight_microbatches.at(0);
        estimate.inflight_microbatches = two_way ? most(timeline.peak_inflight_activations) : timeline.peak_inflight_activations.at(0);
        estimate.inflight_last_microbatches = two_way ? estimate.inflight_microbatches : timeline.peak_inflight_activations.back();
        if (in.memory.middle_stage > 0) inflight_middle = two_way ? estimate.inflight_microbatches : timeline.peak_inflight_activations.at(in.memory.middle_stage);
    } else {
        estimate.makespan_seconds = closed_form_makespan(schedule);
        estimate.bubble_overhead = closed_form_bubble_overhead(schedule);
        estimate.bubble_fraction = estimate.bubble_overhead / (1.0 + estimate.bubble_overhead);
        estimate.peak_inflight_microbatches = closed_form_peak_inflight(schedule);
        estimate.inflight_microbatches = estimate.peak_inflight_microbatches / chunks_per_device_share(layout);
        const bool two_way = is_dualpipe(layout.schedule);
        estimate.inflight_last_microbatches = two_way ? estimate.inflight_microbatches : closed_form_inflight_activations(schedule, schedule.stages - 1);
        if (in.memory.middle_stage > 0) {
            inflight_middle = two_way ? estimate.inflight_microbatches : closed_form_inflight_activations(schedule, in.memory.middle_stage);
        }
    }
    estimate.memory = in.memory.at(estimate.inflight_microbatches, estimate.inflight_last_microbatches, inflight_middle);

    // After the pipeline: the gradient reduction of ZeRO-0/1 and the distributed optimizer runs behind the last
    // micro-batch's backward but for its last bucket (one layer's); the optimizer; the updated weights' all-gather
    // behind the next step's first forward.
    Overlapped dp_tail, param_gather;
    const bool has_dp = in.dp_group.ranks > 1;
    if (has_dp && dp.once_a_step) {
        // FSDP kept gathered under the pipeline: every layer's gradients reduced after the stage's last backward, nothing
        // left to hide them; the weights gathered layer by layer in the first micro-batch's forward, one layer ahead.
        dp_tail = overlap(dp.grad_reduce_seconds, 0.0, false, in.dp_slowdown);
        param_gather = overlap(dp.param_gather_seconds, schedule.forward_seconds, switches.zero3_prefetch, in.dp_slowdown, dp.param_gather_seconds / layers);
    } else {
        if (has_dp && layout.zero <= 1) {
            dp_tail = overlap(dp.grad_reduce_seconds, schedule.backward_seconds, switches.dp_grad_reduce, in.dp_slowdown, dp.grad_reduce_seconds / layers);
        }
        if (has_dp && dp.param_gather_seconds > 0) {
            param_gather = overlap(dp.param_gather_seconds, schedule.forward_seconds, switches.dp_param_gather, in.dp_slowdown, dp.param_gather_seconds / layers);
        }
    }
    estimate.optimizer = in.optimizer;
    estimate.optimizer_seconds = in.optimizer.seconds;
    estimate.dp_tail_exposed_seconds = dp_tail.cost();
    estimate.param_gather_exposed_seconds = param_gather.cost();
    estimate.step_seconds = estimate.makespan_seconds + estimate.dp_tail_exposed_seconds + estimate.param_gather_exposed_seconds + estimate.optimizer_seconds;
    const double host_wait = host_bound_seconds(in, cost, schedule, estimate.step_seconds);
    estimate.step_seconds += host_wait;

    // The breakdown, on the stage with the most work per micro-batch: the first or the last (they carry the edges), or a
    // middle one where both edges hold fewer layers and their edge work does not make up for it.
    const double first_busy = schedule.first_forward_extra_seconds + schedule.first_backward_extra_seconds +
                              (layout.pp == 1 ? schedule.last_forward_extra_seconds + schedule.last_backward_extra_seconds : 0.0);
    const double last_busy = schedule.last_forward_extra_seconds + schedule.last_backward_extra_seconds;
    const bool middle_is_busiest = layout.pp > 2 && std::max(first_busy, last_busy) < 0.0;
    const bool first_is_busiest = layout.pp == 1 || (!middle_is_busiest && first_busy >= last_busy);
    estimate.busiest_stage = first_is_busiest ? 0 : middle_is_busiest ? 1 : layout.pp - 1;
    // The layers that stage runs: the busiest stage's, less what an edge stage lacks (edge_shortfall).
    const EdgeShortfall shortfall = edge_shortfall(layout, in);
    const double busy_layers = layers - (middle_is_busiest || layout.pp == 1 ? 0 : first_is_busiest ? shortfall.first_layers : shortfall.last_layers);
    // The share of the micro-batches for which that device runs each edge stage: all of one edge under the one-way
    // schedules (both with one stage); DualPipe's end devices each run both edges, one direction's half each;
    // DualPipeV's device 0 runs both edges for every micro-batch.
    const bool dualpipe = layout.schedule == ScheduleKind::dualpipe && layout.pp > 1;
    const bool both_edges = layout.pp == 1 || layout.schedule == ScheduleKind::dualpipe_v;
    if (dualpipe || both_edges) estimate.busiest_stage = 0;
    const double has_first = dualpipe ? 0.5 : (both_edges || first_is_busiest) ? 1.0 : 0.0;
    const double has_last = dualpipe ? 0.5 : (both_edges || (!first_is_busiest && !middle_is_busiest)) ? 1.0 : 0.0;
    StepBreakdown& parts = estimate.breakdown;
    const auto edges = [&](double PassSeconds::*field) {
        return has_first * cost.first_stage.*field + has_last * cost.last_stage.*field;
    };
    estimate.runs_per_step[static_cast<int>(KernelScope::layer)] = m * busy_layers;
    estimate.runs_per_step[static_cast<int>(KernelScope::first_stage)] = has_first ? m : 0.0;
    estimate.runs_per_step[static_cast<int>(KernelScope::last_stage)] = has_last ? m : 0.0;
    estimate.runs_per_step[static_cast<int>(KernelScope::step)] = 1.0;
    parts.gemm_seconds = m * (busy_layers * layer.gemm + edges(&PassSeconds::gemm));
    parts.attention_seconds = m * (busy_layers * layer.attention + edges(&PassSeconds::attention));
    parts.elementwise_seconds = m * (busy_layers * layer.elementwise + edges(&PassSeconds::elementwise));
    parts.optimizer_seconds = estimate.optimizer_seconds;
    double* exposed = parts.exposed_comm_seconds;
    exposed[static_cast<int>(CommAxis::tp)] = m * (busy_layers * (comm.tp_forward.cost() + comm.tp_recompute.cost() + comm.tp_backward.cost()) +
                                                   has_first * in.first_tp_seconds +
                                                   has_last * (in.last_tp_forward_seconds + in.last_tp_backward_seconds));
    exposed[static_cast<int>(CommAxis::cp)] = m * busy_layers * (comm.cp_forward.cost() + comm.cp_recompute.cost() + comm.cp_backward.cost());
    exposed[static_cast<int>(CommAxis::dp)] = m * (in.zero3_forward.cost() + in.zero3_backward.cost() + in.zero2_backward.cost()) + dp_tail.cost() + param_gather.cost();
    exposed[static_cast<int>(CommAxis::ep)] = m * busy_layers * in.moe_share * (comm.ep_forward.cost() + comm.ep_recompute.cost() + comm.ep_backward.cost());
    double pp_exposed = 0;
    if (layout.pp > 1) {
        const double chunks = chunks_per_device_share(layout);
        const double boundaries = layout.pp * chunks - 1.0;
        pp_exposed = 2.0 * boundaries * pp.send_seconds + (switches.pp_p2p ? 0.0 : 2.0 * m * chunks * pp.send_seconds);
    }
    const double accounted = parts.gemm_seconds + parts.attention_seconds + parts.elementwise_seconds + parts.optimizer_seconds +
                             exposed[0] + exposed[1] + exposed[3] + exposed[4] + pp_exposed + host_wait;
    // What the busiest stage spends neither computing nor communicating is the pipeline standing idle. The sends' share
    // is estimated from the fill and drain; if the timeline hid more of them, the difference is theirs to give back.
    const double idle = estimate.step_seconds - accounted;
    parts.bubble_seconds = layout.pp > 1 ? std::max(0.0, idle) : 0.0;  // one stage never waits on another
    exposed[static_cast<int>(CommAxis::pp)] = std::max(0.0, pp_exposed + std::min(0.0, idle));
    parts.host_seconds = host_wait;
    const long long layout_gpus = 1LL * layout.tp * layout.cp * layout.pp * layout.dp;
    parts.straggler_seconds = straggler_wait(scenario.cluster, layout_gpus) *
                              (parts.gemm_seconds + parts.attention_seconds + parts.elementwise_seconds + parts.optimizer_seconds);
    estimate.step_seconds += parts.straggler_seconds;
    const double remainder = estimate.step_seconds - parts.total();
    parts.elementwise_seconds += remainder;  // rounding, and an edge stage's work the schedule overlapped with a bubble

    const TpComm& tp = in.tp;
    const CpComm& cp = in.cp;
    estimate.comm_seconds[static_cast<int>(CommAxis::tp)] =
        m * layers * comm.tp_seconds + m * (in.first_tp_seconds + in.last_tp_forward_seconds + in.last_tp_backward_seconds);
    estimate.comm_bytes_per_gpu[static_cast<int>(CommAxis::tp)] = m * layers * tp.bytes_per_gpu;
    estimate.comm_message_bytes[static_cast<int>(CommAxis::tp)] = tp.message_bytes;
    estimate.comm_seconds[static_cast<int>(CommAxis::cp)] = m * layers * comm.cp_seconds;
    estimate.comm_bytes_per_gpu[static_cast<int>(CommAxis::cp)] = m * layers * cp.bytes_per_gpu;
    estimate.comm_message_bytes[static_cast<int>(CommAxis::cp)] = cp.message_bytes;
    if (layout.pp > 1) {  // each micro-batch's activation forward and its gradient backward, once per model chunk
        const double sends = 2.0 * m * chunks_per_device_share(layout);
        estimate.comm_seconds[static_cast<int>(CommAxis::pp)] = sends * pp.send_seconds;
        estimate.comm_bytes_per_gpu[static_cast<int>(CommAxis::pp)] = sends * pp.message_bytes;
    }
    estimate.comm_message_bytes[static_cast<int>(CommAxis::pp)] = pp.message_bytes;
    if (in.moe_share > 0) {  // each MoE layer on the stage, every micro-batch
        const double moe_layers = m * layers * in.moe_share;
        estimate.comm_seconds[static_cast<int>(CommAxis::ep)] = moe_layers * comm.ep_seconds;
        estimate.comm_bytes_per_gpu[static_cast<int>(CommAxis::ep)] = moe_layers * in.ep.bytes_per_gpu;
        estimate.comm_message_bytes[static_cast<int>(CommAxis::ep)] = in.ep.dispatch_message_bytes;
    }
    if (has_dp) {
        const double dp_seconds = layout.zero == 3 && !dp.once_a_step ? m * layers * (dp.gathers_per_microbatch * dp.layer_gather_seconds + dp.layer_reduce_seconds)
                                                   : dp.reduces_per_step * dp.grad_reduce_seconds + dp.param_gather_seconds;
        estimate.comm_seconds[static_cast<int>(CommAxis::dp)] = dp_seconds;
        estimate.comm_bytes_per_gpu[static_cast<int>(CommAxis::dp)] = dp.bytes_per_gpu;
        estimate.comm_message_bytes[static_cast<int>(CommAxis::dp)] = layout.zero == 3 ? dp.weight_bytes / layers : dp.grad_bytes;
    }
    return estimate;
}

const ScheduleTimeline* generated_schedule(const ScheduleParams& schedule, PipelineTiming timing) {
    return generates_timeline(schedule, timing) ? &cached_schedule(schedule) : nullptr;
}

std::vector<double> stage_inflight_microbatches(const ScheduleParams& schedule, PipelineTiming timing) {
    if (generates_timeline(schedule, timing)) return cached_schedule(schedule).peak_inflight_activations;
    std::vector<double> inflight;
    for (int device = 0; device < schedule.stages; ++device) inflight.push_back(closed_form_inflight_activations(schedule, device));
    return inflight;
}

std::vector<TimelineOp> layer_timeline(const Scenario& scenario, const Layout& layout, const LayerCost& cost, double& total_seconds) {
    std::vector<TimelineOp> ops;
    ops.reserve(cost.kernels.size() + 16);  // one op per kernel and a few transfers: no reallocation on a 400-kernel recipe
    const OverlapSpec& switches = scenario.overlap;
    const TpComm tp = tp_layer_comm(scenario, layout);
    const CpComm cp = cp_layer_comm(scenario, layout);
    const int microbatches = scenario.train.global_batch / (layout.dp * layout.micro_batch);
    const int stage_layers = pipeline_split(scenario, layout.pp).most_layers();
    const StageParams stage = heaviest_stage_params(scenario, layout.pp, layout.tp, layout.ep * layout.etp);
    DpComm dp = dp_comm(scenario, layout, stage.dense_per_gpu(), stage_layers, microbatches);
    if (stage.expert_per_gpu > 0) {
        dp = combined(dp, dp_comm_over(scenario, layout, expert_dp_placement(layout, scenario.cluster), stage.expert_per_gpu,
                                       stage_layers, microbatches));
    }
    const EpComm ep = ep_layer_comm(scenario, layout);
    const double tp_one = tp.collectives > 0 ? (tp.forward_seconds / 2.0) : 0.0;  // one collective pair (after attention, after the MLP)
    const bool tp_hidden = tp_comm_overlapped(scenario, layout);
    double compute_clock = 0;    // where the compute stream is
    double tp_free = 0, cp_free = 0, dp_free = 0, ep_free = 0;  // when each communication stream is free

    const auto comm_op = [&](Stream stream, double& free_at, double start, double seconds, KernelPass pass, bool blocks) {
        TimelineOp op;
        op.stream = stream;
        op.pass = pass;
        op.start_seconds = std::max(start, free_at);
        op.duration_seconds = seconds;
        op.exposed = blocks;
        free_at = op.start_seconds + seconds;
        ops.push_back(op);
        if (blocks) compute_clock = std::max(compute_clock, free_at);  // the compute stream waits for it
    };
    // ZeRO-3: this layer's weights arrive before it starts (prefetched during the layer before it, when allowed).
    if (layout.zero == 3 && dp.layer_gather_seconds > 0) {
        comm_op(Stream::dp, dp_free, switches.zero3_prefetch ? -dp.layer_gather_seconds : 0.0, dp.layer_gather_seconds, KernelPass::forward,
                !switches.zero3_prefetch);
    }
    for (int index = 0; index < static_cast<int>(cost.kernels.size()); ++index) {
        const Kernel& kernel = cost.kernels[index];
        if (kernel.scope != KernelScope::layer) continue;
        const bool backward = kernel.pass == KernelPass::backward_input || kernel.pass == KernelPass::backward_weight;
        // Under SP the all-gather comes before the GEMM that needs the whole sequence; the compute waits for it.
        const bool gathers_before = layout.tp > 1 && layout.sequence_parallel && !backward && (kernel.id == KernelId::qkv || kernel.id == KernelId::mlp_up);
        if (gathers_before) comm_op(Stream::tp, tp_free, compute_clock, tp_one / 2.0, kernel.pass, !tp_hidden);
        // Ring attention: the core runs in cp chunks, each the next chunk's K and V travel behind (a chunk whose K and V
        // have not arrived waits for them); without the overlap every exchange is waited for before the core runs.
        const bool ring_core = layout.cp > 1 && (kernel.is_fused_attention || (kernel.id == KernelId::attention_scores && kernel.pass != KernelPass::backward_input));
        // PyTorch's all-gather rotation: one gather before the second chunk; backward, each chunk's dK, dV passed on and
        // waited for after the next chunk (the last with nothing behind it).
        const bool gathers = ring_core && cp.rotation == CpRotation::all_gather;
        const bool passes_grads = gathers && kernel.pass == KernelPass::backward_input;
        const double ring_step = gathers ? cp.gather_seconds : backward ? cp.step_backward_seconds : cp.step_forward_seconds;
        const int ring_sends = gathers ? 1 : cp.steps;
        if (ring_core && !switches.cp_ring) {
            for (int s = 0; s < ring_sends; ++s) comm_op(Stream::cp, cp_free, compute_clock, ring_step, kernel.pass, true);
        }
        const int chunks = ring_core && switches.cp_ring ? layout.cp : 1;
        double grads_arrive = -1;  // when the dK, dV the last chunk passed on have arrived
        for (int chunk = 0; chunk < chunks; ++chunk) {
            TimelineOp op;
            op.stream = Stream::compute;
            op.kernel = index;
            op.pass = kernel.pass;
            op.start_seconds = compute_clock;
            op.duration_seconds = kernel.total_seconds() / chunks;
            ops.push_back(op);
            if (chunk + 1 < chunks && chunk < ring_sends) {
                comm_op(Stream::cp, cp_free, compute_clock, ring_step, kernel.pass, false);
                if (cp_free > compute_clock + op.duration_seconds) ops.back().exposed = true;  // the next chunk waits for it
                compute_clock = std::max(compute_clock + op.duration_seconds, cp_free);
            } else {
                compute_clock += op.duration_seconds;
            }
            if (passes_grads && switches.cp_ring) {
                compute_clock = std::max(compute_clock, grads_arrive);
                comm_op(Stream::cp, cp_free, compute_clock, cp.step_backward_seconds, kernel.pass, chunk + 1 == chunks);
                grads_arrive = cp_free;
            }
        }
        if (passes_grads && !switches.cp_ring) {
            for (int s = 0; s < layout.cp; ++s) comm_op(Stream::cp, cp_free, compute_clock, cp.step_backward_seconds, kernel.pass, true);
        }
        // The reduction (all-reduce, or reduce-scatter under SP) after the GEMMs that end a TP region.
        const bool forward_end = !backward && (kernel.id == KernelId::out_proj || kernel.id == KernelId::mlp_down);
        const bool backward_end = kernel.pass == KernelPass::backward_input && (kernel.id == KernelId::qkv || kernel.id == KernelId::mlp_up);
        if (layout.tp > 1 && (forward_end || backward_end)) {
            comm_op(Stream::tp, tp_free, compute_clock, layout.sequence_parallel ? tp_one / 2.0 : tp_one, kernel.pass, !tp_hidden);
        }
        // The all-to-alls of a layer with experts: the dispatch after the permutation, the combine after the experts; backward,
        // the output gradients out to the experts and the input gradients back.
        const bool dispatch = (!backward && kernel.id == KernelId::permute) || (kernel.pass == KernelPass::backward_input && kernel.id == KernelId::unpermute);
        const bool combine = (!backward && kernel.id == KernelId::expert_down) || (kernel.pass == KernelPass::backward_input && kernel.id == KernelId::expert_up);
        if (ep.forward_seconds > 0 && (dispatch || combine)) {
            const double seconds = (dispatch ? ep.dispatch_seconds : ep.combine_seconds) + ep.etp_seconds / 2.0;
            comm_op(Stream::ep, ep_free, compute_clock, seconds, kernel.pass, !switches.ep_all_to_all);
        }
    }
    // The layer's gradients, one bucket, reduced behind the next layer's backward: ZeRO-3 every micro-batch, else in the
    // last micro-batch only (drawn here so its size against the layer's compute shows).
    if (dp.grad_reduce_seconds > 0 || dp.layer_reduce_seconds > 0) {
        const double bucket = layout.zero == 3 && !dp.once_a_step ? dp.layer_reduce_seconds : dp.grad_reduce_seconds / stage_layers;
        comm_op(Stream::dp, dp_free, compute_clock, bucket, KernelPass::backward_weight, dp.once_a_step || !scenario.overlap.dp_grad_reduce);
    }
    // The activation (forward) and its gradient (backward) crossing to the next stage, when this is a stage's last layer.
    if (layout.pp > 1) {
        const PpComm pp = pp_comm(scenario, layout);
        double pp_free = 0;
        double forward_end = 0;
        for (const TimelineOp& op : ops) {
            if (op.stream == Stream::compute && op.pass == KernelPass::forward) forward_end = std::max(forward_end, op.start_seconds + op.duration_seconds);
        }
        comm_op(Stream::pp, pp_free, forward_end, pp.send_seconds, KernelPass::forward, false);
        comm_op(Stream::pp, pp_free, compute_clock, pp.send_seconds, KernelPass::backward_input, false);
    }
    double first_start = 0;
    total_seconds = 0;
    for (const TimelineOp& op : ops) {
        first_start = std::min(first_start, op.start_seconds);
        total_seconds = std::max(total_seconds, op.start_seconds + op.duration_seconds);
    }
    for (TimelineOp& op : ops) op.start_seconds -= first_start;  // a prefetch before the layer starts the picture at 0
    total_seconds -= first_start;
    return ops;
}

}  // namespace core
