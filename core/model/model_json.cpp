// Models as JSON: preset files, the model fields of a scenario, and Hugging Face config.json files.
#include "core/model/model_json.h"
#include "core/model/scenario.h"

#include "core/model/errors.h"
#include "core/model/format.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace core {

namespace {

// Each model field's range, once: the scenario's model keys and the Hugging Face keys read into them are held to it.
struct ModelFieldRange {
    const char* key;
    long long min_value;
    long long max_value;
};
constexpr ModelFieldRange kModelFieldRanges[] = {
    {"layers", 1, 100000},           {"hidden", 1, 10000000},           {"heads", 1, 100000},
    {"kv_heads", 1, 100000},         {"ffn_hidden", 1, 100000000},      {"vocab", 1, 100000000},
    {"positions", 0, 100000000},     {"default_seq_len", 1, 100000000}, {"experts", 0, 100000},
    {"experts_per_token", 0, 100000}, {"expert_ffn_hidden", 0, 100000000}, {"shared_experts", 0, 1000},
    {"shared_ffn_hidden", 0, 100000000}, {"first_dense_layers", 0, 100000}, {"moe_layer_step", 1, 100000},
    {"q_lora_rank", 0, 10000000},    {"kv_lora_rank", 0, 10000000},     {"qk_nope_head_dim", 0, 100000},
    {"qk_rope_head_dim", 0, 100000}, {"v_head_dim", 0, 100000},         {"head_dim", 0, 100000},
};

const ModelFieldRange& range_of(std::string_view key) {
    for (const ModelFieldRange& range : kModelFieldRanges) {
        if (key == range.key) return range;
    }
    throw std::logic_error("no range for model field " + std::string(key));
}

// One scenario model key read within its range, else the model's own value.
int ranged(JsonObjectReader& reader, const char* key, int fallback) {
    const ModelFieldRange& range = range_of(key);
    return static_cast<int>(reader.integer(key, range.min_value, range.max_value).value_or(fallback));
}

ModelSpec read_model(JsonObjectReader& reader, ModelSpec model) {
    model.layers = ranged(reader, "layers", model.layers);
    model.hidden = ranged(reader, "hidden", model.hidden);
    model.heads = ranged(reader, "heads", model.heads);
    model.kv_heads = ranged(reader, "kv_heads", reader.has("heads") ? model.heads : model.kv_heads);
    model.ffn_hidden = ranged(reader, "ffn_hidden", model.ffn_hidden);
    model.vocab = ranged(reader, "vocab", model.vocab);
    model.gated_mlp = reader.boolean("gated_mlp").value_or(model.gated_mlp);
    model.tied_embeddings = reader.boolean("tied_embeddings").value_or(model.tied_embeddings);
    model.learned_positions = reader.boolean("learned_positions").value_or(model.learned_positions);
    model.positions = ranged(reader, "positions", model.positions);
    model.bias = reader.boolean("bias").value_or(model.bias);
    model.default_seq_len = ranged(reader, "default_seq_len", model.default_seq_len);
    model.experts = ranged(reader, "experts", model.experts);
    model.experts_per_token = ranged(reader, "experts_per_token", model.experts_per_token);
    model.expert_ffn_hidden = ranged(reader, "expert_ffn_hidden", model.expert_ffn_hidden);
    model.shared_experts = ranged(reader, "shared_experts", model.shared_experts);
    model.shared_ffn_hidden = ranged(reader, "shared_ffn_hidden", model.shared_ffn_hidden);
    model.first_dense_layers = ranged(reader, "first_dense_layers", model.first_dense_layers);
    model.moe_layer_step = ranged(reader, "moe_layer_step", model.moe_layer_step);
    model.q_lora_rank = ranged(reader, "q_lora_rank", model.q_lora_rank);
    model.kv_lora_rank = ranged(reader, "kv_lora_rank", model.kv_lora_rank);
    model.qk_nope_head_dim = ranged(reader, "qk_nope_head_dim", model.qk_nope_head_dim);
    model.qk_rope_head_dim = ranged(reader, "qk_rope_head_dim", model.qk_rope_head_dim);
    model.v_head_dim = ranged(reader, "v_head_dim", model.v_head_dim);
    model.explicit_head_dim = ranged(reader, "head_dim", model.explicit_head_dim);
    return model;
}

}  // namespace

