#include "core/cost/kernels/kernels.h"

#include "core/cost/kernels/recipe_ops.h"

#include <algorithm>
#include <cmath>

namespace core {

const char* kernel_name(KernelId id) {
    switch (id) {
        case KernelId::norm: return "norm";
        case KernelId::qkv: return "qkv";
        case KernelId::attention: return "attention";
        case KernelId::attention_scores: return "attention_scores";
        case KernelId::attention_softmax: return "attention_softmax";
        case KernelId::attention_scale: return "attention_scale";
        case KernelId::attention_mask: return "attention_mask";
        case KernelId::attention_cast: return "attention_cast";
        case KernelId::fp8_cast: return "fp8_cast";
        case KernelId::attention_dropout: return "attention_dropout";
        case KernelId::attention_context: return "attention_context";
        case KernelId::head_transpose: return "head_transpose";
        case KernelId::out_proj: return "out_proj";
        case KernelId::residual: return "residual";
        case KernelId::mlp_up: return "mlp_up";
        case KernelId::activation: return "activation";
        case KernelId::mlp_down: return "mlp_down";
        case KernelId::weight_cast: return "weight_cast";
        case KernelId::grad_accumulate: return "grad_accumulate";
        case KernelId::embedding: return "embedding";
        case KernelId::final_norm: return "final_norm";
        case KernelId::logits: return "logits";
        case KernelId::cross_entropy: return "cross_entropy";
        case KernelId::optimizer: return "optimizer";
        case KernelId::router: return "router";
        case KernelId::permute: return "permute";
        case KernelId::expert_up: return "expert_up";
        case KernelId::expert_activation: return "expert_activation";
        case KernelId::expert_down: return "expert_down";
        case KernelId::unpermute: return "unpermute";
        case KernelId::latent_up: return "latent_up";
        case KernelId::op: return "op";
    }
    return "?";
}

const char* kernel_pass_name(KernelPass pass) {
    switch (pass) {
        case KernelPass::forward: return "forward";
        case KernelPass::backward_input: return "backward_input";
        case KernelPass::backward_weight: return "backward_weight";
        case KernelPass::recompute: return "recompute";
    }
    return "?";
}

const char* kernel_category_name(KernelCategory category) {
    switch (category) {
        case KernelCategory::gemm: return "gemm";
        case KernelCategory::attention: return "attention";
        case KernelCategory::elementwise: return "elementwise";
        case KernelCategory::optimizer: return "optimizer";
    }
    return "?";
}

const char* kernel_scope_name(KernelScope scope) {
    switch (scope) {
        case KernelScope::layer: return "layer";
        case KernelScope::first_stage: return "first_stage";
        case KernelScope::last_stage: return "last_stage";
        case KernelScope::step: return "step";
    }
    return "?";
}

namespace {

constexpr double kActivationBytes = 2.0;  // bf16 activations and GEMM operands (fp32 recipes: the Builder's act_)
constexpr double kFp32Bytes = 4.0;

const MemoryClassEfficiency& memory_class_of(const GpuEfficiency& efficiency, MemoryClass memory_class) {
    switch (memory_class) {
        case MemoryClass::streaming: return efficiency.streaming;
        case MemoryClass::norm: return efficiency.norm;
        case MemoryClass::softmax: return efficiency.softmax;
        case MemoryClass::dropout: return efficiency.dropout;
        case MemoryClass::optimizer: return efficiency.optimizer;
        case MemoryClass::broadcast: return efficiency.broadcast;
        case MemoryClass::widening: return efficiency.widening;
    }
    return efficiency.streaming;
}

// Builds one layer's (or one stage edge's) kernel list in execution order.
class Builder {
public:
    Builder(const Scenario& scenario, const LayerSplit& split, KernelScope scope, bool moe_layer = false)
        : scenario_(scenario), traits_(framework_traits(scenario)), scope_(scope), moe_(moe_layer && scenario.model.is_moe()) {
        kernels_.reserve(64);  // a layer's forward without regrowing
        const ModelSpec& model = scenario.model;
        tp_ = split.tp;
        local_seq_ = static_cast<double>(scenario.train.seq_len) / split.cp;
        keys_ = scenario.train.seq_len;  // ring attention: every query still meets every key, a chunk per step
        tokens_ = split.micro_batch * local_seq_;
        norm_tokens_ = split.sequence_parallel && split.tp > 1 ? tokens_ / split.tp : tokens_;
        micro_batch_ = split.micro_batch;
        hidden_ = model.hidden;
        heads_ = static_cast<double>(model.heads) / split.tp;
        kv_heads_ = std::max(1.0, static_cast<double>(model.kv_heads) / split.tp);
        head_dim_ = model.head_dim();
        ffn_ = static_cast<double>(model.ffn_hidden) / split.tp;
        gated_ = model.gated_mlp;
        dropout_ = scenario.train.dropout;
        fp32_stream_ = traits_.autocast_casts;  // eager autocast keeps the residual stream and norm outputs in fp32
        act_ = traits_.compute_bytes;
        gemm_bytes_ = traits_.gemm_bytes;
        fp8_ = fp8_gemms(scenario.cluster.gpu, traits_);
        mla_ = model.is_mla();
        qk_dim_ = model.qk_head_dim();
        v_dim_ = model.value_head_dim();
        if (moe_) {
            // Megatron-Core requires sequence parallelism with TP: each TP rank routes its 1/tp of the tokens.
            moe_tokens_ = tokens_ / split.tp;
            experts_ = model.experts;
            top_k_ = model.experts_per_token;
            local_experts_ = static_cast<double>(model.experts) / split.ep;
            expert_ffn_ = static_cast<double>(model.expert_ffn_hidden) / split.etp;
            // Each local expert's batch: the EP group's tokens (x etp after the ETP gather) x top-k / E, at the busiest load.
            expert_tokens_ = moe_tokens_ * split.etp * top_k_ * split.ep / experts_ * scenario.moe.load_factor();
            shared_ffn_ = static_cast<double>(model.shared_experts) * model.shared_ffn_hidden / split.tp;
        }
    }

