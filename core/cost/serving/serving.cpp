#include "core/cost/serving/serving.h"

#include "core/cost/kernels/collectives.h"
#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/kernels.h"
#include "core/model/errors.h"
#include "core/model/model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace core {
namespace {

constexpr double kMaxServingGpus = 1e8;  // scenario_json.cpp: cluster.gpus is at most 100,000,000

// Without CUDA graphs the host launches each kernel, as training's eager kernels are timed (FrameworkTraits: 10.3 us per
// elementwise launch, 20.6 us per GEMM, measured on the H100 host) and each call that launches nothing costs the host too:
// 2.7 us for a view, chunk or transpose (PyTorch 2.11 on the H200 machine's host, h200_serving_probe.json host_calls:
// the median with split and a strided slice).
constexpr double kHostViewSeconds = 2.7e-6;
// Activations and the residual stream travel in bf16 whatever the weights' precision (W8A8 casts inside the GEMM).
constexpr double kActivationBytes = 2.0;
// The sampler's logits are fp32 (vLLM's Sampler upcasts them; TensorRT-LLM's gather_generation_logits likewise).
constexpr double kLogitBytes = 4.0;
// vLLM's custom all-reduce takes messages up to 8 MiB (custom_all_reduce.py max_size): one shot (each GPU reads every
// peer's whole buffer at once) or two (a reduce-scatter then an all-gather, each peer's share at once:
// csrc/custom_all_reduce.cuh cross_device_reduce_1stage / _2stage); larger messages go to NCCL's ring.
constexpr double kCustomAllReduceMaxBytes = 8.0 * 1024 * 1024;

enum class Part { weights, attention, other, comm };

// What one GPU of one pipeline stage runs for one pass, summed: the GPU's kernels, the host's calls, and each kernel at
// the longer of its work and its launch (how a pass runs without CUDA graphs, as time_kernel times an eager kernel).
struct Tally {
    double gpu = 0, host = 0, eager = 0;
    double weights = 0, attention = 0, other = 0, comm = 0;
    double flops = 0, bytes = 0, weight_bytes = 0, kv_bytes = 0;
    int kernels = 0;

    void kernel(Part part, double seconds, double host_seconds, double kernel_flops, double kernel_bytes) {
        gpu += seconds;
        host += host_seconds;
        eager += std::max(seconds, host_seconds);
        (part == Part::weights ? weights : part == Part::attention ? attention : part == Part::comm ? comm : other) += seconds;
        flops += kernel_flops;
        bytes += kernel_bytes;
        ++kernels;
    }
    void view(int count = 1) {
        host += count * kHostViewSeconds;
        eager += count * kHostViewSeconds;
    }
    void add(const Tally& other_tally, double times) {
        gpu += other_tally.gpu * times;
        host += other_tally.host * times;
        eager += other_tally.eager * times;
        weights += other_tally.weights * times;
        attention += other_tally.attention * times;
        other += other_tally.other * times;
        comm += other_tally.comm * times;
        flops += other_tally.flops * times;
        bytes += other_tally.bytes * times;
        weight_bytes += other_tally.weight_bytes * times;
        kv_bytes += other_tally.kv_bytes * times;
        kernels += static_cast<int>(std::lround(other_tally.kernels * times));
    }
};

// A model's shapes on one GPU of a replica, and the GPU's figures: what every pass of that replica reads.
struct Replica {
    const Scenario& scenario;
    const GpuSpec& gpu;
    ReplicaShape shape;
    FrameworkTraits traits;        // the GEMM and attention tables' rules, as training's kernels are timed
    FrameworkTraits launch;        // the host's time per launch without CUDA graphs (its defaults: every framework's)
    bool engine = true;
    double weight_bytes = 2, kv_bytes = 2;
    // One GPU's share of each layer.
    double hidden = 0, heads = 0, kv_heads = 0;   // heads and KV heads on one GPU (KV heads replicated below one per GPU)
    double qk_dim = 0, v_dim = 0;                 // per head: what Q and K, and V and the output, are wide
    double attention_qk = 0, attention_v = 0;     // per head and context token, as decode attention reads it (MLA: the latent)
    double qkv_out = 0, out_in = 0;               // the fused QKV projection's output features, the output projection's input
    double mlp_up_out = 0, mlp_down_in = 0;       // the dense MLP: gate and up together, then down
    bool gated = true;
    double kv_elements = 0;                       // one token's K and V in one layer on one GPU
    double vocab = 0;                             // logits rows on one GPU (vocabulary-parallel head)
    // Mixtures of experts: per GPU, every expert's share (TP splits each expert as it splits the dense MLP).
    bool moe = false;
    double experts = 0, top_k = 0, expert_up_out = 0, expert_down_in = 0, shared_up_out = 0, shared_down_in = 0;
    int stage_layers = 0, stage_moe_layers = 0;   // the heaviest pipeline stage's layers, and its MoE layers among them
    double total_weight_bytes = 0;                // the whole model's weights

