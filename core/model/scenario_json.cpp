// Scenario files: reading one over the defaults (strict: every error names the field), and writing one back with
// only what differs from the defaults, in the same shape.
#include "core/model/scenario_json.h"

#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/json_reader.h"
#include "core/model/model_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace core {
namespace {

// The architecture alone, names and ids aside: whether a model is still its preset.
bool same_model_shape(ModelSpec a, const ModelSpec& b) {
    a.id = b.id;
    a.name = b.name;
    a.default_seq_len = b.default_seq_len;
    return a == b;
}

LinkSpec link_or_throw(const char* id, const char* field) {
    const LinkSpec* link = builtin_hardware().find_link(id);
    if (!link) throw InputError(field, not_in_catalog("link", id));
    return *link;
}

Recompute parse_recompute(const std::string& text, const std::string& field) {
    if (text == "none") return Recompute::none;
    if (text == "selective") return Recompute::selective;
    if (text == "full") return Recompute::full;
    throw InputError(field, "must be none, selective or full, got \"" + text + "\"");
}

void read_model(Scenario& scenario, const nlohmann::json& object, TextLoader hf_config_loader) {
    JsonObjectReader reader(object, "model");
    const int forms = reader.has("preset") + reader.has("params") + reader.has("hf_config");
    if (forms > 1) throw InputError("model", "give one of preset, params or hf_config");
    ModelSpec model = scenario.model;
    if (auto preset = reader.string("preset")) {
        const ModelSpec* found = find_model(*preset);
        if (!found) throw InputError("model.preset", "unknown preset \"" + *preset + "\"");
        model = *found;
    } else if (auto params = reader.number("params", kMinBareParams, kMaxBareParams)) {
        model = synthesize_shape(*params);
    } else if (auto path = reader.string("hf_config")) {
        if (!hf_config_loader) throw InputError("model.hf_config", "reading files is not available here");
        std::string text;
        try {
            text = hf_config_loader(*path);
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& error) {
            throw InputError("model.hf_config", "cannot read \"" + *path + "\": " + error.what());
        }
        model = parse_hf_config(text);  // holds each key to its model field's range
        hf_config_attention(text, scenario.train.attention);  // the config's attn_implementation; the scenario's train may override
    }
    const std::vector<const char*>& shape_keys = model_shape_keys();
    const bool has_shape_field = std::any_of(shape_keys.begin(), shape_keys.end(), [&](const char* key) { return reader.has(key); });
    if (has_shape_field) {
        if (model.is_bare_count()) throw InputError("model.params", "a bare parameter count takes no architecture fields");
        model = read_model_fields(reader, model);
        model.id = "custom";
    }
    if (auto name = reader.string("name")) model.name = *name;
    else if (has_shape_field && !reader.has("hf_config")) model.name = "Custom model";
    reader.reject_unknown_keys();
    validate_model_shape(model, "model");
    scenario.model = model;
}

void read_train(TrainSpec& train, const nlohmann::json& object) {
    JsonObjectReader reader(object, "train");
    train.seq_len = static_cast<int>(reader.integer("seq_len", 1, 10000000).value_or(train.seq_len));
    train.micro_batch = static_cast<int>(reader.integer("micro_batch", 1, 1000000).value_or(train.micro_batch));
    train.global_batch = static_cast<int>(reader.integer("global_batch", 1, 100000000).value_or(train.global_batch));
    train.tokens = reader.number("tokens", 1, 1e17).value_or(train.tokens);
    if (auto recompute = reader.string("recompute")) train.recompute = parse_recompute(*recompute, "train.recompute");
    train.sequence_parallel = reader.boolean("sequence_parallel").value_or(train.sequence_parallel);
    // "attention" names the implementation; "flash_attention" (true: sdpa, false: eager) is the older files' switch.
    const std::optional<bool> flash = reader.boolean("flash_attention");
    if (flash) train.attention = *flash ? AttentionImpl::sdpa : AttentionImpl::eager;
    if (auto attention = reader.string("attention")) {
        if (!attention_impl_from_name(*attention, train.attention)) throw InputError("train.attention", must_be_one_of(attention_impl_names(), *attention));
        if (flash && train.fused_attention() != *flash) {
            throw InputError("train.flash_attention", "disagrees with train.attention \"" + *attention + "\"; give one of them");
        }
    }
    train.dropout = reader.boolean("dropout").value_or(train.dropout);
    train.gradient_accumulation_fusion = reader.boolean("gradient_accumulation_fusion").value_or(train.gradient_accumulation_fusion);
    train.embedding_and_loss_as_layers = reader.boolean("embedding_and_loss_as_layers").value_or(train.embedding_and_loss_as_layers);
    train.deadline_days = reader.number("deadline_days", 1e-3, 1e6).value_or(train.deadline_days);
    if (auto framework = reader.string("framework")) {
        if (!framework_from_name(*framework, train.framework)) {
            std::string names;
            for (Framework known : kFrameworks) names += std::string(names.empty() ? "" : ", ") + framework_name(known);
            throw InputError("train.framework", must_be_one_of(names, *framework));
        }
    }
    train.compile = reader.boolean("compile").value_or(train.compile);
    train.zero_grad_set_to_none = reader.boolean("zero_grad_set_to_none").value_or(train.zero_grad_set_to_none);
    reader.reject_unknown_keys();
}

void read_precision(PrecisionRecipe& recipe, const nlohmann::json& object) {
    JsonObjectReader reader(object, "precision");
    if (auto id = reader.string("recipe")) {
        const PrecisionRecipe* found = find_recipe(*id);
        if (!found) throw InputError("precision.recipe", "unknown recipe \"" + *id + "\"");
        recipe = *found;
    }
    const bool explicit_bytes = reader.has("weight_bytes") || reader.has("grad_bytes") || reader.has("master_bytes") || reader.has("optimizer_bytes");
    if (explicit_bytes) {
        if (reader.has("recipe")) throw InputError("precision", "give a recipe or explicit bytes, not both");
        PrecisionRecipe custom;
        custom.id = "custom";
        custom.name = "Custom bytes per parameter";
        custom.source = "scenario file";
        auto add = [&](const char* key, const char* label, StateKind kind) {
            const double bytes = reader.number(key, 0, 64).value_or(0);
            if (bytes > 0) custom.components.push_back({label, kind, bytes});
        };
        add("weight_bytes", "weight", StateKind::weights);
        add("grad_bytes", "grad", StateKind::grads);
        add("master_bytes", "master", StateKind::master);
        add("optimizer_bytes", "optimizer", StateKind::optimizer);
        require_positive("precision.weight_bytes", custom.bytes_per_param(StateKind::weights));
        recipe = custom;
    }
    reader.reject_unknown_keys();
}

void read_parallel(ParallelSpec& parallel, const nlohmann::json& object) {
    JsonObjectReader reader(object, "parallel");
    parallel.dp = static_cast<int>(reader.integer("dp", 1, 100000000).value_or(parallel.dp));
    parallel.tp = static_cast<int>(reader.integer("tp", 1, 1000000).value_or(parallel.tp));
    parallel.pp = static_cast<int>(reader.integer("pp", 1, 1000000).value_or(parallel.pp));
    parallel.cp = static_cast<int>(reader.integer("cp", 1, 1000000).value_or(parallel.cp));
    parallel.zero = static_cast<int>(reader.integer("zero", 0, 3).value_or(parallel.zero));
    if (auto schedule = reader.string("schedule")) parallel.schedule = parse_schedule_kind(*schedule, "parallel.schedule");
    parallel.virtual_stages = static_cast<int>(reader.integer("virtual_stages", 1, 1024).value_or(parallel.virtual_stages));
    parallel.ep = static_cast<int>(reader.integer("ep", 1, 1000000).value_or(parallel.ep));
    parallel.etp = static_cast<int>(reader.integer("etp", 1, 1000000).value_or(parallel.etp));
    if (auto engine = reader.string("zero3_engine")) {
        if (*engine == sharding_engine_name(ShardingEngine::coalesced)) parallel.zero3_engine = ShardingEngine::coalesced;
        else if (*engine == sharding_engine_name(ShardingEngine::deepspeed_0_4)) parallel.zero3_engine = ShardingEngine::deepspeed_0_4;
        else throw InputError(reader.field("zero3_engine"), must_be_one_of("coalesced, deepspeed-0.4", *engine));
    }
    reader.reject_unknown_keys();
}

void read_cluster(Scenario& scenario, const nlohmann::json& object, bool& gpus_given) {
    ClusterSpec& cluster = scenario.cluster;
    JsonObjectReader reader(object, "cluster");
    if (reader.has("gpu")) {
        const nlohmann::json& gpu = reader.raw("gpu");
        if (gpu.is_string()) {
            const GpuSpec* found = builtin_hardware().find_gpu(gpu.get<std::string>());
            if (!found) throw InputError("cluster.gpu", not_in_catalog("GPU", gpu.get<std::string>()));
            set_gpu(cluster, *found);
        } else if (gpu.is_object()) {
            nlohmann::json with_id = gpu;
            if (!with_id.contains("id")) with_id["id"] = "custom";
            set_gpu(cluster, parse_gpu_object(with_id, "cluster.gpu"));
        } else {
            throw InputError("cluster.gpu", "must be a catalog id or a GPU object");
        }
    }
    cluster.gpus_per_node = static_cast<int>(reader.integer("gpus_per_node", 1, 1024).value_or(cluster.gpus_per_node));
    if (auto gpus = reader.integer("gpus", 1, 100000000)) {
        cluster.gpus = static_cast<int>(*gpus);
        gpus_given = true;
    }
    for (const char* key : {"scale_up_link", "scale_out_link"}) {
        if (!reader.has(key)) continue;
        const nlohmann::json& link = reader.raw(key);
        LinkSpec parsed;
        if (link.is_string()) parsed = link_or_throw(link.get<std::string>().c_str(), reader.field(key).c_str());
        else if (link.is_object()) {
            nlohmann::json with_id = link;
            if (!with_id.contains("id")) with_id["id"] = "custom";
            parsed = parse_link_object(with_id, reader.field(key));
        } else throw InputError(reader.field(key), "must be a catalog id or a link object");
        (std::string(key) == "scale_up_link" ? cluster.scale_up : cluster.scale_out) = parsed;
    }
    if (reader.has("fabric")) {
        const nlohmann::json& fabric = reader.raw("fabric");
        if (fabric.is_string()) {
            const FabricSpec* found = builtin_hardware().find_fabric(fabric.get<std::string>());
            if (!found) throw InputError("cluster.fabric", not_in_catalog("fabric", fabric.get<std::string>()));
            cluster.fabric = *found;
        } else if (fabric.is_object()) {
            cluster.fabric = parse_fabric_object(fabric, "cluster.fabric");
        } else {
            throw InputError("cluster.fabric", "must be a catalog id or a fabric object");
        }
    }
    cluster.straggler_share = reader.number("straggler_share", 0, 1).value_or(cluster.straggler_share);
    cluster.straggler_slowdown = reader.number("straggler_slowdown", 0, ClusterSpec::kMaxStragglerSlowdown).value_or(cluster.straggler_slowdown);
    reader.reject_unknown_keys();
}

void read_efficiency(EfficiencySpec& efficiency, const nlohmann::json& object) {
    JsonObjectReader reader(object, "efficiency");
    if (auto mfu = reader.number("mfu", 1e-6, 1.0)) efficiency.mfu = *mfu;
    if (auto step = reader.number("step_seconds", 1e-9, 1e9)) efficiency.step_seconds = *step;
    if (efficiency.mfu && efficiency.step_seconds) throw InputError("efficiency", "give mfu or step_seconds, not both");
    reader.reject_unknown_keys();
}

void read_overlap(OverlapSpec& overlap, const nlohmann::json& object) {
    JsonObjectReader reader(object, "overlap");
    overlap.dp_grad_reduce = reader.boolean("dp_grad_reduce").value_or(overlap.dp_grad_reduce);
    overlap.dp_param_gather = reader.boolean("dp_param_gather").value_or(overlap.dp_param_gather);
    overlap.zero3_prefetch = reader.boolean("zero3_prefetch").value_or(overlap.zero3_prefetch);
    overlap.tp_comm = reader.boolean("tp_comm").value_or(overlap.tp_comm);
    overlap.cp_ring = reader.boolean("cp_ring").value_or(overlap.cp_ring);
    overlap.pp_p2p = reader.boolean("pp_p2p").value_or(overlap.pp_p2p);
    overlap.ep_all_to_all = reader.boolean("ep_all_to_all").value_or(overlap.ep_all_to_all);
    reader.reject_unknown_keys();
}

void read_moe(MoeSpec& moe, const nlohmann::json& object) {
    JsonObjectReader reader(object, "moe");
    moe.load_imbalance = reader.number("load_imbalance", 1, MoeSpec::max_load_factor).value_or(moe.load_imbalance);
    if (auto capacity = reader.number("capacity_factor", 0, MoeSpec::max_load_factor)) {
        if (*capacity > 0 && *capacity < 1) throw InputError("moe.capacity_factor", "must be 0 (no capacity) or >= 1, got " + format_number(*capacity));
        moe.capacity_factor = *capacity;
    }
    moe.node_limit = static_cast<int>(reader.integer("node_limit", 0, 1000000).value_or(moe.node_limit));
    moe.dispatch_bytes = reader.number("dispatch_bytes", 0.5, 4).value_or(moe.dispatch_bytes);
    reader.reject_unknown_keys();
}

// A serving precision by name ("bf16") or by bytes per element (the older key); validate_serving holds the bytes to the
// precisions serving kernels exist for.
double read_serving_bytes(JsonObjectReader& reader, const char* name_key, const char* bytes_key, double current, bool int4_allowed) {
    if (reader.has(name_key) && reader.has(bytes_key)) throw InputError(reader.field(name_key), std::string("give ") + name_key + " or " + bytes_key + ", not both");
    if (auto name = reader.string(name_key)) {
        if (*name == "fp32") return 4;
        if (*name == "bf16") return 2;
        if (*name == "fp8") return 1;
        if (*name == "int4" && int4_allowed) return 0.5;
        throw InputError(reader.field(name_key), std::string("must be ") + (int4_allowed ? "bf16, fp8, int4 or fp32" : "bf16, fp8 or fp32") + ", got \"" + *name + "\"");
    }
    return reader.number(bytes_key, 0.125, 8).value_or(current);
}

void read_serving(ServingSpec& serving, const nlohmann::json& object) {
    JsonObjectReader reader(object, "serving");
    serving.asked = true;
    serving.target_qps = reader.number("target_qps", 1e-6, 1e9).value_or(serving.target_qps);
    serving.prompt_tokens = static_cast<int>(reader.integer("prompt_tokens", 1, 100000000).value_or(serving.prompt_tokens));
    serving.output_tokens = static_cast<int>(reader.integer("output_tokens", 1, 100000000).value_or(serving.output_tokens));
    serving.ttft_ms = reader.number("ttft_ms", 1e-3, 1e9).value_or(serving.ttft_ms);
    serving.tpot_ms = reader.number("tpot_ms", 1e-3, 1e9).value_or(serving.tpot_ms);
    serving.weight_bytes_per_param = read_serving_bytes(reader, "weight_precision", "weight_bytes_per_param", serving.weight_bytes_per_param, true);
    serving.kv_bytes_per_element = read_serving_bytes(reader, "kv_precision", "kv_bytes_per_element", serving.kv_bytes_per_element, false);
    if (auto runtime = reader.string("runtime")) {
        if (*runtime == "engine") serving.runtime = ServingRuntime::engine;
        else if (*runtime == "pytorch") serving.runtime = ServingRuntime::pytorch;
        else throw InputError("serving.runtime", "must be engine or pytorch, got \"" + *runtime + "\"");
    }
    serving.cuda_graphs = reader.boolean("cuda_graphs").value_or(serving.cuda_graphs);
    serving.max_batch = static_cast<int>(reader.integer("max_batch", 1, 1000000).value_or(serving.max_batch));
    serving.prefill_chunk_tokens = static_cast<int>(reader.integer("prefill_chunk_tokens", 1, 100000000).value_or(serving.prefill_chunk_tokens));
    serving.reserve_output_kv = reader.boolean("reserve_output_kv").value_or(serving.reserve_output_kv);
    serving.memory_utilization = reader.number("memory_utilization", 0.01, 1).value_or(serving.memory_utilization);
    serving.gpus = static_cast<int>(reader.integer("gpus", 0, 100000000).value_or(serving.gpus));
    serving.batch = static_cast<int>(reader.integer("batch", 1, 1000000).value_or(serving.batch));
    serving.context_tokens = static_cast<int>(reader.integer("context_tokens", 1, 100000000).value_or(serving.context_tokens));
    reader.reject_unknown_keys();
    validate_serving(serving);
}

PriceBasis parse_price_basis(const std::string& text, const std::string& field) {
    for (PriceBasis basis : {PriceBasis::on_demand, PriceBasis::spot, PriceBasis::custom}) {
        if (text == price_basis_name(basis)) return basis;
    }
    throw InputError(field, "must be on-demand, spot or custom, got \"" + text + "\"");
}

void read_budget(BudgetSpec& budget, const nlohmann::json& object) {
    JsonObjectReader reader(object, "budget");
    if (auto price = reader.string("price")) budget.price = parse_price_basis(*price, "budget.price");
    budget.setup_hours = reader.number("setup_hours", 0, 1e5).value_or(budget.setup_hours);
    if (auto dollars = reader.number("dollars", 0, 1e12)) budget.budget_dollars = *dollars;
    reader.reject_unknown_keys();
}

// The price paid: the scenario's own (operations.dollars_per_gpu_hour, a custom basis) or its GPU's catalog figure.
void settle_price(Scenario& scenario, bool dollars_given, bool basis_given) {
    if (dollars_given && basis_given && scenario.budget.price != PriceBasis::custom) {
        throw InputError("operations.dollars_per_gpu_hour", std::string("budget.price is ") + price_basis_name(scenario.budget.price) +
                                                                ", so the catalog sets the price: give budget.price \"custom\" with your own");
    }
    if (dollars_given) scenario.budget.price = PriceBasis::custom;
    apply_price_basis(scenario);
}

void read_operations(OperationsSpec& operations, const nlohmann::json& object) {
    JsonObjectReader reader(object, "operations");
    operations.gpu_mtbf_hours = reader.number("gpu_mtbf_hours", 1e-3, 1e12).value_or(operations.gpu_mtbf_hours);
    operations.checkpoint_bytes_per_s = reader.number("checkpoint_bytes_per_s", 1e3, 1e16).value_or(operations.checkpoint_bytes_per_s);
    operations.restart_seconds = reader.number("restart_seconds", 0, 1e9).value_or(operations.restart_seconds);
    if (reader.has("failures")) {
        const nlohmann::json& failures = reader.raw("failures");
        if (failures.is_string()) {
            const FailureTable* found = find_failure_table(failures.get<std::string>());
            if (!found) throw InputError("operations.failures", not_in_catalog("failure table", failures.get<std::string>()));
            operations.failures = *found;
        } else {
            operations.failures = parse_failure_table(failures, "operations.failures");
        }
    }
    if (auto mode = reader.string("checkpoint_mode")) {
        bool known = false;
        for (CheckpointMode candidate : {CheckpointMode::sync, CheckpointMode::async, CheckpointMode::in_memory}) {
            if (*mode == checkpoint_mode_name(candidate)) operations.checkpoint_mode = candidate, known = true;
        }
        if (!known) throw InputError("operations.checkpoint_mode", must_be_one_of("sync, async, in-memory", *mode));
    }
    operations.checkpoint_interval_seconds = reader.number("checkpoint_interval_seconds", 0, 1e9).value_or(operations.checkpoint_interval_seconds);
    operations.host_copy_bytes_per_s = reader.number("host_copy_bytes_per_s", 1e6, 1e14).value_or(operations.host_copy_bytes_per_s);
    if (reader.has("spare_nodes")) {
        const nlohmann::json& spares = reader.raw("spare_nodes");
        if (spares.is_string() && spares.get<std::string>() == "pool") {
            operations.spare_nodes.reset();
        } else if (spares.is_number_integer() && spares.get<long long>() >= 0 && spares.get<long long>() <= 100000) {
            operations.spare_nodes = static_cast<int>(spares.get<long long>());
        } else {
            throw InputError("operations.spare_nodes", "must be a whole number of nodes from 0 to 100000, or \"pool\"");
        }
    }
    operations.node_repair_hours = reader.number("node_repair_hours", 0, 1e6).value_or(operations.node_repair_hours);
    operations.elastic = reader.boolean("elastic").value_or(operations.elastic);
    operations.window_days = reader.number("window_days", 0, 1e5).value_or(operations.window_days);
    operations.run_seed = static_cast<int>(reader.integer("run_seed", 1, 1000000000).value_or(operations.run_seed));
    operations.dollars_per_gpu_hour = reader.number("dollars_per_gpu_hour", 0, 1e6).value_or(operations.dollars_per_gpu_hour);
    reader.reject_unknown_keys();
}

void read_memory(MemorySpec& memory, const nlohmann::json& object) {
    JsonObjectReader reader(object, "memory");
    memory.workspace_bytes = reader.number("workspace_bytes", 0, 1e12).value_or(memory.workspace_bytes);
    memory.nccl_bytes_per_group = reader.number("nccl_bytes_per_group", 0, 1e12).value_or(memory.nccl_bytes_per_group);
    memory.fragmentation = reader.number("fragmentation", 0, 1).value_or(memory.fragmentation);
    reader.reject_unknown_keys();
}

// The finetune section: the method first (it sets base_bytes' default), then each field over it.
void read_finetune(FinetuneSpec& finetune, const nlohmann::json& object) {
    JsonObjectReader reader(object, "finetune");
    if (auto method = reader.string("method")) {
        if (!finetune_method_from_name(*method, finetune.method)) throw InputError("finetune.method", "must be full, lora or qlora, got \"" + *method + "\"");
        finetune.base_bytes = default_base_bytes(finetune.method);
    }
    // Out of range values are read as given and refused by validate_finetune, which names the rule.
    if (auto rank = reader.integer("rank", -1000000000, 1000000000)) finetune.rank = static_cast<int>(*rank);
    if (auto alpha = reader.number("alpha", -1e12, 1e12)) finetune.alpha = *alpha;
    if (auto dropout = reader.number("dropout", -1e12, 1e12)) finetune.dropout = *dropout;
    if (reader.has("targets")) {
        const nlohmann::json& targets = reader.raw("targets");
        const std::string targets_reason = "must be \"attention\", \"all-linear\" or a list of module names";
        if (targets.is_string()) {
            const std::string name = targets.get<std::string>();
            if (name == "attention") finetune.targets = LoraTargets::attention;
            else if (name == "all-linear") finetune.targets = LoraTargets::all_linear;
            else throw InputError("finetune.targets", targets_reason + ", got \"" + name + "\"");
            finetune.target_modules.clear();
        } else if (targets.is_array()) {
            if (targets.empty() || targets.size() > 64) throw InputError("finetune.targets", "a list of 1 to 64 module names");
            finetune.targets = LoraTargets::modules;
            finetune.target_modules.clear();
            for (const nlohmann::json& name : targets) {
                if (!name.is_string() || name.get<std::string>().empty() || name.get<std::string>().size() > 200) {
                    throw InputError("finetune.targets", "each module name is a string of 1 to 200 characters");
                }
                finetune.target_modules.push_back(name.get<std::string>());
            }
        } else {
            throw InputError("finetune.targets", targets_reason);
        }
    }
    finetune.base_bytes = reader.number("base_bytes", -1e12, 1e12).value_or(finetune.base_bytes);
    finetune.double_quant = reader.boolean("double_quant").value_or(finetune.double_quant);
    if (auto dtype = reader.string("adapter_dtype")) {
        if (*dtype == "fp32") finetune.adapter_dtype = AdapterDtype::fp32;
        else if (*dtype == "bf16") finetune.adapter_dtype = AdapterDtype::bf16;
        else throw InputError("finetune.adapter_dtype", "must be fp32 or bf16, got \"" + *dtype + "\"");
    }
    reader.reject_unknown_keys();
}

nlohmann::json finetune_targets_json(const FinetuneSpec& finetune) {
    switch (finetune.targets) {
        case LoraTargets::peft_default: return nullptr;
        case LoraTargets::attention: return "attention";
        case LoraTargets::all_linear: return "all-linear";
        case LoraTargets::modules: return finetune.target_modules;
    }
    return nullptr;
}

nlohmann::json model_json(const ModelSpec& model) {
    if (model.is_bare_count()) {
        nlohmann::json json = {{"params", model.params_override}};
        if (model.name != synthesize_shape(model.params_override).name) json["name"] = model.name;
        return json;
    }
    if (const ModelSpec* preset = find_model(model.id); preset && same_model_shape(*preset, model)) {
        nlohmann::json json = {{"preset", model.id}};
        if (model.name != preset->name) json["name"] = model.name;
        return json;
    }
    nlohmann::json json = {{"name", model.name}, {"layers", model.layers}, {"hidden", model.hidden}, {"heads", model.heads},
                           {"kv_heads", model.kv_heads}, {"ffn_hidden", model.ffn_hidden}, {"vocab", model.vocab},
                           {"gated_mlp", model.gated_mlp}, {"tied_embeddings", model.tied_embeddings},
                           {"learned_positions", model.learned_positions}, {"positions", model.positions}, {"bias", model.bias}};
    // Experts, latent attention and an explicit head width only where the model has them, so dense files stay as they were.
    const std::pair<const char*, int> optional_fields[] = {
        {"experts", model.experts}, {"experts_per_token", model.experts_per_token}, {"expert_ffn_hidden", model.expert_ffn_hidden},
        {"shared_experts", model.shared_experts}, {"shared_ffn_hidden", model.shared_ffn_hidden},
        {"first_dense_layers", model.first_dense_layers}, {"q_lora_rank", model.q_lora_rank}, {"kv_lora_rank", model.kv_lora_rank},
        {"qk_nope_head_dim", model.qk_nope_head_dim}, {"qk_rope_head_dim", model.qk_rope_head_dim}, {"v_head_dim", model.v_head_dim},
        {"head_dim", model.explicit_head_dim}};
    for (const auto& [key, value] : optional_fields) if (value != 0) json[key] = value;
    if (model.moe_layer_step != 1) json["moe_layer_step"] = model.moe_layer_step;
    return json;
}

nlohmann::json precision_json(const PrecisionRecipe& recipe) {
    if (const PrecisionRecipe* builtin = find_recipe(recipe.id)) {
        if (builtin->bytes_per_param() == recipe.bytes_per_param()) return {{"recipe", recipe.id}};
    }
    return {{"weight_bytes", recipe.bytes_per_param(StateKind::weights)}, {"grad_bytes", recipe.bytes_per_param(StateKind::grads)},
            {"master_bytes", recipe.bytes_per_param(StateKind::master)}, {"optimizer_bytes", recipe.bytes_per_param(StateKind::optimizer)}};
}

nlohmann::json gpu_json(const GpuSpec& gpu) {
    if (const GpuSpec* builtin = builtin_hardware().find_gpu(gpu.id); builtin && *builtin == gpu) return gpu.id;
    nlohmann::json json = {{"id", gpu.id}, {"name", gpu.name}, {"hbm_bytes", gpu.hbm_bytes}, {"hbm_bytes_per_s", gpu.hbm_bytes_per_s},
            {"fp32_flops_per_s", gpu.fp32_flops_per_s}, {"bf16_flops_per_s", gpu.bf16_flops_per_s},
            {"fp8_flops_per_s", gpu.fp8_flops_per_s}, {"scale_up_link", gpu.scale_up_link}};
    if (gpu.multiprocessors > 0) json["multiprocessors"] = gpu.multiprocessors;
    if (!gpu.scale_out_link.empty()) json["scale_out_link"] = gpu.scale_out_link;
    if (!gpu.fabric.empty()) json["fabric"] = gpu.fabric;
    if (gpu.price.on_demand_dollars_per_hour > 0 || gpu.price.spot_dollars_per_hour > 0) {
        json["price"] = {{"on_demand_dollars_per_hour", gpu.price.on_demand_dollars_per_hour},
                         {"spot_dollars_per_hour", gpu.price.spot_dollars_per_hour}, {"date", gpu.price.date}, {"source", gpu.price.source}};
    }
    return json;
}

nlohmann::json fabric_json(const FabricSpec& fabric) {
    if (const FabricSpec* builtin = builtin_hardware().find_fabric(fabric.id); builtin && *builtin == fabric) return fabric.id;
    return {{"id", fabric.id}, {"name", fabric.name}, {"rails", fabric.rails}, {"nic_bytes_per_s", fabric.nic_bytes_per_s},
            {"leaf_gpus", fabric.leaf_gpus}, {"oversubscription", fabric.oversubscription}, {"pod_gpus", fabric.pod_gpus},
            {"cross_pod_oversubscription", fabric.cross_pod_oversubscription}, {"source", fabric.source}};
}

nlohmann::json link_json(const LinkSpec& link) {
    if (const LinkSpec* builtin = builtin_hardware().find_link(link.id); builtin && *builtin == link) return link.id;
    return {{"id", link.id}, {"name", link.name}, {"bytes_per_s", link.bytes_per_s}, {"latency_seconds", link.latency_seconds}};
}

}  // namespace

