// Mixtures of experts, the model side: total and active parameter counts against the published ones (moe.md), the
// Hugging Face configs of the four families, and FLOPs from active parameters (Megatron-LM num_floating_point_operations).
#include "core/cost/kernels/flops.h"
#include "core/model/errors.h"
#include "core/model/layout.h"
#include "core/model/model.h"
#include "core/model/model_json.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

core::ParamBreakdown counted(const char* preset) {
    const core::ModelSpec* model = core::find_model(preset);
    REQUIRE(model != nullptr);
    return core::count_params(*model, model->default_seq_len);
}

// Within 1 % of a published count.
void require_within_one_percent(double value, double published) {
    INFO("counted " << value / 1e9 << "B against " << published / 1e9 << "B");
    REQUIRE(std::abs(value - published) <= 0.01 * published);
}

// The config.json files as published on the Hugging Face hub (keys and values as there; nested vision parts left out).
const char* const mixtral_8x7b_config = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mixtral",
  "num_attention_heads": 32, "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8,
  "output_router_logits": false, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0", "use_cache": true, "vocab_size": 32000
})";

const char* const deepseek_v3_config = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV3Config", "AutoModel": "modeling_deepseek.DeepseekV3Model"},
  "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3, "hidden_act": "silu",
  "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
  "model_type": "deepseek_v3", "moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256,
  "n_shared_experts": 1, "norm_topk_prob": true, "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61,
  "num_key_value_heads": 128, "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
  "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
  "rms_norm_eps": 1e-06,
  "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                   "original_max_position_embeddings": 4096, "type": "yarn"},
  "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": true, "tie_word_embeddings": false,
  "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16", "transformers_version": "4.33.1", "use_cache": true,
  "v_head_dim": 128, "vocab_size": 129280
})";

const char* const qwen3_235b_config = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643,
  "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 94,
  "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 1536, "norm_topk_prob": true,
  "num_attention_heads": 64, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 94, "num_key_value_heads": 4,
  "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.001, "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
})";

const char* const llama4_maverick_config = R"({
  "architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 200080, "eoi_token_index": 200081,
  "image_token_index": 200092, "model_type": "llama4",
  "text_config": {
    "attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0, "bos_token_id": 200000,
    "eos_token_id": [200001, 200007, 200008], "for_llm_compressor": false, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "interleave_moe_layer_step": 2, "intermediate_size": 8192,
    "intermediate_size_mlp": 16384, "max_position_embeddings": 1048576, "model_type": "llama4_text", "num_attention_heads": 40,
    "num_experts_per_tok": 1, "num_hidden_layers": 48, "num_key_value_heads": 8, "num_local_experts": 128,
    "output_router_logits": false, "pad_token_id": 200018, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 500000.0,
    "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0, "torch_dtype": "bfloat16", "use_cache": true,
    "use_qk_norm": false, "vocab_size": 202048
  },
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0.dev0",
  "vision_config": {"hidden_size": 1408, "intermediate_size": 5632, "num_attention_heads": 16, "num_hidden_layers": 34}
})";

}  // namespace

TEST_CASE("Mixtral 8x7B (Mistral AI, Jiang et al. 2024): 46.7B total, 12.9B active per token", "[moe][params]") {
    const core::ParamBreakdown params = counted("mixtral-8x7b");
    require_within_one_percent(params.total, 46.7e9);
    require_within_one_percent(params.total_active, 12.9e9);
    REQUIRE(params.moe_layers == 32);
    REQUIRE(params.dense_layers == 0);
    // Each layer: 8 experts of 3 x 4096 x 14336 and a 4096 x 8 router; two of the eight visited.
    REQUIRE(params.routed_experts_per_layer == 8.0 * 3 * 4096 * 14336);
    REQUIRE(params.router_per_layer == 4096.0 * 8);
    REQUIRE(params.total - params.total_active == 32.0 * 6 * 3 * 4096 * 14336);
}