    Replica(const Scenario& s, ReplicaShape replica_shape) : scenario(s), gpu(s.cluster.gpu), shape(replica_shape) {
        const ModelSpec& model = s.model;
        const ServingSpec& serving = s.serving;
        engine = serving.runtime == ServingRuntime::engine;
        weight_bytes = serving.weight_bytes_per_param;
        kv_bytes = serving.kv_bytes_per_element;
        traits.compute_bytes = weight_bytes >= 4.0 ? 4.0 : 2.0;
        traits.gemm_bytes = weight_bytes == 1.0 ? 1.0 : traits.compute_bytes;  // fp8 weights run the fp8 tensor cores where there are some
        traits.cudnn_attention = true;  // flash attention as engines fuse it (and PyTorch 2.11's SDPA picks cuDNN on Hopper)
        traits.host_seconds_per_elementwise = 0;
        traits.host_seconds_per_gemm = 0;
        const double tp = shape.tp;
        const ParamBreakdown params = count_params(model, model.default_seq_len);
        total_weight_bytes = params.total * weight_bytes;
        hidden = model.hidden;
        heads = model.heads / tp;
        kv_heads = model.is_mla() ? 1.0 : std::max(1.0, model.kv_heads / tp);
        qk_dim = model.qk_head_dim();
        v_dim = model.value_head_dim();
        attention_qk = model.is_mla() ? model.kv_lora_rank + model.qk_rope_head_dim : qk_dim;
        attention_v = model.is_mla() ? model.kv_lora_rank : v_dim;
        kv_elements = model.is_mla() ? kv_cache_elements_per_layer(model)
                                     : kv_cache_elements_per_layer(model) * kv_heads / model.kv_heads;
        gated = model.gated_mlp;
        const double mlp_matrices = gated ? 3.0 : 2.0;
        const double attention_params = params.per_layer_matmul - mlp_matrices * model.hidden * static_cast<double>(model.ffn_hidden);
        out_in = heads * v_dim;
        qkv_out = std::max(0.0, attention_params / tp - out_in * hidden) / hidden;
        mlp_up_out = (gated ? 2.0 : 1.0) * model.ffn_hidden / tp;
        mlp_down_in = model.ffn_hidden / tp;
        vocab = std::ceil(static_cast<double>(model.vocab) / tp);
        moe = model.is_moe();
        if (moe) {
            experts = model.experts;
            top_k = model.experts_per_token;
            expert_up_out = (gated ? 2.0 : 1.0) * model.expert_ffn_hidden / tp;
            expert_down_in = model.expert_ffn_hidden / tp;
            shared_up_out = (gated ? 2.0 : 1.0) * model.shared_experts * static_cast<double>(model.shared_ffn_hidden) / tp;
            shared_down_in = model.shared_experts * static_cast<double>(model.shared_ffn_hidden) / tp;
        }
        stage_layers = (model.layers + shape.pp - 1) / shape.pp;
        const int moe_layers = moe ? params.moe_layers : 0;
        stage_moe_layers = std::min(stage_layers, (moe_layers + shape.pp - 1) / shape.pp);
    }

    double bandwidth() const { return gpu.hbm_bytes_per_s; }
    double memory_class(const MemoryClassEfficiency& c, double bytes) const { return c.floor_seconds + bytes / (bandwidth() * c.efficiency); }

    // A linear layer on m tokens: the slower of its compute (the GEMM table, as time_kernel times training's GEMMs) and its
    // weight read (a GEMV's, replayed from a graph). efficiency_flops: a grouped GEMM is read at one member's FLOPs.
    void linear(Tally& tally, double m, double n, double k, double weights_read, double efficiency_flops = 0) const {
        Kernel kernel;
        kernel.is_gemm = true;
        kernel.m = m;
        kernel.n = n;
        kernel.k = k;
        kernel.flops = 2.0 * m * n * k;
        kernel.efficiency_size = efficiency_flops;
        kernel.fp8 = fp8_gemms(gpu, traits);
        time_kernel(kernel, gpu, traits);
        const double bytes = weights_read * weight_bytes + m * (n + k) * kActivationBytes;
        const double seconds = std::max(kernel.seconds, memory_class(gpu.efficiency.serving.gemv, bytes));
        tally.kernel(Part::weights, seconds, launch.host_seconds_per_gemm, kernel.flops, bytes);
        tally.weight_bytes += weights_read * weight_bytes;
    }
    void dense_linear(Tally& tally, double m, double n, double k) const { linear(tally, m, n, k, n * k); }

    void elementwise(Tally& tally, const MemoryClassEfficiency& c, double bytes) const {
        tally.kernel(Part::other, memory_class(c, bytes), launch.host_seconds_per_elementwise, 0, bytes);
    }