const std::vector<const char*>& model_shape_keys() {
    static const std::vector<const char*> keys = {
        "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "gated_mlp", "tied_embeddings", "learned_positions", "positions", "bias",
        "experts", "experts_per_token", "expert_ffn_hidden", "shared_experts", "shared_ffn_hidden", "first_dense_layers", "moe_layer_step",
        "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "head_dim"};
    return keys;
}

void validate_model_shape(const ModelSpec& model, const std::string& path, const std::function<std::string(const char*)>& spelled) {
    const auto name = [&](const char* key) { return spelled ? spelled(key) : std::string(key); };
    if (model.explicit_head_dim == 0 && model.hidden % model.heads != 0) {
        throw InputError(path + "." + name("heads"), std::to_string(model.heads) + " does not divide " + name("hidden") + " " + std::to_string(model.hidden));
    }
    if (model.kv_heads > model.heads || model.heads % model.kv_heads != 0) {
        throw InputError(path + "." + name("kv_heads"), std::to_string(model.kv_heads) + " must divide " + name("heads") + " " + std::to_string(model.heads));
    }
    if (model.is_bare_count()) return;
    const auto positive = [&](const char* key, int value, const std::string& because) {
        if (value < 1) throw InputError(path + "." + name(key), "must be >= 1 " + because + ", got " + std::to_string(value));
    };
    if (model.experts > 0) {
        positive("experts_per_token", model.experts_per_token, "in a model with experts");
        if (model.experts_per_token > model.experts) {
            throw InputError(path + "." + name("experts_per_token"), std::to_string(model.experts_per_token) + " is more than the " +
                                                             std::to_string(model.experts) + " experts");
        }
        positive("expert_ffn_hidden", model.expert_ffn_hidden, "in a model with experts");
        if (model.shared_experts > 0) positive("shared_ffn_hidden", model.shared_ffn_hidden, "with shared experts");
        if (moe_layers_in(model, 0, model.layers) == 0) {
            throw InputError(path + "." + name("first_dense_layers"), "leaves none of the " + std::to_string(model.layers) + " layers with experts");
        }
    } else {
        for (const auto& [key, value] : {std::pair{"experts_per_token", model.experts_per_token}, {"shared_experts", model.shared_experts},
                                         {"first_dense_layers", model.first_dense_layers}}) {
            if (value != 0) throw InputError(path + "." + name(key), "needs experts > 0 (a dense model has none)");
        }
    }
    if (model.is_mla()) {
        positive("qk_rope_head_dim", model.qk_rope_head_dim, "with multi-head latent attention");
        positive("v_head_dim", model.v_head_dim, "with multi-head latent attention");
        if (model.kv_heads != model.heads) {
            throw InputError(path + "." + name("kv_heads"), "multi-head latent attention up-projects K and V for every head: must equal heads " +
                                                     std::to_string(model.heads));
        }
    } else if (model.q_lora_rank > 0 || model.qk_nope_head_dim > 0 || model.qk_rope_head_dim > 0 || model.v_head_dim > 0) {
        throw InputError(path + "." + name("kv_lora_rank"), "the latent attention fields need kv_lora_rank > 0");
    }
}

std::vector<ModelSpec> parse_model_presets(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "models");
    JsonObjectReader reader(root, "models");
    const nlohmann::json& list = reader.raw("models");
    if (!list.is_array()) throw InputError("models.models", kMustBeArray);
    std::vector<ModelSpec> models;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = "models[" + std::to_string(i) + "]";
        JsonObjectReader item(list[i], path);
        ModelSpec model = read_model(item, ModelSpec{});
        model.id = item.string("id").value_or("");
        model.name = item.string("name").value_or(model.id);
        item.reject_unknown_keys();
        validate_model_shape(model, path);
        models.push_back(model);
    }
    reader.reject_unknown_keys();
    return models;
}

ModelSpec read_model_fields(JsonObjectReader& reader, const ModelSpec& base) { return read_model(reader, base); }