TEST_CASE("DeepSeek-V3 (arXiv 2412.19437 sec 4.2): 671B total without the MTP module, 37B activated", "[moe][params]") {
    const core::ParamBreakdown params = counted("deepseek-v3");
    require_within_one_percent(params.total, 671e9);
    REQUIRE(params.dense_layers == 3);
    REQUIRE(params.moe_layers == 58);
    // MLA (DeepSeek-V2 sec 2.1): W^DQ 7168 x 1536, W^UQ 1536 x 128 x 192, W^DKR+W^DKV 7168 x 576, W^UK+W^UV 512 x 128 x 256,
    // W^O 16384 x 7168, and the two latent norms 1536 + 512; the dense MLP 3 x 7168 x 18432; two RMSNorms.
    const double mla = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
    REQUIRE(params.per_layer == mla + 3.0 * 7168 * 18432 + 2.0 * 7168 + 1536 + 512);
    // Activated: the moe.md formula (every parameter but the 248 routed experts a token does not visit) gives 37.55B;
    // DeepSeek counts the input embedding, a lookup of one row, as not activated (so V2: 21B, V2-Lite: 2.4B): 36.63B.
    // The published 37B is either, rounded: 1.5 % above it and 1.0 % below.
    REQUIRE(params.total_active / 1e9 == Approx(37.55).margin(0.01));
    const double without_lookup = params.total_active - params.embedding;
    REQUIRE(without_lookup / 1e9 == Approx(36.63).margin(0.01));
    REQUIRE(std::abs(params.total_active - 37e9) <= 0.015 * 37e9);
    REQUIRE(std::abs(without_lookup - 37e9) <= 0.011 * 37e9);
    REQUIRE(std::lround(without_lookup / 1e9) == 37);
}

TEST_CASE("Qwen3-235B-A22B (Qwen3 technical report, Yang et al. 2025): 235B total, 22B activated", "[moe][params]") {
    const core::ParamBreakdown params = counted("qwen3-235b-a22b");
    require_within_one_percent(params.total, 235e9);
    require_within_one_percent(params.total_active, 22e9);
    // 64 heads of 128: the attention is twice the hidden width (head_dim is explicit in the config).
    REQUIRE(core::attention_qk_width(*core::find_model("qwen3-235b-a22b")) == 8192);
}

TEST_CASE("Llama 4 Maverick (Meta, text model): about 400B total and 17B active, MoE on every second layer", "[moe][params]") {
    const core::ParamBreakdown params = counted("llama4-maverick");
    REQUIRE(params.moe_layers == 24);
    REQUIRE(params.dense_layers == 24);
    REQUIRE(core::is_moe_layer(*core::find_model("llama4-maverick"), 1));
    REQUIRE_FALSE(core::is_moe_layer(*core::find_model("llama4-maverick"), 0));
    require_within_one_percent(params.total, 400e9);
    REQUIRE(std::lround(params.total_active / 1e9) == 17);  // 17.18B, published as 17B
}

TEST_CASE("Hugging Face import: Mixtral-8x7B-v0.1's config.json gives 46.7B total, 12.9B active", "[moe][params][hf]") {
    const core::ModelSpec model = core::parse_hf_config(mixtral_8x7b_config);
    REQUIRE(model.experts == 8);
    REQUIRE(model.experts_per_token == 2);
    REQUIRE(model.expert_ffn_hidden == 14336);
    const core::ParamBreakdown params = core::count_params(model, 4096);
    require_within_one_percent(params.total, 46.7e9);
    require_within_one_percent(params.total_active, 12.9e9);
    REQUIRE(params.total == counted("mixtral-8x7b").total);
}

TEST_CASE("Hugging Face import: DeepSeek-V3, Qwen3-235B-A22B and Llama 4 Maverick count as their presets", "[moe][params][hf]") {
    const struct {
        const char* config;
        const char* preset;
    } families[] = {{deepseek_v3_config, "deepseek-v3"}, {qwen3_235b_config, "qwen3-235b-a22b"}, {llama4_maverick_config, "llama4-maverick"}};
    for (const auto& family : families) {
        INFO(family.preset);
        const core::ModelSpec model = core::parse_hf_config(family.config);
        const core::ParamBreakdown imported = core::count_params(model, 4096);
        const core::ParamBreakdown preset = counted(family.preset);
        REQUIRE(imported.total == preset.total);
        REQUIRE(imported.total_active == preset.total_active);
        REQUIRE(imported.moe_layers == preset.moe_layers);
    }
    const core::ModelSpec deepseek = core::parse_hf_config(deepseek_v3_config);
    REQUIRE(deepseek.is_mla());
    REQUIRE(deepseek.first_dense_layers == 3);
    REQUIRE(deepseek.shared_experts == 1);
}

