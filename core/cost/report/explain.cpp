#include "core/cost/report/explain.h"

#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/kernels.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/memory/memory.h"
#include "core/cost/report/anatomy.h"
#include "core/cost/report/budget_text.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <cmath>

namespace core {
namespace {

std::string layout_text(const Scenario& scenario) {
    return "tp " + std::to_string(scenario.parallel.tp) + ", pp " + std::to_string(scenario.parallel.pp);
}

std::string configuration_of(const Scenario& scenario, const ActivationReport& activations) {
    if (scenario.train.recompute == Recompute::full) return "full recompute";
    std::string text = scenario.parallel.tp > 1 ? (activations.sequence_parallel ? "tensor + sequence parallel" : "tensor parallel") : "no parallelism";
    if (scenario.train.recompute == Recompute::selective) text += " + selective recompute";
    else if (scenario.train.fused_attention()) text += " + flash attention";
    return text;
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
                        ", of b s h x 2 B = " + format_bytes(axis.message_bytes) + ", x " + format_counted(m, "micro-batch", "micro-batches") + bus +
                        (tp_comm_overlapped(scenario, layout_of(scenario)) ? "; overlapped with the GEMMs"
                         : scenario.overlap.tp_comm ? "; on the critical path: the GEMM overlap works inside one node only"
                                                    : "; on the critical path"),
                    "Narayanan et al. 2021 sec 3.2; Korthikanti et al. 2022 sec 4.2.2"};
        case CommAxis::cp:
            return {"ring attention: cp - 1 = " + std::to_string(axis.degree - 1) + " sends of K and V (" + format_bytes(axis.message_bytes) +
                        ") forward, with their gradients backward, per layer per micro-batch" + bus +
                        (scenario.overlap.cp_ring ? "; each behind the previous chunk's attention" : ""),
                    "Liu et al. 2023 (ring attention); Megatron-Core context parallel"};
        case CommAxis::pp:
            return {"2 x " + format_counted(m, "micro-batch", "micro-batches") + " x " + std::to_string(scenario.parallel.virtual_stages) + " chunks x b s h x 2 B = " +
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
        case CommAxis::ep: {
            const MoeReport& moe = report.moe;
            const MoeSpec& spec = scenario.moe;
            std::string routing = format_number(moe.scale_out_copies) + " of each token's " + std::to_string(moe.experts_per_token) +
                                  " copies cross nodes, " + format_number(moe.scale_up_copies) + " stay on " + scenario.cluster.scale_up.name;
            if (spec.node_limit > 0) routing += " (node-limited to " + format_counted(spec.node_limit, "node", "nodes") + ": one copy per node, fanned out inside)";
            return {"per MoE layer: dispatch (" + format_number(spec.dispatch_bytes) + " B per element) and combine (2 B) all-to-alls of tokens x top-k x h, "
                        "forward and again backward" + (scenario.train.recompute == Recompute::full ? ", and in the recomputed forward" : "") +
                        "; " + routing + "; the busiest GPU receives " + format_number(moe.load_factor) + "x the mean; " +
                        format_bytes(moe.dispatch_bytes_per_layer + moe.combine_bytes_per_layer) + " sent per GPU per layer forward, " +
                        format_seconds(moe.all_to_all_forward_seconds_per_layer) + " forward, the slower of NVLink and InfiniBand" +
                        (scenario.overlap.ep_all_to_all ? "; behind another micro-batch's compute" : "; on the critical path"),
                    "Thakur, Rabenseifner and Gropp 2005 (pairwise all-to-all); DeepSeek-V3 sec 3.2.2 (node-limited routing)"};
        }
    }
    return {};
}

Explanation kernel_explanation(const Scenario& scenario, const Kernel& kernel) {
    const FrameworkTraits traits = framework_traits(scenario);
    const bool fp32_compute = fp32_on_cuda_cores(scenario.cluster.gpu, traits);
    std::string shape;
    if (kernel.is_gemm) {
        const std::string operand_bytes = kernel.fp8 ? "(m k + k n) x " + format_whole(traits.gemm_bytes) + " B + m n x " + format_whole(traits.compute_bytes) + " B"
                                                     : "(m k + k n + m n) x " + format_whole(traits.compute_bytes) + " B";
        shape = "GEMM " + format_whole(kernel.m) + " x " + format_whole(kernel.n) + " x " + format_whole(kernel.k) +
                (kernel.batch > 1 ? " (batch " + format_whole(kernel.batch) + ")" : "") + ": 2 m n k FLOPs, " + operand_bytes;
    } else if (kernel.is_fused_attention) {
        shape = "fused causal attention over " + format_whole(kernel.n) + " keys: half of 4 b a s^2 d FLOPs forward, 2.5x that backward";
    } else {
        shape = "memory-bound: " + format_bytes(kernel.bytes) + " read and written";
    }
    const double intensity = kernel.bytes > 0 ? kernel.flops / kernel.bytes : 0;
    return {kernel_label(kernel) + "\n" + shape + "\n" + format_flops(kernel.flops) + ", " + format_bytes(kernel.bytes) + ", " +
                format_number(intensity) + " FLOP/B, " + bound_name(kernel.bound) + " at " + format_percent(kernel.efficiency) +
                (kernel.fp8 ? " of the bf16 peak" : kernel.is_gemm || kernel.is_fused_attention ? " of peak" : " of HBM bandwidth") + ": " + format_seconds(kernel.seconds) +
                (kernel.count > 1 ? " x " + std::to_string(kernel.count) : "") +
                (kernel.is_gemm && kernel.alignment_bytes < 16 && !fp32_compute
                     ? "\nrows " + std::to_string(kernel.alignment_bytes) + "-byte aligned, not 16: cuBLAS runs a slower fallback kernel"
                     : "") +
                (fp32_compute && (kernel.is_gemm || kernel.is_fused_attention)
                     ? "\nfp32: on the CUDA cores (" + format_flops_rate(scenario.cluster.gpu.fp32_flops_per_s) + " peak); the share is of the tensor cores' bf16 " +
                           format_flops_rate(scenario.cluster.gpu.bf16_flops_per_s)
                     : "") +
                (kernel.fp8 ? "\nfp8: on the fp8 tensor cores (" + format_flops_rate(scenario.cluster.gpu.fp8_flops_per_s) +
                                  " peak), so above the bf16 roof; the share is of the bf16 " + format_flops_rate(scenario.cluster.gpu.bf16_flops_per_s)
                            : ""),
            kernel.fp8 ? scenario.cluster.gpu.efficiency.gemm_fp8_source : scenario.cluster.gpu.efficiency.source};
}

const char* kMeasuredPhases = "measured on one H100: measurements/h100_memory_phases.json, h100_kernel_probe.json training_memory";

std::string peak_block_label(const Scenario& scenario, MemoryKind kind) {
    const PrecisionRecipe& recipe = scenario.precision;
    switch (kind) {
        case MemoryKind::weight_copies:
            if (recipe.weight_copy_bytes <= 0) return "weight copies";
            if (recipe.gather_bytes > 0) return "bf16 unsharded weights";
            if (recipe.saved_gemm_input_bytes() < recipe.compute_bytes) return "fp8 weight copies";
            return "bf16 weight copies (autocast)";
        case MemoryKind::gathered_weights: return "ZeRO-3 gathered layers";
        case MemoryKind::logits: return "logits + loss";
        case MemoryKind::backward_working_set:
            switch (scenario.train.recompute) {
                case Recompute::full: return "recomputed layer";
                case Recompute::selective: return "recomputed attention";
                case Recompute::none: break;
            }
            return "layer backward";
        case MemoryKind::workspace: return "cuBLAS";
        case MemoryKind::comm_buffers: return "NCCL, buckets";
        case MemoryKind::fragmentation: return "fragmentation";
        default: break;
    }
    return memory_kind_name(kind);
}

// What a block of the peak holds on the heaviest stage's GPU, with its numbers, and where the figures come from.
Explanation peak_block_explanation(const Scenario& scenario, const Report& report, const MemoryBlock& block, const std::string& label) {
    const MemoryReport& memory = report.memory;
    const StageMemory stage = memory.peak_stage >= 0 && memory.peak_stage < static_cast<int>(memory.per_stage.size()) ? memory.per_stage[memory.peak_stage]
                                                                                                                     : StageMemory{};
    const FrameworkTraits framework = framework_traits(scenario);
    const PrecisionRecipe& recipe = scenario.precision;
    const LayoutReport& layout = report.layout;
    const std::string bytes = format_bytes(block.per_gpu_bytes);
    const bool megatron = is_megatron_family(scenario.train.framework);
    switch (block.kind) {
        case MemoryKind::weight_copies:
            if (block.per_gpu_bytes <= 0) return {label + ": none at the peak (the GEMMs read the stored weights, or ZeRO-3 makes the copies per layer)", recipe.source};
            return {label + ": " + format_plain(recipe.weight_copy_bytes) + " B x " + format_sci(block.per_gpu_bytes / recipe.weight_copy_bytes) +
                        " parameters the GEMMs read = " + bytes +
                        (framework.weight_copies_released_by_recompute
                             ? "; autocast caches each cast to the end of the forward and the graph keeps it until that weight's backward"
                             : "; kept for the whole step") +
                        (framework.weight_copies_released_by_recompute && scenario.train.recompute == Recompute::full
                             ? " (under full recompute, after the forward only the recomputed layer's and the head's)"
                             : ""),
                    recipe.source};
        case MemoryKind::gathered_weights:
            if (block.per_gpu_bytes <= 0) return {label + ": none (not ZeRO-3, or one data-parallel rank)", "Rajbhandari et al. 2019 sec 5.3"};
            return {label + ": the layer computing and the next, gathered at " + format_plain(recipe.weight_comm_bytes_per_param()) +
                        " B, and one layer's unsharded gradients at " + format_plain(recipe.grad_comm_bytes_per_param()) + " B per parameter = " + bytes,
                    "Rajbhandari et al. 2019 sec 5.3 (ZeRO-3 gathers each layer before use); PyTorch FSDP2 prefetches one layer ahead"};
        case MemoryKind::logits: {
            const double logits = 1.0 * scenario.train.micro_batch * scenario.train.seq_len / layout.cp * scenario.model.vocab / layout.tp;
            const bool last = stage.stage == layout.pp - 1;
            if (!last) return {label + ": none on this stage (the head and the loss run on the last stage)", ""};
            const double per_logit = memory.peak_phase == MemoryPhase::forward_end ? framework.logits_forward_bytes
                                     : memory.peak_phase == MemoryPhase::loss_backward ? framework.logits_backward_bytes : 0.0;
            const std::string what = megatron ? "the 16-bit logits and the fp32 copy the vocab-parallel cross-entropy turns into its softmax and gradient in place"
                                              : memory.peak_phase == MemoryPhase::forward_end ? "logits.float() and log_softmax's fp32 output"
                                                                                              : "log_softmax's fp32 output, its gradient and the input's gradient";
            return {label + ": the final norm's and head's inputs for " + format_number(stage.inflight_microbatches) + " micro-batch(es) in flight" +
                        (per_logit > 0 ? " + b s V / t = " + format_sci(logits) + " logits x " + format_plain(per_logit) + " B (" + what + ")" : "") +
                        " = " + bytes,
                    megatron ? "Korthikanti et al. 2022 sec 4.3; Megatron-LM tensor_parallel/cross_entropy.py" : std::string("PyTorch F.cross_entropy; ") + kMeasuredPhases};
        }
        case MemoryKind::backward_working_set: {
            std::string what;
            switch (scenario.train.recompute) {
                case Recompute::full: what = "one layer's activations rebuilt by its recompute (all of Table 2's, not the 2 s b h checkpoint)"; break;
                case Recompute::selective: what = "one layer's attention probabilities rebuilt by selective recompute"; break;
                case Recompute::none: what = "nothing recomputed"; break;
            }
            return {label + ": " + what + ", and the backward's own gradients (the MLP's two ffn-wide ones, or unfused attention's of the "
                        "probabilities and scores) = " + bytes,
                    std::string("Korthikanti et al. 2022 sec 5; ") + kMeasuredPhases};
        }
        case MemoryKind::workspace:
            return {label + ": " + bytes + " (memory.workspace_bytes)",
                    "cuBLAS docs, cublasSetWorkspace: 32 MiB per workspace on Hopper; 70 MB measured at a fresh process's first step (h100_kernel_probe.json)"};
        case MemoryKind::comm_buffers: {
            const int groups = (layout.tp > 1) + (layout.cp > 1) + (layout.pp > 1) + (layout.dp > 1);
            return {label + ": " + std::to_string(groups) + " NCCL communicator(s) (TP, CP, PP, DP of degree > 1) x " +
                        format_bytes(scenario.memory.nccl_bytes_per_group) + " + gradient buckets (PyTorch DDP's copy at ZeRO-0, the recipe's own) = " + bytes,
                    "NVIDIA/nccl#964 (688 MB per communicator, A100 NVLink); torch DistributedDataParallel docs (gradient_as_bucket_view); DeepSpeed config docs"};
        }
        case MemoryKind::fragmentation:
            // An operator recipe's step is replayed through the allocator's model: its slack is what the segments hold beyond
            // the live blocks, not the allowance.
            if (memory.timeline.allocator_model) {
                return {label + ": what the caching allocator's segments hold beyond the blocks live at the peak (rounding, split "
                                "blocks it cannot reuse) = " + bytes,
                        "PyTorch c10/cuda/CUDACachingAllocator.cpp, replayed over a warm-up step and the step (memory.timeline)"};
            }
            return {label + ": " + format_percent(scenario.memory.fragmentation) + " of what the allocator hands out = " + bytes +
                        " (memory.fragmentation; about 0 with expandable_segments)",
                    "median of 12 H100 runs, max_memory_reserved / max_memory_allocated - 1 (h100_kernel_probe.json training_memory)"};
        default: break;
    }
    return {label + ": " + bytes, ""};
}

std::string stage_label(const StageMemory& stage, int stages) {
    // DualPipe and DualPipeV put a mirror stage on each GPU: its layers, embedding or head count on that GPU.
    const bool mirrored = stage.device_layers > stage.layers;
    std::string text = "stage " + std::to_string(stage.stage + 1) + (mirrored ? " and its mirror" : "") + ": " +
                       std::to_string(mirrored ? stage.device_layers : stage.layers) + " layers";
    if (stage.holds_embedding && stages > 1) text += " + embedding";
    if (stage.holds_head && stages > 1) text += " + head, loss";
    return text;
}

}  // namespace