namespace {

// Reads the keys of one Hugging Face config object and remembers which it read, so the MoE keys nobody read can be named.
class HfConfig {
public:
    HfConfig(const nlohmann::json& object, std::string path) : object_(object), path_(std::move(path)) {}

    bool has(const char* key) const { return object_.contains(key) && !object_.at(key).is_null(); }
    std::string field(const char* key) const { return path_ + "." + key; }
    const std::string& path() const { return path_; }
    void mark(const char* key) { read_.insert(key); }

    // The first of keys present (Hugging Face names differ by family); a positive integer within the range of the model
    // field it is read into (target; none for a length that is clamped after). null counts as absent.
    long long integer(std::initializer_list<const char*> keys, const char* target, bool required, long long fallback) {
        for (const char* key : keys) {
            mark(key);
            if (!has(key)) continue;
            if (target) spelled_[target] = key;
            const nlohmann::json& value = object_.at(key);
            if (!value.is_number_integer() || value.get<long long>() < 1) throw InputError(field(key), "must be a positive integer");
            return within_range(key, target, value.get<long long>());
        }
        if (required) throw InputError(field(*keys.begin()), "is required");
        return fallback;
    }
    // A count that may be 0 (shared experts, dense layers first), within its target field's range.
    long long count(const char* key, const char* target, long long fallback) {
        mark(key);
        if (!has(key)) return fallback;
        if (target) spelled_[target] = key;
        const nlohmann::json& value = object_.at(key);
        if (!value.is_number_integer() || value.get<long long>() < 0) throw InputError(field(key), "must be a non-negative integer");
        return within_range(key, target, value.get<long long>());
    }
    std::string text(const char* key) const { return has(key) && object_.at(key).is_string() ? object_.at(key).get<std::string>() : ""; }
    const nlohmann::json& raw(const char* key) {
        mark(key);
        return object_.at(key);
    }
    // Keys that configure routing or the auxiliary losses, not the shape: read, and of no effect on the counts.
    void mark_routing_keys(std::initializer_list<const char*> keys) {
        for (const char* key : keys) mark(key);
    }

    // Keys that speak of experts or routing which no reader took: an MoE this reader would misread as dense.
    std::vector<std::string> unread_moe_keys() const {
        std::vector<std::string> keys;
        for (auto item = object_.begin(); item != object_.end(); ++item) {
            if (read_.count(item.key())) continue;
            if (names_moe(item.key()) || (item->is_object() && has_moe_key(*item))) keys.push_back(item.key());
        }
        return keys;
    }

    // The file's key a model field was read from ("heads" -> "num_attention_heads"), for errors in the file's words.
    std::string spelled(const char* target) const {
        const auto found = spelled_.find(target);
        return found == spelled_.end() ? std::string(target) : found->second;
    }

    static bool names_moe(const std::string& key) {
        for (const char* part : {"expert", "moe", "router", "topk", "sparse_step", "dense_replace", "mlp_only"}) {
            if (key.find(part) != std::string::npos) return true;
        }
        return false;
    }
    static bool has_moe_key(const nlohmann::json& object) {
        for (auto item = object.begin(); item != object.end(); ++item) {
            if (names_moe(item.key()) || (item->is_object() && has_moe_key(*item))) return true;
        }
        return false;
    }

private:
    long long within_range(const char* key, const char* target, long long value) const {
        if (target == nullptr) return value;
        const ModelFieldRange& range = range_of(target);
        if (value > range.max_value) {
            throw InputError(field(key), must_be_between(std::to_string(range.min_value), std::to_string(range.max_value), std::to_string(value)));
        }
        return value;
    }

