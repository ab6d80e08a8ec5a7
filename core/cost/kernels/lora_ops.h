#pragma once
// LoRA as a transformation of a framework recipe's block (core/model/framework_recipe.h): every weight is frozen, and each
// targeted linear of a layer becomes what PEFT's lora.Linear.forward runs (peft v0.20.0 src/peft/tuners/lora/layer.py:1030):
//   result = base_layer(x)                                    the frozen linear (bf16, or dequantized from int8 or NF4)
//   x = x.to(lora_A.weight.dtype)                             _cast_input_dtype (tuners_utils.py:1777): fp32 adapters
//   result = result + lora_B(lora_A(dropout(x))) * scaling    dropout p = 0 is nn.Identity: no op
//   result = result.to(torch_result_dtype)
// The ops are ordinary recipe ops, so core/cost/kernels/recipe_ops.cpp gives them PyTorch's semantics like any other:
// autocast's casts of the fp32 adapters, what autograd saves (A's input for dA, A's output for dB), input gradients
// through the frozen linears without their weight-gradient GEMMs.
#include "core/model/finetune.h"
#include "core/model/scenario.h"
#include "core/model/framework_recipe.h"

#include <memory>

namespace core {

// The block with LoRA's ops; `layer`: the block is a transformer layer (adapters attach only there: the embedding and the
// head are frozen as they are). Null for a full fine-tune.
std::shared_ptr<const RecipeBlock> adapted_block(const RecipeBlock&, bool layer, const FinetuneSpec&, LoraStyle = LoraStyle::peft);

// A LoRA or QLoRA run's parameters, counted from the adapted blocks the step runs (one GPU's whole model, unsplit):
// the frozen base (its parameters and the bytes it is stored in: quantized linears with their constants, the rest bf16)
// and the adapters, which alone have gradients and optimizer state.
struct LoraCounts {
    double frozen_params = 0, frozen_bytes = 0, adapter_params = 0;
    double layer_frozen_bytes = 0, layer_frozen_params = 0, layer_adapter_params = 0;  // one transformer layer
    double head_frozen_params = 0;                                // the final norm and the output layer
    double first_frozen_bytes = 0, last_frozen_bytes = 0;         // the embedding; the final norm and the head
    double adapter_bytes_per_param = 4;                           // the adapters' dtype (their gradients' too)
};
LoraCounts lora_counts(const Scenario&);

// The scenario's FLOPs per token, full training or fine-tune alike: model FLOPs (what MFU counts, no recompute) and
// hardware FLOPs (what the GPUs run, recompute included; HFU). A LoRA or QLoRA step drops the frozen weights' gradient
// GEMMs (2 FLOPs per frozen weight of the layers and the output layer per token: X^T dY is not run for a weight without
// requires_grad) and adds the adapters' own forward and backward (6 per parameter). The one place evaluate and the
// planner take them from.
struct StepFlops {
    double model_per_token = 0, hardware_per_token = 0;
};
StepFlops step_flops_per_token(const Scenario&);

// Whether the op's weight is read from a quantized store (a frozen linear of a layer under base_bytes < 2): it is
// dequantized to bf16 before each GEMM that reads it, forward and backward.
bool quantized_weight(const RecipeOp&, const FinetuneSpec&);

}  // namespace core