std::string kernel_label(const Kernel& kernel) { return std::string(kernel_name(kernel.id)) + " " + kernel_pass_name(kernel.pass); }

std::string memory_block_label(const Scenario& scenario, const MemoryBlock& block) {
    if (block.component >= 0 && block.component < static_cast<int>(scenario.precision.components.size())) {
        return scenario.precision.components[block.component].label;
    }
    if (block.kind == MemoryKind::activations) return memory_kind_name(block.kind);
    // LoRA's state (core/cost/memory/memory.cpp lora_state_into): the frozen base beside the adapters, which alone train.
    switch (block.kind) {
        case MemoryKind::weights: return std::string(base_format_name(scenario.finetune)) + " frozen base + adapters";
        case MemoryKind::grads: return "adapters' gradients";
        case MemoryKind::optimizer: return "adapters' AdamW moments";
        default: break;
    }
    return peak_block_label(scenario, block.kind);
}

std::string memory_phase_text(MemoryPhase phase) {
    switch (phase) {
        case MemoryPhase::forward_end: return "the end of the forward";
        case MemoryPhase::loss_backward: return "the loss's backward";
        case MemoryPhase::layer_backward: return "a layer's backward";
    }
    return {};
}

std::string collective_text(const Scenario& scenario, const AxisComm& axis) {
    switch (axis.axis) {
        case CommAxis::tp: return scenario.train.sequence_parallel && scenario.parallel.tp > 1 ? "all-gather + reduce-scatter" : "all-reduce";
        case CommAxis::cp:
            if (scenario.parallel.cp > 1 && framework_recipe_of(scenario).context_parallel.rotation == CpRotation::all_gather) {
                return "all-gather of K, V + send/recv of dK, dV";
            }
            return "ring send/recv of K, V";
        case CommAxis::pp: return "send/recv";
        case CommAxis::dp:
            if (scenario.parallel.zero == 3 && scenario.parallel.zero3_engine == ShardingEngine::deepspeed_0_4) {
                return "all-gather per weight matrix x 2-3 (synchronised) + all-reduce of gradient buckets";
            }
            if (scenario.parallel.zero == 3 && scenario.parallel.pp > 1 && framework_recipe_of(scenario).fsdp_under_pipeline.keeps_gathered) {
                return "all-gather once a step + reduce-scatter after the last micro-batch";
            }
            if (scenario.parallel.zero == 3) return "all-gather x 2 + reduce-scatter per layer";
            if (scenario.parallel.zero >= 1 || scenario.precision.sharded_optimizer) return "reduce-scatter + all-gather";
            return "all-reduce (ring)";
        case CommAxis::ep: return "all-to-all dispatch + combine";
    }
    return collective_name(axis.collective);
}