    // Two all-reduces per layer (after attention and after the MLP: Shoeybi et al. 2019, Megatron-LM sec 3), each by the
    // fastest algorithm the engine has for its size.
    void all_reduce(Tally& tally, double tokens) const {
        if (shape.tp <= 1) return;
        const LinkSpec& link = scenario.cluster.scale_up;
        const double n = shape.tp;
        const double bytes = tokens * hidden * kActivationBytes;
        const double link_bytes_per_s = link.bytes_per_s * link.efficiency;
        double seconds = collective_seconds(Collective::all_reduce, GroupPlacement{shape.tp, shape.tp}, bytes, link, scenario.cluster.scale_out);
        if (bytes <= kCustomAllReduceMaxBytes) {
            const double one_shot = link.latency_seconds + (n - 1) * bytes / link_bytes_per_s;
            const double two_shot = 2.0 * link.latency_seconds + 2.0 * (n - 1) / n * bytes / link_bytes_per_s;
            seconds = std::min({seconds, one_shot, two_shot});
        }
        tally.kernel(Part::comm, seconds, launch.host_seconds_per_elementwise, 0, 0);
    }

    // RoPE on Q and K: engines fuse it into one kernel; PyTorch's rotate-by-halves runs, per tensor, four multiplies of a
    // strided half by the broadcast cos / sin (TensorIterator's unvectorized path: the broadcast class), a subtract, an
    // add and a stack, after two slices, a view and before a flatten.
    void rope(Tally& tally, double tokens) const {
        const double q = tokens * heads * qk_dim * kActivationBytes;
        const double k = tokens * kv_heads * qk_dim * kActivationBytes;
        const GpuEfficiency& e = gpu.efficiency;
        if (engine) {
            elementwise(tally, e.streaming, 2.0 * (q + k));
            return;
        }
        for (double bytes : {q, k}) {
            tally.view(4);
            for (int i = 0; i < 4; ++i) elementwise(tally, e.broadcast, bytes);
            for (int i = 0; i < 2; ++i) elementwise(tally, e.streaming, bytes);
            elementwise(tally, e.streaming, 2.0 * bytes);
        }
    }

    // The MLP of a dense layer, or the routed and shared experts of an MoE layer (router, top-k, two grouped GEMMs over the
    // experts the tokens reach: E (1 - (1 - k/E)^tokens) of them under uniform routing, the combine).
    void mlp(Tally& tally, double tokens, bool moe_layer) const {
        const GpuEfficiency& e = gpu.efficiency;
        const double act_in = gated ? 3.0 : 2.0;  // SwiGLU reads gate and up and writes one; GeLU reads one, writes one
        if (!moe_layer) {
            dense_linear(tally, tokens, mlp_up_out, hidden);
            if (!engine) tally.view();  // chunk
            if (!engine && gated) {
                elementwise(tally, e.streaming, 2.0 * tokens * mlp_down_in * kActivationBytes);  // silu
                elementwise(tally, e.streaming, 3.0 * tokens * mlp_down_in * kActivationBytes);  // x up
            } else {
                elementwise(tally, e.streaming, act_in * tokens * mlp_down_in * kActivationBytes);
            }
            dense_linear(tally, tokens, hidden, mlp_down_in);
            return;
        }
        const double routed = tokens * top_k;
        const double reached = experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
        linear(tally, tokens, experts, hidden, experts * hidden);                           // router (every GPU holds it)
        elementwise(tally, e.streaming, tokens * experts * 4.0 * 2.0);                       // softmax and top-k
        elementwise(tally, e.streaming, 2.0 * routed * hidden * kActivationBytes);           // gather into expert order
        const double per_expert = routed / reached;
        linear(tally, routed, expert_up_out, hidden, reached * expert_up_out * hidden, 2.0 * per_expert * expert_up_out * hidden);
        elementwise(tally, e.streaming, act_in * routed * expert_down_in * kActivationBytes);
        linear(tally, routed, hidden, expert_down_in, reached * hidden * expert_down_in, 2.0 * per_expert * hidden * expert_down_in);
        elementwise(tally, e.streaming, 2.0 * routed * hidden * kActivationBytes);           // weighted sum back in token order
        if (shared_up_out > 0) {
            dense_linear(tally, tokens, shared_up_out, hidden);
            elementwise(tally, e.streaming, act_in * tokens * shared_down_in * kActivationBytes);
            dense_linear(tally, tokens, hidden, shared_down_in);
        }
    }

    // Decode attention: every sequence's K and V read once. Engines split the KV so the blocks fill the GPU (flash-decoding,
    // Dao et al. 2023); PyTorch's SDPA runs one block per (sequence, KV head), so a small batch leaves SMs idle.
    double decode_attention(Tally& tally, int batch, double context) const {
        const ServingEfficiency& serving = gpu.efficiency.serving;
        const double kv_read = batch * context * kv_elements * kv_bytes;
        const double bytes = kv_read + 2.0 * batch * heads * (qk_dim + v_dim) * kActivationBytes;
        const double flops = 2.0 * batch * context * heads * (attention_qk + attention_v);
        double share = 1.0;
        if (!engine && gpu.multiprocessors > 0) share = std::min(1.0, batch * kv_heads / gpu.multiprocessors);
        const double memory = serving.decode_attention_floor_seconds + bytes / (bandwidth() * serving.decode_attention.at(qk_dim) * share);
        const double compute = flops / (gpu.bf16_flops_per_s * gpu.efficiency.fused_attention_forward.at(context));
        const double seconds = std::max(memory, compute);
        tally.kernel(Part::attention, seconds, launch.host_seconds_per_elementwise, flops, bytes);
        tally.kv_bytes += kv_read;
        return seconds;
    }

