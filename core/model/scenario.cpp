#include "core/model/scenario.h"

#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/layout.h"
#include "core/model/model_json.h"

namespace core {

const char* recompute_name(Recompute recompute) {
    switch (recompute) {
        case Recompute::none: return "none";
        case Recompute::selective: return "selective";
        case Recompute::full: return "full";
    }
    return "?";
}

const char* attention_impl_name(AttentionImpl impl) {
    switch (impl) {
        case AttentionImpl::sdpa: return "sdpa";
        case AttentionImpl::flash_attention_2: return "flash_attention_2";
        case AttentionImpl::eager: return "eager";
    }
    return "?";
}

bool attention_impl_from_name(std::string_view name, AttentionImpl& impl) {
    for (AttentionImpl candidate : kAttentionImpls) {
        if (name == attention_impl_name(candidate)) {
            impl = candidate;
            return true;
        }
    }
    return false;
}

std::string attention_impl_names() {
    std::string names;
    for (AttentionImpl impl : kAttentionImpls) names += std::string(names.empty() ? "" : ", ") + attention_impl_name(impl);
    return names;
}

const char* framework_name(Framework framework) {
    switch (framework) {
        case Framework::megatron: return "megatron";
        case Framework::megatron_core: return "megatron-core";
        case Framework::deepspeed: return "deepspeed";
        case Framework::pytorch_eager: return "pytorch-eager";
        case Framework::hf_transformers: return "hf-transformers";
        case Framework::torchtitan: return "torchtitan";
        case Framework::llm_foundry: return "llm-foundry";
        case Framework::torchtune: return "torchtune";
        case Framework::nemo_automodel: return "nemo-automodel";
    }
    return "?";
}

bool framework_from_name(std::string_view name, Framework& framework) {
    for (Framework candidate : kFrameworks) {
        if (name == framework_name(candidate)) {
            framework = candidate;
            return true;
        }
    }
    return false;
}

bool is_megatron_family(Framework framework) {
    return framework == Framework::megatron || framework == Framework::megatron_core || framework == Framework::deepspeed;
}

LinkSpec scale_up_link_of(const GpuSpec& gpu) {
    const LinkSpec* link = builtin_hardware().find_link(gpu.scale_up_link);
    if (!link) throw InputError("cluster.gpu.scale_up_link", not_in_catalog("link", gpu.scale_up_link));
    return *link;
}

LinkSpec scale_out_link_of(const GpuSpec& gpu) {
    const HardwareCatalog& catalog = builtin_hardware();
    const std::string& id = gpu.scale_out_link.empty() ? catalog.default_scale_out_link : gpu.scale_out_link;
    const LinkSpec* link = catalog.find_link(id);
    if (!link) throw InputError("cluster.gpu.scale_out_link", not_in_catalog("link", id));
    return *link;
}

FabricSpec fabric_of(const GpuSpec& gpu) {
    const std::string id = gpu.fabric.empty() ? "non-blocking" : gpu.fabric;
    const FabricSpec* fabric = builtin_hardware().find_fabric(id);
    if (!fabric) throw InputError("cluster.gpu.fabric", not_in_catalog("fabric", id));
    return *fabric;
}

void set_gpu(ClusterSpec& cluster, const GpuSpec& gpu) {
    const bool own_network = cluster.scale_out == scale_out_link_of(cluster.gpu) && cluster.fabric == fabric_of(cluster.gpu);
    cluster.gpu = gpu;
    cluster.scale_up = scale_up_link_of(gpu);
    if (!own_network) return;
    cluster.scale_out = scale_out_link_of(gpu);
    cluster.fabric = fabric_of(gpu);
}

void apply_price_basis(Scenario& scenario) {
    if (scenario.budget.price == PriceBasis::custom) return;
    const double dollars = scenario.cluster.gpu.price.dollars_per_hour(scenario.budget.price);
    if (dollars > 0) scenario.operations.dollars_per_gpu_hour = dollars;
    else scenario.budget.price = PriceBasis::custom;
}

const char* checkpoint_mode_name(CheckpointMode mode) {
    switch (mode) {
        case CheckpointMode::sync: return "sync";
        case CheckpointMode::async: return "async";
        case CheckpointMode::in_memory: return "in-memory";
    }
    return "sync";
}

const char* sharding_engine_name(ShardingEngine engine) { return engine == ShardingEngine::deepspeed_0_4 ? "deepspeed-0.4" : "coalesced"; }

const char* sharding_engine_label(ShardingEngine engine) {
    return engine == ShardingEngine::deepspeed_0_4 ? "DeepSpeed 0.4 (2021)" : "FSDP / DeepSpeed >= 0.6";
}

const char* sharding_engine_help(ShardingEngine engine) {
    return engine == ShardingEngine::deepspeed_0_4
               ? "DeepSpeed 0.3.13-0.4.2, as Narayanan et al. 2021 Table 2 ran ZeRO-3: a synchronised all-gather per weight matrix and "
                 "gradient buckets all-reduced."
               : "One all-gather of a layer's weights, prefetched a layer ahead, and one reduce-scatter of its gradients: FSDP1, FSDP2 and "
                 "DeepSpeed since 0.6's coalesced collectives.";
}

Scenario default_scenario() {
    Scenario scenario;
    scenario.model = *find_model("llama3-70b");
    scenario.precision = *find_recipe("bf16-mixed-adam");
    scenario.cluster.gpu = *builtin_hardware().find_gpu("h100-sxm");
    scenario.cluster.scale_up = scale_up_link_of(scenario.cluster.gpu);
    scenario.cluster.scale_out = scale_out_link_of(scenario.cluster.gpu);
    scenario.cluster.fabric = fabric_of(scenario.cluster.gpu);
    apply_price_basis(scenario);
    return scenario;
}

int data_parallel_degree(const Scenario& scenario) {
    const ParallelSpec& parallel = scenario.parallel;
    if (parallel.dp > 0) return parallel.dp;
    const long long model_parallel = gpus_per_replica(parallel);
    return model_parallel > 0 ? static_cast<int>(scenario.cluster.gpus / model_parallel) : 0;
}

int microbatches_per_step(const Scenario& scenario) {
    return scenario.train.global_batch / (data_parallel_degree(scenario) * scenario.train.micro_batch);
}

int fitted_global_batch(const Scenario& scenario) {
    const ParallelSpec& parallel = scenario.parallel;
    const long long model_parallel = gpus_per_replica(parallel);
    if (model_parallel < 1 || scenario.train.micro_batch < 1) return 0;
    const long long dp = parallel.dp > 0 ? parallel.dp : (scenario.cluster.gpus % model_parallel == 0 ? scenario.cluster.gpus / model_parallel : 0);
    if (dp < 1) return 0;
    const long long per_step = dp * scenario.train.micro_batch;
    const long long fitted = (TrainSpec{}.global_batch + per_step - 1) / per_step * per_step;
    return fitted <= 100000000 ? static_cast<int>(fitted) : 0;
}

void validate_framework_fit(const Scenario& scenario) {
    // Operator recipes (assets/frameworks) describe a dense layer with standard attention, from the model's shape.
    const Framework framework = scenario.train.framework;
    if (!is_megatron_family(framework) && framework != Framework::pytorch_eager) {
        const ModelSpec& model = scenario.model;
        if (model.is_bare_count()) {
            throw InputError("train.framework", std::string(framework_name(framework)) + " runs a model's layers op by op: give the model's shape, not a parameter count");
        }
        if (model.is_moe() || model.is_mla()) {
            throw InputError("train.framework", std::string(framework_name(framework)) +
                                                    "'s recipe has no mixture-of-experts or latent-attention layer: use megatron-core");
        }
    }
    validate_finetune(scenario);
}

void validate_fabric(const ClusterSpec& cluster) {
    const FabricSpec& fabric = cluster.fabric;
    if (fabric.nic_bytes_per_s > cluster.scale_out.bytes_per_s) {
        throw InputError("cluster.fabric.nic_bytes_per_s", "a NIC of " + format_bandwidth(fabric.nic_bytes_per_s) + " is faster than its link " +
                                                               cluster.scale_out.id + " (" + format_bandwidth(cluster.scale_out.bytes_per_s) + ")");
    }
    // A catalog fabric is a whole building that a job takes part of; a fabric the file describes is the cluster's own.
    const FabricSpec* catalog = builtin_hardware().find_fabric(fabric.id);
    const bool from_catalog = catalog && *catalog == fabric;
    if (!from_catalog && fabric.pod_gpus > cluster.gpus) {
        throw InputError("cluster.fabric.pod_gpus", "a pod of " + std::to_string(fabric.pod_gpus) + " GPUs is larger than the cluster's " +
                                                        std::to_string(cluster.gpus));
    }
    if (fabric.leaf_gpus > 0 && fabric.leaf_gpus < cluster.gpus_per_node) {
        throw InputError("cluster.fabric.leaf_gpus", "a leaf of " + std::to_string(fabric.leaf_gpus) + " GPUs is smaller than one node of " +
                                                         std::to_string(cluster.gpus_per_node));
    }
}

void validate_scenario(const Scenario& scenario) {
    validate_model_shape(scenario.model, "model");
    const ParallelSpec& parallel = scenario.parallel;
    const Layout layout = layout_of(scenario);
    // An explicit dp that contradicts the GPU count is named as such before the layout's other rules run.
    if (parallel.dp > 0 && parallel.tp > 0 && parallel.pp > 0 && parallel.cp > 0) {
        if (const auto problem = check_layout_value(scenario, layout, LayoutValue::dp)) throw InputError(problem->field, problem->reason);
    }
    if (const auto problem = check_layout(scenario, layout)) throw InputError(problem->field, problem->reason);
    validate_framework_fit(scenario);
    const MemorySpec& memory = scenario.memory;
    const auto require_range = [](const char* field, double value, double max_value, const char* max_text) {
        if (!(value >= 0 && value <= max_value)) throw InputError(field, must_be_between("0", max_text, format_typed(value)));
    };
    require_range("memory.workspace_bytes", memory.workspace_bytes, 1e12, "1e12");
    require_range("memory.nccl_bytes_per_group", memory.nccl_bytes_per_group, 1e12, "1e12");
    require_range("memory.fragmentation", memory.fragmentation, 1, "1");
    validate_serving(scenario.serving);
}

const char* serving_runtime_name(ServingRuntime runtime) { return runtime == ServingRuntime::engine ? "engine" : "pytorch"; }

void validate_serving(const ServingSpec& serving) {
    const auto positive = [](const char* field, double value, double max_value) {
        if (!(value > 0 && value <= max_value)) throw InputError(field, "must be above 0 and at most " + format_number(max_value) + ", got " + format_number(value));
    };
    positive("serving.target_qps", serving.target_qps, 1e9);
    positive("serving.prompt_tokens", serving.prompt_tokens, 1e8);
    positive("serving.output_tokens", serving.output_tokens, 1e8);
    positive("serving.ttft_ms", serving.ttft_ms, 1e9);
    positive("serving.tpot_ms", serving.tpot_ms, 1e9);
    positive("serving.max_batch", serving.max_batch, 1e6);
    positive("serving.prefill_chunk_tokens", serving.prefill_chunk_tokens, 1e8);
    positive("serving.batch", serving.batch, 1e6);
    positive("serving.context_tokens", serving.context_tokens, 1e8);
    if (!(serving.memory_utilization > 0 && serving.memory_utilization <= 1)) {
        throw InputError("serving.memory_utilization", "must be above 0 and at most 1, got " + format_number(serving.memory_utilization));
    }
    if (serving.gpus < 0) throw InputError("serving.gpus", "must be 0 (the cluster's GPUs) or a GPU count, got " + std::to_string(serving.gpus));
    const double w = serving.weight_bytes_per_param;
    if (!(w == 4 || w == 2 || w == 1 || w == 0.5)) {
        throw InputError("serving.weight_bytes_per_param", "must be 4 (fp32), 2 (bf16), 1 (fp8) or 0.5 (int4), got " + format_number(w));
    }
    const double kv = serving.kv_bytes_per_element;
    if (!(kv == 4 || kv == 2 || kv == 1)) throw InputError("serving.kv_bytes_per_element", "must be 4 (fp32), 2 (bf16) or 1 (fp8), got " + format_number(kv));
}

}  // namespace core
