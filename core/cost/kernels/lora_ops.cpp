#include "core/cost/kernels/lora_ops.h"

#include "core/cost/kernels/flops.h"
#include "core/cost/kernels/recipe_ops.h"

#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace core {

namespace {

// Ops that read a weight of the model: their weight is frozen under LoRA.
bool reads_weight(const RecipeOp& op) {
    switch (op.kind) {
        case OpKind::linear:
        case OpKind::embedding:
        case OpKind::layer_norm:
        case OpKind::rms_norm:
        case OpKind::fused_norm: return true;
        case OpKind::add:
        case OpKind::mul: return op.weight == WeightRole::norm;
        default: return false;
    }
}

RecipeOp adapter_op(const RecipeOp& base, const char* suffix, OpKind kind, std::vector<std::string> inputs, std::string output,
                    const char* source) {
    RecipeOp op;
    op.name = base.name + suffix;
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.output = std::move(output);
    op.when = base.when;
    op.recompute_selective = base.recompute_selective;
    op.source = source;
    return op;
}

}  // namespace

bool quantized_weight(const RecipeOp& op, const FinetuneSpec& finetune) {
    return trains_adapters(finetune) && finetune.base_bytes < 2 && op.frozen && op.kind == OpKind::linear && op.weight != WeightRole::head;
}

namespace {

// NeMo AutoModel's LoRA (nemo_automodel/components/_peft/lora.py at 507bfb751, TritonLinearLoRA.forward with the
// default dropout_position "post"): res = F.linear(x, W); lora_res = LoRATritonFunction(x, A, B, scale) (one Triton
// kernel forward, lora_kernel.py lora_forward_kernel; two backward, da_dx and db); dropout on lora_res; res + lora_res.
void add_fused_adapter(RecipeBlock& adapted, const RecipeOp& original, const FinetuneSpec& finetune) {
    const std::string& out = original.output;
    constexpr const char* kFused = "lora_res = LoRATritonFunction.apply(x, self.lora_A.weight, self.lora_B.weight, self.scale, x.dtype) "
                                   "(nemo_automodel/components/_peft/lora.py TritonLinearLoRA.forward; lora_kernel.py: A, B and the scale in one kernel)";
    RecipeOp down = adapter_op(original, ".lora_A", OpKind::linear, {original.inputs.front()}, out + ".lora_a", kFused);
    down.weight = WeightRole::lora_a;
    down.adapts = original.weight;
    adapted.ops.push_back(std::move(down));
    RecipeOp up = adapter_op(original, ".lora_B", OpKind::linear, {out + ".lora_a"}, out + ".lora_b", kFused);
    up.weight = WeightRole::lora_b;
    up.adapts = original.weight;
    adapted.ops.push_back(std::move(up));
    std::string lora_output = out + ".lora_b";
    if (finetune.dropout > 0) {
        adapted.ops.push_back(adapter_op(original, ".lora_dropout", OpKind::dropout, {lora_output}, out + ".lora_dropped",
                                         "if self.dropout_position == \"post\": lora_res = F.dropout(lora_res, p=self.dropout_p) (lora.py)"));
        lora_output = out + ".lora_dropped";
    }
    adapted.ops.push_back(adapter_op(original, ".add", OpKind::add, {out + ".base", lora_output}, out, "return res + lora_res (lora.py)"));
}

std::shared_ptr<RecipeBlock> build_adapted_block(const RecipeBlock& block, bool layer, const FinetuneSpec& finetune, LoraStyle style) {
    auto adapted = std::make_shared<RecipeBlock>();
    adapted->input = block.input;
    adapted->output = block.output;
    adapted->ops.reserve(block.ops.size() * 2);
    for (const RecipeOp& original : block.ops) {
        RecipeOp op = original;
        op.frozen = reads_weight(op);
        if (!layer || !lora_targets_op(finetune, original)) {
            adapted->ops.push_back(std::move(op));
            continue;
        }
        // The frozen linear writes `result`; the adapter's path adds to it and hands the op's own output on.
        const std::string& out = original.output;
        op.name += ".base_layer";
        op.output = out + ".base";
        op.source = style == LoraStyle::peft ? "lora.Linear.forward: result = self.base_layer(x, *args, **kwargs) (peft v0.20.0 lora/layer.py:1044)"
                                             : "res = F.linear(x, self.weight, self.bias) (nemo_automodel/components/_peft/lora.py)";
        adapted->ops.push_back(op);
        if (style == LoraStyle::fused_post_dropout) {
            add_fused_adapter(*adapted, original, finetune);
            continue;
        }
        RecipeOp cast = adapter_op(original, ".cast_input", OpKind::cast, {original.inputs.front()}, out + ".lora_x",
                                   "x = self._cast_input_dtype(x, lora_A.weight.dtype) (lora/layer.py:1056; tuners_utils.py:1777)");
        cast.dtype = DtypeRule::adapter;
        adapted->ops.push_back(std::move(cast));
        std::string lora_input = out + ".lora_x";
        if (finetune.dropout > 0) {
            adapted->ops.push_back(adapter_op(original, ".lora_dropout", OpKind::dropout, {lora_input}, out + ".lora_dropped",
                                              "self.lora_dropout[adapter] = nn.Dropout(p=lora_dropout) (lora/layer.py:252)"));
            lora_input = out + ".lora_dropped";
        }
        RecipeOp down = adapter_op(original, ".lora_A", OpKind::linear, {lora_input}, out + ".lora_a",
                                   "lora_A(dropout(x)): nn.Linear(in_features, r, bias=False) (lora/layer.py:259)");
        down.weight = WeightRole::lora_a;
        down.adapts = original.weight;
        adapted->ops.push_back(std::move(down));
        RecipeOp up = adapter_op(original, ".lora_B", OpKind::linear, {out + ".lora_a"}, out + ".lora_b",
                                 "lora_B(...): nn.Linear(r, out_features, bias=lora_bias) (lora/layer.py:260)");
        up.weight = WeightRole::lora_b;
        up.adapts = original.weight;
        adapted->ops.push_back(std::move(up));
        adapted->ops.push_back(adapter_op(original, ".scaling", OpKind::mul_scalar, {out + ".lora_b"}, out + ".lora_scaled",
                                          "lora_B(lora_A(dropout(x))) * scaling, scaling = lora_alpha / r (lora/layer.py:1058, 277)"));
        adapted->ops.push_back(adapter_op(original, ".add", OpKind::add, {out + ".base", out + ".lora_scaled"}, out + ".lora_sum",
                                          "result = result + ... (lora/layer.py:1058)"));
        RecipeOp back = adapter_op(original, ".to_result_dtype", OpKind::cast, {out + ".lora_sum"}, out,
                                   "result = result.to(torch_result_dtype) (lora/layer.py:1069)");
        back.dtype = DtypeRule::compute;
        adapted->ops.push_back(std::move(back));
    }
    return adapted;
}

}  // namespace