TEST_CASE("Hugging Face import: an MoE config with keys the reader does not understand is refused, naming them", "[moe][hf]") {
    // Jamba (AI21): experts on every second layer from an offset, beside Mamba layers; no family reader takes it.
    const char* const jamba = R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba", "attn_layer_offset": 4,
        "attn_layer_period": 8, "expert_layer_offset": 1, "expert_layer_period": 2, "hidden_act": "silu", "hidden_size": 4096,
        "intermediate_size": 14336, "mamba_d_state": 16, "mamba_expand": 2, "num_attention_heads": 32, "num_experts": 16,
        "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8, "tie_word_embeddings": false, "vocab_size": 65536})";
    try {
        core::parse_hf_config(jamba);
        FAIL("a Jamba config was read as a dense model");
    } catch (const core::InputError& error) {
        const std::string message = error.what();
        INFO(message);
        REQUIRE(message.find("model.hf_config.expert_layer_offset") == 0);
        for (const char* key : {"expert_layer_offset", "expert_layer_period", "num_experts", "num_experts_per_tok", "jamba"}) {
            REQUIRE(message.find(key) != std::string::npos);
        }
    }
    // DBRX nests its experts in ffn_config: found all the same.
    const char* const dbrx = R"({"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "vocab_size": 100352,
        "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4}})";
    REQUIRE_THROWS_WITH(core::parse_hf_config(dbrx), Catch::Contains("ffn_config"));
    // A known family with a key its reader does not take is refused too, rather than read without it.
    std::string mixtral_with_unknown = mixtral_8x7b_config;
    mixtral_with_unknown.insert(1, R"("moe_expert_capacity": 4, )");
    REQUIRE_THROWS_WITH(core::parse_hf_config(mixtral_with_unknown), Catch::Contains("moe_expert_capacity"));
    // A dense config stays readable.
    REQUIRE_FALSE(core::parse_hf_config(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "vocab_size": 32000, "intermediate_size": 11008})").is_moe());
}

TEST_CASE("Megatron-LM num_floating_point_operations for DeepSeek-V3 (MLA, MoE): ours differs by the causal half of attention", "[moe][flops]") {
    // Megatron counts 3 x 2 x (MLA projections + top-8 and shared experts + router + logits) and the causal half of the
    // attention core, s (heads x 192)/2 + s (heads x 128)/2 per layer; ShardScope counts every score (Korthikanti eq. 7).
    const core::ModelSpec& model = *core::find_model("deepseek-v3");
    const double s = 4096, h = 7168, layers = 61;
    const double q_term = 1536.0 * (h + 128.0 * 192 + 1);
    const double kv_term = 512.0 * (h + 128.0 * (128 + 128) + 1) + h * 64;
    const double o_term = 128.0 * 128 * h;
    const double core_attention = s * 128 * 192 / 2 + s * 128 * 128 / 2;
    const double attention = 6.0 * layers * (q_term + kv_term + o_term + core_attention);
    const double mlp = 6.0 * (3 * 3 * h * 18432 + 58 * 3 * h * (2048.0 * 8 + 2048));
    const double router = 6.0 * 58 * h * 256;
    const double logits = 6.0 * h * 129280;
    const double megatron = attention + mlp + router + logits;
    REQUIRE(megatron / 1e9 == Approx(250.4).margin(0.1));  // per token, without the MTP module (with it, about 260)
    const double ours = core::model_flops_per_token(model, 4096);
    const double uncounted_half = 6.0 * layers * core_attention;
    REQUIRE(ours - uncounted_half == Approx(megatron).epsilon(0.002));  // the latent norms: Megatron's + 1 terms
}

TEST_CASE("FLOPs from active parameters: Mixtral's step counts 2 of 8 experts (6 N_active + attention)", "[moe][flops]") {
    const core::ModelSpec& model = *core::find_model("mixtral-8x7b");
    const core::ParamBreakdown params = core::count_params(model, 4096);
    // Korthikanti eq. 7 with the active matrices: 6 (matmul weights a token multiplies + logits) + 12 L s h.
    const double expected = 6.0 * (params.total_active - params.embedding - 32.0 * 2 * 4096 - 4096) + 12.0 * 32 * 4096 * 4096;
    REQUIRE(core::model_flops_per_token(model, 4096) == Approx(expected).epsilon(1e-12));
    REQUIRE(core::model_flops_per_token(model, 4096) < 0.3 * 6.0 * params.total);
}

TEST_CASE("Scenario files: a model with experts round-trips through scenario_to_json", "[moe][scenario]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "deepseek-v3", "experts_per_token": 6},
        "train": {"seq_len": 4096, "global_batch": 512, "sequence_parallel": true},
        "parallel": {"tp": 2, "pp": 4, "ep": 8}, "cluster": {"gpus": 64},
        "moe": {"load_imbalance": 1.25, "node_limit": 4, "dispatch_bytes": 1}, "overlap": {"ep_all_to_all": true}})");
    REQUIRE(scenario.model.experts_per_token == 6);
    REQUIRE(scenario.model.id == "custom");
    REQUIRE(scenario.parallel.ep == 8);
    core::Scenario again = core::parse_scenario(core::scenario_to_json(scenario));
    again.model.default_seq_len = scenario.model.default_seq_len;  // not a field of a scenario file: the preset's 4096
    REQUIRE(core::layout_of(again) == core::layout_of(scenario));
    again.parallel.dp = scenario.parallel.dp;  // written out explicitly, derived before
    REQUIRE(again == scenario);
}