    // Causal attention over each prompt: the fused-attention table at the prompt's length, scaled to the head dim.
    void prefill_attention(Tally& tally, double sequences, double prompt) const {
        Kernel kernel;
        kernel.is_fused_attention = true;
        kernel.cudnn_attention = traits.cudnn_attention;
        kernel.efficiency_size = prompt;
        const double executed = sequences * heads * prompt * prompt * (qk_dim + v_dim);  // half of 2 b h s^2 (d_qk + d_v): causal
        kernel.flops = executed / gpu.efficiency.serving.attention_head_dim_scale.at(qk_dim);
        kernel.bytes = sequences * prompt * (heads * (qk_dim + 2.0 * v_dim) + 2.0 * kv_heads * qk_dim) * kActivationBytes;
        time_kernel(kernel, gpu, traits);
        tally.kernel(Part::attention, kernel.seconds, launch.host_seconds_per_elementwise, executed, kernel.bytes);
    }

    // One layer of a pass (in launch order) over decode tokens (one per sequence, attending to `context` tokens each) and
    // prefill tokens (`prompts` prompts of `prompt` tokens: engines run the prompts that arrive with the decode step in
    // the same pass, chunked prefill; a PyTorch decoder runs either).
    void layer(Tally& tally, int sequences, double context, double prompts, double prompt, bool moe_layer) const {
        const GpuEfficiency& e = gpu.efficiency;
        const double tokens = sequences + prompts * prompt;
        const bool decode_only = prompts <= 0;
        const double stream = tokens * hidden * kActivationBytes;
        const double kv_write = tokens * kv_elements * (kActivationBytes + kv_bytes);
        // Engines add the residual inside the norm (vLLM fused_add_rms_norm: reads both, writes both).
        elementwise(tally, e.norm, engine ? 4.0 * stream : 2.0 * stream);
        dense_linear(tally, tokens, qkv_out, hidden);
        if (!engine) tally.view(2);  // split, view
        rope(tally, tokens);
        if (engine) {
            elementwise(tally, e.streaming, kv_write);  // reshape_and_cache
        } else if (decode_only) {
            tally.view(2);
            for (int i = 0; i < 2; ++i) elementwise(tally, e.streaming, kv_write);  // index_copy_ of K, of V
        } else {
            tally.view(6);  // transposes, the cache slices
            for (int i = 0; i < 2; ++i) elementwise(tally, e.streaming, kv_write);  // cache copy_
            const double expanded = tokens * heads * qk_dim * kActivationBytes;
            for (int i = 0; i < 2; ++i) elementwise(tally, e.streaming, expanded + kv_write / 2);  // repeat_interleave to every head
        }
        if (sequences > 0) decode_attention(tally, sequences, context);
        if (prompts > 0) prefill_attention(tally, prompts, prompt);
        if (!engine) {
            tally.view();
            if (!decode_only) elementwise(tally, e.streaming, 2.0 * tokens * heads * v_dim * kActivationBytes);  // transpose to tokens
        }
        dense_linear(tally, tokens, hidden, out_in);
        all_reduce(tally, tokens);
        if (engine) {
            elementwise(tally, e.norm, 4.0 * stream);
        } else {
            elementwise(tally, e.streaming, 3.0 * stream);  // residual add
            elementwise(tally, e.norm, 2.0 * stream);
        }
        mlp(tally, tokens, moe_layer);
        all_reduce(tally, tokens);
        if (!engine) elementwise(tally, e.streaming, 3.0 * stream);
    }

    // The embedding, the final norm, the vocabulary head over each sequence's last token and the sampling.
    void edges(Tally& tally, double sequences, double tokens) const {
        const GpuEfficiency& e = gpu.efficiency;
        elementwise(tally, e.streaming, 2.0 * tokens * hidden * kActivationBytes);
        if (!engine) tally.view(2);
        elementwise(tally, e.norm, 2.0 * sequences * hidden * kActivationBytes);
        dense_linear(tally, sequences, vocab, hidden);
        elementwise(tally, e.streaming, sequences * vocab * (kActivationBytes + kLogitBytes));
    }

    // One pipeline stage's pass: its layers and both edges (the first stage's embedding is small beside the head).
    Tally stage(int sequences, double context, double prompts, double prompt) const {
        Tally total;
        const int dense_layers = stage_layers - stage_moe_layers;
        if (dense_layers > 0) {
            Tally one;
            layer(one, sequences, context, prompts, prompt, false);
            total.add(one, dense_layers);
        }
        if (stage_moe_layers > 0) {
            Tally one;
            layer(one, sequences, context, prompts, prompt, true);
            total.add(one, stage_moe_layers);
        }
        edges(total, sequences + prompts, sequences + prompts * prompt);
        return total;
    }

    // Sends between stages: each micro-batch's hidden states, once per boundary, on the link between the stages' GPUs.
    double stage_send_seconds(double tokens) const {
        if (shape.pp <= 1) return 0;
        const bool across = shape.tp * shape.pp > scenario.cluster.gpus_per_node;
        const LinkSpec& link = across ? scenario.cluster.scale_out : scenario.cluster.scale_up;
        return link.latency_seconds + tokens * hidden * kActivationBytes / (link.bytes_per_s * link.efficiency);
    }