    Kernel& gemm(KernelId id, KernelPass pass, double m, double n, double k, double batch = 1.0,
                 KernelCategory category = KernelCategory::gemm) {
        Kernel kernel;
        kernel.id = id;
        kernel.pass = pass;
        kernel.category = category;
        kernel.scope = scope_;
        kernel.is_gemm = true;
        kernel.m = m;
        kernel.n = n;
        kernel.k = k;
        kernel.batch = batch;
        kernel.flops = 2.0 * m * n * k * batch;
        kernel.bytes = act_ * (m * k + k * n + m * n) * batch;
        kernel.fp8 = fp8_ && is_linear_layer(id);
        if (kernel.fp8) {
            // fp8 operands, the output in the compute dtype. The activation-side operand (the input forward, the output
            // gradient backward: m x k here) is cast first with its transpose for the weight gradient; the weights' fp8
            // copies are made once per step (Transformer Engine caches them over the micro-batches), not counted.
            kernel.bytes = (gemm_bytes_ * (m * k + k * n) + act_ * m * n) * batch;
            if (pass != KernelPass::backward_weight) {
                memory(KernelId::fp8_cast, pass, MemoryClass::streaming, m * k * batch * (act_ + 2.0 * gemm_bytes_));
            }
        }
        kernels_.push_back(kernel);
        return kernels_.back();
    }

    // The GEMMs an fp8 recipe runs in fp8: the linear layers'. The logits, attention's batched GEMMs and the router stay in
    // the compute dtype (framework.h).
    static bool is_linear_layer(KernelId id) {
        switch (id) {
            case KernelId::qkv:
            case KernelId::out_proj:
            case KernelId::mlp_up:
            case KernelId::mlp_down:
            case KernelId::expert_up:
            case KernelId::expert_down:
            case KernelId::latent_up: return true;
            default: return false;
        }
    }

    // A GEMM's backward: the input gradient dX = dY W^T, then the weight gradient dW = X^T dY, added to the main
    // gradient: by the GEMM itself (read and written in its dtype) or by a separate pass.
    void gemm_backward(KernelId id, double m, double n, double k) {
        gemm(id, KernelPass::backward_input, m, k, n);
        Kernel& weight_grad = gemm(id, KernelPass::backward_weight, k, n, m);
        if (traits_.separate_grad_accumulation) {
            grad_accumulate(k * n);
        } else if (traits_.main_grad_bytes > act_) {
            weight_grad.bytes += (2.0 * traits_.main_grad_bytes - act_) * k * n;  // C += A B in fp32
        }
    }

    // A grouped GEMM (one per local expert, as Megatron-Core's GroupedGEMM and DeepSeek's kernels run them): timed at the
    // efficiency of one member's size, not of the group's total.
    Kernel& grouped_gemm(KernelId id, KernelPass pass, double m, double n, double k, double groups) {
        Kernel& kernel = gemm(id, pass, m, n, k, groups);
        kernel.efficiency_size = 2.0 * m * n * k;
        return kernel;
    }

    void grouped_gemm_backward(KernelId id, double m, double n, double k, double groups) {
        grouped_gemm(id, KernelPass::backward_input, m, k, n, groups);
        Kernel& weight_grad = grouped_gemm(id, KernelPass::backward_weight, k, n, m, groups);
        if (traits_.separate_grad_accumulation) {
            grad_accumulate(k * n * groups);
        } else if (traits_.main_grad_bytes > act_) {
            weight_grad.bytes += (2.0 * traits_.main_grad_bytes - act_) * k * n * groups;
        }
    }

    Kernel& memory(KernelId id, KernelPass pass, MemoryClass memory_class, double bytes, double flops = 0, int count = 1,
                   KernelCategory category = KernelCategory::elementwise) {
        Kernel kernel;
        kernel.id = id;
        kernel.pass = pass;
        kernel.category = category;
        kernel.scope = scope_;
        kernel.memory_class = memory_class;
        kernel.count = count;
        kernel.bytes = bytes;
        kernel.flops = flops;
        kernels_.push_back(kernel);
        return kernels_.back();
    }

    Kernel& fused_attention(KernelPass pass, double flops) {
        Kernel kernel;
        kernel.id = KernelId::attention;
        kernel.pass = pass;
        kernel.category = KernelCategory::attention;
        kernel.scope = scope_;
        kernel.is_fused_attention = true;
        kernel.cudnn_attention = traits_.cudnn_attention;
        kernel.flops = flops;
        // Q, K, V read and O written (backward: read with dO, and dQ, dK, dV written): the s x s scores never reach HBM.
        const double qkvo = qk_dim_ == v_dim_ ? tokens_ * (2.0 * heads_ + 2.0 * kv_heads_) * head_dim_ * act_
                                              : tokens_ * (heads_ + kv_heads_) * (qk_dim_ + v_dim_) * act_;
        kernel.bytes = pass == KernelPass::backward_input ? 2.0 * qkvo : qkvo;
        kernel.m = local_seq_;
        kernel.n = keys_;
        kernel.k = qk_dim_;
        kernel.batch = micro_batch_ * heads_;
        // Ring attention runs one local-queries x local-keys block per step: the kernel's size is the chunk's.
        kernel.efficiency_size = std::min(local_seq_, keys_);
        kernels_.push_back(kernel);
        return kernels_.back();
    }

