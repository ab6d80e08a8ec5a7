#include "core/cost/report/evaluate.h"

#include "core/cost/report/budget.h"
#include "core/cost/kernels/flops.h"
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/memory/memory.h"
#include "core/cost/kernels/roofline.h"
#include "core/cost/serving/serving.h"
#include "core/cost/step/step.h"
#include "core/model/layout.h"

#include <algorithm>

namespace core {

namespace {

LayoutReport layout_report(const Scenario& scenario) {
    LayoutReport layout;
    static_cast<Layout&>(layout) = layout_of(scenario);
    layout.gpus = scenario.cluster.gpus;
    layout.gpus_per_node = scenario.cluster.gpus_per_node;
    layout.nodes = (scenario.cluster.gpus + scenario.cluster.gpus_per_node - 1) / scenario.cluster.gpus_per_node;
    layout.microbatches = microbatches_per_step(scenario);
    return layout;
}

// What the step model says of the routing: per MoE layer, what DualPipe and the anatomy need.
MoeReport moe_report(const Scenario& scenario, const Layout& layout, const LayerCost& cost, const StepInputs& inputs) {
    MoeReport moe;
    const ModelSpec& model = scenario.model;
    if (!model.is_moe()) return moe;
    const ParamBreakdown params = count_params(model, scenario.train.seq_len);
    const EpComm& ep = inputs.ep;
    const LayerComm& comm = inputs.comm;
    moe.has_experts = true;
    moe.experts = model.experts;
    moe.experts_per_token = model.experts_per_token;
    moe.shared_experts = model.shared_experts;
    moe.moe_layers = params.moe_layers;
    moe.dense_layers = params.dense_layers;
    moe.stage_moe_layers = moe_layers_on_heaviest_stage(scenario, layout.pp);
    moe.ep = layout.ep;
    moe.etp = layout.etp;
    moe.expert_data_parallel = layout.expert_data_parallel();
    moe.local_experts = model.experts / layout.ep;
    moe.ep_nodes = ep.nodes;
    moe.load_factor = ep.load_factor;
    moe.tokens_per_gpu = ep.tokens;
    moe.tokens_per_expert = ep.tokens * layout.etp * model.experts_per_token * layout.ep / model.experts * ep.load_factor;
    moe.scale_up_copies = ep.scale_up_copies;
    moe.scale_out_copies = ep.scale_out_copies;
    moe.dispatch_bytes_per_layer = ep.dispatch_bytes;
    moe.combine_bytes_per_layer = ep.combine_bytes;
    moe.all_to_all_forward_seconds_per_layer = ep.forward_seconds;
    moe.all_to_all_backward_seconds_per_layer = ep.backward_seconds;
    moe.all_to_all_exposed_seconds_per_layer = comm.ep_forward.cost() + comm.ep_recompute.cost() + comm.ep_backward.cost();
    moe.layer_forward_seconds = cost.moe_layer.forward;
    moe.layer_backward_seconds = cost.moe_layer.backward();
    for (const Kernel& kernel : cost.kernels) {
        const bool routed = kernel.id == KernelId::router || kernel.id == KernelId::permute || kernel.id == KernelId::expert_up ||
                            kernel.id == KernelId::expert_activation || kernel.id == KernelId::expert_down || kernel.id == KernelId::unpermute;
        if (kernel.scope == KernelScope::layer && routed) moe.expert_compute_seconds_per_layer += kernel.total_seconds();
    }
    const MoeSpec& spec = scenario.moe;
    if (spec.capacity_factor > 0 && spec.load_imbalance > spec.capacity_factor) {
        moe.dropped_share = (spec.load_imbalance - spec.capacity_factor) / spec.load_imbalance;
    }
    return moe;
}

// A checkpoint holds the recipe's state but the gradients, which the next step recomputes.
double checkpoint_bytes(const MemoryReport& memory) {
    double bytes = 0;
    for (const MemoryBlock& block : memory.blocks) {
        if (block.kind == MemoryKind::weights || block.kind == MemoryKind::master || block.kind == MemoryKind::optimizer) bytes += block.whole_bytes;
    }
    return bytes;
}

void fill_comm(const Scenario& scenario, const Layout& layout, const StepEstimate& step, double ep_dispatch_seconds, CommReport& report) {
    const ClusterSpec& cluster = scenario.cluster;
    for (CommAxis axis : {CommAxis::tp, CommAxis::cp, CommAxis::pp, CommAxis::dp, CommAxis::ep}) {
        const GroupPlacement group = axis_placement(axis, layout, cluster);
        if (group.ranks <= 1) continue;
        const int index = static_cast<int>(axis);
        AxisComm comm;
        comm.axis = axis;
        comm.degree = group.ranks;
        comm.crosses_nodes = axis == CommAxis::pp ? gpus_per_replica(layout) > cluster.gpus_per_node : group.crosses_nodes();
        switch (axis) {
            case CommAxis::tp: comm.collective = layout.sequence_parallel ? Collective::all_gather : Collective::all_reduce; break;
            case CommAxis::cp:
            case CommAxis::pp: comm.collective = Collective::send_recv; break;
            case CommAxis::dp:
                comm.collective = layout.zero == 3 ? Collective::all_gather
                                  : layout.zero == 0 && !scenario.precision.sharded_optimizer ? Collective::all_reduce : Collective::reduce_scatter;
                break;
            case CommAxis::ep: comm.collective = Collective::all_to_all; break;
        }
        comm.bus_bytes_per_s = comm.collective == Collective::send_recv
                                   ? (comm.crosses_nodes ? cluster.scale_out : cluster.scale_up).bytes_per_s *
                                         (comm.crosses_nodes ? cluster.scale_out : cluster.scale_up).efficiency
                                   : group_bus_bytes_per_s(group, cluster.scale_up, cluster.scale_out);
        comm.message_bytes = step.comm_message_bytes[index];
        comm.bytes_per_gpu = step.comm_bytes_per_gpu[index];
        comm.seconds = step.comm_seconds[index];
        comm.exposed_seconds = step.breakdown.exposed_comm_seconds[index];
        comm.hidden = comm.exposed_seconds <= 0.0;
        const GroupPlacement nccl_group = comm.collective == Collective::send_recv ? GroupPlacement{2, comm.crosses_nodes ? 1 : 2} : group;
        // One dispatch, as the EP model times it (two tiers at once); the others, as NCCL's ring does.
        const double one = axis == CommAxis::ep ? ep_dispatch_seconds
                                                : collective_seconds(comm.collective, nccl_group, comm.message_bytes, cluster.scale_up, cluster.scale_out);
        if (axis == CommAxis::ep) comm.bus_bytes_per_s = (comm.crosses_nodes ? cluster.scale_out : cluster.scale_up).bytes_per_s *
                                                         (comm.crosses_nodes ? cluster.scale_out : cluster.scale_up).efficiency;
        const BandwidthFigures figures = nccl_bandwidth(comm.collective, nccl_group.ranks, comm.message_bytes, one);
        comm.algbw_bytes_per_s = figures.algbw_bytes_per_s;
        comm.busbw_bytes_per_s = figures.busbw_bytes_per_s;
        report.total_seconds += comm.seconds;
        report.exposed_seconds += comm.exposed_seconds;
        report.axes.push_back(comm);
    }
}

std::vector<PeakGroup> peak_groups(const MemoryReport& memory) {
    std::vector<PeakGroup> groups;
    PeakGroup beside;
    beside.held_beside = true;
    for (int i = 0; i < static_cast<int>(memory.blocks.size()); ++i) {
        const MemoryBlock& block = memory.blocks[i];
        if (block.kind == MemoryKind::kv_cache || block.per_gpu_bytes <= 0) continue;
        PeakGroup* group = &beside;
        if (is_training_state(block.kind) || block.kind == MemoryKind::activations) {
            auto same_kind = [&](const PeakGroup& g) { return g.kind == block.kind; };
            auto found = std::find_if(groups.begin(), groups.end(), same_kind);
            if (found == groups.end()) {
                groups.push_back({});
                groups.back().kind = block.kind;
                found = groups.end() - 1;
            }
            group = &*found;
        } else if (beside.blocks.empty()) {
            beside.kind = block.kind;
        }
        group->per_gpu_bytes += block.per_gpu_bytes;
        group->blocks.push_back(i);
    }
    if (!beside.blocks.empty()) groups.push_back(beside);
    return groups;
}

}  // namespace

Report evaluate(const Scenario& scenario) {
    validate_scenario(scenario);
    Report report;
    report.layout = layout_report(scenario);
    const Layout layout = layout_of(scenario);
    const GpuSpec& gpu = scenario.cluster.gpu;
    const double gpus = scenario.cluster.gpus;

    ComputeReport& compute = report.compute;
    const int seq_len = scenario.train.seq_len;
    compute.tokens_per_step = static_cast<double>(scenario.train.global_batch) * seq_len;
    const StepFlops flops = step_flops_per_token(scenario);
    compute.model_flops_per_token = flops.model_per_token;
    compute.model_flops_per_step = compute.model_flops_per_token * compute.tokens_per_step;
    compute.hardware_flops_per_step = flops.hardware_per_token * compute.tokens_per_step;
    compute.peak_flops_per_s = gpu.bf16_flops_per_s;
    compute.fp8_gemms = fp8_gemms(gpu, framework_traits(scenario));

    LayerCost cost = layer_cost(scenario, split_of(layout), true);
    const StepInputs inputs = step_inputs(scenario, layout, cost);
    const StepEstimate step = estimate_step(scenario, layout, cost, inputs, PipelineTiming::timeline);
    compute.breakdown_seconds = step.breakdown;
    compute.busiest_stage = step.busiest_stage;
    compute.layer_timeline = layer_timeline(scenario, layout, cost, compute.layer_timeline_seconds);

    PipelineReport& pipeline = report.pipeline;
    pipeline.schedule = layout.schedule;
    pipeline.stages = layout.pp;
    pipeline.microbatches = step.schedule.microbatches;
    pipeline.virtual_stages = layout.virtual_stages;
    pipeline.closed_form_bubble_overhead = closed_form_bubble_overhead(step.schedule);
    pipeline.bubble_fraction = step.bubble_fraction;
    pipeline.bubble_overhead = step.bubble_overhead;
    pipeline.makespan_seconds = step.makespan_seconds;
    pipeline.forward_seconds = step.schedule.forward_seconds;
    pipeline.backward_seconds = step.schedule.backward_seconds;
    pipeline.weight_grad_seconds = step.schedule.weight_grad_seconds;
    pipeline.first_extra_seconds = step.schedule.first_forward_extra_seconds + step.schedule.first_backward_extra_seconds;
    pipeline.last_extra_seconds = step.schedule.last_forward_extra_seconds + step.schedule.last_backward_extra_seconds;
    pipeline.p2p_seconds = step.schedule.p2p_seconds;
    pipeline.peak_inflight_microbatches = step.peak_inflight_microbatches;

    fill_memory_report(scenario, stage_inflight_microbatches(step.schedule, PipelineTiming::timeline), report.memory,
                       generated_schedule(step.schedule, PipelineTiming::timeline));
    compute.six_n_flops_per_step = 6.0 * report.memory.params_active * compute.tokens_per_step;  // active parameters for experts
    fill_comm(scenario, layout, step, inputs.ep.dispatch_seconds, report.comm);
    report.moe = moe_report(scenario, layout, cost, inputs);
    // The layer's kernels move into the report once nothing else reads them (layer_cost_of left room for the optimizer).
    compute.kernels = std::move(cost.kernels);
    compute.kernels.push_back(step.optimizer);
    for (Kernel& kernel : compute.kernels) kernel.runs_per_step = step.runs_per_step[static_cast<int>(kernel.scope)];

    const StepBreakdown& parts = step.breakdown;
    compute.compute_seconds = parts.gemm_seconds + parts.attention_seconds + parts.elementwise_seconds + parts.optimizer_seconds;
    compute.bubble_seconds = parts.bubble_seconds;
    compute.exposed_comm_seconds = parts.exposed_comm_total();
    compute.modelled_step_seconds = step.step_seconds;
    compute.expected_error = expected_error(scenario);
    compute.mfu_ceiling = mfu_ceiling(scenario, compute.fp8_gemms);
    if (scenario.efficiency.mfu) {
        compute.step_seconds = compute.model_flops_per_step / (gpus * compute.peak_flops_per_s * *scenario.efficiency.mfu);
        compute.step_basis = StepBasis::assumed_mfu;
    } else if (scenario.efficiency.step_seconds) {
        compute.step_seconds = *scenario.efficiency.step_seconds;
        compute.step_basis = StepBasis::measured_step;
    } else {
        compute.step_seconds = step.step_seconds;
        compute.step_basis = StepBasis::modelled;
        // No layout is modelled faster than the best MFU published for its framework on its GPU.
        compute.step_seconds = step_within_ceiling_seconds(step.step_seconds, compute.model_flops_per_step, gpus * compute.peak_flops_per_s,
                                                           compute.mfu_ceiling.mfu);
        if (compute.step_seconds > step.step_seconds) compute.step_basis = StepBasis::published_ceiling;
    }
    const double peak_seconds = compute.step_seconds * gpus * compute.peak_flops_per_s;
    compute.mfu = compute.model_flops_per_step / peak_seconds;
    compute.hfu = compute.hardware_flops_per_step / peak_seconds;
    compute.achieved_flops_per_s_per_gpu = compute.model_flops_per_step / (compute.step_seconds * gpus);
    compute.steps = scenario.train.tokens / compute.tokens_per_step;
    compute.compile_seconds = compile_seconds(scenario);
    compute.train_seconds = time_to_train_seconds(scenario, compute.step_seconds);
    compute.gpu_hours = compute.train_seconds * gpus / 3600.0;
    compute.cost_dollars = compute.gpu_hours * scenario.operations.dollars_per_gpu_hour;
    report.budget = budget_report(scenario, scenario.cluster.gpus, compute.train_seconds);
    report.peak_groups = peak_groups(report.memory);

    report.roofline.ridge_flops_per_byte = ridge_flops_per_byte(hbm_ceiling(gpu, Precision::bf16));

    report.reliability = reliability(reliability_inputs(scenario, checkpoint_bytes(report.memory), compute.train_seconds));
    report.serving = serving_report(scenario);

    const ParallelSpec& parallel = scenario.parallel;
    if (parallel.tp > 1 && !within_node(parallel.tp, scenario.cluster.gpus_per_node)) {
        report.warnings.push_back({WarningKind::tp_crosses_nodes, static_cast<double>(parallel.tp), static_cast<double>(scenario.cluster.gpus_per_node)});
    }
    if (const PipelineSplit split = pipeline_split(scenario, parallel.pp); parallel.pp > 1 && split.places() % parallel.pp != 0) {
        report.warnings.push_back({WarningKind::uneven_pipeline_stages, static_cast<double>(split.most_layers()), static_cast<double>(parallel.pp)});
    }
    if (!report.memory.fits) {
        report.warnings.push_back({WarningKind::does_not_fit, report.memory.per_gpu.peak_bytes, report.memory.hbm_bytes});
    }
    if (scenario.train.global_batch_fitted) {
        report.warnings.push_back({WarningKind::global_batch_fitted, static_cast<double>(scenario.train.global_batch),
                                   static_cast<double>(report.layout.dp) * scenario.train.micro_batch});
    }
    // A file may set what an operator recipe decides itself (set_by_recipe): say it changes nothing rather than stay silent.
    for (const int field : recipe_set_fields_overridden(scenario)) {
        report.warnings.push_back({WarningKind::field_set_by_recipe, static_cast<double>(field), 0});
    }
    if (compute.step_basis == StepBasis::published_ceiling) {
        report.warnings.push_back({WarningKind::mfu_capped, compute.model_flops_per_step / (compute.modelled_step_seconds * gpus * compute.peak_flops_per_s),
                                   compute.mfu_ceiling.mfu});
    }
    return report;
}

}  // namespace core
