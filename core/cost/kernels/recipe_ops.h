#pragma once
// A framework recipe's block (core/model/framework_recipe.h) instantiated for one layout: each operator's kernels, forward
// and backward, on the roofline (time), and the tensors it writes, keeps for its backward and frees (memory), with
// PyTorch's semantics: autocast's op lists and casts (aten/src/ATen/autocast_mode.cpp), type promotion, and what autograd
// saves and launches in the backward (tools/autograd/derivatives.yaml). Built once per layout split, not per evaluate of
// the step's parts, so a search shares it.
#include "core/cost/kernels/kernels.h"
#include "core/model/framework_recipe.h"

#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

namespace core {

enum class Dtype : unsigned char { fp32, bf16, fp8, mask, index };
double dtype_bytes(Dtype);

// One tensor of a block, for one micro-batch on one GPU.
struct ProgramTensor {
    std::string_view name;
    double elements = 0;
    Dtype dtype = Dtype::bf16;
    bool requires_grad = true;
    bool constant = false;     // held by the framework for every layer (RoPE tables, token ids): no per-layer bytes
    int alias_of = -1;         // a view: the storage of that tensor
    bool cached_weight = false;// autocast's cast of a weight: held in autocast's cache to the end of the forward
    double bytes() const { return elements * dtype_bytes(dtype); }
};

// One operator of a block, instantiated: the tensors it reads and writes, those it keeps for its backward, its kernels.
struct ProgramOp {
    const RecipeOp* recipe = nullptr;
    std::vector<int> inputs;          // tensor indices (after autocast's casts)
    int output = -1;
    std::vector<int> saved;           // kept from its forward until its backward: inputs, output, or tensors it made
    std::vector<int> made;            // tensors the op itself allocates besides its output (autocast casts, masks, lse)
    int forward_kernels = 0;          // how many of the block's forward kernels are its (in order)
    int backward_kernels = 0;         // and of its backward kernels
    double weight_params = 0;         // parameters of the weight it reads (its gradient's elements); 0 for a frozen weight
    double frozen_params = 0;         // a frozen weight's parameters (LoRA's base): no gradient, no optimizer state
    double frozen_bytes = 0;          // and the bytes it is stored in (quantized ones with their constants)
    double backward_scratch_bytes = 0;// what its backward allocates and frees beside the input gradients
    double weight_grad_cast_bytes = 0;// under autocast, the bf16 dW its node returns, cast to the fp32 .grad by a later node
    int chunks = 1;                   // its backward runs chunk by chunk (torchtune's chunked loss: 8), freeing as it goes
    bool recompute_selective = false;
};

// One block (the embedding, a layer, the head) for one micro-batch on one GPU.
struct BlockProgram {
    std::vector<ProgramTensor> tensors;
    std::vector<ProgramOp> ops;
    int input = -1, output = -1;
    std::vector<Kernel> forward;      // in execution order
    std::vector<Kernel> backward;     // in execution order (the last op's first)
    std::vector<Kernel> selective;    // the forward kernels selective recompute reruns (ops marked recompute_selective)
    double weight_params = 0;         // trainable: every weight, or LoRA's adapters
    double frozen_params = 0;         // LoRA's frozen base weights the block reads
    double frozen_bytes = 0;
    Dtype stream = Dtype::bf16;       // the residual stream's dtype
    Dtype grad_dtype = Dtype::fp32;   // the parameters' gradients
    bool autocast = false;
    std::shared_ptr<const RecipeBlock> adapted;  // LoRA's form of the recipe's block, which the ops point into (null: the recipe's)
};

enum class BlockRole { embedding, layer, head };

// The dtypes a recipe runs in under a scenario's precision recipe: autocast over fp32 weights, or the weights' own dtype.
// LoRA and QLoRA: a bf16 base (dequantized to bf16 when quantized) under autocast when the adapters are fp32, as the
// Trainer's bf16=True runs PEFT's fp32 adapters; gradients in the adapters' dtype.
struct RecipeDtypes {
    bool autocast = false;
    Dtype param = Dtype::bf16;        // the weights the ops read (FSDP's mixed precision gathers them in bf16)
    Dtype compute = Dtype::bf16;
    Dtype grad = Dtype::bf16;         // the parameters' gradients
    Dtype adapter = Dtype::fp32;      // LoRA's adapters' weights
};
RecipeDtypes recipe_dtypes(const Scenario&);

// Builds one block of the scenario's recipe (an operator recipe; block-op recipes go through kernels.h's builder) for a
// split, kernels timed. Built once per distinct block (what the block depends on: the recipe, the model's shape, the
// run's sizes and dtypes, the GPU, the split) and shared: a drag that moves nothing of it, and a search, reuse it.
std::shared_ptr<const BlockProgram> block_program(const Scenario&, const LayerSplit&, BlockRole);
// What a block depends on, as a key (block_program's, and the memory walks' built on it).
std::string block_key(const Scenario&, const LayerSplit&, BlockRole);

// Whether the scenario's recipe lists operators (else its layer is Megatron-style block ops).
bool runs_operator_recipe(const Scenario&);

// A scenario field the recipe decides itself, so no control offers it: what stands in the control's place, why,
// and the source. "train.attention" (the recipe calls SDPA and describes no eager attention), "memory.fragmentation" (the
// allocator's model) and
// "train.compile" (where the recipe describes no compiled kernels).
struct RecipeSetField {
    const char* name;   // "train.attention"
    const char* shown;
    const char* why;
    const char* source;
};
std::optional<RecipeSetField> set_by_recipe(const Scenario&, std::string_view field);
// The fields this scenario's recipe decides and the scenario sets otherwise (a file's "attention": "eager", a
// fragmentation allowance changed), by index for recipe_set_field: each changes no figure, and evaluate says so.
std::vector<int> recipe_set_fields_overridden(const Scenario&);
const RecipeSetField& recipe_set_field(int index);

// The attention implementations a control offers for the scenario's recipe, each with its words: Hugging Face's three
// where the recipe describes eager attention; fused and unfused for a Megatron-style layer; none where the recipe decides.
struct AttentionChoice {
    AttentionImpl impl;
    const char* shown;  // "eager", "fused (FlashAttention)"
};
std::vector<AttentionChoice> attention_choices(const Scenario&);

}  // namespace core