    const nlohmann::json& object_;
    std::string path_;
    std::set<std::string> read_;
    std::map<std::string, std::string> spelled_;  // model field -> the file's key it was read from
};

// Mixtral (MixtralConfig): every layer's MLP is num_local_experts experts of intermediate_size, top num_experts_per_tok.
void read_mixtral(HfConfig& config, ModelSpec& model) {
    model.experts = static_cast<int>(config.integer({"num_local_experts"}, "experts", true, 0));
    model.experts_per_token = static_cast<int>(config.integer({"num_experts_per_tok"}, "experts_per_token", true, 0));
    model.expert_ffn_hidden = model.ffn_hidden;
    config.mark_routing_keys({"output_router_logits", "router_aux_loss_coef", "router_jitter_noise"});
}

// DeepSeek-V2 and V3 (DeepseekV3Config): first_k_dense_replace dense layers of intermediate_size, then MoE layers of
// n_routed_experts of moe_intermediate_size and one shared MLP of n_shared_experts x moe_intermediate_size; MLA attention.
void read_deepseek(HfConfig& config, ModelSpec& model) {
    model.q_lora_rank = static_cast<int>(config.count("q_lora_rank", "q_lora_rank", 0));  // null in V2-Lite: Q projected directly
    model.kv_lora_rank = static_cast<int>(config.integer({"kv_lora_rank"}, "kv_lora_rank", true, 0));
    model.qk_nope_head_dim = static_cast<int>(config.count("qk_nope_head_dim", "qk_nope_head_dim", 0));
    model.qk_rope_head_dim = static_cast<int>(config.integer({"qk_rope_head_dim"}, "qk_rope_head_dim", true, 0));
    model.v_head_dim = static_cast<int>(config.integer({"v_head_dim"}, "v_head_dim", true, 0));
    model.kv_heads = model.heads;  // MLA up-projects K and V for every head
    config.mark("num_nextn_predict_layers");  // the multi-token-prediction module: not part of the published counts
    const long long routed = config.count("n_routed_experts", "experts", 0);
    if (routed == 0) return;  // null: a dense DeepSeek
    model.experts = static_cast<int>(routed);
    model.experts_per_token = static_cast<int>(config.integer({"num_experts_per_tok"}, "experts_per_token", true, 0));
    model.expert_ffn_hidden = static_cast<int>(config.integer({"moe_intermediate_size"}, "expert_ffn_hidden", true, 0));
    model.shared_experts = static_cast<int>(config.count("n_shared_experts", "shared_experts", 0));
    model.shared_ffn_hidden = model.shared_experts > 0 ? model.expert_ffn_hidden : 0;
    model.first_dense_layers = static_cast<int>(config.count("first_k_dense_replace", "first_dense_layers", 0));
    if (config.integer({"moe_layer_freq"}, "moe_layer_step", false, 1) != 1) {
        throw InputError(config.field("moe_layer_freq"), "only 1 is read (every layer after first_k_dense_replace has experts)");
    }
    config.mark_routing_keys({"routed_scaling_factor", "topk_method", "n_group", "topk_group", "scoring_func", "norm_topk_prob",
                              "aux_loss_alpha", "seq_aux", "ep_size"});
}

// A list of layer indices that keep the dense MLP: only a leading run 0 .. k - 1 is read (as first_dense_layers).
void require_layer_list(HfConfig& config, const char* key) {
    if (!config.raw(key).is_array()) throw InputError(config.field(key), "must be a list of layer indices");
}

int leading_dense_layers(HfConfig& config, const char* key) {
    if (!config.has(key)) {
        config.mark(key);
        return 0;
    }
    const nlohmann::json& list = config.raw(key);
    require_layer_list(config, key);
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_number_integer() || list[i].get<long long>() != static_cast<long long>(i)) {
            throw InputError(config.field(key), "only a leading run of dense layers (0, 1, ..., k - 1) is read");
        }
    }
    return static_cast<int>(list.size());
}

// Qwen2-MoE and Qwen3-MoE: num_experts of moe_intermediate_size, top num_experts_per_tok, every decoder_sparse_step-th
// layer but mlp_only_layers; Qwen2-MoE adds one shared expert of shared_expert_intermediate_size.
void read_qwen_moe(HfConfig& config, ModelSpec& model) {
    model.experts = static_cast<int>(config.integer({"num_experts"}, "experts", true, 0));
    model.experts_per_token = static_cast<int>(config.integer({"num_experts_per_tok"}, "experts_per_token", true, 0));
    model.expert_ffn_hidden = static_cast<int>(config.integer({"moe_intermediate_size"}, "expert_ffn_hidden", true, 0));
    model.moe_layer_step = static_cast<int>(config.integer({"decoder_sparse_step"}, "moe_layer_step", false, 1));
    model.first_dense_layers = leading_dense_layers(config, "mlp_only_layers");
    const long long shared = config.count("shared_expert_intermediate_size", "shared_ffn_hidden", 0);
    if (shared > 0) {
        model.shared_experts = 1;
        model.shared_ffn_hidden = static_cast<int>(shared);
    }
    config.mark_routing_keys({"norm_topk_prob", "output_router_logits", "router_aux_loss_coef"});
}

