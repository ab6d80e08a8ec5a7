#pragma once
// A training step as the kernels it runs: each transformer layer's GEMMs at their sharded shapes, attention, norms,
// activations, dropout and residual adds, forward, backward (input and weight gradients) and recompute; the
// embedding on the first pipeline stage, the logits and loss on the last; the optimizer step. Each kernel has its
// FLOPs and the bytes it moves, and its time is the roofline's: the slower of compute at the GPU's measured GEMM
// efficiency for its size and memory traffic at the measured bandwidth of its class, and never shorter than the
// framework takes to launch it.
#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/roofline.h"
#include "core/model/scenario.h"

#include <memory>
#include <vector>

namespace core {

enum class KernelId {
    norm,               // LayerNorm / RMSNorm before attention and before the MLP (count 2)
    qkv,                // the Q, K, V projection GEMM
    attention,          // fused (flash) attention
    attention_scores,   // unfused: Q K^T, a batched GEMM
    attention_softmax,  // unfused: scale, mask, softmax over the s x s scores
    attention_dropout,  // unfused: dropout on the probabilities
    attention_context,  // unfused: P V, a batched GEMM
    head_transpose,     // eager: the attention output made contiguous again
    out_proj,           // the attention output projection GEMM
    residual,           // (bias-dropout-) add after attention and after the MLP (count 2)
    mlp_up,             // h -> ffn (gate and up together when gated)
    activation,         // GeLU, or SwiGLU's silu(gate) x up
    mlp_down,           // ffn -> h
    weight_cast,        // eager autocast: each fp32 weight cast to bf16
    grad_accumulate,    // eager: bf16 weight gradients added into fp32 .grad
    embedding,          // first stage: token (and position) embedding
    final_norm,         // last stage
    logits,             // last stage: h -> vocabulary GEMM
    cross_entropy,      // last stage: softmax and loss over the vocabulary
    optimizer,          // once per step: the optimizer over this GPU's share of the state
    router,             // MoE: h -> experts logits, then softmax and top-k
    permute,            // MoE: each token's copies gathered into expert order before the dispatch
    expert_up,          // MoE: the local experts' h -> f_e GEMMs (gate and up), one grouped GEMM at each expert's shape
    expert_activation,  // MoE: SwiGLU (or GeLU) over the routed copies
    expert_down,        // MoE: f_e -> h per local expert
    unpermute,          // MoE: the combined copies put back in token order and summed with the router's weights
    latent_up,          // MLA: the latent's up-projections to per-head Q, and K and V (DeepSeek-V2 sec 2.1)
    attention_scale,    // eager unfused: the scores divided by sqrt(d)
    attention_mask,     // eager unfused: masked_fill as a clone and an in-place fill with the broadcast causal mask
    attention_cast,     // eager unfused under autocast: the scores to fp32 for the softmax, the probabilities back to bf16
    fp8_cast,           // fp8 recipes: an fp8 GEMM's activation-side operand cast to fp8 with its transpose (Transformer
                        // Engine's cast_transpose), forward for the input, backward for the output gradient
    op,                 // an operator of a framework recipe (core/cost/kernels/recipe_ops.h): its label names it
};
const char* kernel_name(KernelId);  // "qkv", "attention", ... (the eval keys)

enum class KernelPass { forward, backward_input, backward_weight, recompute };
const char* kernel_pass_name(KernelPass);  // "forward", "backward_input", "backward_weight", "recompute"

// The step breakdown's categories.
enum class KernelCategory { gemm, attention, elementwise, optimizer };
const char* kernel_category_name(KernelCategory);

// How often a kernel runs: in every layer, once per micro-batch on the first or the last pipeline stage, once per step.
enum class KernelScope { layer, first_stage, last_stage, step };
const char* kernel_scope_name(KernelScope);

enum class MemoryClass { streaming, norm, softmax, dropout, optimizer, broadcast, widening };

struct Kernel {
    KernelId id = KernelId::qkv;
    KernelPass pass = KernelPass::forward;
    KernelCategory category = KernelCategory::gemm;
    KernelScope scope = KernelScope::layer;
    MemoryClass memory_class = MemoryClass::streaming;  // for memory-bound kernels
    bool is_gemm = false;           // timed by the GEMM table (batched GEMMs too)
    bool is_fused_attention = false;
    bool fp8 = false;               // a linear layer's GEMM on the fp8 tensor cores (an fp8 recipe, a GPU with an fp8 table)
    bool cudnn_attention = false;   // fused attention on cuDNN's kernels (Transformer Engine, PyTorch SDPA's cuDNN backend),
                                    // else SDPA's flash backend: the GPU's two attention curves
    double attention_speed = 1;     // fused attention: its speed against the GPU's curve (1: that kernel; Triton's
                                    // FlashAttention runs below FlashAttention-2's, recipe_ops.cpp)
    const char* label = nullptr;    // a recipe operator's name ("self_attn.q_proj"), the recipe's own storage; null for the
                                    // builder's kernels, which kernel_name(id) names
    int count = 1;                  // instances per scope: two norms and two residual adds per layer
    double launches = 1;            // CUDA launches per instance: a multi-tensor optimizer step runs in many
    double m = 0, n = 0, k = 0;     // GEMM shape after sharding, per instance (batched GEMMs: per batch entry)
    double batch = 1;               // batched GEMMs: how many (b x heads / TP)
    double efficiency_size = 0;     // fused attention: the sequence length its efficiency is read at (a ring step's chunk);
                                    // a grouped GEMM: one group member's FLOPs (an expert's GEMM), else the kernel's own
    double flops = 0;               // per instance, all of the batch
    double bytes = 0;               // to and from HBM, per instance
    double seconds = 0;             // per instance
    double efficiency = 0;          // achieved over peak: FLOP/s over peak FLOP/s, or bytes/s over HBM for memory-bound kernels
    int alignment_bytes = 16;       // GEMMs: the alignment of the rows of its weight-side dimensions, up to 16 (time_kernel)
    Bound bound = Bound::memory;
    double runs_per_step = 0;       // how often the busiest GPU runs this scope per step (evaluate fills it; 0 elsewhere)
    double total_seconds() const { return seconds * count; }
    double step_seconds() const { return total_seconds() * runs_per_step; }  // its share of the step
};

// How one layer is split over the GPUs: what changes the shapes of its kernels.
struct LayerSplit {
    int tp = 1;
    int cp = 1;
    int micro_batch = 1;
    bool sequence_parallel = false;
    Recompute recompute = Recompute::none;
    int ep = 1;   // expert parallel: E / ep local experts per GPU
    int etp = 1;  // expert tensor parallel: each expert's width / etp

