#pragma once
// A framework implementation as data (assets/frameworks/*.json): the operators one transformer layer's forward runs, in
// order, and those of the embedding and the head, each with the tensors it reads and writes and the line of the
// framework's code it was read from; what the framework's host spends per launch; how it keeps gradients and recomputes.
// core/cost/kernels/recipe_ops.h gives each operator its kernels (time) and tensors (memory), with PyTorch's semantics.
#include <string>
#include <string_view>
#include <vector>

namespace core {

struct Scenario;

// The operators a recipe may name. Eager PyTorch operators follow ATen's semantics (autocast's lists, type promotion,
// what autograd saves and launches in the backward: tools/autograd/derivatives.yaml); fused ones are one kernel each way;
// the block ops run a whole part of a Megatron-style layer as core/cost/kernels/kernels.cpp builds it.
enum class OpKind {
    // eager operators
    view,          // view, reshape, transpose, split, unsqueeze: no kernel, no new tensor
    slice,         // x[..., a:b]: a view forward; its backward fills a zero gradient of the whole input and copies into it
    cast,          // .to(dtype) / .float() / .type_as(): one copy when the dtype changes
    copy,          // .contiguous() after a transpose, repeat_kv's expand + reshape: one copy
    add,           // tensor + tensor (the smaller one broadcast)
    mul,           // tensor * tensor (the smaller one broadcast)
    add_scalar,    // tensor + number
    mul_scalar,    // tensor * number
    pow_scalar,    // tensor ** number (autocast: fp32)
    rsqrt,         // (autocast: fp32)
    tanh,
    neg,
    silu,
    gelu,          // erf GELU (torch.nn.GELU)
    mean,          // over the last dimension
    cat,           // along the last dimension
    linear,        // F.linear / torch.addmm (Conv1D): a GEMM with a weight, its bias added in the epilogue
    sdpa,          // F.scaled_dot_product_attention, causal, fused (flash / cuDNN / memory-efficient backend)
    // eager attention (attn_implementation="eager"): torch.matmul over the b x heads batch, saving both operands
    attention_scores,   // torch.matmul(query, key.transpose(-1, -2)): the b a s S scores
    attention_context,  // torch.matmul(probs, value): the b a s d context from the scores and V
    softmax,       // F.softmax over the last dimension (autocast: fp32; "dtype": "fp32" as softmax(dtype=torch.float32))
    where,         // torch.where(mask, x, value) / masked_fill with a broadcast boolean mask: x where it holds
    dropout,
    layer_norm,    // aten::native_layer_norm: one kernel (autocast: fp32)
    rms_norm,      // aten's fused rms_norm kernel
    embedding,
    log_softmax,   // (autocast: fp32)
    nll_loss,
    // sequence parallelism's collectives (NCCL moves the data; the TP communication model prices it): a new tensor of the
    // op's shape, or the input itself where TP does not split the sequence
    gather_sequence,   // all-gather along the sequence before a column-parallel linear (t rows from n)
    scatter_sequence,  // reduce-scatter along the sequence after a row-parallel linear (n rows from t)
    // fused kernels: one kernel forward, one backward
    fused_norm,             // Apex / Transformer Engine LayerNorm or RMSNorm, torch.compile's fused norm
    fused_rope,             // Transformer Engine / Apex fused RoPE, torch.compile's
    fused_swiglu,           // silu(gate) * up in one kernel
    fused_bias_gelu,        // Megatron's bias + GeLU
    fused_residual_dropout, // Megatron's bias + dropout + add
    fused_cross_entropy,    // a vocab-parallel or chunked loss: softmax and loss in fp32 in a few passes
    chunked_cross_entropy,  // torchtune's compiled chunked loss: the 16-bit logits and a log-sum-exp per row kept, no fp32 copy
    // Megatron-style blocks (core/cost/kernels/kernels.cpp's builder): what those frameworks launch, fused
    block_norm, block_qkv, block_attention, block_head_transpose, block_out_proj, block_residual, block_mlp,
    block_embedding, block_final_norm, block_logits, block_loss,
};
const char* op_kind_name(OpKind);           // "linear", "block_mlp", ... (the recipe files' names)
bool op_kind_from_name(std::string_view, OpKind&);
bool is_block_op(OpKind);

// Which weight a linear reads: its output and input widths in the model's terms, split over TP as Megatron splits them.
// lora_a and lora_b: a LoRA adapter's down (rank x in) and up (out x rank) projections beside the linear whose role the op's
// `adapts` names (core/cost/kernels/lora_ops.h adds them; no recipe file names them).
enum class WeightRole { q, k, v, qkv, o, gate, up, gate_up, down, fc1, fc2, head, norm, lora_a, lora_b, none };
const char* weight_role_name(WeightRole);

// A tensor's dtype: fixed, or the recipe's (compute: bf16 or fp32; param: the weights' storage; stream: the residual
// stream's, the embedding's output dtype), or worked out from the inputs (PyTorch's type promotion and autocast).
// adapter: a LoRA adapter's weights' dtype (the finetune section's adapter_dtype).
enum class DtypeRule { infer, fp32, bf16, compute, param, stream, mask, index, adapter };

// The shape of a tensor as a product of the layer's sizes, each after the layout splits it (core/cost/kernels/recipe_ops.cpp
// Dims): t tokens in the TP region (micro-batch x sequence / cp), n tokens outside it (t / tp under sequence parallelism),
// h hidden, q query width, k key/value width, d head dim, a heads and g KV heads (per TP rank), f ffn width, v vocabulary
// (per TP rank), s and S the local and the whole sequence, b micro-batch; times a number ("n*h", "t*q/2", "b*a*s").
struct ShapeExpr {
    std::vector<char> symbols;
    double factor = 1;