    ServingPass pass(const Tally& tally, bool graphs, double sends) const {
        ServingPass pass;
        const double stages = shape.pp;
        pass.gpu_seconds = stages * tally.gpu + (stages - 1) * sends;
        pass.host_seconds = graphs ? 0.0 : stages * tally.host;
        pass.host_bound = pass.host_seconds > pass.gpu_seconds;
        pass.seconds = graphs ? pass.gpu_seconds : stages * tally.eager + (stages - 1) * sends;
        pass.weight_seconds = stages * tally.weights;
        pass.attention_seconds = stages * tally.attention;
        pass.other_seconds = stages * tally.other;
        pass.comm_seconds = stages * tally.comm + (stages - 1) * sends;
        pass.flops = tally.flops;
        pass.bytes = tally.bytes;
        pass.weight_bytes = tally.weight_bytes;
        pass.kv_bytes = tally.kv_bytes;
        pass.kernels = tally.kernels;
        return pass;
    }

    // A decode step: the batch split in pp micro-batches, each through every stage in turn; `prompts` prompts of `prompt`
    // tokens prefilled in the same pass (chunked prefill), split alike.
    ServingPass decode(int batch, double context, double prompts = 0, double prompt = 0) const {
        const int micro = std::max(1, (batch + shape.pp - 1) / shape.pp);
        const double micro_prompts = prompts / shape.pp;
        return pass(stage(micro, context, micro_prompts, prompt), scenario.serving.cuda_graphs, stage_send_seconds(micro + micro_prompts * prompt));
    }
    // Prefill of prompts alone: launched eagerly (engines capture CUDA graphs for decode batch sizes only).
    ServingPass prefill(double sequences, double prompt) const {
        return pass(stage(0, 0, sequences, prompt), false, stage_send_seconds(sequences * prompt));
    }