    // The forward kernels of one layer; recompute reruns them (all, or the attention core only) before the backward.
    void layer_forward(KernelPass pass, bool attention_core_only) {
        const double stream_bytes = fp32_stream_ ? kFp32Bytes : act_;
        if (!attention_core_only) {
            memory(KernelId::norm, pass, MemoryClass::norm, norm_tokens_ * hidden_ * 2.0 * stream_bytes, 8.0 * norm_tokens_ * hidden_);
            if (traits_.autocast_casts) {
                weight_cast(pass, hidden_ * (heads_ + 2.0 * kv_heads_) * head_dim_);
                input_cast(pass);
            }
            if (mla_) {
                latent_forward(pass);
            } else {
                gemm(KernelId::qkv, pass, tokens_, (heads_ + 2.0 * kv_heads_) * head_dim_, hidden_);
            }
        }
        attention_core_forward(pass);
        if (attention_core_only) return;
        if (!traits_.fused_elementwise) memory(KernelId::head_transpose, pass, MemoryClass::streaming, 2.0 * tokens_ * heads_ * v_dim_ * act_);
        if (traits_.autocast_casts) weight_cast(pass, heads_ * v_dim_ * hidden_);
        gemm(KernelId::out_proj, pass, tokens_, hidden_, heads_ * v_dim_);
        residual_forward(pass);
        memory(KernelId::norm, pass, MemoryClass::norm, norm_tokens_ * hidden_ * 2.0 * stream_bytes, 8.0 * norm_tokens_ * hidden_);
        if (moe_) {
            moe_forward(pass);
            residual_forward(pass);
            return;
        }
        const double up_width = (gated_ ? 2.0 : 1.0) * ffn_;
        if (traits_.autocast_casts) {
            weight_cast(pass, hidden_ * up_width);
            input_cast(pass);
        }
        gemm(KernelId::mlp_up, pass, tokens_, up_width, hidden_);
        activation_forward(pass, tokens_ * ffn_, KernelId::activation);
        if (traits_.autocast_casts) weight_cast(pass, ffn_ * hidden_);
        gemm(KernelId::mlp_down, pass, tokens_, hidden_, ffn_);
        residual_forward(pass);
    }

    void layer_backward() {
        const double stream_bytes = fp32_stream_ ? kFp32Bytes : act_;
        const double up_width = (gated_ ? 2.0 : 1.0) * ffn_;
        residual_backward();
        if (moe_) {
            moe_backward();
        } else {
            gemm_backward(KernelId::mlp_down, tokens_, hidden_, ffn_);
            activation_backward(tokens_ * ffn_, KernelId::activation);
            gemm_backward(KernelId::mlp_up, tokens_, up_width, hidden_);
        }
        // dx = f(x, dy), read twice by the reduction and the rescale, written once.
        memory(KernelId::norm, KernelPass::backward_input, MemoryClass::norm, norm_tokens_ * hidden_ * 3.0 * stream_bytes, 12.0 * norm_tokens_ * hidden_);
        residual_backward();
        gemm_backward(KernelId::out_proj, tokens_, hidden_, heads_ * v_dim_);
        if (!traits_.fused_elementwise) {
            memory(KernelId::head_transpose, KernelPass::backward_input, MemoryClass::streaming, 2.0 * tokens_ * heads_ * v_dim_ * act_);
        }
        attention_core_backward();
        if (mla_) {
            latent_backward();
        } else {
            gemm_backward(KernelId::qkv, tokens_, (heads_ + 2.0 * kv_heads_) * head_dim_, hidden_);
        }
        memory(KernelId::norm, KernelPass::backward_input, MemoryClass::norm, norm_tokens_ * hidden_ * 3.0 * stream_bytes, 12.0 * norm_tokens_ * hidden_);
    }

    void edge_forward_first() {
        const double weight_bytes = traits_.autocast_casts ? kFp32Bytes : act_;
        const double out_bytes = fp32_stream_ ? kFp32Bytes : act_;
        // Gather one row per token (and add the learned position row): read the rows, write the embeddings.
        const double positions = scenario_.model.learned_positions ? 2.0 : 1.0;
        memory(KernelId::embedding, KernelPass::forward, MemoryClass::streaming, norm_tokens_ * hidden_ * (positions * weight_bytes + out_bytes));
    }

    void edge_backward_first() {
        // A dense gradient of the vocabulary shard: zero-filled, the token rows scattered in, added to the weight's gradient.
        const double rows = vocab_per_rank(scenario_.model.vocab, static_cast<int>(tp_), traits_);
        memory(KernelId::embedding, KernelPass::backward_weight, MemoryClass::streaming,
               rows * hidden_ * kFp32Bytes * 3.0 + tokens_ * hidden_ * (act_ + kFp32Bytes));
    }

    void edge_last() {
        const double stream_bytes = fp32_stream_ ? kFp32Bytes : act_;
        const double vocab = vocab_per_rank(scenario_.model.vocab, static_cast<int>(tp_), traits_);
        const double logits = tokens_ * vocab;
        memory(KernelId::final_norm, KernelPass::forward, MemoryClass::norm, norm_tokens_ * hidden_ * 2.0 * stream_bytes);
        if (traits_.autocast_casts) {
            weight_cast(KernelPass::forward, hidden_ * vocab);
            input_cast(KernelPass::forward);
        }
        gemm(KernelId::logits, KernelPass::forward, tokens_, vocab, hidden_);
        // Megatron's vocab-parallel loss in fp32: cast, max, subtract, exp, sum, divide (34 B per logit forward, 22 backward,
        // megatron/core/tensor_parallel/cross_entropy.py); eager: .float() then log_softmax (18 B) and its backward (22 B).
        const double forward_bytes = traits_.fused_elementwise ? 34.0 : 18.0;
        memory(KernelId::cross_entropy, KernelPass::forward, MemoryClass::streaming, logits * forward_bytes, 5.0 * logits);
        memory(KernelId::cross_entropy, KernelPass::backward_input, MemoryClass::streaming, logits * 22.0, 3.0 * logits);
        gemm_backward(KernelId::logits, tokens_, vocab, hidden_);
        memory(KernelId::final_norm, KernelPass::backward_input, MemoryClass::norm, norm_tokens_ * hidden_ * 3.0 * stream_bytes);
    }