    bool operator==(const ShapeExpr&) const = default;
};
bool parse_shape(std::string_view, ShapeExpr&, std::string& error);

struct RecipeOp {
    std::string name;               // "self_attn.q_proj"
    OpKind kind = OpKind::view;
    std::vector<std::string> inputs;
    std::string output;             // the tensor it writes (a view: the name it gives its input)
    ShapeExpr shape;                // of the output (ops whose output is an input's shape may leave it out)
    bool has_shape = false;
    DtypeRule dtype = DtypeRule::infer;
    WeightRole weight = WeightRole::none;
    bool bias = false;              // linear: a bias (added in the GEMM's epilogue; a reduction in the backward)
    std::string backend;            // sdpa: "cudnn", "flash" (FlashAttention-2, SDPA's flash backend) or "triton" (the
                                    // Triton FlashAttention MPT ran): the kernel the framework dispatches to
    bool recompute_selective = false;  // recomputed under selective recompute (the framework's policy)
    std::string when;               // a condition on the model or run ("gated", "!gated", "dropout", ...); empty: always
    std::string source;             // the line of the framework's code
    // Set by LoRA's transformation (core/cost/kernels/lora_ops.h), never by a file: the op's weight is frozen (no gradient,
    // no optimizer state), and an adapter's projection names the role of the linear it adapts.
    bool frozen = false;
    WeightRole adapts = WeightRole::none;
};

struct RecipeBlock {
    std::vector<RecipeOp> ops;
    std::string input;              // the tensor the block starts from ("x", the residual stream)
    std::string output;             // the tensor it hands on
};

// How the framework runs a LoRA adapter beside a frozen linear. peft: Hugging Face PEFT's lora.Linear (its input cast
// to the adapter's dtype, dropout on the input, lora_A, lora_B, the scaling, the add); fused_post_dropout: one kernel
// for lora_B(lora_A(x)) * scale (NeMo AutoModel's Triton LoRA), dropout on its output, the add.
enum class LoraStyle { peft, fused_post_dropout };

// How the framework's ring attention (context parallelism) moves K and V between the CP ranks: ring, each step's K and V
// sent to the next rank behind the chunk before (Megatron-Core's Transformer Engine p2p); all_gather, every rank's K and V
// gathered once per pass and waited for after the first chunk, the gradients of K and V still passed on step by step
// (PyTorch's experimental context parallelism, torch/distributed/tensor/experimental/_attention.py).
enum class CpRotation { ring, all_gather };
struct ContextParallelRecipe {
    CpRotation rotation = CpRotation::ring;
    bool repeated_kv = false;  // K and V travel with every query head (repeat_kv before SDPA), not one per KV head
    bool fp32_merge = false;   // each chunk's output merged into an fp32 one, and dQ, dK, dV accumulated and sent in fp32
    std::string source;
};

// How the framework's FSDP runs under its pipeline schedule: each layer gathered and reduced every micro-batch, as
// without a pipeline, or gathered at the first micro-batch's forward, kept with its gradients unsharded through the
// step, and reduced once after the last backward.
struct PipelineShardingRecipe {
    bool keeps_gathered = false;
    std::string source;
};

struct FrameworkRecipe {
    std::string id;                 // the file's name without .json: "hf-transformers-llama"
    std::string name;               // "Hugging Face transformers (Llama, Mistral, Qwen2), eager PyTorch"
    std::string version;            // the version its ops were read from
    std::string source;
    RecipeBlock embedding, layer, head;  // head: the final norm, the logits and the loss
    // The host: CPU seconds per launched kernel, forward and backward, and per kernel rerun under recompute, measured on
    // a real host with the GPU idle (each with its source). A step is never shorter than its host takes to launch it.
    double host_seconds_per_launch = 10.3e-6;
    double host_seconds_per_recompute_launch = 10.3e-6;
    std::string host_source;
    bool fused_elementwise = false; // Megatron's fused kernels (the block ops' traits)
    bool persistent_grads = false;  // gradients live in a buffer across steps (Megatron's main grads, DDP buckets) rather
                                    // than being freed by zero_grad(set_to_none=True), PyTorch's default
    LoraStyle lora_style = LoraStyle::peft;  // the file's "lora": {"style": ..., "source": ...}
    bool describes_compile = false; // some op is kept or replaced under torch.compile ("when": "compile" or "!compile")
    bool describes_eager_attention = false;  // some op runs only under eager attention ("when": "eager_attention")
    // The file's "compile": the first compiled step's wall time beyond a step (Dynamo's trace, AOTAutograd's partition,
    // Inductor's codegen and Triton's builds), measured: a compiled graph's time depends on its ops, not on the tensors'
    // sizes, and every decoder layer reuses the one graph. 0: not measured.
    double compile_seconds = 0;
    std::string compile_source;
    ContextParallelRecipe context_parallel;  // the file's "context_parallel"; absent: Transformer Engine's ring
    PipelineShardingRecipe fsdp_under_pipeline;  // the file's "fsdp_under_pipeline"; absent: every micro-batch
};

// Reads one recipe file; every error names the file, the op and the field (InputError).
FrameworkRecipe parse_framework_recipe(std::string_view json_text, const std::string& file);
// The recipes compiled in (assets/frameworks/*.json), by id.
const FrameworkRecipe* find_framework_recipe(std::string_view id);
// The recipe a scenario runs: its train.framework, and for Hugging Face its model's family (GPT-2's learned positions,
// biases and LayerNorm, or modeling_llama's ops). Throws InputError naming train.framework when none is compiled in.
const FrameworkRecipe& framework_recipe_of(const Scenario&);
const std::vector<FrameworkRecipe>& builtin_framework_recipes();
// What torch.compile adds once, to the first step: the recipe's measured compile_seconds where train.compile changes
// its kernels, else 0.
double compile_seconds(const Scenario&);

}  // namespace core