// Llama 4 (Llama4TextConfig, under text_config): num_local_experts of intermediate_size plus one shared expert of the same
// width on every interleave_moe_layer_step-th layer; the other layers have a dense MLP of intermediate_size_mlp.
void read_llama4(HfConfig& config, ModelSpec& model) {
    model.experts = static_cast<int>(config.integer({"num_local_experts"}, "experts", true, 0));
    model.experts_per_token = static_cast<int>(config.integer({"num_experts_per_tok"}, "experts_per_token", true, 0));
    model.expert_ffn_hidden = static_cast<int>(config.integer({"intermediate_size"}, "expert_ffn_hidden", true, 0));
    model.shared_experts = 1;
    model.shared_ffn_hidden = model.expert_ffn_hidden;
    model.moe_layer_step = static_cast<int>(config.integer({"interleave_moe_layer_step"}, "moe_layer_step", false, 1));
    model.ffn_hidden = static_cast<int>(config.integer({"intermediate_size_mlp"}, "ffn_hidden", false, model.expert_ffn_hidden));
    if (config.has("moe_layers")) {
        const nlohmann::json& layers = config.raw("moe_layers");
        require_layer_list(config, "moe_layers");
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const long long expected = static_cast<long long>((i + 1) * model.moe_layer_step - 1);
            if (!layers[i].is_number_integer() || layers[i].get<long long>() != expected) {
                throw InputError(config.field("moe_layers"), "only every interleave_moe_layer_step-th layer is read");
            }
        }
    }
    config.mark_routing_keys({"output_router_logits", "router_aux_loss_coef", "router_jitter_noise"});
}

// Never read a mixture of experts as dense: keys about experts or routing that no family reader took are refused.
void refuse_unread_moe_keys(const HfConfig& config, const std::string& model_type) {
    const std::vector<std::string> unread = config.unread_moe_keys();
    if (unread.empty()) return;
    std::string list;
    for (const std::string& key : unread) list += (list.empty() ? "" : ", ") + key;
    throw InputError(config.field(unread.front().c_str()),
                     "model_type \"" + model_type + "\" has mixture-of-experts keys this reader does not understand (" + list +
                         "); read are mixtral, deepseek_v2, deepseek_v3, qwen2_moe, qwen3_moe and llama4");
}

// The model's name: the config's _name_or_path ("meta-llama/Llama-3.1-8B"), else its architecture (or model_type) and
// its size ("LlamaForCausalLM 8.03 B"): the hub's config.json files carry no name of their own.
std::string hf_model_name(const nlohmann::json& root, const ModelSpec& model) {
    const auto text_of = [&](const char* key) {
        return root.contains(key) && root.at(key).is_string() ? root.at(key).get<std::string>() : std::string();
    };
    if (const std::string path = text_of("_name_or_path"); !path.empty()) return path;
    std::string architecture;
    if (root.contains("architectures") && root.at("architectures").is_array() && !root.at("architectures").empty() &&
        root.at("architectures").front().is_string()) {
        architecture = root.at("architectures").front().get<std::string>();
    }
    if (architecture.empty()) architecture = text_of("model_type");
    if (architecture.empty()) architecture = "Hugging Face model";
    return architecture + " " + format_count(count_params(model, model.default_seq_len).total);
}

}  // namespace