    ReplicaMemory memory() const {
        const ServingSpec& serving = scenario.serving;
        ReplicaMemory memory;
        memory.hbm_bytes = gpu.hbm_bytes;
        memory.usable_bytes = gpu.hbm_bytes * serving.memory_utilization;
        memory.weight_bytes = total_weight_bytes / shape.gpus();
        // What vLLM's profiling pass finds beside the weights: one prompt's widest activations (the residual stream, the
        // normed copy and the widest projection), the batch's fp32 logits, and cuBLAS's workspaces.
        const double widest = std::max({qkv_out, mlp_up_out, moe ? std::max(expert_up_out * top_k, shared_up_out) : 0.0});
        memory.activation_bytes = serving.prompt_tokens * (2.0 * hidden + widest) * kActivationBytes +
                                  serving.max_batch * vocab * kLogitBytes + scenario.memory.workspace_bytes;
        memory.kv_capacity_bytes = memory.usable_bytes - memory.weight_bytes - memory.activation_bytes;
        memory.kv_bytes_per_token = stage_layers * kv_elements * kv_bytes;
        const double longest = memory.kv_bytes_per_token * (static_cast<double>(serving.prompt_tokens) + serving.output_tokens);
        // Paged as tokens come, a sequence in flight holds its prompt and on average half its output; reserved, all of it.
        memory.kv_bytes_per_sequence = serving.reserve_output_kv ? longest
                                                                 : memory.kv_bytes_per_token * (serving.prompt_tokens + 0.5 * serving.output_tokens);
        memory.fits = memory.kv_capacity_bytes >= longest;
        const double held = memory.fits ? std::floor(memory.kv_capacity_bytes / memory.kv_bytes_per_sequence) : 0.0;
        memory.kv_batch = static_cast<int>(std::min(held, 1e9));
        memory.max_batch = static_cast<int>(std::min<double>(held, serving.max_batch));
        return memory;
    }
};

bool divides(int a, int b) { return b % a == 0; }

// Megatron's split needs whole heads per GPU, and whole KV heads or whole GPUs per KV head (vLLM replicates KV heads then).
bool tp_divides(const ModelSpec& model, int tp) {
    if (!divides(tp, model.heads)) return false;
    if (model.is_mla()) return true;
    return divides(tp, model.kv_heads) || divides(model.kv_heads, tp);
}

ServingPoint point_of(const Replica& replica, int batch, const ServingPass& prefill) {
    const ServingSpec& serving = replica.scenario.serving;
    ServingPoint point;
    point.shape = replica.shape;
    point.batch = batch;
    point.context_tokens = serving.prompt_tokens + 0.5 * serving.output_tokens;
    point.prefill_seconds = prefill.seconds;
    // Each query's prompt is prefilled once while its output takes output_tokens steps: batch / output_tokens prompts per
    // step. Engines run them in the decode step's pass (chunked prefill: vLLM, TensorRT-LLM in-flight batching); a PyTorch
    // decoder runs each prompt alone between steps (a pipeline prefills pp prompts at once).
    const double prompts_per_step = static_cast<double>(batch) / serving.output_tokens;
    if (replica.engine) {
        // Prompt tokens join decode steps a chunk at a time: when a step's share of them fills a chunk, every step carries
        // them; else a share of the steps carries one chunk and the rest decode alone.
        const double prompt = serving.prompt_tokens;
        const double per_step = prompts_per_step * prompt;
        const double chunk = std::min(prompt, static_cast<double>(serving.prefill_chunk_tokens));
        if (per_step >= chunk) {
            point.step_seconds = replica.decode(batch, point.context_tokens, prompts_per_step, prompt).seconds;
        } else {
            const double with_chunk = replica.decode(batch, point.context_tokens, chunk / prompt, prompt).seconds;
            const double alone = replica.decode(batch, point.context_tokens).seconds;
            const double share = per_step / chunk;
            point.step_seconds = share * with_chunk + (1.0 - share) * alone;
        }
        point.tpot_seconds = point.step_seconds;
    } else {
        point.step_seconds = replica.decode(batch, point.context_tokens).seconds;
        point.tpot_seconds = point.step_seconds + prompts_per_step * prefill.seconds / replica.shape.pp;
    }
    point.ttft_seconds = prefill.seconds + point.step_seconds;
    point.replica_tokens_per_s = batch / point.tpot_seconds;
    point.replica_queries_per_s = point.replica_tokens_per_s / serving.output_tokens;
    point.tokens_per_s_per_gpu = point.replica_tokens_per_s / replica.shape.gpus();
    return point;
}

bool meets(const ServingSpec& serving, const ServingPoint& point) {
    return point.tpot_seconds <= serving.tpot_ms * 1e-3 && point.ttft_seconds <= serving.ttft_ms * 1e-3;
}

// One shape against the service: the largest batch that meets both targets, the replicas the rate needs, and the batch
// each then runs (the smallest that carries its share of the rate).
struct ShapeAnswer {
    bool fits = false, meets = false;
    ReplicaMemory memory;
    ServingPoint point;        // at the running batch (batch 1 where the targets cannot be met)
    ServingPoint fastest;      // batch 1
    int replicas = 0;
};

ShapeAnswer answer_for(const Scenario& scenario, ReplicaShape shape) {
    const ServingSpec& serving = scenario.serving;
    const Replica replica(scenario, shape);
    ShapeAnswer answer;
    answer.memory = replica.memory();
    answer.fits = answer.memory.fits && answer.memory.max_batch >= 1;
    if (!answer.fits) return answer;
    const ServingPass prefill = replica.prefill(1, serving.prompt_tokens);
    answer.fastest = point_of(replica, 1, prefill);
    answer.point = answer.fastest;
    if (!meets(serving, answer.fastest)) return answer;
    answer.meets = true;
    // The largest batch that meets both: TPOT and TTFT only grow with the batch.
    int low = 1, high = answer.memory.max_batch;
    ServingPoint best = answer.fastest;
    const ServingPoint at_high = point_of(replica, high, prefill);
    if (meets(serving, at_high)) {
        best = at_high;
    } else {
        while (high - low > 1) {
            const int middle = low + (high - low) / 2;
            const ServingPoint at_middle = point_of(replica, middle, prefill);
            if (meets(serving, at_middle)) {
                low = middle;
                best = at_middle;
            } else {
                high = middle;
            }
        }
    }
    // A rate that needs more GPUs than a scenario may hold (cluster.gpus: at most 100,000,000) is not served by this shape.
    const double replicas_needed = std::ceil(serving.target_qps / best.replica_queries_per_s - 1e-9);
    if (!(replicas_needed * shape.gpus() <= kMaxServingGpus)) {
        answer.meets = false;
        return answer;
    }
    answer.replicas = std::max(static_cast<int>(replicas_needed), 1);
    // Little's law: a replica carrying rate / replicas queries a second holds that x output_tokens x TPOT sequences.
    const double share = serving.target_qps / answer.replicas;
    int batch = std::clamp(static_cast<int>(std::ceil(share * serving.output_tokens * answer.fastest.tpot_seconds - 1e-9)), 1, best.batch);
    ServingPoint running = point_of(replica, batch, prefill);
    for (int i = 0; i < 8 && running.replica_queries_per_s < share * (1 - 1e-9) && batch < best.batch; ++i) {
        batch = std::clamp(static_cast<int>(std::ceil(share * serving.output_tokens * running.tpot_seconds - 1e-9)), batch + 1, best.batch);
        running = point_of(replica, batch, prefill);
    }
    answer.point = running.replica_queries_per_s >= share * (1 - 1e-9) ? running : best;
    return answer;
}

struct Search {
    bool any_fits = false;
    bool found = false;
    ShapeAnswer best;           // the fewest GPUs
    bool any_fastest = false;
    ShapeAnswer fastest;        // the lowest batch-1 TPOT among shapes that fit
};

Search search(const Scenario& scenario) {
    Search result;
    for (ReplicaShape shape : replica_shapes(scenario)) {
        // A shape of more GPUs than the best answer's cannot need fewer.
        // GPU counts as 64-bit: replicas x shape can pass an int for a rate no sane cluster serves.
        if (result.found && shape.gpus() > 1LL * result.best.replicas * result.best.point.shape.gpus()) continue;
        ShapeAnswer answer = answer_for(scenario, shape);
        if (!answer.fits) continue;
        result.any_fits = true;
        if (!result.any_fastest || answer.fastest.tpot_seconds < result.fastest.fastest.tpot_seconds) {
            result.fastest = answer;
            result.any_fastest = true;
        }
        if (!answer.meets) continue;
        const long long gpus = 1LL * answer.replicas * shape.gpus();
        const long long best_gpus = result.found ? 1LL * result.best.replicas * result.best.point.shape.gpus() : 0;
        if (!result.found || gpus < best_gpus || (gpus == best_gpus && answer.point.tpot_seconds < result.best.point.tpot_seconds)) {
            result.best = answer;
            result.found = true;
        }
    }
    return result;
}

double dollars_per_million(const Scenario& scenario, int gpus) {
    const double tokens_per_hour = scenario.serving.target_qps * scenario.serving.output_tokens * 3600.0;
    return gpus * scenario.operations.dollars_per_gpu_hour / tokens_per_hour * 1e6;
}

}  // namespace