nlohmann::json scenario_fields_json(const Scenario& s) {
    nlohmann::json json;
    json["model"] = model_json(s.model);
    json["train"] = {{"seq_len", s.train.seq_len}, {"micro_batch", s.train.micro_batch}, {"global_batch", s.train.global_batch},
                     {"tokens", s.train.tokens}, {"recompute", recompute_name(s.train.recompute)},
                     {"sequence_parallel", s.train.sequence_parallel}, {"attention", attention_impl_name(s.train.attention)}, {"dropout", s.train.dropout}, {"gradient_accumulation_fusion", s.train.gradient_accumulation_fusion},
                     {"embedding_and_loss_as_layers", s.train.embedding_and_loss_as_layers},
                     {"deadline_days", s.train.deadline_days}, {"framework", framework_name(s.train.framework)},
                     {"compile", s.train.compile}, {"zero_grad_set_to_none", s.train.zero_grad_set_to_none}};
    json["precision"] = precision_json(s.precision);
    json["parallel"] = {{"dp", data_parallel_degree(s)}, {"tp", s.parallel.tp}, {"pp", s.parallel.pp}, {"cp", s.parallel.cp},
                        {"zero", s.parallel.zero}, {"schedule", schedule_name(s.parallel.schedule)},
                        {"virtual_stages", s.parallel.virtual_stages}, {"ep", s.parallel.ep}, {"etp", s.parallel.etp},
                        {"zero3_engine", sharding_engine_name(s.parallel.zero3_engine)}};
    json["cluster"] = {{"gpu", gpu_json(s.cluster.gpu)}, {"gpus_per_node", s.cluster.gpus_per_node}, {"gpus", s.cluster.gpus},
                       {"scale_up_link", link_json(s.cluster.scale_up)}, {"scale_out_link", link_json(s.cluster.scale_out)},
                       {"fabric", fabric_json(s.cluster.fabric)}, {"straggler_share", s.cluster.straggler_share},
                       {"straggler_slowdown", s.cluster.straggler_slowdown}};
    nlohmann::json efficiency = nlohmann::json::object();
    if (s.efficiency.mfu) efficiency["mfu"] = *s.efficiency.mfu;
    if (s.efficiency.step_seconds) efficiency["step_seconds"] = *s.efficiency.step_seconds;
    json["efficiency"] = efficiency;
    json["overlap"] = {{"dp_grad_reduce", s.overlap.dp_grad_reduce}, {"dp_param_gather", s.overlap.dp_param_gather},
                       {"zero3_prefetch", s.overlap.zero3_prefetch}, {"tp_comm", s.overlap.tp_comm}, {"cp_ring", s.overlap.cp_ring},
                       {"pp_p2p", s.overlap.pp_p2p}, {"ep_all_to_all", s.overlap.ep_all_to_all}};
    json["serving"] = {{"target_qps", s.serving.target_qps}, {"prompt_tokens", s.serving.prompt_tokens}, {"output_tokens", s.serving.output_tokens},
                       {"ttft_ms", s.serving.ttft_ms}, {"tpot_ms", s.serving.tpot_ms}, {"weight_bytes_per_param", s.serving.weight_bytes_per_param},
                       {"kv_bytes_per_element", s.serving.kv_bytes_per_element}, {"runtime", serving_runtime_name(s.serving.runtime)},
                       {"cuda_graphs", s.serving.cuda_graphs}, {"max_batch", s.serving.max_batch},
                       {"prefill_chunk_tokens", s.serving.prefill_chunk_tokens}, {"reserve_output_kv", s.serving.reserve_output_kv},
                       {"memory_utilization", s.serving.memory_utilization}, {"gpus", s.serving.gpus}, {"batch", s.serving.batch},
                       {"context_tokens", s.serving.context_tokens}};
    json["operations"] = {{"gpu_mtbf_hours", s.operations.gpu_mtbf_hours}, {"checkpoint_bytes_per_s", s.operations.checkpoint_bytes_per_s},
                          {"restart_seconds", s.operations.restart_seconds},
                          {"checkpoint_mode", checkpoint_mode_name(s.operations.checkpoint_mode)},
                          {"checkpoint_interval_seconds", s.operations.checkpoint_interval_seconds},
                          {"host_copy_bytes_per_s", s.operations.host_copy_bytes_per_s},
                          {"node_repair_hours", s.operations.node_repair_hours}, {"elastic", s.operations.elastic},
                          {"window_days", s.operations.window_days}, {"run_seed", s.operations.run_seed}};
    if (s.operations.failures) json["operations"]["failures"] = failure_table_json(*s.operations.failures);
    if (s.operations.spare_nodes) json["operations"]["spare_nodes"] = *s.operations.spare_nodes;
    // A catalog basis writes no price: reading the file takes it from the catalog again.
    if (s.budget.price == PriceBasis::custom) json["operations"]["dollars_per_gpu_hour"] = s.operations.dollars_per_gpu_hour;
    json["budget"] = {{"price", price_basis_name(s.budget.price)}, {"setup_hours", s.budget.setup_hours}};
    if (s.budget.budget_dollars) json["budget"]["dollars"] = *s.budget.budget_dollars;
    json["memory"] = {{"workspace_bytes", s.memory.workspace_bytes}, {"nccl_bytes_per_group", s.memory.nccl_bytes_per_group},
                      {"fragmentation", s.memory.fragmentation}};
    json["moe"] = {{"load_imbalance", s.moe.load_imbalance}, {"capacity_factor", s.moe.capacity_factor}, {"node_limit", s.moe.node_limit},
                   {"dispatch_bytes", s.moe.dispatch_bytes}};
    const FinetuneSpec& finetune = s.finetune;
    // base_bytes is written whenever the method's own default differs from the written one, so a file reads back the same.
    json["finetune"] = {{"method", finetune_method_name(finetune.method)}, {"rank", finetune.rank}, {"alpha", finetune.alpha}, {"dropout", finetune.dropout},
                        {"base_bytes", finetune.base_bytes}, {"double_quant", finetune.double_quant},
                        {"adapter_dtype", adapter_dtype_name(finetune.adapter_dtype)}};
    if (finetune.targets != LoraTargets::peft_default) json["finetune"]["targets"] = finetune_targets_json(finetune);
    return json;
}

