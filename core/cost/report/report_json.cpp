#include "core/cost/report/report_json.h"

#include "core/cost/kernels/recipe_ops.h"

#include "core/cost/report/explain.h"

#include <nlohmann/json.hpp>

namespace core {
namespace {

using Json = nlohmann::ordered_json;

Json layout_json(const LayoutReport& layout) {
    return {{"gpus", layout.gpus}, {"nodes", layout.nodes}, {"gpus_per_node", layout.gpus_per_node}, {"dp", layout.dp},
            {"tp", layout.tp},     {"pp", layout.pp},       {"cp", layout.cp},                       {"zero", layout.zero},
            {"microbatches", layout.microbatches}, {"ep", layout.ep}, {"etp", layout.etp}};
}

Json per_gpu_json(const PerGpuMemory& per_gpu) {
    return {{"weights_bytes", per_gpu.weights_bytes}, {"grads_bytes", per_gpu.grads_bytes},
            {"master_bytes", per_gpu.master_bytes}, {"optimizer_bytes", per_gpu.optimizer_bytes},
            {"activations_bytes", per_gpu.activations_bytes}, {"total_bytes", per_gpu.total_bytes},
            {"weight_copies_bytes", per_gpu.weight_copies_bytes}, {"gathered_weights_bytes", per_gpu.gathered_weights_bytes},
            {"logits_bytes", per_gpu.logits_bytes}, {"backward_working_set_bytes", per_gpu.backward_working_set_bytes},
            {"workspace_bytes", per_gpu.workspace_bytes}, {"comm_buffers_bytes", per_gpu.comm_buffers_bytes},
            {"fragmentation_bytes", per_gpu.fragmentation_bytes}, {"peak_bytes", per_gpu.peak_bytes}};
}

// Every block by name, state first: what the stack draws, with its words.
Json memory_blocks_json(const ReportText& text, const MemoryReport& memory) {
    Json blocks = Json::array();
    for (std::size_t i = 0; i < memory.blocks.size(); ++i) {
        const MemoryBlock& block = memory.blocks[i];
        blocks.push_back({{"name", memory_kind_name(block.kind)}, {"label", text.block_labels[i]}, {"per_gpu_bytes", block.per_gpu_bytes},
                          {"whole_bytes", block.whole_bytes}, {"formula", text.block_per_gpu[i].formula}, {"source", text.block_per_gpu[i].source}});
    }
    return blocks;
}

Json memory_stages_json(const Report& report) {
    const MemoryReport& memory = report.memory;
    Json stages = Json::array();
    for (const StageMemory& stage : memory.per_stage) {
        stages.push_back({{"stage", stage.stage}, {"layers", stage.layers}, {"params_per_gpu", stage.params_per_gpu},
                          {"inflight_microbatches", stage.inflight_microbatches}, {"state_bytes", stage.state_bytes},
                          {"activations_bytes", stage.activations_bytes}, {"weight_copies_bytes", stage.weight_copies_bytes},
                          {"gathered_weights_bytes", stage.gathered_weights_bytes}, {"logits_bytes", stage.logits_bytes},
                          {"backward_working_set_bytes", stage.backward_working_set_bytes}, {"workspace_bytes", stage.workspace_bytes},
                          {"comm_buffers_bytes", stage.comm_buffers_bytes}, {"fragmentation_bytes", stage.fragmentation_bytes},
                          {"peak_bytes", stage.peak_bytes}, {"phase", memory_phase_name(stage.phase)},
                          {"heaviest", stage.stage == memory.peak_stage}});
        if (report.moe.has_experts) {
            stages.back()["moe_layers"] = stage.moe_layers;
            stages.back()["expert_params_per_gpu"] = stage.expert_params_per_gpu;
        }
    }
    return stages;
}

// The routed experts' blocks, included in per_gpu's (Megatron-Core's expert bucket).
Json expert_memory_json(const ExpertMemory& experts) {
    return {{"params", experts.params}, {"stage_params", experts.stage_params}, {"params_per_gpu", experts.params_per_gpu},
            {"expert_data_parallel", experts.expert_data_parallel}, {"weights_bytes", experts.weights_bytes},
            {"grads_bytes", experts.grads_bytes}, {"master_bytes", experts.master_bytes},
            {"optimizer_bytes", experts.optimizer_bytes}, {"activations_bytes", experts.activations_bytes},
            {"moe_layer_activation_bytes", experts.moe_layer_activation_bytes}};
}

// Allocated and reserved bytes through the step, as the caching allocator's model replays it.
Json memory_timeline_json(const MemoryTimeline& timeline) {
    Json points = Json::array();
    for (const TimelinePoint& point : timeline.points) {
        points.push_back({{"phase", timeline_phase_name(point.phase)},
                          {"layer", point.layer >= 0 ? Json(point.layer) : Json(nullptr)},
                          {"microbatch", point.microbatch}, {"allocated_bytes", point.allocated_bytes}, {"reserved_bytes", point.reserved_bytes}});
    }
    return points;
}

Json memory_json(const ReportText& text, const Report& report) {
    const MemoryReport& memory = report.memory;
    Json json;
    json["bytes_per_param"] = memory.bytes_per_param;
    json["state_bytes"] = memory.state_bytes;
    json["params_per_gpu"] = memory.params_per_gpu;
    json["per_gpu"] = per_gpu_json(memory.per_gpu);
    json["peak_stage"] = memory.peak_stage;
    json["peak_phase"] = memory_phase_name(memory.peak_phase);
    json["blocks"] = memory_blocks_json(text, memory);
    json["per_stage"] = memory_stages_json(report);
    json["activations"] = {{"bytes_per_layer", memory.activations.bytes_per_layer},
                           {"configuration", text.activation_configuration},
                           {"layers_on_first_stage", memory.activations.layers_on_first_stage},
                           {"inflight_microbatches", memory.activations.inflight_microbatches}};
    json["hbm_bytes"] = memory.hbm_bytes;
    json["fits"] = memory.fits;
    json["headroom_bytes"] = memory.headroom_bytes;
    json["verdict"] = text.memory_verdict;
    json["state_gpus_worth"] = memory.state_gpus_worth;
    json["kv_cache_bytes"] = memory.kv_cache_bytes;
    if (report.moe.has_experts) json["experts"] = expert_memory_json(memory.experts);
    json["peak_allocated_bytes"] = memory.peak_allocated_bytes;
    json["peak_reserved_bytes"] = memory.peak_reserved_bytes;
    json["timeline"] = memory_timeline_json(memory.timeline);
    return json;
}

Json breakdown_json(const StepBreakdown& parts) {
    Json breakdown;
    breakdown["gemm"] = parts.gemm_seconds;
    breakdown["attention"] = parts.attention_seconds;
    breakdown["elementwise"] = parts.elementwise_seconds;
    breakdown["optimizer"] = parts.optimizer_seconds;
    Json exposed;
    for (CommAxis axis : {CommAxis::tp, CommAxis::cp, CommAxis::pp, CommAxis::dp, CommAxis::ep}) {
        exposed[comm_axis_name(axis)] = parts.exposed_comm_seconds[static_cast<int>(axis)];
    }
    breakdown["exposed_comm"] = exposed;
    breakdown["bubble"] = parts.bubble_seconds;
    breakdown["host"] = parts.host_seconds;
    breakdown["stragglers"] = parts.straggler_seconds;
    return breakdown;
}

Json kernels_json(const std::vector<Kernel>& kernels) {
    Json json = Json::array();
    for (const Kernel& kernel : kernels) {
        Json entry = {{"name", kernel_name(kernel.id)}, {"pass", kernel_pass_name(kernel.pass)}, {"scope", kernel_scope_name(kernel.scope)},
                      {"category", kernel_category_name(kernel.category)}, {"count", kernel.count}, {"flops", kernel.flops},
                      {"bytes", kernel.bytes}, {"seconds", kernel.seconds}, {"efficiency", kernel.efficiency}, {"bound", bound_name(kernel.bound)},
                      {"runs_per_step", kernel.runs_per_step}, {"step_seconds", kernel.step_seconds()}};
        if (kernel.label) entry["op"] = kernel.label;  // the recipe operator it belongs to
        entry["launches"] = kernel.launches * kernel.count;  // CUDA launches per run; x runs_per_step per step
        if (kernel.is_gemm) entry["alignment_bytes"] = kernel.alignment_bytes;  // below 16: a slower fallback kernel
        if (kernel.is_gemm) entry["fp8"] = kernel.fp8;  // on the fp8 tensor cores: its efficiency is still over the bf16 peak
        json.push_back(std::move(entry));
    }
    return json;
}

Json compute_json(const ReportText& text, const ComputeReport& compute) {
    Json json = {{"tokens_per_step", compute.tokens_per_step}, {"model_flops_per_step", compute.model_flops_per_step},
                 {"hardware_flops_per_step", compute.hardware_flops_per_step}, {"six_n_flops_per_step", compute.six_n_flops_per_step},
                 {"compute_seconds", compute.compute_seconds}, {"bubble_seconds", compute.bubble_seconds},
                 {"exposed_comm_seconds", compute.exposed_comm_seconds}, {"step_seconds", compute.step_seconds},
                 {"step_basis", text.figures.step_time.formula}, {"mfu", compute.mfu}, {"hfu", compute.hfu}, {"fp8_gemms", compute.fp8_gemms},
                 {"train_seconds", compute.train_seconds}, {"train_days", compute.train_seconds / 86400.0},
                 {"gpu_hours", compute.gpu_hours}, {"cost_dollars", compute.cost_dollars}};
    json["breakdown_seconds"] = breakdown_json(compute.breakdown_seconds);
    json["kernels"] = kernels_json(compute.kernels);
    const ExpectedError& expected = compute.expected_error;
    json["expected_error"] = {{"regime", expected.regime}, {"validated", expected.validated}, {"runs", expected.runs},
                              {"mean_abs_error", expected.mean_abs_error}, {"signed_mean_error", expected.signed_mean_error}};
    json["mfu_ceiling"] = compute.mfu_ceiling.mfu;
    json["compile_seconds"] = compute.compile_seconds;
    json["busiest_stage"] = compute.busiest_stage;
    return json;
}

Json comm_json(const ReportText& text, const CommReport& comm) {
    Json json = Json::object();
    for (std::size_t i = 0; i < comm.axes.size(); ++i) {
        const AxisComm& axis = comm.axes[i];
        json[comm_axis_name(axis.axis)] = {{"degree", axis.degree}, {"collective", text.axis_collectives[i]}, {"link", text.axis_links[i]},
                                           {"crosses_nodes", axis.crosses_nodes}, {"message_bytes", axis.message_bytes},
                                           {"bytes_per_gpu", axis.bytes_per_gpu}, {"seconds", axis.seconds}, {"exposed_seconds", axis.exposed_seconds},
                                           {"algbw_bytes_per_s", axis.algbw_bytes_per_s}, {"busbw_bytes_per_s", axis.busbw_bytes_per_s}};
    }
    return json;
}

Json pipeline_json(const PipelineReport& pipeline) {
    return {{"schedule", schedule_name(pipeline.schedule)}, {"stages", pipeline.stages}, {"microbatches", pipeline.microbatches},
            {"virtual_stages", pipeline.virtual_stages}, {"bubble_fraction", pipeline.bubble_fraction},
            {"bubble_overhead", pipeline.bubble_overhead}, {"closed_form_bubble_overhead", pipeline.closed_form_bubble_overhead},
            {"makespan_seconds", pipeline.makespan_seconds}, {"forward_seconds", pipeline.forward_seconds},
            {"backward_seconds", pipeline.backward_seconds}, {"first_stage_extra_seconds", pipeline.first_extra_seconds},
            {"last_stage_extra_seconds", pipeline.last_extra_seconds}, {"p2p_seconds", pipeline.p2p_seconds},
            {"peak_inflight_microbatches", pipeline.peak_inflight_microbatches}};
}

Json moe_json(const MoeReport& moe) {
    return {{"experts", moe.experts}, {"experts_per_token", moe.experts_per_token}, {"shared_experts", moe.shared_experts},
            {"moe_layers", moe.moe_layers}, {"dense_layers", moe.dense_layers}, {"stage_moe_layers", moe.stage_moe_layers},
            {"ep", moe.ep}, {"etp", moe.etp}, {"expert_data_parallel", moe.expert_data_parallel},
            {"local_experts", moe.local_experts}, {"ep_nodes", moe.ep_nodes}, {"load_factor", moe.load_factor},
            {"tokens_per_gpu", moe.tokens_per_gpu}, {"tokens_per_expert", moe.tokens_per_expert},
            {"scale_up_copies_per_token", moe.scale_up_copies}, {"scale_out_copies_per_token", moe.scale_out_copies},
            {"dispatch_bytes_per_layer", moe.dispatch_bytes_per_layer}, {"combine_bytes_per_layer", moe.combine_bytes_per_layer},
            {"all_to_all_forward_seconds_per_layer", moe.all_to_all_forward_seconds_per_layer},
            {"all_to_all_backward_seconds_per_layer", moe.all_to_all_backward_seconds_per_layer},
            {"all_to_all_exposed_seconds_per_layer", moe.all_to_all_exposed_seconds_per_layer},
            {"expert_compute_seconds_per_layer", moe.expert_compute_seconds_per_layer},
            {"layer_forward_seconds", moe.layer_forward_seconds}, {"layer_backward_seconds", moe.layer_backward_seconds},
            {"dropped_share", moe.dropped_share}};
}

Json budget_json(const ReportText& text, const BudgetReport& budget) {
    Json json = {{"gpus", budget.gpus}, {"price", price_basis_name(budget.price_basis)},
                 {"dollars_per_gpu_hour", budget.dollars_per_gpu_hour}, {"dollars_per_hour", budget.dollars_per_hour},
                 {"run_hours", budget.run_hours}, {"setup_hours", budget.setup_hours}, {"billed_hours", budget.billed_hours},
                 {"total_dollars", budget.total_dollars}, {"sentence", text.budget_sentence}};
    if (budget.has_budget) {
        json["budget_dollars"] = budget.budget_dollars;
        json["buffer_dollars"] = budget.buffer_dollars;
        json["within_budget"] = budget.within_budget;
    }
    return json;
}

Json reliability_json(const ReliabilityReport& reliability) {
    return {{"cluster_mtbf_seconds", reliability.cluster_mtbf_seconds}, {"checkpoint_bytes", reliability.checkpoint_bytes},
            {"checkpoint_seconds", reliability.checkpoint_seconds},
            {"young_interval_seconds", reliability.young_interval_seconds},
            {"daly_interval_seconds", reliability.daly_interval_seconds}, {"interval_seconds", reliability.interval_seconds},
            {"checkpoint_share", reliability.checkpoint_share}, {"rework_share", reliability.rework_share},
            {"restart_share", reliability.restart_share}, {"goodput", reliability.goodput},
            {"makes_progress", reliability.makes_progress}, {"wall_seconds", reliability.wall_seconds},
            {"expected_failures", reliability.expected_failures}};
}

}  // namespace

std::string report_to_json(const Scenario& scenario, const Report& report) {
    const ReportText text = explain(scenario, report);
    Json json;
    json["model"] = text.model_name;
    json["gpu"] = text.gpu_name;
    json["recipe"] = text.recipe_name;
    const FrameworkRecipe& framework = framework_recipe_of(scenario);
    json["framework"] = {{"id", framework.id}, {"name", framework.name}, {"version", framework.version}, {"source", framework.source},
                         {"attention", attention_impl_name(scenario.train.attention)}};
    json["layout"] = layout_json(report.layout);
    json["params"] = report.memory.params;
    json["params_active"] = report.memory.params_active;
    const MemoryReport& memory = report.memory;
    json["finetune"] = {{"method", finetune_method_name(scenario.finetune.method)}, {"trainable_params", memory.trainable_params},
                        {"frozen_params", memory.frozen_params}, {"frozen_bytes", memory.frozen_bytes}};
    json["memory"] = memory_json(text, report);
    json["compute"] = compute_json(text, report.compute);
    json["comm"] = comm_json(text, report.comm);
    json["pipeline"] = pipeline_json(report.pipeline);
    json["roofline"] = {{"ridge_flops_per_byte", report.roofline.ridge_flops_per_byte}};
    if (report.moe.has_experts) json["moe"] = moe_json(report.moe);
    json["budget"] = budget_json(text, report.budget);
    json["reliability"] = reliability_json(report.reliability);
    json["warnings"] = text.warnings;
    return json.dump(2) + "\n";
}

}  // namespace core