    // The kernels built so far, in a list of their own size; the builder starts a new list in the same buffer (a
    // layer's passes are taken one at a time, and a search keeps hundreds of them).
    std::vector<Kernel> take() {
        std::vector<Kernel> taken(kernels_.begin(), kernels_.end());
        kernels_.clear();
        return taken;
    }

private:
    void weight_cast(KernelPass pass, double elements) {
        memory(KernelId::weight_cast, pass, MemoryClass::streaming, elements * (kFp32Bytes + act_));
    }
    void input_cast(KernelPass pass) {
        memory(KernelId::weight_cast, pass, MemoryClass::streaming, tokens_ * hidden_ * (kFp32Bytes + act_));
    }
    // The 16-bit dW read, the main gradient read and written.
    void grad_accumulate(double elements) {
        memory(KernelId::grad_accumulate, KernelPass::backward_weight, MemoryClass::streaming, elements * (act_ + 2.0 * traits_.main_grad_bytes));
    }

    // MLA: the down-projections to the latents (and the shared rope key) are not split over TP; the up-projections are,
    // by heads. Without a Q latent (V2-Lite) Q is projected directly, split by heads.
    double latent_down_width() const {
        const ModelSpec& model = scenario_.model;
        return static_cast<double>(model.q_lora_rank) + model.kv_lora_rank + model.qk_rope_head_dim;
    }
    void latent_forward(KernelPass pass) {
        const ModelSpec& model = scenario_.model;
        const double kv_up = heads_ * (model.qk_nope_head_dim + model.v_head_dim);
        if (model.q_lora_rank > 0) {
            gemm(KernelId::qkv, pass, tokens_, latent_down_width(), hidden_);
            gemm(KernelId::latent_up, pass, tokens_, heads_ * qk_dim_, model.q_lora_rank);
        } else {
            gemm(KernelId::qkv, pass, tokens_, latent_down_width() + heads_ * qk_dim_, hidden_);
        }
        gemm(KernelId::latent_up, pass, tokens_, kv_up, model.kv_lora_rank);
    }
    void latent_backward() {
        const ModelSpec& model = scenario_.model;
        gemm_backward(KernelId::latent_up, tokens_, heads_ * (model.qk_nope_head_dim + model.v_head_dim), model.kv_lora_rank);
        if (model.q_lora_rank > 0) {
            gemm_backward(KernelId::latent_up, tokens_, heads_ * qk_dim_, model.q_lora_rank);
            gemm_backward(KernelId::qkv, tokens_, latent_down_width(), hidden_);
        } else {
            gemm_backward(KernelId::qkv, tokens_, latent_down_width() + heads_ * qk_dim_, hidden_);
        }
    }

    // The MoE block after the second norm, forward: route, gather each token's copies by expert, the local experts' GEMMs
    // on what the dispatch brought, put back and weight; the shared experts as a TP-split MLP over the whole sequence.
    void moe_forward(KernelPass pass) {
        const double copies = moe_tokens_ * top_k_;
        const double received = expert_tokens_ * local_experts_;
        const double up_width = (gated_ ? 2.0 : 1.0) * expert_ffn_;
        gemm(KernelId::router, pass, moe_tokens_, experts_, hidden_);
        // Softmax (or sigmoid) and top-k over the fp32 logits: read them, write the probabilities.
        memory(KernelId::router, pass, MemoryClass::softmax, moe_tokens_ * experts_ * 2.0 * kFp32Bytes, 5.0 * moe_tokens_ * experts_);
        memory(KernelId::permute, pass, MemoryClass::streaming, (moe_tokens_ + copies) * hidden_ * act_);
        grouped_gemm(KernelId::expert_up, pass, expert_tokens_, up_width, hidden_, local_experts_);
        activation_forward(pass, received * expert_ffn_, KernelId::expert_activation);
        grouped_gemm(KernelId::expert_down, pass, expert_tokens_, hidden_, expert_ffn_, local_experts_);
        memory(KernelId::unpermute, pass, MemoryClass::streaming, (copies + moe_tokens_) * hidden_ * act_, 2.0 * copies * hidden_);
        if (shared_ffn_ > 0) {
            gemm(KernelId::mlp_up, pass, tokens_, (gated_ ? 2.0 : 1.0) * shared_ffn_, hidden_);
            activation_forward(pass, tokens_ * shared_ffn_, KernelId::activation);
            gemm(KernelId::mlp_down, pass, tokens_, hidden_, shared_ffn_);
        }
    }