Scenario parse_scenario(std::string_view json_text, TextLoader hf_config_loader, ScenarioUse use) {
    const nlohmann::json root = parse_json_text(json_text, "scenario");
    JsonObjectReader reader(root, "");
    Scenario scenario = default_scenario();
    bool gpus_given = false;
    if (reader.has("model")) read_model(scenario, reader.raw("model"), hf_config_loader);
    if (reader.has("train")) read_train(scenario.train, reader.raw("train"));
    if (reader.has("precision")) read_precision(scenario.precision, reader.raw("precision"));
    if (reader.has("parallel")) read_parallel(scenario.parallel, reader.raw("parallel"));
    if (reader.has("cluster")) read_cluster(scenario, reader.raw("cluster"), gpus_given);
    if (reader.has("efficiency")) read_efficiency(scenario.efficiency, reader.raw("efficiency"));
    if (reader.has("overlap")) read_overlap(scenario.overlap, reader.raw("overlap"));
    if (reader.has("serving")) read_serving(scenario.serving, reader.raw("serving"));
    if (reader.has("operations")) read_operations(scenario.operations, reader.raw("operations"));
    if (reader.has("moe")) read_moe(scenario.moe, reader.raw("moe"));
    if (reader.has("memory")) read_memory(scenario.memory, reader.raw("memory"));
    const bool basis_given = reader.has("budget") && reader.raw("budget").is_object() && reader.raw("budget").contains("price");
    if (reader.has("budget")) read_budget(scenario.budget, reader.raw("budget"));
    if (reader.has("finetune")) read_finetune(scenario.finetune, reader.raw("finetune"));
    reader.reject_unknown_keys();
    const bool dollars_given = reader.has("operations") && reader.raw("operations").contains("dollars_per_gpu_hour");
    settle_price(scenario, dollars_given, basis_given);
    // An explicit dp without a GPU count sizes the cluster; the default 64 GPUs only apply when neither is given.
    const ParallelSpec& parallel = scenario.parallel;
    if (!gpus_given && parallel.dp > 0) {
        const double product = 1.0 * parallel.dp * parallel.tp * parallel.pp * parallel.cp;
        if (product > 1e8) throw InputError("parallel.dp", "dp x tp x pp x cp is more than 100,000,000 GPUs");
        scenario.cluster.gpus = static_cast<int>(product);
    }
    validate_fabric(scenario.cluster);
    if (use == ScenarioUse::plan) {
        scenario.parallel = ParallelSpec{};  // the planner's search replaces it; an explicit batch stays as given
        validate_model_shape(scenario.model, "model");
        validate_finetune(scenario);
        return scenario;
    }
    const bool batch_given = root.contains("train") && root["train"].is_object() && root["train"].contains("global_batch");
    if (const int fitted = fitted_global_batch(scenario); !batch_given && fitted > 0 && fitted != scenario.train.global_batch) {
        scenario.train.global_batch = fitted;
        scenario.train.global_batch_fitted = true;
    }
    validate_scenario(scenario);
    return scenario;
}

