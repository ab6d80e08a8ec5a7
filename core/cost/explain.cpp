#include "core/cost/explain.h"

#include "core/cost/budget_text.h"
#include "core/model/format.h"
#include "core/model/layout.h"

namespace core {
namespace {

std::string layout_text(const Scenario& scenario) {
    return "tp " + std::to_string(scenario.parallel.tp) + ", pp " + std::to_string(scenario.parallel.pp);
}

std::string configuration_of(const Scenario& scenario, const ActivationReport& activations) {
    if (scenario.train.recompute == Recompute::full) return "full recompute";
    std::string text = scenario.parallel.tp > 1 ? (activations.sequence_parallel ? "tensor + sequence parallel" : "tensor parallel") : "no parallelism";
    if (scenario.train.recompute == Recompute::selective) text += " + selective recompute";
    else if (scenario.train.flash_attention) text += " + flash attention";
    return text;
}

std::string step_basis_text(const Scenario& scenario, const ComputeReport& compute) {
    switch (compute.step_basis) {
        case StepBasis::assumed_mfu: return "assumed MFU " + format_percent(*scenario.efficiency.mfu);
        case StepBasis::measured_step: return "measured step " + format_seconds(compute.step_seconds);
        case StepBasis::modelled: break;
    }
    return std::string("modelled: every kernel on the roofline at ") + scenario.cluster.gpu.name +
           "'s measured efficiency, + exposed communication + pipeline bubble (" + framework_name(scenario.train.framework) + ")";
}

std::string link_of(const Scenario& scenario, const AxisComm& axis) {
    return axis.crosses_nodes ? scenario.cluster.scale_out.name : scenario.cluster.scale_up.name;
}

Explanation axis_formula(const Scenario& scenario, const Report& report, const AxisComm& axis) {
    const int m = report.layout.microbatches;
    const std::string bus = "; NCCL bus bandwidth " + format_bandwidth(axis.bus_bytes_per_s) + " on " + link_of(scenario, axis);
    switch (axis.axis) {
        case CommAxis::tp:
            return {std::string(scenario.train.sequence_parallel ? "2 all-gathers + 2 reduce-scatters" : "2 all-reduces") +
                        " forward and backward per layer" + (scenario.train.recompute == Recompute::full ? ", again in the recomputed forward" : "") +
                        ", of b s h x 2 B = " + format_bytes(axis.message_bytes) + ", x " + std::to_string(m) + " micro-batches" + bus +
                        (scenario.overlap.tp_comm ? "; overlapped with the GEMMs" : "; on the critical path"),
                    "Narayanan et al. 2021 sec 3.2; Korthikanti et al. 2022 sec 4.2.2"};
        case CommAxis::cp:
            return {"ring attention: cp - 1 = " + std::to_string(axis.degree - 1) + " sends of K and V (" + format_bytes(axis.message_bytes) +
                        ") forward, with their gradients backward, per layer per micro-batch" + bus +
                        (scenario.overlap.cp_ring ? "; each behind the previous chunk's attention" : ""),
                    "Liu et al. 2023 (ring attention); Megatron-Core context parallel"};
        case CommAxis::pp:
            return {"2 x " + std::to_string(m) + " micro-batches x " + std::to_string(scenario.parallel.virtual_stages) + " chunks x b s h x 2 B = " +
                        format_bytes(axis.message_bytes) + " each; the fill and the drain wait on every boundary" + bus,
                    "Narayanan et al. 2021 sec 3.2"};
        case CommAxis::dp: {
            const int zero = scenario.parallel.zero;
            std::string what;
            if (zero == 3) what = "ZeRO-3: each layer's weights gathered forward and backward and its gradients reduce-scattered, every micro-batch";
            else if (zero == 2) what = "ZeRO-2: each micro-batch's gradients reduce-scattered, the updated weights all-gathered once";
            else if (zero == 1 || scenario.precision.sharded_optimizer) what = "gradients reduce-scattered and updated weights all-gathered once per step (2 Psi)";
            else what = "gradients all-reduced once per step (2 Psi)";
            return {what + ", buffer " + format_bytes(axis.message_bytes) + ", " + format_bytes(axis.bytes_per_gpu) + " sent per GPU per step" + bus +
                        (scenario.overlap.dp_grad_reduce ? "; behind the backward but for the last bucket" : "; after the backward"),
                    "Rajbhandari et al. 2019 sec 7; nccl-tests PERFORMANCE.md"};
        }
    }
    return {};
}

Explanation kernel_explanation(const Scenario& scenario, const Kernel& kernel) {
    std::string shape;
    if (kernel.is_gemm) {
        shape = "GEMM " + format_whole(kernel.m) + " x " + format_whole(kernel.n) + " x " + format_whole(kernel.k) +
                (kernel.batch > 1 ? " (batch " + format_whole(kernel.batch) + ")" : "") + ": 2 m n k FLOPs, (m k + k n + m n) x 2 B";
    } else if (kernel.is_fused_attention) {
        shape = "fused causal attention over " + format_whole(kernel.n) + " keys: half of 4 b a s^2 d FLOPs forward, 2.5x that backward";
    } else {
        shape = "memory-bound: " + format_bytes(kernel.bytes) + " read and written";
    }
    const double intensity = kernel.bytes > 0 ? kernel.flops / kernel.bytes : 0;
    return {kernel_label(kernel) + "\n" + shape + "\n" + format_flops(kernel.flops) + ", " + format_bytes(kernel.bytes) + ", " +
                format_number(intensity) + " FLOP/B, " + bound_name(kernel.bound) + " at " + format_percent(kernel.efficiency) +
                (kernel.is_gemm || kernel.is_fused_attention ? " of peak" : " of HBM bandwidth") + ": " + format_seconds(kernel.seconds) +
                (kernel.count > 1 ? " x " + std::to_string(kernel.count) : ""),
            scenario.cluster.gpu.efficiency.source};
}

}  // namespace

std::string kernel_label(const Kernel& kernel) { return std::string(kernel_name(kernel.id)) + " " + kernel_pass_name(kernel.pass); }

std::string collective_text(const Scenario& scenario, const AxisComm& axis) {
    switch (axis.axis) {
        case CommAxis::tp: return scenario.train.sequence_parallel && scenario.parallel.tp > 1 ? "all-gather + reduce-scatter" : "all-reduce";
        case CommAxis::cp: return "ring send/recv of K, V";
        case CommAxis::pp: return "send/recv";
        case CommAxis::dp:
            if (scenario.parallel.zero == 3) return "all-gather x 2 + reduce-scatter per layer";
            if (scenario.parallel.zero >= 1 || scenario.precision.sharded_optimizer) return "reduce-scatter + all-gather";
            return "all-reduce (ring)";
    }
    return collective_name(axis.collective);
}

std::string warning_text(const Scenario& scenario, const Warning& warning) {
    switch (warning.kind) {
        case WarningKind::tp_crosses_nodes:
            return "TP " + format_whole(warning.value) + " crosses the node boundary (" + format_whole(warning.limit) +
                   " GPUs per node): its collectives run on " + scenario.cluster.scale_out.name;
        case WarningKind::uneven_pipeline_stages:
            return std::to_string(scenario.model.layers) + " layers over pp " + format_whole(warning.limit) +
                   " do not divide evenly: the heaviest stage holds " + format_whole(warning.value);
        case WarningKind::does_not_fit:
            return "Does not fit: " + format_bytes(warning.value) + " per GPU against " + format_bytes(warning.limit) + " of HBM";
    }
    return {};
}

ReportText explain(const Scenario& scenario, const Report& report) {
    ReportText text;
    text.model_name = scenario.model.name;
    text.gpu_name = scenario.cluster.gpu.name;
    text.recipe_name = scenario.precision.name;
    const MemoryReport& memory = report.memory;
    const std::string layout = layout_text(scenario);
    for (const MemoryBlock& block : memory.blocks) {
        if (block.component >= 0 && block.component < static_cast<int>(scenario.precision.components.size())) {
            const std::string& label = scenario.precision.components[block.component].label;
            text.block_labels.push_back(label);
            text.block_whole.push_back({label + ": " + format_plain(block.bytes_per_param) + " B x " + format_sci(memory.params) + " = " +
                                            format_bytes(block.whole_bytes),
                                        scenario.precision.source});
            const int shards = report.layout.dp * report.layout.cp;
            text.block_per_gpu.push_back({label + ": " + format_plain(block.bytes_per_param) + " B x " + format_sci(memory.params_per_gpu) +
                                              " params on the GPU (" + layout + ")" +
                                              (block.sharded_over_dp ? " / " + std::to_string(shards) + " (ZeRO-" + std::to_string(scenario.parallel.zero) + ")"
                                                                     : std::string()) +
                                              " = " + format_bytes(block.per_gpu_bytes),
                                          scenario.precision.source});
        } else {
            text.block_labels.push_back(memory_kind_name(block.kind));
            text.block_whole.push_back({std::string(memory_kind_name(block.kind)) + ", one micro-batch, all " + std::to_string(scenario.model.layers) +
                                            " layers: " + format_bytes(block.whole_bytes),
                                        "Korthikanti et al. 2022, Table 2"});
            text.block_per_gpu.push_back({});
        }
    }
    const ActivationReport& activations = memory.activations;
    text.activation_configuration = configuration_of(scenario, activations);
    text.activations = {"s b h x " + format_number(activations.sbh_coefficient) + (activations.attention_score_bytes > 0 ? " + 5 a s^2 b / t" : "") +
                            " = " + format_bytes(activations.bytes_per_layer) + " per layer; x " + std::to_string(activations.layers_on_first_stage) +
                            " layers x " + format_number(activations.inflight_microbatches) + " micro-batches in flight = " +
                            format_bytes(activations.first_stage_bytes),
                        "Korthikanti et al. 2022, Table 2"};
    for (std::size_t i = 0; i < memory.blocks.size(); ++i) {
        if (memory.blocks[i].kind == MemoryKind::activations) text.block_per_gpu[i] = {"activations (" + text.activation_configuration + "): " + text.activations.formula,
                                                                                       text.activations.source};
    }
    for (const AxisComm& axis : report.comm.axes) {
        text.axis_collectives.push_back(collective_text(scenario, axis));
        text.axis_links.push_back(link_of(scenario, axis));
        text.axis_formulas.push_back(axis_formula(scenario, report, axis));
    }
    const ComputeReport& compute = report.compute;
    text.step_basis = step_basis_text(scenario, compute);
    text.mfu = {"model FLOPs per step / (step time x GPUs x peak) = " + format_flops(compute.model_flops_per_step) + " / (" +
                    format_seconds(compute.step_seconds) + " x " + std::to_string(report.layout.gpus) + " x " + format_flops_rate(compute.peak_flops_per_s) + ")",
                "Korthikanti et al. 2022, Appendix A"};
    for (const Kernel& kernel : compute.kernels) text.kernels.push_back(kernel_explanation(scenario, kernel));
    for (const Warning& warning : report.warnings) text.warnings.push_back(warning_text(scenario, warning));
    text.budget_sentence = budget_sentence(scenario, report.budget);
    return text;
}

}  // namespace core