    void moe_backward() {
        const double copies = moe_tokens_ * top_k_;
        const double received = expert_tokens_ * local_experts_;
        const double up_width = (gated_ ? 2.0 : 1.0) * expert_ffn_;
        if (shared_ffn_ > 0) {
            gemm_backward(KernelId::mlp_down, tokens_, hidden_, shared_ffn_);
            activation_backward(tokens_ * shared_ffn_, KernelId::activation);
            gemm_backward(KernelId::mlp_up, tokens_, (gated_ ? 2.0 : 1.0) * shared_ffn_, hidden_);
        }
        // The weighted sum's backward: each copy's gradient, and the router weights' (a dot product per copy).
        memory(KernelId::unpermute, KernelPass::backward_input, MemoryClass::streaming, (2.0 * copies + moe_tokens_) * hidden_ * act_,
               2.0 * copies * hidden_);
        grouped_gemm_backward(KernelId::expert_down, expert_tokens_, hidden_, expert_ffn_, local_experts_);
        activation_backward(received * expert_ffn_, KernelId::expert_activation);
        grouped_gemm_backward(KernelId::expert_up, expert_tokens_, up_width, hidden_, local_experts_);
        memory(KernelId::permute, KernelPass::backward_input, MemoryClass::streaming, (moe_tokens_ + copies) * hidden_ * act_, copies * hidden_);
        memory(KernelId::router, KernelPass::backward_input, MemoryClass::softmax, moe_tokens_ * experts_ * 3.0 * kFp32Bytes, 4.0 * moe_tokens_ * experts_);
        gemm_backward(KernelId::router, moe_tokens_, experts_, hidden_);
    }

    void attention_core_forward(KernelPass pass) {
        const bool flash = scenario_.train.fused_attention();
        // Causal attention: a flash kernel skips the masked half; the unfused path computes every score, then masks.
        const double full_flops = core_flops();
        if (flash) {
            fused_attention(pass, 0.5 * full_flops);
            return;
        }
        const double batch = micro_batch_ * heads_;
        const double scores = batch * local_seq_ * keys_;
        gemm(KernelId::attention_scores, pass, local_seq_, keys_, qk_dim_, batch, KernelCategory::attention);
        if (traits_.fused_elementwise) {
            // Megatron's fused scale + causal mask + softmax: read the scores, write the probabilities.
            memory(KernelId::attention_softmax, pass, MemoryClass::softmax, scores * 2.0 * act_, 5.0 * scores, 1, KernelCategory::attention);
        } else {
            // Eager, as torch.profiler lists it (h100_training_ops.json): the scale; masked_fill as a clone and an in-place
            // fill with the broadcast causal mask; under autocast a widening copy to fp32, the softmax in fp32 (one warp per
            // row, streaming speed up to 2,048 keys: h100_eager_attention.json) and the copy back to bf16 for the product.
            memory(KernelId::attention_scale, pass, MemoryClass::streaming, scores * 2.0 * act_, scores, 1, KernelCategory::attention);
            memory(KernelId::attention_mask, pass, MemoryClass::streaming, scores * 2.0 * act_, 0, 1, KernelCategory::attention);
            memory(KernelId::attention_mask, pass, MemoryClass::broadcast, scores * 2.0 * act_, scores, 1, KernelCategory::attention);
            if (traits_.autocast_casts) {
                memory(KernelId::attention_cast, pass, MemoryClass::widening, scores * (act_ + kFp32Bytes), 0, 1, KernelCategory::attention);
                memory(KernelId::attention_softmax, pass, MemoryClass::streaming, scores * 2.0 * kFp32Bytes, 5.0 * scores, 1, KernelCategory::attention);
                memory(KernelId::attention_cast, pass, MemoryClass::streaming, scores * (kFp32Bytes + act_), 0, 1, KernelCategory::attention);
            } else {
                memory(KernelId::attention_softmax, pass, MemoryClass::softmax, scores * 2.0 * act_, 5.0 * scores, 1, KernelCategory::attention);
            }
        }
        if (dropout_) {
            memory(KernelId::attention_dropout, pass, MemoryClass::dropout, scores * (2.0 * act_ + 1.0), scores, 1, KernelCategory::attention);
        }
        gemm(KernelId::attention_context, pass, local_seq_, v_dim_, keys_, batch, KernelCategory::attention);
    }

    // Q K^T and P V over every query and key: 2 b a s s_k (d_qk + d_v), Korthikanti's 4 b a s^2 d when both are d.
    double core_flops() const {
        if (qk_dim_ == v_dim_) return 4.0 * micro_batch_ * heads_ * local_seq_ * keys_ * head_dim_;
        return 2.0 * micro_batch_ * heads_ * local_seq_ * keys_ * (qk_dim_ + v_dim_);
    }