ModelSpec parse_hf_config(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "model.hf_config");
    if (!root.is_object()) throw InputError("model.hf_config", kMustBeJsonObject);
    const std::string model_type = root.contains("model_type") && root.at("model_type").is_string() ? root.at("model_type").get<std::string>() : "";
    // Llama 4 nests the language model's shape under text_config (next to vision_config).
    const bool nested = model_type == "llama4" && root.contains("text_config") && root.at("text_config").is_object();
    HfConfig config(nested ? root.at("text_config") : root, nested ? "model.hf_config.text_config" : "model.hf_config");
    const bool moe_family = model_type == "mixtral" || model_type == "deepseek_v2" || model_type == "deepseek_v3" || model_type == "qwen2_moe" ||
                            model_type == "qwen3_moe" || model_type == "llama4" || model_type == "llama4_text";
    if (!moe_family) refuse_unread_moe_keys(config, model_type);  // before anything else: an unknown MoE is refused as such
    ModelSpec model;
    model.id = "custom";
    model.hidden = static_cast<int>(config.integer({"hidden_size", "n_embd", "d_model"}, "hidden", true, 0));
    model.layers = static_cast<int>(config.integer({"num_hidden_layers", "n_layer", "num_layers"}, "layers", true, 0));
    model.heads = static_cast<int>(config.integer({"num_attention_heads", "n_head", "num_heads"}, "heads", true, 0));
    model.kv_heads = static_cast<int>(config.integer({"num_key_value_heads"}, "kv_heads", false, model.heads));
    model.vocab = static_cast<int>(config.integer({"vocab_size"}, "vocab", true, 0));
    const bool gpt_style = model_type == "gpt2" || config.has("n_embd");
    model.gated_mlp = !gpt_style;
    model.bias = gpt_style;
    model.learned_positions = gpt_style;
    model.ffn_hidden = static_cast<int>(config.integer({"intermediate_size", "n_inner", "ffn_dim"}, "ffn_hidden", false, 4LL * model.hidden));
    model.positions = gpt_style ? static_cast<int>(config.integer({"n_positions", "max_position_embeddings"}, "positions", false, 1024)) : 0;
    // The context window: a limit on the sequence, not the length trained at (with_imported_model keeps the scenario's).
    model.default_seq_len = static_cast<int>(std::min(config.integer({"max_position_embeddings", "n_positions", "n_ctx"}, nullptr, false, 2048), 131072LL));
    // An explicit head width (Qwen3, Llama 4) matters only where it differs from hidden / heads.
    const long long head_dim = config.integer({"head_dim"}, "head_dim", false, 0);
    if (head_dim > 0 && head_dim * model.heads != model.hidden) model.explicit_head_dim = static_cast<int>(head_dim);
    if (config.has("tie_word_embeddings") || root.contains("tie_word_embeddings")) {
        const nlohmann::json& tie = config.has("tie_word_embeddings") ? config.raw("tie_word_embeddings") : root.at("tie_word_embeddings");
        if (!tie.is_boolean()) throw InputError("model.hf_config.tie_word_embeddings", "must be true or false");
        model.tied_embeddings = tie.get<bool>();
    } else {
        model.tied_embeddings = gpt_style;  // transformers' default is true; Llama configs say false explicitly
    }
    if (model_type == "mixtral") read_mixtral(config, model);
    else if (model_type == "deepseek_v2" || model_type == "deepseek_v3") read_deepseek(config, model);
    else if (model_type == "qwen2_moe" || model_type == "qwen3_moe") read_qwen_moe(config, model);
    else if (model_type == "llama4" || model_type == "llama4_text") read_llama4(config, model);
    refuse_unread_moe_keys(config, model_type);
    validate_model_shape(model, config.path(), [&](const char* key) { return config.spelled(key); });
    model.name = hf_model_name(root, model);
    return model;
}

bool hf_config_attention(std::string_view json_text, AttentionImpl& impl) {
    const nlohmann::json root = parse_json_text(json_text, "model.hf_config");
    if (!root.is_object()) throw InputError("model.hf_config", kMustBeJsonObject);
    for (const char* key : {"attn_implementation", "_attn_implementation"}) {
        if (!root.contains(key) || root.at(key).is_null()) continue;
        const std::string field = std::string("model.hf_config.") + key;
        if (!root.at(key).is_string()) throw InputError(field, must_be_one_of(attention_impl_names(), root.at(key).dump()));
        const std::string name = root.at(key).get<std::string>();
        if (!attention_impl_from_name(name, impl)) throw InputError(field, must_be_one_of(attention_impl_names(), name));
        return true;
    }
    return false;
}

}  // namespace core
