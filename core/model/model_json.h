#pragma once
// Models as JSON: preset files (assets/models.json), the model fields of a scenario, Hugging Face config.json files.
#include "core/model/json_reader.h"
#include "core/model/model.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// The architecture fields of a JSON object over base (a scenario's "model" or a preset entry).
ModelSpec read_model_fields(JsonObjectReader& reader, const ModelSpec& base);
// The architecture keys a model object may carry (read_model_fields reads them all).
const std::vector<const char*>& model_shape_keys();
// hidden divisible by heads, kv_heads dividing heads; throws InputError(path + ".heads" / ".kv_heads"). spelled, when
// given, names each field as the file spells it ("heads" -> "num_attention_heads" in a Hugging Face config).
void validate_model_shape(const ModelSpec& model, const std::string& path, const std::function<std::string(const char*)>& spelled = {});
// The presets file: {"models": [{id, name, layers, ...}, ...]}.
std::vector<ModelSpec> parse_model_presets(std::string_view json_text);
// A Hugging Face transformers config.json (LlamaConfig, GPT2Config, ...; the mixtures of experts of Mixtral, DeepSeek-V2/V3,
// Qwen2/3-MoE and Llama 4) as a ModelSpec; throws InputError naming the key. A config with expert or routing keys its
// family reader does not understand is refused, never read as a dense model. default_seq_len is the config's context
// window (max_position_embeddings, at most 131,072); the name is its _name_or_path, else its architecture and size.
// Dropout (resid_pdrop, embd_pdrop, attn_pdrop, attention_dropout, hidden_dropout), the activation (hidden_act,
// activation_function) and the norm's kind are not read: a ModelSpec holds none of them.
ModelSpec parse_hf_config(std::string_view json_text);
// The attention implementation a config names (attn_implementation, or _attn_implementation as save_pretrained may write
// it): "sdpa", "flash_attention_2" or "eager" into impl; false when it names none. Any other name is refused
// (InputError naming the key): a kernel this model does not describe is never read as another.
enum class AttentionImpl;
bool hf_config_attention(std::string_view json_text, AttentionImpl& impl);

}  // namespace core