std::vector<ReplicaShape> replica_shapes(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    std::vector<ReplicaShape> shapes;
    int widest = 1;
    for (int tp = 1; tp <= scenario.cluster.gpus_per_node; tp *= 2) {
        if (!tp_divides(model, tp)) continue;
        shapes.push_back({tp, 1});
        widest = tp;
    }
    // No shape inside a node holds the weights and one sequence: pipeline stages of the widest TP, the fewest that do.
    bool any_fits = false;
    for (ReplicaShape shape : shapes) any_fits = any_fits || Replica(scenario, shape).memory().fits;
    if (!any_fits) {
        for (int pp = 2; pp <= model.layers; ++pp) {
            const ReplicaShape shape{widest, pp};
            if (Replica(scenario, shape).memory().fits) {
                shapes.push_back(shape);
                break;
            }
        }
    }
    return shapes;
}

ReplicaMemory replica_memory(const Scenario& scenario, ReplicaShape shape) { return Replica(scenario, shape).memory(); }

ServingPass decode_pass(const Scenario& scenario, ReplicaShape shape, int batch, double context_tokens) {
    return Replica(scenario, shape).decode(batch, context_tokens);
}

ServingPass prefill_pass(const Scenario& scenario, ReplicaShape shape, int sequences, int prompt_tokens) {
    return Replica(scenario, shape).prefill(sequences, prompt_tokens);
}

ServingPoint serving_point(const Scenario& scenario, ReplicaShape shape, int batch) {
    const Replica replica(scenario, shape);
    return point_of(replica, batch, replica.prefill(1, scenario.serving.prompt_tokens));
}

ServingReport serving_report(const Scenario& scenario) {
    validate_serving(scenario.serving);
    const ServingSpec& serving = scenario.serving;
    ServingReport report;
    report.gpu_budget = serving.gpus > 0 ? serving.gpus : scenario.cluster.gpus;
    const Search found = search(scenario);
    ServingAnswer& answer = report.answer;
    if (found.found) {
        const ShapeAnswer& best = found.best;
        answer.verdict = ServingVerdict::meets;
        answer.shape = best.point.shape;
        answer.replicas = best.replicas;
        answer.gpus = best.replicas * best.point.shape.gpus();
        answer.point = best.point;
        answer.max_batch = best.memory.max_batch;
        answer.dollars_per_million_tokens = dollars_per_million(scenario, answer.gpus);
        report.memory = best.memory;
        report.quoted_shape = answer.shape;
    } else if (found.any_fits) {
        const ShapeAnswer& fastest = found.fastest;
        answer.verdict = ServingVerdict::latency;
        answer.shape = fastest.point.shape;
        answer.point = fastest.fastest;
        answer.max_batch = fastest.memory.max_batch;
        report.memory = fastest.memory;
        report.quoted_shape = answer.shape;
    } else {
        answer.verdict = ServingVerdict::kv_cache;
        const std::vector<ReplicaShape> shapes = replica_shapes(scenario);
        report.quoted_shape = shapes.empty() ? ReplicaShape{} : shapes.back();
        report.memory = replica_memory(scenario, report.quoted_shape);
    }
    if (answer.verdict == ServingVerdict::latency) {
        answer.best_shape = answer.shape;
        answer.best_tpot_seconds = answer.point.tpot_seconds;
        answer.best_ttft_seconds = answer.point.ttft_seconds;
        answer.tpot_missed = answer.best_tpot_seconds > serving.tpot_ms * 1e-3;
        answer.ttft_missed = answer.best_ttft_seconds > serving.ttft_ms * 1e-3;
    }
    if (answer.verdict != ServingVerdict::meets) {
        // What would meet it: the catalog GPU whose fleet costs least per hour, at its own node and network.
        double cheapest = std::numeric_limits<double>::infinity();
        for (const GpuSpec& other : builtin_hardware().gpus) {
            if (other.id == scenario.cluster.gpu.id) continue;
            Scenario alternative = scenario;
            set_gpu(alternative.cluster, other);
            const Search on_other = search(alternative);
            if (!on_other.found) continue;
            const int gpus = on_other.best.replicas * on_other.best.point.shape.gpus();
            const double price = other.price.dollars_per_hour(PriceBasis::on_demand);
            const double hourly = gpus * (price > 0 ? price : scenario.operations.dollars_per_gpu_hour);
            if (hourly < cheapest) {
                cheapest = hourly;
                answer.alternative_gpu = other.name;
                answer.alternative_gpus = gpus;
                answer.alternative_shape = on_other.best.point.shape;
                answer.alternative_tpot_seconds = on_other.best.point.tpot_seconds;
                answer.alternative_ttft_seconds = on_other.best.point.ttft_seconds;
            }
        }
    }
    report.fraction = answer.verdict == ServingVerdict::meets ? static_cast<double>(answer.gpus) / report.gpu_budget
                                                              : std::numeric_limits<double>::infinity();
    // The quoted figures: serving.batch sequences at serving.context_tokens, a prompt of serving.context_tokens.
    const Replica quoted(scenario, report.quoted_shape);
    const ServingPass prefill = quoted.prefill(1, serving.context_tokens);
    report.prefill_seconds = prefill.seconds;
    report.prefill_tokens_per_s = serving.context_tokens / prefill.seconds;
    report.decode_step_seconds = quoted.decode(serving.batch, serving.context_tokens).seconds;
    report.replica_tokens_per_s = serving.batch / report.decode_step_seconds;
    return report;
}

