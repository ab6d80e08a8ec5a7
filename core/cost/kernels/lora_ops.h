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
#include "core/model/framework_recipe.h"

#include <memory>

namespace core {

// The block with LoRA's ops; `layer`: the block is a transformer layer (adapters attach only there: the embedding and the
// head are frozen as they are). Null for a full fine-tune.
std::shared_ptr<const RecipeBlock> adapted_block(const RecipeBlock&, bool layer, const FinetuneSpec&);

// Whether the op's weight is read from a quantized store (a frozen linear of a layer under base_bytes < 2): it is
// dequantized to bf16 before each GEMM that reads it, forward and backward.
bool quantized_weight(const RecipeOp&, const FinetuneSpec&);

}  // namespace core
