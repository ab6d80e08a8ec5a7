#include "core/model.h"

#include "core/embedded_assets.h"
#include "core/errors.h"
#include "core/json_reader.h"
#include "core/model_json.h"

#include <algorithm>
#include <cmath>

namespace core {

ParamBreakdown count_params(const ModelSpec& model, int seq_len) {
    ParamBreakdown breakdown;
    const double h = model.hidden;
    const double kv_width = static_cast<double>(model.kv_heads) * model.head_dim();
    const double f = model.ffn_hidden;
    // Attention: Q and O are h x h, K and V are h x (kv_heads * head_dim).
    const double attention_matmul = 2.0 * h * h + 2.0 * h * kv_width;
    const double mlp_matmul = (model.gated_mlp ? 3.0 : 2.0) * h * f;
    double biases = 0;
    if (model.bias) biases = (h + 2.0 * kv_width + h) + (model.gated_mlp ? 2.0 * f : f) + h;
    const double norms = model.bias ? 4.0 * h : 2.0 * h;  // two LayerNorms (weight + bias) or two RMSNorms (weight)
    breakdown.per_layer_matmul = attention_matmul + mlp_matmul;
    breakdown.per_layer = breakdown.per_layer_matmul + biases + norms;
    breakdown.embedding = static_cast<double>(model.vocab) * h;
    if (model.learned_positions) breakdown.position_embedding = static_cast<double>(model.positions > 0 ? model.positions : seq_len) * h;
    if (!model.tied_embeddings) breakdown.output_head = static_cast<double>(model.vocab) * h;
    breakdown.final_norm = model.bias ? 2.0 * h : h;
    breakdown.total = model.layers * breakdown.per_layer + breakdown.embedding + breakdown.position_embedding +
                      breakdown.output_head + breakdown.final_norm;
    if (model.is_bare_count()) breakdown.total = model.params_override;
    return breakdown;
}

double megatron_eq2_params(int layers, int hidden, int vocab, int seq_len) {
    const double l = layers, h = hidden;
    return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (static_cast<double>(vocab) + seq_len) / (12.0 * l * h));
}

ModelSpec synthesize_shape(double params) {
    ModelSpec model;
    model.id = "params";
    model.params_override = params;
    // 12 l h^2 = N with h = 128 l  =>  l = cbrt(N / (12 * 128^2)).
    const double layers = std::cbrt(params / (12.0 * 128.0 * 128.0));
    model.layers = std::max(1, static_cast<int>(std::lround(layers)));
    model.heads = std::max(1, static_cast<int>(std::lround(std::sqrt(params / (12.0 * model.layers)) / 128.0)));
    model.hidden = model.heads * 128;
    model.kv_heads = model.heads;
    model.ffn_hidden = 4 * model.hidden;
    model.vocab = 50257;
    model.gated_mlp = false;
    model.tied_embeddings = true;
    model.learned_positions = false;
    model.bias = false;
    model.default_seq_len = 2048;
    model.name = "bare count";
    return model;
}

namespace {

ModelSpec read_model(JsonObjectReader& reader, ModelSpec model) {
    model.layers = static_cast<int>(reader.integer("layers", 1, 100000).value_or(model.layers));
    model.hidden = static_cast<int>(reader.integer("hidden", 1, 10000000).value_or(model.hidden));
    model.heads = static_cast<int>(reader.integer("heads", 1, 100000).value_or(model.heads));
    model.kv_heads = static_cast<int>(reader.integer("kv_heads", 1, 100000).value_or(reader.has("heads") ? model.heads : model.kv_heads));
    model.ffn_hidden = static_cast<int>(reader.integer("ffn_hidden", 1, 100000000).value_or(model.ffn_hidden));
    model.vocab = static_cast<int>(reader.integer("vocab", 1, 100000000).value_or(model.vocab));
    model.gated_mlp = reader.boolean("gated_mlp").value_or(model.gated_mlp);
    model.tied_embeddings = reader.boolean("tied_embeddings").value_or(model.tied_embeddings);
    model.learned_positions = reader.boolean("learned_positions").value_or(model.learned_positions);
    model.positions = static_cast<int>(reader.integer("positions", 0, 100000000).value_or(model.positions));
    model.bias = reader.boolean("bias").value_or(model.bias);
    model.default_seq_len = static_cast<int>(reader.integer("default_seq_len", 1, 100000000).value_or(model.default_seq_len));
    return model;
}

}  // namespace

