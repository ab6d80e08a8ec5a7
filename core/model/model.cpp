#include "core/model/model.h"

#include "core/model/embedded_assets.h"
#include "core/model/model_json.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

// One layer's attention matrices: Q, K, V and O (standard or grouped-query), or MLA's low-rank projections
// (DeepSeek-V2 sec 2.1: W^DQ, W^UQ, W^DKV with the shared rope key, W^UK and W^UV, W^O).
double attention_matmul_params(const ModelSpec& model) {
    const double h = model.hidden;
    const double heads = model.heads;
    if (model.is_mla()) {
        const double qk = model.qk_head_dim();
        const double q = model.q_lora_rank > 0 ? h * model.q_lora_rank + static_cast<double>(model.q_lora_rank) * heads * qk : h * heads * qk;
        const double kv = h * (model.kv_lora_rank + model.qk_rope_head_dim) +
                          static_cast<double>(model.kv_lora_rank) * heads * (model.qk_nope_head_dim + model.v_head_dim);
        return q + kv + heads * model.v_head_dim * h;
    }
    const double q_width = heads * model.head_dim();
    const double kv_width = static_cast<double>(model.kv_heads) * model.head_dim();
    return 2.0 * h * q_width + 2.0 * h * kv_width;  // Q and O are h x (heads x head_dim), K and V h x (kv_heads x head_dim)
}

}  // namespace

ParamBreakdown count_params(const ModelSpec& model, int seq_len) {
    ParamBreakdown breakdown;
    const double h = model.hidden;
    const double q_width = static_cast<double>(model.heads) * model.head_dim();
    const double kv_width = static_cast<double>(model.kv_heads) * model.head_dim();
    const double f = model.ffn_hidden;
    const double matrices = model.gated_mlp ? 3.0 : 2.0;  // SwiGLU: gate, up, down
    const double attention_matmul = attention_matmul_params(model);
    const double mlp_matmul = matrices * h * f;
    double attention_biases = 0, mlp_biases = 0;
    if (model.bias) {
        attention_biases = (q_width + 2.0 * kv_width + h);
        mlp_biases = (model.gated_mlp ? 2.0 * f : f) + h;
    }
    const double biases = attention_biases + mlp_biases;
    // Two LayerNorms (weight + bias) or two RMSNorms (weight); MLA adds one on each latent.
    const double norms = (model.bias ? 4.0 * h : 2.0 * h) + (model.is_mla() ? model.q_lora_rank + model.kv_lora_rank : 0.0);
    breakdown.per_layer_matmul = attention_matmul + mlp_matmul;
    breakdown.per_layer = breakdown.per_layer_matmul + biases + norms;
    breakdown.embedding = static_cast<double>(model.vocab) * h;
    if (model.learned_positions) breakdown.position_embedding = static_cast<double>(model.positions > 0 ? model.positions : seq_len) * h;
    if (!model.tied_embeddings) breakdown.output_head = static_cast<double>(model.vocab) * h;
    breakdown.final_norm = model.bias ? 2.0 * h : h;
    breakdown.moe_layers = moe_layers_in(model, 0, model.layers);
    breakdown.dense_layers = model.layers - breakdown.moe_layers;
    double unvisited = 0;  // routed experts' weights one token does not use, over all MoE layers
    if (breakdown.moe_layers > 0) {
        const double expert = matrices * h * model.expert_ffn_hidden;
        const double expert_biases = model.bias ? (model.gated_mlp ? 2.0 : 1.0) * model.expert_ffn_hidden + h : 0.0;
        const double shared = model.shared_experts * (matrices * h * model.shared_ffn_hidden);
        const double shared_biases = model.bias ? model.shared_experts * ((model.gated_mlp ? 2.0 : 1.0) * model.shared_ffn_hidden + h) : 0.0;
        breakdown.router_per_layer = h * model.experts;
        breakdown.routed_experts_per_layer = model.experts * (expert + expert_biases);
        breakdown.moe_layer = attention_matmul + attention_biases + breakdown.router_per_layer + breakdown.routed_experts_per_layer + shared +
                              shared_biases + norms;
        breakdown.moe_layer_matmul_active = attention_matmul + breakdown.router_per_layer + model.experts_per_token * expert + shared;
        unvisited = breakdown.moe_layers * (model.experts - model.experts_per_token) * (expert + expert_biases);
    }
    breakdown.layers_matmul_active = breakdown.dense_layers * breakdown.per_layer_matmul + breakdown.moe_layers * breakdown.moe_layer_matmul_active;
    breakdown.total = breakdown.dense_layers * breakdown.per_layer + breakdown.moe_layers * breakdown.moe_layer + breakdown.embedding +
                      breakdown.position_embedding + breakdown.output_head + breakdown.final_norm;
    if (model.is_bare_count()) breakdown.total = model.params_override;
    breakdown.total_active = breakdown.total - unvisited;
    return breakdown;
}

bool is_moe_layer(const ModelSpec& model, int layer) {
    return model.is_moe() && layer >= model.first_dense_layers && (layer + 1) % std::max(1, model.moe_layer_step) == 0;
}

int moe_layers_in(const ModelSpec& model, int first, int count) {
    return moe_layers_in(model.is_moe(), model.first_dense_layers, model.moe_layer_step, first, count);
}

int moe_layers_in(bool moe, int first_dense_layers, int moe_layer_step, int first, int count) {
    if (!moe || count <= 0) return 0;
    const int step = std::max(1, moe_layer_step);
    const int start = std::max(first, first_dense_layers);  // layers start .. end - 1
    const int end = first + count;
    if (start >= end) return 0;
    return end / step - start / step;  // the multiples of step among start + 1 .. end
}

double attention_qk_width(const ModelSpec& model) { return static_cast<double>(model.heads) * model.qk_head_dim(); }
double attention_v_width(const ModelSpec& model) { return static_cast<double>(model.heads) * model.value_head_dim(); }

double kv_cache_elements_per_layer(const ModelSpec& model) {
    if (model.is_mla()) return static_cast<double>(model.kv_lora_rank) + model.qk_rope_head_dim;  // the latent and the shared rope key
    return 2.0 * model.kv_heads * model.head_dim();
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

const std::vector<ModelSpec>& builtin_models() {
    static const std::vector<ModelSpec> models = parse_model_presets(embedded_asset("models.json"));
    return models;
}

const ModelSpec* find_model(std::string_view id) {
    for (const ModelSpec& model : builtin_models()) if (model.id == id) return &model;
    return nullptr;
}

}  // namespace core