std::string warning_text(const Scenario& scenario, const Warning& warning) {
    switch (warning.kind) {
        case WarningKind::tp_crosses_nodes:
            return "TP " + format_whole(warning.value) + " crosses the node boundary (" + format_whole(warning.limit) +
                   " GPUs per node): its collectives run on " + scenario.cluster.scale_out.name;
        case WarningKind::uneven_pipeline_stages:
            return std::to_string(scenario.model.layers) + " layers" +
                   (scenario.train.embedding_and_loss_as_layers ? " with the embedding and the loss" : "") + " over pp " + format_whole(warning.limit) +
                   " do not divide evenly: the heaviest stage holds " + format_whole(warning.value) + " layers";
        case WarningKind::does_not_fit:
            return "Does not fit: a peak of " + format_bytes(warning.value) + " per GPU against " + format_bytes(warning.limit) + " of HBM";
        case WarningKind::global_batch_fitted:
            return "Global batch " + format_whole(warning.value) + " sequences: the file names none, and the default " +
                   std::to_string(TrainSpec{}.global_batch) + " does not divide over dp x micro-batch = " + format_whole(warning.limit) +
                   ", so it is the next multiple (as DeepSpeed derives its batch)";
        case WarningKind::mfu_capped:
            return "The model's step would reach " + format_percent(warning.value) + " MFU, above the best published for " +
                   framework_name(scenario.train.framework) + " on " + scenario.cluster.gpu.name + " (" + format_percent(warning.limit) +
                   "): the step is held at that MFU";
        case WarningKind::field_set_by_recipe: {
            const RecipeSetField& field = recipe_set_field(static_cast<int>(warning.value));
            return "Setting " + std::string(field.name) + " changes nothing for " + framework_name(scenario.train.framework) + ": " + field.why;
        }
    }
    return {};
}

