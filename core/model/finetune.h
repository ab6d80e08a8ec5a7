#pragma once
// Fine-tuning: all the weights (full), or a frozen base with low-rank adapters beside chosen linear layers (LoRA, Hu et al.
// 2021), the base quantized to 4 or 8 bits (QLoRA, Dettmers et al. 2023). The scenario's `finetune` section; the defaults
// are Hugging Face PEFT's and bitsandbytes', each with the line it comes from. core/cost/kernels/lora_ops.h turns a
// framework recipe's block into its adapted form; the memory and step rooms price what that runs.
#include <string>
#include <string_view>
#include <vector>

namespace core {

struct Scenario;
struct RecipeOp;
struct FrameworkRecipe;

enum class FinetuneMethod { full, lora, qlora };
const char* finetune_method_name(FinetuneMethod);  // "full", "lora", "qlora"
bool finetune_method_from_name(std::string_view, FinetuneMethod&);
inline constexpr FinetuneMethod kFinetuneMethods[] = {FinetuneMethod::full, FinetuneMethod::lora, FinetuneMethod::qlora};

// Which linear layers get adapters: PEFT's default for the model family (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING,
// peft v0.20.0 src/peft/utils/constants.py:65: llama, mistral, qwen2 ["q_proj", "v_proj"], gpt2 ["c_attn"], mpt ["Wqkv"]:
// the query and value projections), every projection of the attention, every linear of the layers (PEFT's "all-linear",
// which leaves out the output layer: tuners_utils.py:2018), or modules by name.
enum class LoraTargets { peft_default, attention, all_linear, modules };

// The adapters' dtype: PEFT upcasts them to fp32 over a bf16 or fp16 base (get_peft_model's autocast_adapter_dtype=True,
// peft v0.20.0 src/peft/tuners/tuners_utils.py:2243 cast_adapter_dtype); bf16 keeps them in the base's dtype (torchtune,
// the QLoRA paper's qlora.py with --bf16).
enum class AdapterDtype { fp32, bf16 };
const char* adapter_dtype_name(AdapterDtype);  // "fp32", "bf16"

struct FinetuneSpec {
    FinetuneMethod method = FinetuneMethod::full;
    int rank = 8;                   // LoraConfig r = 8 (peft v0.20.0 src/peft/tuners/lora/config.py:546)
    double alpha = 8;               // LoraConfig lora_alpha = 8 (config.py:566); the adapter's output is scaled by alpha / r
                                    // (lora/layer.py:277); lora_dropout = 0.0 (config.py:567) makes its dropout nn.Identity
                                    // (layer.py:254), which launches nothing
    double dropout = 0;             // LoraConfig lora_dropout = 0.0 (config.py:567): p > 0 puts nn.Dropout(p) before lora_A
                                    // (lora/layer.py:252), whose output and mask autograd keeps for dA
    LoraTargets targets = LoraTargets::peft_default;
    std::vector<std::string> target_modules;  // targets == modules: names matched as PEFT matches them, the module's name or
                                              // its end after a dot (tuners_utils.py:1933): "q_proj" matches "self_attn.q_proj"
    // Bytes per frozen base weight of the layers' linears: 2 (bf16), 1 (bitsandbytes' LLM.int8, Linear8bitLt) or 0.5 (NF4,
    // Linear4bit); the embedding, the norms and the output layer stay in bf16 (transformers' bitsandbytes integration keeps
    // the output layer unquantized: get_keys_to_not_convert). LoRA's default 2, QLoRA's 0.5.
    double base_bytes = 2;
    bool double_quant = false;      // NF4's absmax constants quantized again to 8 bits (BitsAndBytesConfig
                                    // bnb_4bit_use_double_quant = False; the QLoRA paper turns it on)
    AdapterDtype adapter_dtype = AdapterDtype::fp32;

    bool operator==(const FinetuneSpec&) const = default;
};

// How a fine-tune trains, for sentences: "LoRA rank 16", "QLoRA rank 16 (NF4 base)", "QLoRA rank 16 (int8 base)"; empty for
// a full fine-tune (every weight trains, as in pre-training).
std::string adapter_phrase(const FinetuneSpec&);
// The frozen base's format from base_bytes: "bf16", "int8" or "NF4".
const char* base_format_name(const FinetuneSpec&);

// LoRA or QLoRA: a frozen base with trainable adapters.
inline bool trains_adapters(const FinetuneSpec& finetune) { return finetune.method != FinetuneMethod::full; }
// The base's bytes a method starts from (a file that names the method and not base_bytes): LoRA 2, QLoRA 0.5.
double default_base_bytes(FinetuneMethod);
double adapter_dtype_bytes(AdapterDtype);

// The bytes a frozen linear weight of out x in parameters takes in the base's format (quantized ones with their constants):
// NF4 (bitsandbytes functional.py quantize_4bit, 0.49.2): two 4-bit values per byte and one fp32 absmax per block of 64
// (blocksize default 64, functional.py:920); with double quantization the absmax as 8 bits in blocks of 256 with one fp32
// absmax each (functional.py: quantize_blockwise(_absmax - offset, blocksize=256)) - Dettmers et al. 2023 sec 3: 32/64 =
// 0.5 bits per parameter, 8/64 + 32/(64 x 256) = 0.127 with it. LLM.int8: one byte each and one fp32 scale per output row
// (nn/modules.py Int8Params: int8_vectorwise_quant's CB and SCB). bf16: two bytes each.
double frozen_linear_bytes(double out_features, double in_features, const FinetuneSpec&);

// The framework recipe's linears the spec targets: `op` is one op of the recipe's layer.
bool lora_targets_op(const FinetuneSpec&, const RecipeOp&);

// The finetune section's rules, for a scenario: rank and alpha above 0, dropout in [0, 1), base_bytes 2, 1 or 0.5 (QLoRA: 1 or 0.5), each
// named module a linear of the layers of the recipe the scenario runs, and adapters only on an operator recipe (one that
// names its modules). Throws InputError naming the field.
void validate_finetune(const Scenario&);

}  // namespace core
