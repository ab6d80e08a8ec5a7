#pragma once
// What a framework launches and costs beyond the kernels themselves: one set of values per framework, each measured.
#include "core/model/scenario.h"

namespace core {

struct FrameworkTraits {
    // Megatron fuses bias + GeLU, bias + dropout + add, scale + mask + softmax, the norms and the vocab-parallel loss into
    // one kernel each (Narayanan et al. 2021 sec 4.2; Megatron-LM fused_kernels/); eager PyTorch runs each op alone.
    bool fused_elementwise = true;
    // Flash attention as the framework runs it: Transformer Engine's cuDNN kernel, or PyTorch's SDPA flash backend.
    bool cudnn_attention = true;
    // Eager autocast over fp32 weights casts each to bf16 in the forward, and accumulates bf16 weight gradients into
    // fp32 .grad in the backward; the residual stream and the norms' outputs stay fp32 (torch.autocast op lists).
    bool autocast_casts = false;
    // Weight gradients in the compute dtype added into wider main gradients each micro-batch by a separate pass
    // (Megatron without --gradient-accumulation-fusion; eager autocast's fp32 .grad).
    bool separate_grad_accumulation = false;
    double main_grad_bytes = 2.0;  // bytes per element of the gradient the micro-batches accumulate into
    // The activations' and GEMM operands' bytes per element (the recipe's compute_bytes): bf16 2; fp32 4, whose GEMMs run
    // on the CUDA cores (PyTorch keeps TF32 off by default) at the GPU's fp32 peak.
    double compute_bytes = 2.0;
    // The linear layers' GEMM operands (QKV, output projection, MLP, experts) in bytes per element: fp8 recipes 1, run on
    // the fp8 tensor cores where the GPU has an fp8 GEMM table. The rest stays in the compute dtype: Megatron-LM's output
    // layer is not a Transformer Engine module, and DeepSeek-V3 (sec 3.3.1) keeps the embedding, the output head, the
    // gating, the norms and attention in bf16 or fp32.
    double gemm_bytes = 2.0;
    // The CPU time to launch one kernel: a kernel shorter than this leaves the GPU waiting. Measured on the H100 host:
    // eager PyTorch 2.11 takes 10.3 us per elementwise op and 20.6 us per matmul (measurements/h100_kernel_probe_graphs.json,
    // eager loop against the same ops replayed from a CUDA graph). Megatron launches from the same eager PyTorch.
    double host_seconds_per_elementwise = 10.3e-6;
    double host_seconds_per_gemm = 20.6e-6;
    // Megatron pads the vocabulary to a multiple of 128 x TP (--make-vocab-size-divisible-by, default 128; megatron/training/
    // vocab_utils.py), so each rank's logits GEMM is aligned; eager PyTorch runs the tokenizer's size as it is (GPT-2: 50257).
    int vocab_divisible_by = 128;

    // ---- What the framework keeps: memory (core/cost/memory/memory.cpp). Eager figures measured on one H100 against PyTorch
    // 2.11's allocator (measurements/h100_memory_phases.json, memory_phase_probe.py); Megatron's from its kernels. ----
    // The residual stream's bytes per element, which the norms keep as their inputs: eager autocast adds bf16 outputs into
    // the fp32 embedding output, so the stream stays fp32 (4); Megatron keeps it in the compute dtype.
    double residual_bytes = 2.0;
    // The loss's working set per logit (b s V / t elements) at the end of the forward and in the loss's backward.
    // Megatron's vocab-parallel cross-entropy: the 16-bit logits and the fp32 copy it turns into the softmax in place, then
    // the gradient made in place beside the 16-bit gradient handed back (2 + 4 both times). Eager: logits.float() beside
    // log_softmax's fp32 output (4 + 4), then that output, its gradient and the input's gradient (4 + 4 + 4).
    double logits_forward_bytes = 6.0;
    double logits_backward_bytes = 6.0;
    // Attention probabilities kept per score when they are stored (no flash attention, no recompute): Megatron's fused
    // softmax keeps its 16-bit output, which the product with V reuses (2, Korthikanti sec 4.1); eager autocast runs the
    // softmax in fp32 and the product with V keeps a bf16 copy (4 + 2). Dropout adds its 1-byte mask, and a separate output
    // where the product with V keeps it (+ 2): Korthikanti's 5.
    double probs_bytes = 2.0;
    double probs_dropout_bytes = 3.0;
    // The backward of unfused attention holds, beside the stored activations, the gradients of the probabilities and the
    // scores: Megatron's fused softmax in 16 bits (2 + 2); eager the bf16 gradient, its fp32 cast and the fp32 softmax
    // gradient (2 + 4 + 4).
    double probs_backward_bytes = 4.0;
    // A gated MLP's ffn-wide tensors kept in the compute dtype besides the down projection's input: Megatron's one fc1
    // output (gate and up side by side) for its fused SwiGLU (2); eager keeps gate, silu(gate) and up (3).
    double gated_ffn_tensors = 2.0;
    // How many casts of the MLP's input the GEMMs keep: autocast casts the norm's fp32 output once per consumer (gate and
    // up of a gated MLP); without autocast, one tensor serves both.
    int mlp_input_copies_gated = 1;
    // Autocast's weight copies: cached to the end of the forward and held by the graph until each weight's backward;
    // under full recompute only the recomputed layer's come back. Transformer Engine keeps its fp8 copies all step.
    bool weight_copies_released_by_recompute = false;
    // PyTorch DDP's default (gradient_as_bucket_view=False) copies every gradient into its all-reduce buckets, whose total
    // is the gradients' size (torch.nn.parallel.DistributedDataParallel docs); Megatron's buckets are views of its buffer.
    bool ddp_bucket_copy = false;
};

// The scenario's framework, as its recipe runs it.
FrameworkTraits framework_traits(const Scenario&);
// The vocabulary rows one tensor-parallel rank's embedding and logits hold: the model's, padded as the framework pads.
double vocab_per_rank(int vocab, int tp, const FrameworkTraits&);

}  // namespace core