namespace {

const char* kernel_short_name(KernelId id) {
    switch (id) {
        case KernelId::norm: return "norm";
        case KernelId::qkv: return "QKV";
        case KernelId::attention: return "attn";
        case KernelId::attention_scores: return "QK^T";
        case KernelId::attention_softmax: return "softmax";
        case KernelId::attention_scale: return "scale";
        case KernelId::attention_mask: return "mask";
        case KernelId::attention_cast: return "cast";
        case KernelId::fp8_cast: return "fp8";
        case KernelId::attention_dropout: return "drop";
        case KernelId::attention_context: return "PV";
        case KernelId::head_transpose: return "transp";
        case KernelId::out_proj: return "proj";
        case KernelId::residual: return "add";
        case KernelId::mlp_up: return "up";
        case KernelId::activation: return "act";
        case KernelId::mlp_down: return "down";
        case KernelId::weight_cast: return "cast";
        case KernelId::grad_accumulate: return "acc";
        case KernelId::embedding: return "embed";
        case KernelId::final_norm: return "norm";
        case KernelId::logits: return "logits";
        case KernelId::cross_entropy: return "loss";
        case KernelId::optimizer: return "optim";
        case KernelId::router: return "router";
        case KernelId::permute: return "perm";
        case KernelId::expert_up: return "exp up";
        case KernelId::expert_activation: return "exp act";
        case KernelId::expert_down: return "exp down";
        case KernelId::unpermute: return "unperm";
        case KernelId::latent_up: return "MLA up";
        case KernelId::op: return "op";
    }
    return "?";
}

std::string busiest_gpu_text(const Report& report) {
    if (report.layout.pp <= 1) return "one GPU";
    return "the busiest GPU (pipeline stage " + std::to_string(report.compute.busiest_stage + 1) + " of " + std::to_string(report.layout.pp) + ")";
}

Explanation timeline_op_explanation(const Scenario& scenario, const Report& report, const TimelineOp& op) {
    const bool backward = op.pass == KernelPass::backward_input || op.pass == KernelPass::backward_weight;
    const std::string exposure = op.exposed ? "exposed: the compute stream waits for it" : "hidden behind the compute stream";
    std::string what, source;
    switch (op.stream) {
        case Stream::compute: {
            const bool known = op.kernel >= 0 && op.kernel < static_cast<int>(report.compute.kernels.size());
            return {(known ? kernel_label(report.compute.kernels[op.kernel]) : std::string("kernel")) + ": " + format_seconds(op.duration_seconds),
                    scenario.cluster.gpu.efficiency.source};
        }
        case Stream::tp:
            what = std::string(scenario.train.sequence_parallel ? "TP all-gather or reduce-scatter" : "TP all-reduce") +
                   " of the b s h activations, " + kernel_pass_name(op.pass);
            source = scenario.overlap.tp_comm ? "overlapped with the GEMMs (Transformer Engine --tp-comm-overlap)"
                                              : "TP overlap off: Narayanan et al. 2021 sec 3.2, on the critical path";
            break;
        case Stream::cp:
            what = std::string("CP ring step: K and V") + (backward ? " with their gradients" : "") + " to the next rank, " + kernel_pass_name(op.pass);
            source = "Liu et al. 2023 (ring attention)";
            break;
        case Stream::pp:
            what = backward ? "PP: the input gradient sent to the previous stage" : "PP: the activation sent to the next stage";
            source = "Narayanan et al. 2021 sec 3.2";
            break;
        case Stream::dp:
            if (scenario.parallel.zero == 3) {
                what = op.pass == KernelPass::forward ? std::string("ZeRO-3 all-gather of the layer's weights") +
                                                            (scenario.overlap.zero3_prefetch ? ", prefetched during the layer before" : "")
                                                      : "ZeRO-3 reduce-scatter of the layer's gradients";
            } else {
                what = "DP: one layer's bucket of gradients, reduced behind the next layer's backward (the last micro-batch's)";
            }
            source = "Rajbhandari et al. 2019 sec 7; PyTorch DDP buckets";
            break;
        case Stream::ep:
            what = std::string("EP all-to-all: ") + (backward ? "the gradients of the tokens' expert copies, to and from the experts"
                                                            : "tokens dispatched to their experts, or their outputs combined back") +
                   ", " + kernel_pass_name(op.pass);
            source = scenario.overlap.ep_all_to_all ? "behind another micro-batch's compute (DeepSeek-V3 sec 3.2.1)"
                                                    : "EP overlap off: the layer waits for it";
            break;
    }
    return {what + ": " + format_seconds(op.duration_seconds) + ", " + exposure, source};
}

// What each part of the step's bar holds, with its time and its share of the bar.
std::vector<Explanation> step_part_explanations(const Scenario& scenario, const Report& report, const StepBar& bar) {
    const std::string where = " on " + busiest_gpu_text(report) + ", x " + format_counted(report.layout.microbatches, "micro-batch", "micro-batches");
    std::vector<Explanation> parts;
    for (const StepSegment& segment : bar.segments) {
        std::string what, source;
        switch (segment.part) {
            case StepPart::gemm:
                what = "every layer's QKV, output projection, MLP up and down (forward, backward, recompute) and the logits" + where;
                source = scenario.cluster.gpu.efficiency.source;
                break;
            case StepPart::attention:
                what = std::string(scenario.train.fused_attention() ? "the fused attention core" : "the unfused scores, softmax, dropout and context") +
                       " of every layer" + where;
                source = scenario.cluster.gpu.efficiency.source;
                break;
            case StepPart::elementwise:
                what = "norms, activations, residual adds, casts, the embedding and the loss" + where;
                source = scenario.cluster.gpu.efficiency.source;
                break;
            case StepPart::optimizer:
                what = "the optimizer step over this GPU's share of the state, once per step";
                source = scenario.precision.source;
                break;
            case StepPart::exposed_tp:
            case StepPart::exposed_cp:
            case StepPart::exposed_pp:
            case StepPart::exposed_dp:
            case StepPart::exposed_ep:
                what = std::string(step_part_name(segment.part)).substr(8) +
                       " communication the compute could not hide, and the compute its overlap slowed";
                source = "the scenario's overlap switches (docs/architecture.md: overlap is explicit)";
                break;
            case StepPart::bubble:
                what = "the busiest stage idle while the " + std::string(schedule_name(report.pipeline.schedule)) + " pipeline fills and drains";
                source = "measured from the generated schedule; Narayanan et al. 2021 sec 2.2";
                break;
            case StepPart::stragglers:
                what = "every GPU waiting at the step's collectives for the slowest of its " +
                       format_number(std::ceil(static_cast<double>(report.layout.gpus) / scenario.cluster.gpus_per_node)) +
                       " machines: " + format_percent(scenario.cluster.straggler_share) + " of machines run " +
                       format_percent(scenario.cluster.straggler_slowdown) + " slow";
                source = "MegaScale (Jiang et al. 2024, arXiv 2402.15627) sec 5.1 and 6.3";
                break;
            case StepPart::beyond_model:
                what = report.compute.step_basis == StepBasis::published_ceiling
                           ? std::string("what holding the step at the best published MFU adds to the modelled step")
                           : "the " + std::string(report.compute.step_basis == StepBasis::assumed_mfu ? "assumed" : "measured") +
                                 " step's time the model does not explain";
                break;
        }
        const double share = bar.total_seconds > 0 ? segment.seconds / bar.total_seconds : 0;
        parts.push_back({std::string(step_part_name(segment.part)) + ": " + what + ": " + format_seconds(segment.seconds) + ", " +
                             format_percent(share) + " of the step",
                         source});
    }
    return parts;
}

void fill_anatomy_text(const Scenario& scenario, const Report& report, ReportText& text) {
    const ComputeReport& compute = report.compute;
    for (const Kernel& kernel : compute.kernels) text.kernel_short_labels.push_back(kernel_short_label(kernel));
    for (const TimelineOp& op : compute.layer_timeline) text.timeline_ops.push_back(timeline_op_explanation(scenario, report, op));
    if (compute.peak_flops_per_s <= 0 || report.layout.gpus <= 0) return;
    const StepBar bar = step_bar(report);
    text.step_parts = step_part_explanations(scenario, report, bar);
    text.ideal_step = {"ideal step = model FLOPs per step / (GPUs x peak) = " + format_flops(compute.model_flops_per_step) + " / (" +
                           format_grouped(report.layout.gpus) + " x " + format_flops_rate(compute.peak_flops_per_s) + ") = " +
                           format_seconds(bar.ideal_step_seconds) + "; MFU = ideal / step = " + format_seconds(bar.ideal_step_seconds) + " / " +
                           format_seconds(bar.step_seconds) + " = " + format_percent(bar.mfu),
                       "Korthikanti et al. 2022, Appendix A"};
    for (const MfuMark& mark : bar.marks) text.mfu_marks.push_back(std::string(mfu_milestone_name(mark.milestone)) + ": " + format_percent(mark.mfu) + " MFU");
    if (bar.best_gemm_kernel >= 0) {
        const bool fp8 = compute.kernels[bar.best_gemm_kernel].fp8;  // its share is of the bf16 peak, as MFU's is: it can pass 100 %
        text.mfu_chain = "best GEMM (" + kernel_label(compute.kernels[bar.best_gemm_kernel]) + (fp8 ? ", fp8" : "") + ") " +
                         format_percent(bar.best_gemm_efficiency) + (fp8 ? " of the bf16 peak" : " of peak");
    }
    for (const MfuMark& mark : bar.marks) {
        text.mfu_chain += (text.mfu_chain.empty() ? "" : " -> ") + std::string(mfu_milestone_name(mark.milestone)) + " " + format_percent(mark.mfu);
    }
    text.mfu_chain += " MFU";
}

}  // namespace