std::string scenario_to_json(const Scenario& scenario) {
    const nlohmann::json current = scenario_fields_json(scenario);
    const nlohmann::json defaults = scenario_fields_json(default_scenario());
    nlohmann::json out = nlohmann::json::object();
    for (auto section = current.begin(); section != current.end(); ++section) {
        const nlohmann::json& base = defaults.at(section.key());
        if (section.key() == "model" || section.key() == "precision") {
            if (*section != base) out[section.key()] = *section;  // written whole: their forms exclude each other
            continue;
        }
        // A scenario that asks about no service is written without one (so it reads back asking none); one that asks
        // about the default service writes an empty section.
        if (section.key() == "serving") {
            if (!scenario.serving.asked) continue;
            out["serving"] = nlohmann::json::object();
        }
        for (auto field = section->begin(); field != section->end(); ++field) {
            if (!base.contains(field.key()) || base.at(field.key()) != *field) out[section.key()][field.key()] = *field;
        }
    }
    // A file without a scale-up link, scale-out link or fabric gets its GPU's own (set_gpu), not the default scenario's:
    // compare with that one, or an A100 on NVLink 4 would be read back on the A100's NVLink 3.
    const GpuSpec& gpu = scenario.cluster.gpu;
    const std::pair<const char*, nlohmann::json> own_network[] = {{"scale_up_link", link_json(scale_up_link_of(gpu))},
                                                                  {"scale_out_link", link_json(scale_out_link_of(gpu))},
                                                                  {"fabric", fabric_json(fabric_of(gpu))}};
    for (const auto& [key, own] : own_network) {
        const nlohmann::json& written = current.at("cluster").at(key);
        if (written != own) {
            out["cluster"][key] = written;
        } else if (out.contains("cluster")) {
            out["cluster"].erase(key);
            if (out["cluster"].empty()) out.erase("cluster");
        }
    }
    // base_bytes follows the method when a file leaves it out: write it whenever it is not the written method's own.
    if (out.contains("finetune")) {
        if (scenario.finetune.base_bytes != default_base_bytes(scenario.finetune.method)) out["finetune"]["base_bytes"] = scenario.finetune.base_bytes;
        else out["finetune"].erase("base_bytes");
        if (out["finetune"].empty()) out.erase("finetune");
    }
    // A fitted batch is not written: read back, the file fits it again (and the report notes it again).
    if (scenario.train.global_batch_fitted && out.contains("train")) {
        out["train"].erase("global_batch");
        if (out["train"].empty()) out.erase("train");
    }
    // The GPU count decides the cluster: keep it whenever the layout is written, so dp stays consistent.
    if (out.contains("parallel") && !out.contains("cluster")) out["cluster"]["gpus"] = scenario.cluster.gpus;
    return out.dump(2) + "\n";
}

}  // namespace core
