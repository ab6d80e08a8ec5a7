#pragma once
// Transformer architectures and what follows from them alone: parameter counts (Narayanan et al. 2021, eq. 2 for GPT).
#include <string>
#include <string_view>
#include <vector>

namespace core {

struct ModelSpec {
    std::string id = "llama3-70b";  // preset id, "custom", or "params" for a bare parameter count
    std::string name = "Llama 3 70B";
    int layers = 80;
    int hidden = 8192;
    int heads = 64;
    int kv_heads = 8;                // = heads for multi-head attention, fewer for grouped-query attention
    int ffn_hidden = 28672;
    int vocab = 128256;
    bool gated_mlp = true;           // SwiGLU: three matrices (gate, up, down) instead of two
    bool tied_embeddings = false;    // output head shares the input embedding
    bool learned_positions = false;  // a positions x hidden table (GPT) instead of RoPE
    int positions = 0;               // rows of that table; 0 = the training sequence length
    bool bias = false;               // linear biases and LayerNorm (GPT) vs none and RMSNorm (Llama)
    int default_seq_len = 8192;
    double params_override = 0;      // > 0: a bare parameter count; the shape above is synthesized for activations
    // Mixture of experts (Shazeer et al. 2017; DeepSeekMoE, Dai et al. 2024). experts = 0: every layer is dense.
    int experts = 0;                 // routed experts E in each MoE layer
    int experts_per_token = 0;       // top-k: routed experts each token visits
    int expert_ffn_hidden = 0;       // f_e: one routed expert's MLP width
    int shared_experts = 0;          // experts every token visits besides its top-k (DeepSeekMoE, Llama 4)
    int shared_ffn_hidden = 0;       // one shared expert's width
    int first_dense_layers = 0;      // the first k layers keep the dense MLP (DeepSeek first_k_dense_replace)
    int moe_layer_step = 1;          // after them, layer i is MoE when (i + 1) % step == 0 (Llama 4 interleave, Qwen sparse step)
    // Multi-head latent attention (DeepSeek-V2 sec 2.1): low-rank Q and KV projections. kv_lora_rank = 0: standard attention.
    int q_lora_rank = 0;             // 0: Q projected directly (DeepSeek-V2-Lite)
    int kv_lora_rank = 0;
    int qk_nope_head_dim = 0;
    int qk_rope_head_dim = 0;
    int v_head_dim = 0;
    int explicit_head_dim = 0;       // a head width other than hidden / heads (Qwen3: 128 at h 4096, 64 heads); 0: hidden / heads

    bool is_bare_count() const { return params_override > 0; }
    bool is_moe() const { return experts > 0 && !is_bare_count(); }
    bool is_mla() const { return kv_lora_rank > 0; }
    int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
    int qk_head_dim() const { return is_mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim(); }  // Q and K per head
    int value_head_dim() const { return is_mla() ? v_head_dim : head_dim(); }                        // V and the output per head

    bool operator==(const ModelSpec&) const = default;
};

struct ParamBreakdown {
    double per_layer = 0;          // all weights and biases of one transformer layer
    double per_layer_matmul = 0;   // the matrix weights only: what FLOPs count
    double embedding = 0;          // vocab x hidden
    double position_embedding = 0; // positions x hidden, when learned
    double output_head = 0;        // vocab x hidden, when untied
    double final_norm = 0;
    double total = 0;
    // Mixtures of experts. A dense model: dense_layers = layers, moe_layers = 0, and the fields below are zero or total.
    int dense_layers = 0;              // layers with the dense MLP (per_layer each)
    int moe_layers = 0;                // layers with routed experts (moe_layer each)
    double moe_layer = 0;              // all weights of one MoE layer: attention, router, routed and shared experts, norms
    double moe_layer_matmul_active = 0;// the matrix weights one token multiplies in an MoE layer (top-k of the routed experts)
    double routed_experts_per_layer = 0;  // one MoE layer's routed experts, E x (3 or 2) h f_e: what expert parallelism splits
    double router_per_layer = 0;       // h x E
    double layers_matmul_active = 0;   // every layer's matrix weights one token multiplies: what model FLOPs count
    double total_active = 0;           // parameters one token uses: the total less the routed experts it does not visit
};

// Parameters from the architecture; seq_len sizes a learned position table when positions == 0.
ParamBreakdown count_params(const ModelSpec&, int seq_len);
// Whether layer i (0-based) has routed experts: after the first dense layers, every moe_layer_step-th.
bool is_moe_layer(const ModelSpec&, int layer);
// How many of the layers first .. first + count - 1 have routed experts.
int moe_layers_in(const ModelSpec&, int first, int count);
// The same for a dense-then-MoE pattern given by its fields (the planner's memory constants keep them without the model).
int moe_layers_in(bool moe, int first_dense_layers, int moe_layer_step, int first, int count);
// One token's attention width: heads x Q/K head dim and heads x V head dim (both = hidden for standard attention).
double attention_qk_width(const ModelSpec&);
double attention_v_width(const ModelSpec&);
// Elements one token keeps in the KV cache per layer: 2 kv_heads head_dim, or MLA's latent kv_lora_rank + rope dims.
double kv_cache_elements_per_layer(const ModelSpec&);
// Narayanan et al. 2021 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)).
double megatron_eq2_params(int layers, int hidden, int vocab, int seq_len);
// The range of a bare parameter count (model.params, the size sliders): down to seed 004's MiniGPT (< 500 k).
inline constexpr double kMinBareParams = 1e4;
inline constexpr double kMaxBareParams = 1e15;

// A plausible shape for a bare parameter count (h = 128 l, 12 l h^2 = N, MHA, MLP 4h) so activations can be estimated.
ModelSpec synthesize_shape(double params);

const std::vector<ModelSpec>& builtin_models();
const ModelSpec* find_model(std::string_view id);

}  // namespace core