    void attention_core_backward() {
        const double full_flops = core_flops();
        if (scenario_.train.fused_attention()) {
            fused_attention(KernelPass::backward_input, 2.5 * 0.5 * full_flops);  // dQ, dK, dV and the recomputed scores
            return;
        }
        const double batch = micro_batch_ * heads_;
        const double scores = batch * local_seq_ * keys_;
        gemm(KernelId::attention_context, KernelPass::backward_input, local_seq_, keys_, v_dim_, batch, KernelCategory::attention);  // dP = dO V^T
        gemm(KernelId::attention_context, KernelPass::backward_input, keys_, v_dim_, local_seq_, batch, KernelCategory::attention);  // dV = P^T dO
        if (dropout_) {
            memory(KernelId::attention_dropout, KernelPass::backward_input, MemoryClass::dropout, scores * (2.0 * act_ + 1.0), scores, 1,
                   KernelCategory::attention);
        }
        if (traits_.fused_elementwise) {
            memory(KernelId::attention_softmax, KernelPass::backward_input, MemoryClass::softmax, scores * 3.0 * act_, 4.0 * scores, 1,
                   KernelCategory::attention);
        } else {
            // Eager (h100_training_ops.json): under autocast the gradient widened to fp32 and narrowed back around the
            // softmax backward, which PyTorch runs as a product and a reduction kernel (3 reads and writes per score each);
            // masked_fill's backward as a clone and a fill; the scale's.
            const double softmax_bytes = traits_.autocast_casts ? kFp32Bytes : act_;
            const KernelPass backward = KernelPass::backward_input;
            if (traits_.autocast_casts) {
                memory(KernelId::attention_cast, backward, MemoryClass::widening, scores * (act_ + kFp32Bytes), 0, 1, KernelCategory::attention);
            }
            memory(KernelId::attention_softmax, backward, MemoryClass::streaming, scores * 3.0 * softmax_bytes, scores, 1, KernelCategory::attention);
            memory(KernelId::attention_softmax, backward, MemoryClass::streaming, scores * 3.0 * softmax_bytes, 3.0 * scores, 1, KernelCategory::attention);
            if (traits_.autocast_casts) {
                memory(KernelId::attention_cast, backward, MemoryClass::streaming, scores * (kFp32Bytes + act_), 0, 1, KernelCategory::attention);
            }
            memory(KernelId::attention_mask, backward, MemoryClass::streaming, scores * 2.0 * act_, 0, 1, KernelCategory::attention);
            memory(KernelId::attention_mask, backward, MemoryClass::broadcast, scores * 2.0 * act_, 0, 1, KernelCategory::attention);
            memory(KernelId::attention_scale, backward, MemoryClass::streaming, scores * 2.0 * act_, scores, 1, KernelCategory::attention);
        }
        gemm(KernelId::attention_scores, KernelPass::backward_input, local_seq_, qk_dim_, keys_, batch, KernelCategory::attention);  // dQ = dS K
        gemm(KernelId::attention_scores, KernelPass::backward_input, keys_, qk_dim_, local_seq_, batch, KernelCategory::attention);  // dK = dS^T Q
    }

    void residual_forward(KernelPass pass) {
        const double elements = norm_tokens_ * hidden_;
        if (fp32_stream_) {
            memory(KernelId::residual, pass, MemoryClass::streaming, elements * (kFp32Bytes + act_ + kFp32Bytes), elements);
        } else if (dropout_) {
            memory(KernelId::residual, pass, MemoryClass::dropout, elements * (3.0 * act_ + 1.0), 2.0 * elements);  // bias-dropout-add
        } else {
            memory(KernelId::residual, pass, MemoryClass::streaming, elements * 3.0 * act_, elements);
        }
    }

    void residual_backward() {
        const double elements = norm_tokens_ * hidden_;
        if (fp32_stream_) {
            memory(KernelId::residual, KernelPass::backward_input, MemoryClass::streaming, elements * (kFp32Bytes + act_));  // grad cast to bf16
        } else if (dropout_) {
            memory(KernelId::residual, KernelPass::backward_input, MemoryClass::dropout, elements * (2.0 * act_ + 1.0), elements);
        }
    }

    void activation_forward(KernelPass pass, double elements, KernelId id) {
        if (!gated_) {
            memory(id, pass, MemoryClass::streaming, elements * 2.0 * act_, 8.0 * elements);  // (bias-)GeLU
        } else if (traits_.fused_elementwise) {
            memory(id, pass, MemoryClass::streaming, elements * 3.0 * act_, 6.0 * elements);  // fused SwiGLU
        } else {
            memory(id, pass, MemoryClass::streaming, elements * 2.0 * act_, 5.0 * elements);  // silu(gate)
            memory(id, pass, MemoryClass::streaming, elements * 3.0 * act_, elements);        // x up
        }
    }

    void activation_backward(double elements, KernelId id) {
        if (!gated_) {
            memory(id, KernelPass::backward_input, MemoryClass::streaming, elements * 3.0 * act_, 12.0 * elements);
        } else if (traits_.fused_elementwise) {
            memory(id, KernelPass::backward_input, MemoryClass::streaming, elements * 5.0 * act_, 10.0 * elements);
        } else {
            memory(id, KernelPass::backward_input, MemoryClass::streaming, elements * 5.0 * act_, 2.0 * elements);
            memory(id, KernelPass::backward_input, MemoryClass::streaming, elements * 3.0 * act_, 8.0 * elements);
        }
    }

