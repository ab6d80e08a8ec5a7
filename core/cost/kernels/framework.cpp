#include "core/cost/kernels/framework.h"

namespace core {

FrameworkTraits framework_traits(const Scenario& scenario) {
    FrameworkTraits traits;
    const PrecisionRecipe& recipe = scenario.precision;
    const double weight_bytes = recipe.bytes_per_param(StateKind::weights);
    traits.main_grad_bytes = recipe.bytes_per_param(StateKind::grads);
    traits.compute_bytes = recipe.compute_bytes;
    traits.gemm_bytes = recipe.linear_gemm_bytes();
    if (!is_megatron_family(scenario.train.framework) && scenario.train.framework != Framework::pytorch_eager) {
        // A framework whose layer is a list of operators (assets/frameworks): its kernels and tensors come from the recipe
        // (core/cost/kernels/recipe_ops.cpp); these traits only say how it pads the vocabulary and what its GEMMs read.
        traits.fused_elementwise = false;
        traits.vocab_divisible_by = 1;
        traits.cudnn_attention = false;
        traits.residual_bytes = recipe.compute_bytes;
        traits.separate_grad_accumulation = false;
        traits.ddp_bucket_copy = true;
        // Its host's launches are charged to the step as a whole (core/cost/step/step.cpp host_bound_seconds), not kernel
        // by kernel: a queued kernel does not wait for the host.
        traits.host_seconds_per_elementwise = 0;
        traits.host_seconds_per_gemm = 0;
        return traits;
    }
    if (scenario.train.framework == Framework::pytorch_eager) {
        traits.fused_elementwise = false;
        traits.vocab_divisible_by = 1;
        traits.cudnn_attention = false;
        traits.autocast_casts = weight_bytes >= 4.0 && recipe.compute_bytes < weight_bytes;  // pure fp32 casts nothing
        traits.separate_grad_accumulation = weight_bytes >= 4.0;  // autograd adds each dW into the fp32 .grad
        // fp32 weights read through autocast's bf16 copies; a recipe that casts them itself before gathering (FSDP2 mixed
        // precision) runs the model in bf16.
        const bool autocast = weight_bytes > recipe.compute_bytes && recipe.gather_bytes <= 0;
        traits.residual_bytes = autocast ? weight_bytes : recipe.compute_bytes;
        traits.logits_forward_bytes = 8.0;
        traits.logits_backward_bytes = 12.0;
        traits.probs_bytes = autocast ? 6.0 : 2.0;
        traits.probs_dropout_bytes = autocast ? 1.0 : 3.0;  // autocast: the product keeps the bf16 copy of the dropout output
        traits.probs_backward_bytes = autocast ? 10.0 : 4.0;
        traits.gated_ffn_tensors = 3.0;
        traits.mlp_input_copies_gated = autocast ? 2 : 1;
        traits.weight_copies_released_by_recompute = autocast;
        traits.ddp_bucket_copy = true;
    } else {
        traits.residual_bytes = recipe.compute_bytes;
        // A main gradient wider than the 16-bit GEMM output is accumulated into by the GEMM or by a separate add.
        traits.separate_grad_accumulation = !scenario.train.gradient_accumulation_fusion && traits.main_grad_bytes > 2.0;
    }
    return traits;
}

double vocab_per_rank(int vocab, int tp, const FrameworkTraits& traits) {
    const long long multiple = 1LL * traits.vocab_divisible_by * tp;
    const long long padded = (vocab + multiple - 1) / multiple * multiple;
    return static_cast<double>(padded) / tp;
}

}  // namespace core
