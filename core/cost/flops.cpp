// FLOPs of a training step: Korthikanti et al. 2022 eq. 7 and 8, Narayanan et al. 2021 eq. 3, Kaplan's 6N.
#include "core/cost/flops.h"

namespace core {

double model_flops_per_token(const ModelSpec& model, int seq_len) {
    if (model.is_bare_count()) return 6.0 * model.params_override;  // Kaplan et al. 2020: 2 forward + 4 backward
    const ParamBreakdown params = count_params(model, seq_len);
    const double h = model.hidden;
    // Forward: 2 FLOPs per matrix weight, attention scores QK^T and AV (2 s h each), the logits (2 h V).
    const double forward = 2.0 * model.layers * params.per_layer_matmul + 4.0 * model.layers * seq_len * h + 2.0 * h * model.vocab;
    return 3.0 * forward;  // backward costs twice the forward
}

double recompute_flops_per_token(const ModelSpec& model, int seq_len, Recompute recompute, bool flash_attention) {
    if (model.is_bare_count()) return recompute == Recompute::full ? 2.0 * model.params_override : 0.0;
    const ParamBreakdown params = count_params(model, seq_len);
    const double h = model.hidden;
    if (recompute == Recompute::full) {
        // Narayanan et al. 2021 eq. 3: one more forward of every layer, logits not recomputed.
        return 2.0 * model.layers * params.per_layer_matmul + 4.0 * model.layers * seq_len * h;
    }
    if (recompute == Recompute::selective) {
        // Korthikanti et al. 2022 eq. 8 minus eq. 7: 72 B L s h^2 (s/(3h) - s/(6h)) = 12 L s^2 h per sequence.
        return 12.0 * model.layers * seq_len * h;
    }
    // FlashAttention's backward recomputes the scores QK^T (2 s h per token per layer) instead of storing them.
    if (flash_attention) return 2.0 * model.layers * seq_len * h;
    return 0.0;
}

}  // namespace core