    const Scenario& scenario_;
    FrameworkTraits traits_;
    KernelScope scope_;
    double tp_ = 1, local_seq_ = 0, keys_ = 0, tokens_ = 0, norm_tokens_ = 0, micro_batch_ = 1;
    double hidden_ = 0, heads_ = 0, kv_heads_ = 0, head_dim_ = 0, ffn_ = 0;
    bool gated_ = false, dropout_ = false, fp32_stream_ = false;
    double act_ = kActivationBytes;  // bytes per activation and GEMM operand element: the recipe's compute type
    double gemm_bytes_ = kActivationBytes;  // the linear layers' GEMM operands: 1 where they run in fp8
    bool fp8_ = false;                      // they do (fp8_gemms)
    bool moe_ = false, mla_ = false;
    double qk_dim_ = 0, v_dim_ = 0;
    double moe_tokens_ = 0, experts_ = 0, top_k_ = 0, local_experts_ = 0, expert_ffn_ = 0, expert_tokens_ = 0, shared_ffn_ = 0;
    std::vector<Kernel> kernels_;
};

void time_all(std::vector<Kernel>& kernels, const Scenario& scenario) {
    const FrameworkTraits traits = framework_traits(scenario);
    for (Kernel& kernel : kernels) time_kernel(kernel, scenario.cluster.gpu, traits);
}

}  // namespace

int gemm_alignment_bytes(const Kernel& kernel, double element_bytes) {
    // The tokens are m, or k in a weight gradient (the Builder's convention): a row count or a reduction, never a stride.
    const bool weight_grad = kernel.pass == KernelPass::backward_weight;
    const double dims[2] = {weight_grad ? kernel.m : kernel.k, kernel.n};
    int elements = std::max(1, static_cast<int>(16.0 / element_bytes));
    for (double dim : dims) {
        const long long size = static_cast<long long>(dim + 0.5);  // dims are positive: llround's answer, without the libm call
        while (elements > 1 && size % elements != 0) elements /= 2;
    }
    return static_cast<int>(elements * element_bytes);
}

bool fp32_on_cuda_cores(const GpuSpec& gpu, const FrameworkTraits& traits) { return traits.compute_bytes >= 4.0 && gpu.fp32_flops_per_s > 0; }

bool fp8_gemms(const GpuSpec& gpu, const FrameworkTraits& traits) {
    return traits.gemm_bytes < 2.0 && gpu.fp8_flops_per_s > 0 && gpu.efficiency.gemm_fp8_scale > 0;
}

void time_kernel(Kernel& kernel, const GpuSpec& gpu, const FrameworkTraits& traits) {
    const GpuEfficiency& efficiency = gpu.efficiency;
    const double peak = gpu.bf16_flops_per_s;
    const double bandwidth = gpu.hbm_bytes_per_s;
    double compute_seconds = 0;
    double memory_seconds = 0;
    // fp32 compute runs on the CUDA cores: its own peak, at its measured share (else at the bf16 tables' shares).
    const bool fp32 = fp32_on_cuda_cores(gpu, traits);
    const double compute_peak = fp32 ? gpu.fp32_flops_per_s : peak;
    if (kernel.is_gemm) {
        double gemm_efficiency = efficiency.gemm.at(kernel.efficiency_size > 0 ? kernel.efficiency_size : kernel.flops);
        kernel.alignment_bytes = gemm_alignment_bytes(kernel, kernel.fp8 ? traits.gemm_bytes : traits.compute_bytes);
        if (kernel.fp8) {
            gemm_efficiency *= efficiency.gemm_fp8_scale;  // the bf16 table's share times the GPU's fp8 scale (hardware.json)
        } else if (fp32) {
            if (efficiency.gemm_fp32 > 0) gemm_efficiency = efficiency.gemm_fp32;
        } else if (kernel.alignment_bytes < 16 && !efficiency.gemm_misaligned.sizes.empty()) {
            gemm_efficiency = std::min(gemm_efficiency, efficiency.gemm_misaligned.at(kernel.alignment_bytes));
        }
        compute_seconds = kernel.flops / ((kernel.fp8 ? gpu.fp8_flops_per_s : compute_peak) * gemm_efficiency);
        memory_seconds = efficiency.gemm_memory.floor_seconds + kernel.bytes / (bandwidth * efficiency.gemm_memory.efficiency);
    } else if (kernel.is_fused_attention) {
        const bool forward = kernel.pass == KernelPass::forward || kernel.pass == KernelPass::recompute;
        const EfficiencyCurve& curve = kernel.cudnn_attention
                                           ? (forward ? efficiency.fused_attention_forward : efficiency.fused_attention_backward)
                                           : (forward ? efficiency.sdpa_attention_forward : efficiency.sdpa_attention_backward);
        double attention_efficiency = curve.at(kernel.efficiency_size) * kernel.attention_speed;
        const double fp32_efficiency = forward ? efficiency.attention_fp32_forward : efficiency.attention_fp32_backward;
        if (fp32 && fp32_efficiency > 0) attention_efficiency = fp32_efficiency;
        compute_seconds = kernel.flops / (compute_peak * attention_efficiency);
        memory_seconds = efficiency.streaming.floor_seconds + kernel.bytes / (bandwidth * efficiency.streaming.efficiency);
    } else {
        const MemoryClassEfficiency& memory_class = memory_class_of(efficiency, kernel.memory_class);
        memory_seconds = memory_class.floor_seconds + kernel.bytes / (bandwidth * memory_class.efficiency);
    }
    const double gpu_seconds = std::max(compute_seconds, memory_seconds);
    const double host_seconds = kernel.is_gemm ? traits.host_seconds_per_gemm : traits.host_seconds_per_elementwise;
    kernel.seconds = std::max(gpu_seconds, host_seconds);
    kernel.bound = host_seconds > gpu_seconds ? Bound::launch : compute_seconds >= memory_seconds ? Bound::compute : Bound::memory;
    kernel.efficiency = (kernel.is_gemm || kernel.is_fused_attention) ? kernel.flops / (kernel.seconds * peak)
                                                                      : kernel.bytes / (kernel.seconds * bandwidth);
}

LayerPasses layer_passes(const Scenario& scenario, const LayerSplit& split, bool moe_layer, bool attention_core) {
    LayerPasses passes;
    static const auto none = std::make_shared<const std::vector<Kernel>>();
    if (runs_operator_recipe(scenario)) {
        // The recipe's operators, the cached program's own vectors; selective recompute reruns those its policy marks.
        const std::shared_ptr<const BlockProgram> program = block_program(scenario, split, BlockRole::layer);
        passes.forward = LayerPasses::Pass(program, &program->forward);
        passes.attention_core = attention_core ? LayerPasses::Pass(program, &program->selective) : none;
        passes.backward = LayerPasses::Pass(program, &program->backward);
        return passes;
    }
    const auto timed = [&scenario](std::vector<Kernel> kernels) {
        time_all(kernels, scenario);
        return std::make_shared<const std::vector<Kernel>>(std::move(kernels));
    };
    Builder builder(scenario, split, KernelScope::layer, moe_layer);
    builder.layer_forward(KernelPass::forward, false);
    passes.forward = timed(builder.take());
    passes.attention_core = none;
    if (attention_core) {
        builder.layer_forward(KernelPass::forward, true);
        passes.attention_core = timed(builder.take());
    }
    builder.layer_backward();
    passes.backward = timed(builder.take());
    return passes;
}

std::vector<Kernel> layer_kernels_of(const LayerPasses& passes, Recompute recompute, std::size_t spare) {
    std::vector<Kernel> kernels;
    kernels.reserve(passes.forward->size() * 2 + passes.backward->size() + spare);
    for_each_layer_kernel(passes, recompute, [&](const Kernel& kernel, KernelPass pass) {
        kernels.push_back(kernel);
        kernels.back().pass = pass;
    });
    return kernels;
}

std::vector<Kernel> layer_kernels(const Scenario& scenario, const LayerSplit& split) {
    return layer_kernels_of(layer_passes(scenario, split, false, split.recompute == Recompute::selective), split.recompute);
}

std::vector<Kernel> moe_layer_kernels(const Scenario& scenario, const LayerSplit& split) {
    return layer_kernels_of(layer_passes(scenario, split, true, split.recompute == Recompute::selective), split.recompute);
}

std::vector<Kernel> edge_kernels(const Scenario& scenario, const LayerSplit& split) {
    if (runs_operator_recipe(scenario)) {
        const auto embedding = block_program(scenario, split, BlockRole::embedding);
        const auto head = block_program(scenario, split, BlockRole::head);
        std::vector<Kernel> kernels = embedding->forward;
        kernels.insert(kernels.end(), embedding->backward.begin(), embedding->backward.end());
        kernels.insert(kernels.end(), head->forward.begin(), head->forward.end());
        kernels.insert(kernels.end(), head->backward.begin(), head->backward.end());
        return kernels;
    }
    Builder first(scenario, split, KernelScope::first_stage);
    first.edge_forward_first();
    first.edge_backward_first();
    Builder last(scenario, split, KernelScope::last_stage);
    last.edge_last();
    std::vector<Kernel> kernels = first.take();
    std::vector<Kernel> tail = last.take();
    kernels.insert(kernels.end(), tail.begin(), tail.end());
    time_all(kernels, scenario);
    return kernels;
}

Kernel optimizer_kernel(const Scenario& scenario, double local_params) {
    const PrecisionRecipe& recipe = scenario.precision;
    const double master = recipe.bytes_per_param(StateKind::master);
    const double weights = recipe.bytes_per_param(StateKind::weights);
    // Read and write the master (or the weights when they are the master) and the moments; read the gradient; write the
    // compute copy of the weights when a master exists. Fused AdamW over fp32 moves 28 B per parameter, as measured.
    const double updated = recipe.bytes_per_param(StateKind::optimizer) + (master > 0 ? master : weights);
    Kernel kernel;
    kernel.id = KernelId::optimizer;
    kernel.pass = KernelPass::backward_weight;
    kernel.category = KernelCategory::optimizer;
    kernel.scope = KernelScope::step;
    kernel.memory_class = MemoryClass::optimizer;
    kernel.bytes = local_params * (2.0 * updated + recipe.bytes_per_param(StateKind::grads) + (master > 0 ? weights : 0.0));
    // LoRA's adapters: weights, gradients and both moments in the adapters' dtype, no master (lora_ops.h).
    if (trains_adapters(scenario.finetune)) kernel.bytes = local_params * 7.0 * adapter_dtype_bytes(scenario.finetune.adapter_dtype);
    kernel.flops = 12.0 * local_params;
    // PyTorch's fused and foreach optimizers launch one kernel per 320 blocks of 65,536 elements
    // (aten/src/ATen/native/cuda/MultiTensorApply.cuh: kChunkSize, depth_to_max_blocks).
    kernel.launches = std::max(1.0, std::ceil(local_params / (65536.0 * 320.0)));
    time_kernel(kernel, scenario.cluster.gpu, framework_traits(scenario));
    return kernel;
}

namespace {

// One kernel's time added to its pass (as run: a recomputed kernel counts as recompute) and its category.
void add_to_passes(PassSeconds& sums, const Kernel& kernel, KernelPass pass) {
    const double seconds = kernel.total_seconds();
    switch (pass) {
        case KernelPass::forward: sums.forward += seconds; break;
        case KernelPass::backward_input: sums.backward_input += seconds; break;
        case KernelPass::backward_weight: sums.backward_weight += seconds; break;
        case KernelPass::recompute: sums.recompute += seconds; break;
    }
    switch (kernel.category) {
        case KernelCategory::gemm: sums.gemm += seconds; break;
        case KernelCategory::attention: sums.attention += seconds; break;
        case KernelCategory::elementwise: sums.elementwise += seconds; break;
        case KernelCategory::optimizer: break;
    }
    if (kernel.category == KernelCategory::attention) {
        if (pass == KernelPass::forward) sums.attention_forward += seconds;
        if (pass == KernelPass::backward_input) sums.attention_backward += seconds;
    }
    sums.flops += kernel.flops * kernel.count;
    const double launches = kernel.launches * kernel.count;
    switch (pass) {
        case KernelPass::forward: sums.forward_launches += launches; break;
        case KernelPass::recompute: sums.recompute_launches += launches; break;
        default: sums.backward_launches += launches; break;
    }
}

}  // namespace

PassSeconds sum_passes(const std::vector<Kernel>& kernels, KernelScope scope) {
    PassSeconds sums;
    for (const Kernel& kernel : kernels) {
        if (kernel.scope == scope) add_to_passes(sums, kernel, kernel.pass);
    }
    return sums;
}

PassSeconds sum_layer_passes(const LayerPasses& passes, Recompute recompute) {
    PassSeconds sums;
    for_each_layer_kernel(passes, recompute, [&](const Kernel& kernel, KernelPass pass) { add_to_passes(sums, kernel, pass); });
    return sums;
}

}  // namespace core
