// Writing a scenario back as JSON: only what differs from the defaults, in the same shape parse_scenario reads.
#include "core/scenario.h"

#include <nlohmann/json.hpp>

namespace core {
namespace {

bool same_model_shape(const ModelSpec& a, const ModelSpec& b) {
    return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads && a.kv_heads == b.kv_heads &&
           a.ffn_hidden == b.ffn_hidden && a.vocab == b.vocab && a.gated_mlp == b.gated_mlp &&
           a.tied_embeddings == b.tied_embeddings && a.learned_positions == b.learned_positions &&
           a.positions == b.positions && a.bias == b.bias && a.params_override == b.params_override;
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
    return {{"name", model.name}, {"layers", model.layers}, {"hidden", model.hidden}, {"heads", model.heads},
            {"kv_heads", model.kv_heads}, {"ffn_hidden", model.ffn_hidden}, {"vocab", model.vocab},
            {"gated_mlp", model.gated_mlp}, {"tied_embeddings", model.tied_embeddings},
            {"learned_positions", model.learned_positions}, {"positions", model.positions}, {"bias", model.bias}};
}

nlohmann::json precision_json(const PrecisionRecipe& recipe) {
    if (const PrecisionRecipe* builtin = find_recipe(recipe.id)) {
        if (builtin->bytes_per_param() == recipe.bytes_per_param()) return {{"recipe", recipe.id}};
    }
    return {{"weight_bytes", recipe.bytes_per_param(StateKind::weights)}, {"grad_bytes", recipe.bytes_per_param(StateKind::grads)},
            {"master_bytes", recipe.bytes_per_param(StateKind::master)}, {"optimizer_bytes", recipe.bytes_per_param(StateKind::optimizer)}};
}

nlohmann::json gpu_json(const GpuSpec& gpu) {
    const GpuSpec* builtin = builtin_hardware().find_gpu(gpu.id);
    if (builtin && builtin->hbm_bytes == gpu.hbm_bytes && builtin->hbm_bytes_per_s == gpu.hbm_bytes_per_s &&
        builtin->bf16_flops_per_s == gpu.bf16_flops_per_s && builtin->fp32_flops_per_s == gpu.fp32_flops_per_s &&
        builtin->fp8_flops_per_s == gpu.fp8_flops_per_s && builtin->scale_up_link == gpu.scale_up_link) {
        return gpu.id;
    }
    return {{"id", gpu.id}, {"name", gpu.name}, {"hbm_bytes", gpu.hbm_bytes}, {"hbm_bytes_per_s", gpu.hbm_bytes_per_s},
            {"fp32_flops_per_s", gpu.fp32_flops_per_s}, {"bf16_flops_per_s", gpu.bf16_flops_per_s},
            {"fp8_flops_per_s", gpu.fp8_flops_per_s}, {"scale_up_link", gpu.scale_up_link}};
}

nlohmann::json link_json(const LinkSpec& link) {
    const LinkSpec* builtin = builtin_hardware().find_link(link.id);
    if (builtin && builtin->bytes_per_s == link.bytes_per_s && builtin->latency_seconds == link.latency_seconds) return link.id;
    return {{"id", link.id}, {"name", link.name}, {"bytes_per_s", link.bytes_per_s}, {"latency_seconds", link.latency_seconds}};
}

nlohmann::json full_json(const Scenario& s) {
    nlohmann::json json;
    json["model"] = model_json(s.model);
    json["train"] = {{"seq_len", s.train.seq_len}, {"micro_batch", s.train.micro_batch}, {"global_batch", s.train.global_batch},
                     {"tokens", s.train.tokens}, {"recompute", recompute_name(s.train.recompute)},
                     {"sequence_parallel", s.train.sequence_parallel}, {"flash_attention", s.train.flash_attention},
                     {"deadline_days", s.train.deadline_days}};
    json["precision"] = precision_json(s.precision);
    json["parallel"] = {{"dp", data_parallel_degree(s)}, {"tp", s.parallel.tp}, {"pp", s.parallel.pp}, {"cp", s.parallel.cp},
                        {"zero", s.parallel.zero}, {"schedule", schedule_name(s.parallel.schedule)},
                        {"virtual_stages", s.parallel.virtual_stages}};
    json["cluster"] = {{"gpu", gpu_json(s.cluster.gpu)}, {"gpus_per_node", s.cluster.gpus_per_node}, {"gpus", s.cluster.gpus},
                       {"scale_up_link", link_json(s.cluster.scale_up)}, {"scale_out_link", link_json(s.cluster.scale_out)}};
    nlohmann::json efficiency = {{"compute_efficiency", s.efficiency.compute_efficiency}, {"overlap_dp_comm", s.efficiency.overlap_dp_comm}};
    if (s.efficiency.mfu) efficiency["mfu"] = *s.efficiency.mfu;
    if (s.efficiency.step_seconds) efficiency["step_seconds"] = *s.efficiency.step_seconds;
    json["efficiency"] = efficiency;
    json["serving"] = {{"batch", s.serving.batch}, {"context_tokens", s.serving.context_tokens}, {"target_qps", s.serving.target_qps},
                       {"output_tokens", s.serving.output_tokens}, {"weight_bytes_per_param", s.serving.weight_bytes_per_param},
                       {"kv_bytes_per_element", s.serving.kv_bytes_per_element}};
    json["operations"] = {{"gpu_mtbf_hours", s.operations.gpu_mtbf_hours}, {"checkpoint_bytes_per_s", s.operations.checkpoint_bytes_per_s},
                          {"restart_seconds", s.operations.restart_seconds}, {"dollars_per_gpu_hour", s.operations.dollars_per_gpu_hour}};
    return json;
}

}  // namespace

std::string scenario_to_json(const Scenario& scenario) {
    const nlohmann::json current = full_json(scenario);
    const nlohmann::json defaults = full_json(default_scenario());
    nlohmann::json out = nlohmann::json::object();
    for (auto section = current.begin(); section != current.end(); ++section) {
        const nlohmann::json& base = defaults.at(section.key());
        if (section.key() == "model" || section.key() == "precision") {
            if (*section != base) out[section.key()] = *section;  // written whole: their forms exclude each other
            continue;
        }
        for (auto field = section->begin(); field != section->end(); ++field) {
            if (!base.contains(field.key()) || base.at(field.key()) != *field) out[section.key()][field.key()] = *field;
        }
    }
    // The GPU count decides the cluster: keep it whenever the layout is written, so dp stays consistent.
    if (out.contains("parallel") && !out.contains("cluster")) out["cluster"]["gpus"] = scenario.cluster.gpus;
    return out.dump(2) + "\n";
}

}  // namespace core