void validate_model_shape(const ModelSpec& model, const std::string& path) {
    if (model.hidden % model.heads != 0) {
        throw InputError(path + ".heads", std::to_string(model.heads) + " does not divide hidden " + std::to_string(model.hidden));
    }
    if (model.kv_heads > model.heads || model.heads % model.kv_heads != 0) {
        throw InputError(path + ".kv_heads", std::to_string(model.kv_heads) + " must divide heads " + std::to_string(model.heads));
    }
}

std::vector<ModelSpec> parse_model_presets(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "models");
    JsonObjectReader reader(root, "models");
    const nlohmann::json& list = reader.raw("models");
    if (!list.is_array()) throw InputError("models.models", "must be an array");
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

const std::vector<ModelSpec>& builtin_models() {
    static const std::vector<ModelSpec> models = parse_model_presets(embedded_asset("models.json"));
    return models;
}

const ModelSpec* find_model(std::string_view id) {
    for (const ModelSpec& model : builtin_models()) if (model.id == id) return &model;
    return nullptr;
}

ModelSpec parse_hf_config(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "model.hf_config");
    if (!root.is_object()) throw InputError("model.hf_config", "must be a JSON object");
    // Hugging Face names differ by family (Llama, GPT-2, ...): take the first key present.
    auto integer_of = [&](std::initializer_list<const char*> keys, bool required, long long fallback) -> long long {
        for (const char* key : keys) {
            if (root.contains(key)) {
                const nlohmann::json& value = root.at(key);
                if (!value.is_number_integer() || value.get<long long>() < 1) {
                    throw InputError(std::string("model.hf_config.") + key, "must be a positive integer");
                }
                return value.get<long long>();
            }
        }
        if (required) throw InputError(std::string("model.hf_config.") + *keys.begin(), "is required");
        return fallback;
    };
    ModelSpec model;
    model.id = "custom";
    model.hidden = static_cast<int>(integer_of({"hidden_size", "n_embd", "d_model"}, true, 0));
    model.layers = static_cast<int>(integer_of({"num_hidden_layers", "n_layer", "num_layers"}, true, 0));
    model.heads = static_cast<int>(integer_of({"num_attention_heads", "n_head", "num_heads"}, true, 0));
    model.kv_heads = static_cast<int>(integer_of({"num_key_value_heads"}, false, model.heads));
    model.vocab = static_cast<int>(integer_of({"vocab_size"}, true, 0));
    const std::string model_type = root.contains("model_type") && root.at("model_type").is_string() ? root.at("model_type").get<std::string>() : "";
    const bool gpt_style = model_type == "gpt2" || root.contains("n_embd");
    model.gated_mlp = !gpt_style;
    model.bias = gpt_style;
    model.learned_positions = gpt_style;
    model.ffn_hidden = static_cast<int>(integer_of({"intermediate_size", "n_inner", "ffn_dim"}, false, 4LL * model.hidden));
    model.positions = gpt_style ? static_cast<int>(integer_of({"n_positions", "max_position_embeddings"}, false, 1024)) : 0;
    model.default_seq_len = static_cast<int>(integer_of({"max_position_embeddings", "n_positions", "n_ctx"}, false, 2048));
    model.default_seq_len = std::min(model.default_seq_len, 131072);
    if (root.contains("tie_word_embeddings")) {
        if (!root.at("tie_word_embeddings").is_boolean()) throw InputError("model.hf_config.tie_word_embeddings", "must be true or false");
        model.tied_embeddings = root.at("tie_word_embeddings").get<bool>();
    } else {
        model.tied_embeddings = gpt_style;  // transformers' default is true; Llama configs say false explicitly
    }
    const std::string name = root.contains("_name_or_path") && root.at("_name_or_path").is_string() ? root.at("_name_or_path").get<std::string>() : "";
    model.name = name.empty() ? (model_type.empty() ? "Hugging Face config" : model_type) : name;
    validate_model_shape(model, "model.hf_config");
    return model;
}

}  // namespace core