    bool operator==(const LayerSplit&) const = default;
};

// One layer's kernels for one micro-batch, built and timed once whatever the recompute: a recomputed kernel is its forward
// kernel run again, at the same time. attention_core: also the forward's attention core alone (what selective reruns).
// Shared, not copied: an operator recipe's passes are its cached program's own vectors (a LoRA layer runs 400 kernels).
struct LayerPasses {
    using Pass = std::shared_ptr<const std::vector<Kernel>>;
    Pass forward, attention_core, backward;  // never null
};
LayerPasses layer_passes(const Scenario&, const LayerSplit&, bool moe_layer, bool attention_core);
// Visits the layer's kernels in execution order under a recompute setting, each with the pass it runs as: the forward,
// the forward kernels rerun (all under full recompute, the attention core under selective) as recompute, the backward.
// time_kernel prices a recomputed kernel as its forward (the same shape, the forward's attention curve).
template <class Visit>
void for_each_layer_kernel(const LayerPasses& passes, Recompute recompute, Visit&& visit) {
    for (const Kernel& kernel : *passes.forward) visit(kernel, kernel.pass);
    const std::vector<Kernel>* rerun = recompute == Recompute::full ? passes.forward.get() : recompute == Recompute::selective ? passes.attention_core.get() : nullptr;
    if (rerun) for (const Kernel& kernel : *rerun) visit(kernel, KernelPass::recompute);
    for (const Kernel& kernel : *passes.backward) visit(kernel, kernel.pass);
}
// The layer's kernels in that order, each labelled with its pass.
// `spare`: room for kernels the caller appends (the edges, the optimizer) without a reallocation.
std::vector<Kernel> layer_kernels_of(const LayerPasses&, Recompute, std::size_t spare = 0);
// Every kernel of one layer, one micro-batch, on one GPU, in execution order: forward, recompute, then backward
// (input and weight gradients interleaved, last forward kernel first). Timed.
std::vector<Kernel> layer_kernels(const Scenario&, const LayerSplit&);
// The same for a layer with routed experts: the router, the permutations around the dispatch and combine, the local experts'
// grouped GEMMs at their real per-expert shapes (tokens x top-k / E per expert, x the busiest GPU's load factor) and the
// shared experts; its attention as a dense layer's. Timed.
std::vector<Kernel> moe_layer_kernels(const Scenario&, const LayerSplit&);
// The first stage's embedding and the last stage's final norm, logits and loss, one micro-batch, all passes. Timed.
std::vector<Kernel> edge_kernels(const Scenario&, const LayerSplit&);
// The optimizer step over local_params parameters (this GPU's share of the state). Timed.
Kernel optimizer_kernel(const Scenario&, double local_params);

// The byte alignment (one element's bytes up to 16) of a GEMM's rows along its two dimensions that are not the tokens (a
// weight's in and out features; a batched GEMM's inner ones), up to the 16 bytes cuBLAS's fast kernels load at once.
int gemm_alignment_bytes(const Kernel&, double element_bytes = 2.0);
// Whether the compute runs in fp32 on the CUDA cores (PyTorch keeps TF32 off), at the GPU's fp32 peak.
bool fp32_on_cuda_cores(const GpuSpec&, const FrameworkTraits&);
// Whether the recipe's linear-layer GEMMs run on the fp8 tensor cores: an fp8 recipe on a GPU with an fp8 peak and table
// (else they run as the compute dtype's).
bool fp8_gemms(const GpuSpec&, const FrameworkTraits&);
// Times one kernel on the GPU under the framework: fills seconds, efficiency, bound and a GEMM's alignment.
void time_kernel(Kernel&, const GpuSpec&, const FrameworkTraits&);

// A layer's kernels summed by pass and by category, for one micro-batch: what the pipeline and the planner need.
struct PassSeconds {
    double forward = 0, backward_input = 0, backward_weight = 0, recompute = 0;
    double gemm = 0, attention = 0, elementwise = 0;  // all passes
    double attention_forward = 0;   // the forward attention core alone: what CP's ring exchange hides behind
    double attention_backward = 0;
    double flops = 0;               // all passes, recompute included
    double forward_launches = 0, backward_launches = 0, recompute_launches = 0;  // CUDA launches, what the host pays for
    double backward() const { return recompute + backward_input + backward_weight; }
};
PassSeconds sum_passes(const std::vector<Kernel>&, KernelScope scope);
// sum_passes(layer_kernels_of(passes, recompute), KernelScope::layer), without building the list.
PassSeconds sum_layer_passes(const LayerPasses&, Recompute);

}  // namespace core