std::string kernel_short_label(const Kernel& kernel) {
    // A recipe operator's kernel goes by its op's name, the last part of it ("mlp.act_fn" -> "act_fn").
    std::string name = kernel_short_name(kernel.id);
    if (kernel.label) {
        const std::string label = kernel.label;
        name = label.substr(label.rfind('.') == std::string::npos ? 0 : label.rfind('.') + 1);
    }
    switch (kernel.pass) {
        case KernelPass::forward: return name;
        case KernelPass::backward_input: return name + " dX";
        case KernelPass::backward_weight: return name + " dW";
        case KernelPass::recompute: return name + " r";
    }
    return name;
}

ReportText explain(const Scenario& scenario, const Report& report) {
    ReportText text;
    text.model_name = scenario.model.name;
    text.gpu_name = scenario.cluster.gpu.name;
    text.recipe_name = scenario.precision.name;
    // Under LoRA or QLoRA the precision recipe trains the adapters alone; the frozen base keeps its own format.
    if (trains_adapters(scenario.finetune)) {
        text.recipe_name += std::string(", for the adapters only (the frozen base: ") + base_format_name(scenario.finetune) +
                            ", no gradients or optimizer state)";
    }
    const MemoryReport& memory = report.memory;
    const std::string layout = layout_text(scenario);
    for (const MemoryBlock& block : memory.blocks) {
        if (block.component >= 0 && block.component < static_cast<int>(scenario.precision.components.size())) {
            const std::string label = memory_block_label(scenario, block);
            text.block_labels.push_back(label);
            text.block_whole.push_back({label + ": " + format_plain(block.bytes_per_param) + " B x " + format_sci(memory.params) + " = " +
                                            format_bytes(block.whole_bytes),
                                        scenario.precision.source});
            const int shards = report.layout.dp * report.layout.cp;
            std::string per_gpu = label + ": " + format_plain(block.bytes_per_param) + " B x " +
                                  format_sci(memory.params_per_gpu - memory.experts.params_per_gpu) + " params on the GPU (" + layout + ")" +
                                  (block.sharded_over_dp ? " / " + std::to_string(shards) + " (ZeRO-" + std::to_string(scenario.parallel.zero) + ")"
                                                         : std::string());
            if (block.expert_per_gpu_bytes > 0) {  // Megatron-Core's expert bucket: EP x ETP, then the expert data-parallel group
                const ExpertMemory& experts = memory.experts;
                const bool expert_sharded = block.expert_per_gpu_bytes < block.bytes_per_param * experts.params_per_gpu;
                per_gpu += " + " + format_plain(block.bytes_per_param) + " B x " + format_sci(experts.params_per_gpu) +
                           " routed-expert params (stage's / ep " + std::to_string(report.layout.ep) + " x etp " + std::to_string(report.layout.etp) +
                           ")" + (expert_sharded ? " / EDP " + std::to_string(experts.expert_data_parallel) : std::string());
            }
            text.block_per_gpu.push_back({per_gpu + " = " + format_bytes(block.per_gpu_bytes),
                                          block.expert_per_gpu_bytes > 0 ? scenario.precision.source + "; Megatron-Core moe/README.md"
                                                                         : scenario.precision.source});
        } else if (memory.finetune_adapters && (block.kind == MemoryKind::weights || block.kind == MemoryKind::grads || block.kind == MemoryKind::optimizer)) {
            const std::string label = memory_block_label(scenario, block);
            const std::string dtype = adapter_dtype_name(scenario.finetune.adapter_dtype);
            const std::string what = block.kind == MemoryKind::weights
                                         ? "frozen base " + format_bytes(memory.frozen_bytes) + " + " + format_sci(memory.trainable_params) + " adapter params in " + dtype
                                     : block.kind == MemoryKind::grads ? format_sci(memory.trainable_params) + " adapter gradients in " + dtype
                                                                       : "exp_avg and exp_avg_sq of " + format_sci(memory.trainable_params) + " adapter params in " + dtype;
            const std::string source = "PEFT: frozen base, adapters in " + dtype + "; torch.optim.AdamW _init_group (zeros_like)";
            text.block_labels.push_back(label);
            text.block_whole.push_back({label + ": " + what + " = " + format_bytes(block.whole_bytes), source});
            text.block_per_gpu.push_back({label + ": " + what + " (" + layout + ") = " + format_bytes(block.per_gpu_bytes), source});
        } else if (block.kind == MemoryKind::activations) {
            text.block_labels.push_back(memory_block_label(scenario, block));
            text.block_whole.push_back({std::string(memory_kind_name(block.kind)) + ", one micro-batch, all " + std::to_string(scenario.model.layers) +
                                            " layers: " + format_bytes(block.whole_bytes),
                                        "Korthikanti et al. 2022, Table 2"});
            text.block_per_gpu.push_back({});
        } else {
            const std::string label = memory_block_label(scenario, block);
            text.block_labels.push_back(label);
            text.block_whole.push_back({label + ", the whole model on one GPU, one micro-batch, at its peak: " + format_bytes(block.whole_bytes),
                                        peak_block_explanation(scenario, report, block, label).source});
            text.block_per_gpu.push_back(peak_block_explanation(scenario, report, block, label));
        }
    }
    const ActivationReport& activations = memory.activations;
    text.activation_configuration = configuration_of(scenario, activations);
    const StageMemory peak_stage = memory.peak_stage >= 0 && memory.peak_stage < static_cast<int>(memory.per_stage.size())
                                       ? memory.per_stage[memory.peak_stage] : StageMemory{};
    const std::string dense_layer = "s b h x " + format_number(activations.sbh_coefficient) +
                                    (activations.attention_score_bytes > 0 ? " + " + format_plain(activations.bytes_per_score) + " a s^2 b / t" : "");
    const std::string per_layer =
        peak_stage.moe_layers > 0
            ? "a dense layer " + dense_layer + "; an MoE layer " + format_bytes(memory.experts.moe_layer_activation_bytes) +
                  " with its routed copies (" + format_bytes(activations.expert_bytes) + "); " + std::to_string(peak_stage.moe_layers) +
                  " of the stage's layers have experts: a mean " + format_bytes(activations.bytes_per_layer)
            : dense_layer + " = " + format_bytes(activations.bytes_per_layer);
    text.activations = {per_layer + " per layer; x " + format_counted(peak_stage.layers, "layer", "layers") + " x " +
                            format_number(peak_stage.inflight_microbatches) + " micro-batches in flight" +
                            (memory.per_stage.size() > 1 ? " (stage " + std::to_string(peak_stage.stage + 1) + ")" : std::string()) + " = " +
                            format_bytes(peak_stage.activations_bytes),
                        scenario.train.framework == Framework::pytorch_eager
                            ? std::string("Korthikanti et al. 2022, Table 2, as PyTorch eager keeps them: ") + kMeasuredPhases
                            : "Korthikanti et al. 2022, Table 2"};
    for (std::size_t i = 0; i < memory.blocks.size(); ++i) {
        if (memory.blocks[i].kind == MemoryKind::activations) text.block_per_gpu[i] = {"activations (" + text.activation_configuration + "): " + text.activations.formula,
                                                                                       text.activations.source};
    }
    for (const AxisComm& axis : report.comm.axes) {
        text.axis_collectives.push_back(collective_text(scenario, axis));
        text.axis_links.push_back(link_of(scenario, axis));
        text.axis_formulas.push_back(axis_formula(scenario, report, axis));
        const bool gradients_over_cp = axis.axis == CommAxis::dp && report.layout.cp > 1;
        text.axis_groups.push_back((gradients_over_cp ? std::string("dp x cp") : std::string(comm_axis_name(axis.axis))) + " " +
                                   std::to_string(axis.degree));
    }
    for (const Kernel& kernel : report.compute.kernels) text.kernels.push_back(kernel_explanation(scenario, kernel));
    for (const Warning& warning : report.warnings) text.warnings.push_back(warning_text(scenario, warning));

    const int stages = static_cast<int>(memory.per_stage.size());
    text.memory_peak_line = memory_peak_line_text(report);
    text.memory_verdict = memory_verdict_text(scenario, report);
    text.figures = figure_texts(scenario, report);
    for (const PeakGroup& group : report.peak_groups) {
        FigureText piece{group.held_beside ? "at the peak" : memory_kind_name(group.kind), format_bytes(group.per_gpu_bytes), "", ""};
        for (int block : group.blocks) {
            const Explanation& formula = text.block_per_gpu[block];
            piece.formula += (piece.formula.empty() ? "" : "\n") + formula.formula;
            if (!formula.source.empty() && piece.source.find(formula.source) == std::string::npos) {
                piece.source += (piece.source.empty() ? "" : "; ") + formula.source;
            }
        }
        text.peak_groups.push_back(piece);
    }
    for (const StageMemory& stage : memory.per_stage) {
        text.stage_labels.push_back(stage_label(stage, stages));
        text.stage_formulas.push_back({stage_label(stage, stages) + ", " + format_number(stage.inflight_microbatches) + " micro-batch(es) in flight, peak at " +
                                           memory_phase_text(stage.phase) + ": state " + format_bytes(stage.state_bytes) + " + activations " +
                                           format_bytes(stage.activations_bytes) + " + weight copies " + format_bytes(stage.weight_copies_bytes) +
                                           " + gathered " + format_bytes(stage.gathered_weights_bytes) + " + logits " + format_bytes(stage.logits_bytes) +
                                           " + layer backward " + format_bytes(stage.backward_working_set_bytes) + " + workspace " +
                                           format_bytes(stage.workspace_bytes) + " + NCCL and buckets " + format_bytes(stage.comm_buffers_bytes) +
                                           " + fragmentation " + format_bytes(stage.fragmentation_bytes) + " = " + format_bytes(stage.peak_bytes),
                                       "core/cost/memory/memory.h"});
    }
    fill_anatomy_text(scenario, report, text);
    text.budget_sentence = budget_sentence(scenario, report.budget);
    return text;
}

}  // namespace core
