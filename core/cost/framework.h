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
    // The CPU time to launch one kernel: a kernel shorter than this leaves the GPU waiting. Measured on the H100 host:
    // eager PyTorch 2.11 takes 10.3 us per elementwise op and 20.6 us per matmul (measurements/h100_kernel_probe_graphs.json,
    // eager loop against the same ops replayed from a CUDA graph). Megatron launches from the same eager PyTorch.
    double host_seconds_per_elementwise = 10.3e-6;
    double host_seconds_per_gemm = 20.6e-6;
};

// The scenario's framework, as its recipe runs it.
FrameworkTraits framework_traits(const Scenario&);

}  // namespace core
