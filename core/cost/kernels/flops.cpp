// FLOPs of a training step: Korthikanti et al. 2022 eq. 7 and 8, Narayanan et al. 2021 eq. 3, Kaplan's 6N; for mixtures of
// experts the matrices one token multiplies (top-k routed experts, shared experts, router: Megatron-LM
// num_floating_point_operations), and for MLA or wider heads the attention widths the model has.
#include "core/cost/kernels/flops.h"

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

double hardware_flops_per_token(const ModelSpec& model, int seq_len, Recompute recompute, bool flash_attention) {
    const double model_flops = model_flops_per_token(model, seq_len);
    if (model.is_bare_count()) return model_flops + (recompute == Recompute::full ? 2.0 * model.params_override : 0.0);
    const ParamBreakdown params = count_params(model, seq_len);
    const double attention = model.layers * attention_flops_per_layer(model, seq_len);  // forward, every score
    const double matmul = model.is_moe() ? params.layers_matmul_active : model.layers * params.per_layer_matmul;
    // Narayanan et al. 2021 eq. 3: full recompute runs one more forward of every layer, logits not recomputed.
    const double recomputed_matmul = recompute == Recompute::full ? 2.0 * matmul : 0.0;
    if (flash_attention) {
        // The model count's 3 forwards of attention (forward, backward) become what the kernels run: half of the forward, of
        // the 2.5-forward backward and of a recomputed forward (full or selective recompute reruns the flash forward).
        const double forwards_run = 1.0 + 2.5 + (recompute == Recompute::none ? 0.0 : 1.0);
        return model_flops + recomputed_matmul - 3.0 * attention + 0.5 * forwards_run * attention;
    }
    // Korthikanti et al. 2022 eq. 8 minus eq. 7: selective recompute reruns the attention core's forward and its
    // softmax-backward share again, 3 x the scores' forward (12 L s^2 h per sequence); full recompute one forward of it.
    if (recompute == Recompute::selective) return model_flops + 3.0 * attention;
    return model_flops + recomputed_matmul + (recompute == Recompute::full ? attention : 0.0);
}

}  // namespace core
