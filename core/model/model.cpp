#include "core/model/model.h"

#include "core/model/embedded_assets.h"
#include "core/model/model_json.h"

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

const std::vector<ModelSpec>& builtin_models() {
    static const std::vector<ModelSpec> models = parse_model_presets(embedded_asset("models.json"));
    return models;
}

const ModelSpec* find_model(std::string_view id) {
    for (const ModelSpec& model : builtin_models()) if (model.id == id) return &model;
    return nullptr;
}

}  // namespace core
