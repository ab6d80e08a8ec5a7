#include "core/cost/framework.h"

namespace core {

FrameworkTraits framework_traits(const Scenario& scenario) {
    FrameworkTraits traits;
    const PrecisionRecipe& recipe = scenario.precision;
    const double weight_bytes = recipe.bytes_per_param(StateKind::weights);
    traits.main_grad_bytes = recipe.bytes_per_param(StateKind::grads);
    if (scenario.train.framework == Framework::pytorch_eager) {
        traits.fused_elementwise = false;
        traits.cudnn_attention = false;
        traits.autocast_casts = weight_bytes >= 4.0;
        traits.separate_grad_accumulation = traits.autocast_casts;
    } else {
        // A main gradient wider than the 16-bit GEMM output is accumulated into by the GEMM or by a separate add.
        traits.separate_grad_accumulation = !scenario.train.gradient_accumulation_fusion && traits.main_grad_bytes > 2.0;
    }
    return traits;
}

}  // namespace core
