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

    bool is_bare_count() const { return params_override > 0; }
    int head_dim() const { return hidden / heads; }

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
};

// Parameters from the architecture; seq_len sizes a learned position table when positions == 0.
ParamBreakdown count_params(const ModelSpec&, int seq_len);
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
