// FLOPs of a training step: Korthikanti et al. 2022 eq. 7 and 8, Narayanan et al. 2021 eq. 3, Kaplan's 6N; for mixtures of
// experts the matrices one token multiplies (top-k routed experts, shared experts, router: Megatron-LM
// num_floating_point_operations), and for MLA or wider heads the attention widths the model has.
#include "core/cost/flops.h"

namespace core {

namespace {

// Attention scores and their use, per token per layer, forward: Q K^T over heads x qk_head_dim and P V over heads x
// v_head_dim, each 2 s x width (Korthikanti eq. 7's 4 s h when both are h wide).
double attention_flops_per_layer(const ModelSpec& model, int seq_len) {
    const double qk = attention_qk_width(model), v = attention_v_width(model);
    if (qk == model.hidden && v == model.hidden) return 4.0 * seq_len * static_cast<double>(model.hidden);
    return 2.0 * seq_len * (qk + v);
}

}  // namespace

double model_flops_per_token(const ModelSpec& model, int seq_len) {
    if (model.is_bare_count()) return 6.0 * model.params_override;  // Kaplan et al. 2020: 2 forward + 4 backward
    const ParamBreakdown params = count_params(model, seq_len);
    const double h = model.hidden;
    // Forward: 2 FLOPs per matrix weight a token multiplies, attention scores QK^T and AV, the logits (2 h V).
    const double matmul = model.is_moe() ? params.layers_matmul_active : model.layers * params.per_layer_matmul;
    const double forward = 2.0 * matmul + model.layers * attention_flops_per_layer(model, seq_len) + 2.0 * h * model.vocab;
    return 3.0 * forward;  // backward costs twice the forward
}

double recompute_flops_per_token(const ModelSpec& model, int seq_len, Recompute recompute, bool flash_attention) {
    if (model.is_bare_count()) return recompute == Recompute::full ? 2.0 * model.params_override : 0.0;
    const ParamBreakdown params = count_params(model, seq_len);
    const double attention = model.layers * attention_flops_per_layer(model, seq_len);
    if (recompute == Recompute::full) {
        // Narayanan et al. 2021 eq. 3: one more forward of every layer, logits not recomputed.
        const double matmul = model.is_moe() ? params.layers_matmul_active : model.layers * params.per_layer_matmul;
        return 2.0 * matmul + attention;
    }
    if (recompute == Recompute::selective) {
        // Korthikanti et al. 2022 eq. 8 minus eq. 7: 72 B L s h^2 (s/(3h) - s/(6h)) = 12 L s^2 h per sequence: the attention
        // core's forward (4 s h per token per layer) and its softmax-backward share again, 3 x the scores' forward.
        return 3.0 * attention;
    }
    // FlashAttention's backward recomputes the scores QK^T (2 s h per token per layer) instead of storing them.
    if (flash_attention) return model.layers * 2.0 * seq_len * attention_qk_width(model);
    return 0.0;
}

}  // namespace core
