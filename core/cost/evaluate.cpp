#include "core/cost/evaluate.h"

#include "core/cost/comm.h"
#include "core/cost/flops.h"
#include "core/model/format.h"
#include "core/cost/memory.h"
#include "core/cost/pipeline_schedule.h"
#include "core/model/layout.h"
#include "core/cost/roofline.h"
#include "core/cost/reliability.h"

#include <algorithm>

namespace core {

namespace {

LayoutReport layout_report(const Scenario& scenario) {
    LayoutReport layout;
    layout.gpus = scenario.cluster.gpus;
    layout.dp = data_parallel_degree(scenario);
    layout.tp = scenario.parallel.tp;
    layout.pp = scenario.parallel.pp;
    layout.cp = scenario.parallel.cp;
    layout.zero = scenario.parallel.zero;
    layout.gpus_per_node = scenario.cluster.gpus_per_node;
    layout.nodes = (scenario.cluster.gpus + scenario.cluster.gpus_per_node - 1) / scenario.cluster.gpus_per_node;
    layout.microbatches = microbatches_per_step(scenario);
    layout.gpu_name = scenario.cluster.gpu.name;
    layout.model_name = scenario.model.name;
    layout.recipe_name = scenario.precision.name;
    return layout;
}

ScheduleParams schedule_params(const Scenario& scenario, int microbatches, double compute_seconds) {
    ScheduleParams params;
    params.kind = scenario.parallel.schedule;
    params.stages = scenario.parallel.pp;
    params.microbatches = microbatches;
    params.virtual_chunks = scenario.parallel.virtual_stages;
    const double per_microbatch = compute_seconds > 0 ? compute_seconds / microbatches : 1.0;
    params.forward_seconds = per_microbatch / 3.0;         // forward : backward = 1 : 2
    params.backward_seconds = per_microbatch * 2.0 / 3.0;
    params.weight_grad_seconds = per_microbatch / 3.0;     // backward splits evenly into B and W (Qi et al. 2024)
    return params;
}

bool same_params(const ScheduleParams& a, const ScheduleParams& b) {
    return a.kind == b.kind && a.stages == b.stages && a.microbatches == b.microbatches && a.virtual_chunks == b.virtual_chunks &&
           a.forward_seconds == b.forward_seconds && a.backward_seconds == b.backward_seconds &&
           a.weight_grad_seconds == b.weight_grad_seconds && a.p2p_seconds == b.p2p_seconds;
}

// The generator is pure, so its last timeline can be reused: dragging a slider that leaves the pipeline alone
// (precision, ZeRO, the GPU) then costs no schedule. One entry per thread keeps evaluate() thread-safe.
const ScheduleTimeline& cached_schedule(const ScheduleParams& params) {
    thread_local ScheduleParams cached_params{};
    thread_local ScheduleTimeline cached_timeline;
    thread_local bool filled = false;
    if (!filled || !same_params(params, cached_params)) {
        cached_timeline = generate_schedule(params);
        cached_params = params;
        filled = true;
    }
    return cached_timeline;
}

// Generates the scenario's schedule once: the bubble for the step time, the first device's in-flight activations for memory.
PipelineReport pipeline_of(const ScheduleParams& params, double& first_device_inflight_activations) {
    PipelineReport report;
    report.schedule = schedule_name(params.kind);
    report.stages = params.stages;
    report.microbatches = params.microbatches;
    report.virtual_stages = params.virtual_chunks;
    report.closed_form_bubble_overhead = closed_form_bubble_overhead(params);
    if (schedule_op_count(params) <= max_schedule_ops) {
        const ScheduleTimeline& timeline = cached_schedule(params);
        report.bubble_fraction = std::max(0.0, timeline.bubble_fraction);  // rounding leaves -2e-16 when nothing idles
        report.bubble_overhead = std::max(0.0, timeline.bubble_overhead);
        report.makespan_seconds = timeline.makespan_seconds;
        report.peak_inflight_microbatches = timeline.peak_inflight_microbatches.at(0);
        first_device_inflight_activations = timeline.peak_inflight_activations.at(0);
    } else {
        // Too long a timeline to generate on every drag: the papers' closed forms stand in.
        report.bubble_overhead = report.closed_form_bubble_overhead;
        report.bubble_fraction = report.bubble_overhead / (1.0 + report.bubble_overhead);
        report.makespan_seconds = params.microbatches * (params.forward_seconds + params.backward_seconds) * (1.0 + report.bubble_overhead);
        report.peak_inflight_microbatches = closed_form_peak_inflight(params);
        first_device_inflight_activations = report.peak_inflight_microbatches / static_cast<double>(params.virtual_chunks);
    }
    return report;
}

// A checkpoint holds the recipe's state but the gradients, which the next step recomputes.
double checkpoint_bytes(const MemoryReport& memory) {
    double bytes = 0;
    for (const MemoryBlock& block : memory.blocks) {
        if (block.kind != "grads" && block.kind != "activations" && block.kind != "kv_cache") bytes += block.whole_bytes;
    }
    return bytes;
}

}  // namespace

Report evaluate(const Scenario& scenario) {
    validate_scenario(scenario);
    Report report;
    report.layout = layout_report(scenario);
    const int microbatches = report.layout.microbatches;
    const GpuSpec& gpu = scenario.cluster.gpu;
    const double gpus = scenario.cluster.gpus;

    // Compute first: the pipeline's op durations scale with it.
    ComputeReport& compute = report.compute;
    const int seq_len = scenario.train.seq_len;
    compute.tokens_per_step = static_cast<double>(scenario.train.global_batch) * seq_len;
    compute.model_flops_per_token = model_flops_per_token(scenario.model, seq_len);
    compute.model_flops_per_step = compute.model_flops_per_token * compute.tokens_per_step;
    compute.hardware_flops_per_step = compute.model_flops_per_step +
        recompute_flops_per_token(scenario.model, seq_len, scenario.train.recompute, scenario.train.flash_attention) * compute.tokens_per_step;
    compute.peak_flops_per_s = gpu.bf16_flops_per_s;
    compute.compute_seconds = compute.hardware_flops_per_step / gpus / (compute.peak_flops_per_s * scenario.efficiency.compute_efficiency);

    const ScheduleParams params = schedule_params(scenario, microbatches, compute.compute_seconds);
    double first_device_inflight = 1;
    report.pipeline = pipeline_of(params, first_device_inflight);
    fill_state_memory(scenario, first_device_inflight, report.memory);
    compute.six_n_flops_per_step = 6.0 * report.memory.params * compute.tokens_per_step;

    CommInputs comm_inputs;
    comm_inputs.params_per_gpu = report.memory.params_per_gpu;
    comm_inputs.microbatches = microbatches;
    comm_inputs.stage_layers = layers_on_first_stage(scenario.model.layers, scenario.parallel.pp);
    comm_inputs.compute_seconds = compute.compute_seconds;
    comm_inputs.attention_share = scenario.model.is_bare_count() ? 0.0
        : 12.0 * scenario.model.layers * seq_len * scenario.model.hidden / compute.model_flops_per_token;
    report.comm = communication(scenario, comm_inputs);

    compute.bubble_seconds = std::max(0.0, compute.compute_seconds * report.pipeline.bubble_overhead);  // no negative rounding noise
    compute.exposed_comm_seconds = report.comm.exposed_seconds;
    const double modelled_step = compute.compute_seconds + compute.bubble_seconds + compute.exposed_comm_seconds;
    if (scenario.efficiency.mfu) {
        compute.step_seconds = compute.model_flops_per_step / (gpus * compute.peak_flops_per_s * *scenario.efficiency.mfu);
        compute.step_basis = "assumed MFU " + format_percent(*scenario.efficiency.mfu);
    } else if (scenario.efficiency.step_seconds) {
        compute.step_seconds = *scenario.efficiency.step_seconds;
        compute.step_basis = "measured step " + format_seconds(compute.step_seconds);
    } else {
        compute.step_seconds = modelled_step;
        compute.step_basis = "modelled: compute at " + format_percent(scenario.efficiency.compute_efficiency) +
                             " of peak + pipeline bubble + exposed communication";
    }
    const double peak_seconds = compute.step_seconds * gpus * compute.peak_flops_per_s;
    compute.mfu = compute.model_flops_per_step / peak_seconds;
    compute.hfu = compute.hardware_flops_per_step / peak_seconds;
    compute.achieved_flops_per_s_per_gpu = compute.model_flops_per_step / (compute.step_seconds * gpus);
    compute.steps = scenario.train.tokens / compute.tokens_per_step;
    compute.train_seconds = compute.steps * compute.step_seconds;
    compute.gpu_hours = compute.train_seconds * gpus / 3600.0;
    compute.cost_dollars = compute.gpu_hours * scenario.operations.dollars_per_gpu_hour;

    report.roofline.ridge_flops_per_byte = ridge_flops_per_byte(hbm_ceiling(gpu, Precision::bf16));

    const OperationsSpec& operations = scenario.operations;
    ReliabilityInputs reliability_inputs;
    reliability_inputs.gpu_mtbf_seconds = operations.gpu_mtbf_hours * 3600.0;
    reliability_inputs.gpus = gpus;
    reliability_inputs.checkpoint_bytes = checkpoint_bytes(report.memory);
    reliability_inputs.checkpoint_bytes_per_s = operations.checkpoint_bytes_per_s;
    reliability_inputs.restart_seconds = operations.restart_seconds;
    reliability_inputs.train_seconds = compute.train_seconds;
    report.reliability = reliability(reliability_inputs);

    const ParallelSpec& parallel = scenario.parallel;
    if (parallel.tp > 1 && !within_node(parallel.tp, scenario.cluster.gpus_per_node)) {
        report.warnings.push_back("TP " + std::to_string(parallel.tp) + " crosses the node boundary (" +
                                  std::to_string(scenario.cluster.gpus_per_node) + " GPUs per node): its all-reduces run on " +
                                  scenario.cluster.scale_out.name);
    }
    if (parallel.pp > 1 && scenario.model.layers % parallel.pp != 0) {
        report.warnings.push_back(std::to_string(scenario.model.layers) + " layers over pp " + std::to_string(parallel.pp) +
                                  " do not divide evenly: the heaviest stage holds " + std::to_string(comm_inputs.stage_layers));
    }
    if (!report.memory.fits) {
        report.warnings.push_back("Does not fit: " + format_bytes(report.memory.per_gpu.total_bytes) + " per GPU against " +
                                  format_bytes(report.memory.hbm_bytes) + " of HBM");
    }
    return report;
}

}  // namespace core