ServingCurves serving_curves(const Scenario& scenario, const ServingReport& report) {
    const ServingSpec& serving = scenario.serving;
    ServingCurves curves;
    for (ReplicaShape shape : replica_shapes(scenario)) {
        const Replica replica(scenario, shape);
        const ReplicaMemory memory = replica.memory();
        ServingShapeRow row;
        row.shape = shape;
        row.fits = memory.fits && memory.max_batch >= 1;
        row.max_batch = memory.max_batch;
        if (row.fits) {
            const ShapeAnswer answer = answer_for(scenario, shape);
            row.meets = answer.meets;
            row.point = answer.point;
            row.replicas = answer.replicas;
            row.gpus = answer.replicas * shape.gpus();
            ServingCurve curve;
            curve.shape = shape;
            curve.max_batch = memory.max_batch;
            const ServingPass prefill = replica.prefill(1, serving.prompt_tokens);
            for (int batch = 1;; batch *= 2) {
                const int at = std::min(batch, memory.max_batch);
                const ServingPoint point = point_of(replica, at, prefill);
                curve.points.push_back({at, point.tpot_seconds, point.ttft_seconds, point.tokens_per_s_per_gpu, meets(serving, point)});
                if (at >= memory.max_batch) break;
            }
            curves.throughput_latency.push_back(curve);
        }
        curves.shapes.push_back(row);
    }
    const ReplicaShape shape = report.quoted_shape;
    const Replica replica(scenario, shape);
    curves.memory = replica.memory();
    const int last = std::max(2, curves.memory.max_batch > 0 ? curves.memory.max_batch * 2 : serving.max_batch);
    for (int batch = 1; batch <= last; batch *= 2) curves.kv_fill.push_back({batch, batch * curves.memory.kv_bytes_per_sequence});
    const Precision precision = serving.weight_bytes_per_param == 1.0 && scenario.cluster.gpu.fp8_flops_per_s > 0 ? Precision::fp8 : Precision::bf16;
    curves.roof = hbm_ceiling(scenario.cluster.gpu, precision);
    const double context = serving.prompt_tokens + 0.5 * serving.output_tokens;
    const auto place = [&](const ServingPass& pass, const std::string& label, bool prefill, int batch) {
        const double stage_seconds = pass.gpu_seconds / shape.pp;
        if (!(pass.bytes > 0 && stage_seconds > 0)) return;
        curves.roofline.push_back({label, prefill, batch, pass.flops / pass.bytes, pass.flops / stage_seconds});
    };
    place(replica.prefill(1, serving.prompt_tokens), "prefill, " + std::to_string(serving.prompt_tokens) + " tokens", true, 1);
    const int top = std::max(1, curves.memory.max_batch);
    for (int batch = 1;; batch *= 2) {
        const int at = std::min(batch, top);
        place(replica.decode(at, context), "decode, batch " + std::to_string(at), false, at);
        if (at >= top) break;
    }
    return curves;
}

ServingOutcome serving_outcome(const ServingReport& report) {
    switch (report.answer.verdict) {
        case ServingVerdict::latency: return ServingOutcome::latency;
        case ServingVerdict::kv_cache: return ServingOutcome::kv_cache;
        case ServingVerdict::meets: break;
    }
    return report.fraction <= 1.0 ? ServingOutcome::meets : ServingOutcome::over_budget;
}

const char* serving_outcome_key(ServingOutcome outcome) {
    switch (outcome) {
        case ServingOutcome::meets: return "meets";
        case ServingOutcome::over_budget: return "over_budget";
        case ServingOutcome::latency: return "latency";
        case ServingOutcome::kv_cache: return "kv_cache";
    }
    return "meets";
}

}  // namespace core