std::shared_ptr<const RecipeBlock> adapted_block(const RecipeBlock& block, bool layer, const FinetuneSpec& finetune, LoraStyle style) {
    if (!trains_adapters(finetune)) return nullptr;
    // Kept for the program's life: kernels' labels point into the ops' names, and reports outlive a block cache's entries.
    // The form depends only on the block and the targets, so the table stays small.
    char address[48];
    std::snprintf(address, sizeof address, "%p|%d|%d|%d|%d|", static_cast<const void*>(&block), layer ? 1 : 0, static_cast<int>(finetune.targets),
                  finetune.dropout > 0 ? 1 : 0, static_cast<int>(style));
    std::string key = address;
    if (finetune.targets == LoraTargets::modules) {
        for (const std::string& name : finetune.target_modules) key += name + '|';
    }
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const RecipeBlock>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = cache.find(key); found != cache.end()) return found->second;
    std::shared_ptr<const RecipeBlock> adapted = build_adapted_block(block, layer, finetune, style);
    cache.emplace(std::move(key), adapted);
    return adapted;
}

LoraCounts lora_counts(const Scenario& scenario) {
    LoraCounts counts;
    if (!trains_adapters(scenario.finetune)) return counts;
    const LayerSplit whole;  // one GPU, one micro-batch: the weights do not depend on the batch
    // The last answer, per thread: evaluate asks for one scenario's counts three times (its FLOPs, memory and gradients).
    // The layer's program key names every field the three blocks read (they differ only in their role).
    thread_local std::string last_key;
    thread_local LoraCounts last_counts;
    std::string key = block_key(scenario, whole, BlockRole::layer);
    if (key == last_key) return last_counts;
    const BlockProgram& embedding = *block_program(scenario, whole, BlockRole::embedding);
    const BlockProgram& layer = *block_program(scenario, whole, BlockRole::layer);
    const BlockProgram& head = *block_program(scenario, whole, BlockRole::head);
    const double layers = scenario.model.layers;
    counts.layer_frozen_bytes = layer.frozen_bytes;
    counts.layer_adapter_params = layer.weight_params;
    counts.layer_frozen_params = layer.frozen_params;
    counts.head_frozen_params = head.frozen_params;
    counts.first_frozen_bytes = embedding.frozen_bytes;
    counts.last_frozen_bytes = head.frozen_bytes;
    counts.frozen_params = embedding.frozen_params + layers * layer.frozen_params + head.frozen_params;
    counts.frozen_bytes = embedding.frozen_bytes + layers * layer.frozen_bytes + head.frozen_bytes;
    counts.adapter_params = layers * layer.weight_params + embedding.weight_params + head.weight_params;
    counts.adapter_bytes_per_param = adapter_dtype_bytes(scenario.finetune.adapter_dtype);
    last_key = std::move(key);
    last_counts = counts;
    return counts;
}

namespace {

// A tied output layer reads the embedding's table, which the head block counts as its frozen weight (lora_ops' blocks).
double adapter_flops_change(const Scenario& scenario, const LoraCounts& counts) {
    const double frozen_gemm_params = scenario.model.layers * counts.layer_frozen_params + counts.head_frozen_params;
    return -2.0 * frozen_gemm_params + 6.0 * counts.adapter_params;
}

}  // namespace

StepFlops step_flops_per_token(const Scenario& scenario) {
    const TrainSpec& train = scenario.train;
    StepFlops flops{model_flops_per_token(scenario.model, train.seq_len),
                    hardware_flops_per_token(scenario.model, train.seq_len, train.recompute, train.fused_attention())};
    if (trains_adapters(scenario.finetune)) {
        const double change = adapter_flops_change(scenario, lora_counts(scenario));
        flops.model_per_token += change;
        flops.hardware_per_token += change;
    }
    return flops;
}

}  // namespace core
