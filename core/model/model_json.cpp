// Models as JSON: preset files, the model fields of a scenario, and Hugging Face config.json files.
#include "core/model/model_json.h"

#include "core/model/errors.h"

#include <algorithm>

namespace core {

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
