// Memory per GPU at the step's peak: the recipe's training state under DP / ZeRO / TP / PP / CP, the activations each
// layer stores (Korthikanti et al. 2022), and what is live beside them at the moment the step peaks.
// The eager figures are checked against 18 peaks measured on one H100 (measurements/h100_kernel_probe.json
// training_memory, measurements/h100_memory_phases.json): the phases and the byte counts per element below reproduce them.
#include "core/cost/memory/memory.h"

#include "core/cost/memory/timeline.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace core {

namespace {

// The most MoE layers any stage of the split holds, for a dense-then-MoE pattern (model.h moe_layers_in).
int most_moe_layers_on_a_stage(bool moe, int first_dense_layers, int moe_layer_step, const PipelineSplit& split) {
    if (!moe) return 0;
    int most = 0;
    for (int stage = 0; stage < split.stages; ++stage) {
        most = std::max(most, moe_layers_in(moe, first_dense_layers, moe_layer_step, split.first_layer_of(stage), split.layers_on(stage)));
    }
    return most;
}

}  // namespace

int moe_layers_on_heaviest_stage(const Scenario& scenario, int pp) {
    const ModelSpec& model = scenario.model;
    return most_moe_layers_on_a_stage(model.is_moe(), model.first_dense_layers, model.moe_layer_step, pipeline_split(scenario, pp));
}

StageParams heaviest_stage_params(const Scenario& scenario, int pp, int tp, int expert_shards) {
    return heaviest_stage_params(memory_constants(scenario), pp, tp, expert_shards);
}

StageParams heaviest_stage_params(const MemoryConstants& k, int pp, int tp, int expert_shards) {
    StageParams stage;
    stage.total = k.total_params;
    if (k.bare_count || pp == 1) {
        stage.params = k.total_params;
        stage.expert = moe_layers_in(k.moe, k.first_dense_layers, k.moe_layer_step, 0, k.layers) * k.expert_layer_params;
    } else {
        // The stage with the most MoE layers is the heaviest; a dense model's stages all hold per_layer weights each, the
        // edge stages the embedding or the head on their own layers.
        const PipelineSplit split = k.split(pp);
        const int stage_moe = most_moe_layers_on_a_stage(k.moe, k.first_dense_layers, k.moe_layer_step, split);
        const auto layer_block = [&](int layers) { return (layers - stage_moe) * k.layer_params + stage_moe * k.moe_layer_params; };
        stage.params = std::max({layer_block(split.most_layers()), layer_block(split.layers_on(0)) + k.first_extra_params,
                                 layer_block(split.layers_on(pp - 1)) + k.last_extra_params});
        stage.expert = stage_moe * k.expert_layer_params;
    }
    stage.expert_per_gpu = stage.expert / expert_shards;
    stage.per_gpu = (stage.params - stage.expert) / tp + stage.expert_per_gpu;
    return stage;
}

// The ZeRO stage from which a kind of state is sharded over the data-parallel ranks (Rajbhandari et al. 2019).
int sharded_from_stage(StateKind kind, bool sharded_optimizer) {
    switch (kind) {
        case StateKind::weights: return 3;
        case StateKind::grads: return 2;
        case StateKind::master:
        case StateKind::optimizer: return sharded_optimizer ? 0 : 1;
    }
    return 4;
}

int shard_ranks(const Layout& layout) { return layout.dp * layout.cp; }  // CP ranks hold the same weights too

bool is_sharded(StateKind kind, bool sharded_optimizer, const Layout& layout) {
    return layout.zero >= sharded_from_stage(kind, sharded_optimizer) && shard_ranks(layout) > 1;
}

double shard_share(StateKind kind, bool sharded_optimizer, const Layout& layout) {
    return is_sharded(kind, sharded_optimizer, layout) ? 1.0 / shard_ranks(layout) : 1.0;
}

namespace {

// Routed experts' state shards over the expert data-parallel group from the same ZeRO stage (Megatron-Core moe/README.md).
bool expert_sharded(StateKind kind, bool sharded_optimizer, const Layout& layout) {
    return layout.zero >= sharded_from_stage(kind, sharded_optimizer) && layout.expert_data_parallel() > 1;
}

// One layer and one micro-batch on one GPU, in bytes.
struct LayerBytes {
    double sbh = 0;             // s b h elements (s over CP)
    double scores = 0;          // a s^2 b / t elements
    double sbh_coefficient = 0; // stored bytes per s b h element, the scores aside
    double stored = 0;          // what the layer keeps for its backward under the layout's recompute
    double probs = 0;           // the stored attention probabilities (0 with flash attention)
    double full = 0;            // what it keeps without recompute: the working set full recompute rebuilds
    double backward = 0;        // what its backward holds beside them: the MLP's or unfused attention's gradients
    bool sequence_parallel = false;
    double expert = 0;          // of stored, a layer with experts: the router's probabilities and the routed copies'
};

// moe_layer: a layer with routed experts in place of the dense MLP.
LayerBytes layer_bytes(const MemoryConstants& k, const Layout& layout, bool moe_layer = false) {
    const double t = layout.tp;
    const double s = k.seq_len / layout.cp;  // context parallel splits the sequence
    LayerBytes layer;
    layer.sequence_parallel = layout.sequence_parallel && t > 1;
    const double replicated_split = layer.sequence_parallel ? t : 1.0;
    layer.sbh = s * layout.micro_batch * k.hidden;
    layer.scores = k.heads * s * s * layout.micro_batch / t;
    const double full_coefficient = k.replicated_coefficient / replicated_split + (moe_layer ? k.moe_sharded_coefficient : k.sharded_coefficient) / t;
    // The routed part on one GPU: its tokens at the router (each TP rank's sequence shard) and the copies its experts
    // compute, at the busiest GPU's load; an ETP group's GPUs each take the group's copies at 1 / etp of the width.
    double routed = 0, routed_gradients = 0;
    if (moe_layer) {
        const double tokens = s * layout.micro_batch / t;
        const double copies = tokens * k.copies_per_token;
        routed = tokens * k.router_bytes_per_token + copies * (layout.etp * k.copy_input_bytes + k.copy_ffn_bytes + k.copy_output_bytes);
        routed_gradients = copies * k.copy_gradient_bytes;
    }
    layer.probs = k.probs_coefficient * layer.scores;
    layer.full = full_coefficient * layer.sbh + layer.probs + routed;
    switch (layout.recompute) {
        case Recompute::none:
            layer.sbh_coefficient = full_coefficient;
            layer.stored = layer.full;
            layer.expert = routed;
            break;
        case Recompute::selective:
            layer.sbh_coefficient = full_coefficient;
            layer.stored = full_coefficient * layer.sbh + routed;
            layer.expert = routed;
            break;
        case Recompute::full:
            layer.sbh_coefficient = k.framework.residual_bytes / replicated_split;  // only each layer's input is kept
            layer.stored = layer.sbh_coefficient * layer.sbh;
            break;
    }
    // The backward's own gradients: the MLP's, or unfused attention's once the layer's MLP half, which its backward
    // reaches first, has been freed.
    const double mlp_gradients = (moe_layer ? k.moe_mlp_gradient_coefficient : k.mlp_gradient_coefficient) * layer.sbh / t + routed_gradients;
    const double mlp_half = k.mlp_half_replicated / replicated_split + (moe_layer ? k.moe_mlp_half_sharded : k.mlp_half_sharded) / t;
    const double attention_gradients =
        k.probs_backward_coefficient > 0 ? k.probs_backward_coefficient * layer.scores - mlp_half * layer.sbh - routed : 0.0;
    layer.backward = std::max(mlp_gradients, attention_gradients);
    return layer;
}

}  // namespace

double state_bytes_per_gpu(const Scenario& scenario, const Layout& layout, double params_per_gpu) {
    double bytes = 0;
    for (const StateComponent& component : scenario.precision.components) {
        const double divisor = is_sharded(component.kind, scenario.precision.sharded_optimizer, layout) ? shard_ranks(layout) : 1.0;
        bytes += component.bytes_per_param * params_per_gpu / divisor;
    }
    return bytes;
}

double expert_state_bytes_per_gpu(const Scenario& scenario, const Layout& layout, double expert_params_per_gpu) {
    double bytes = 0;
    for (const StateComponent& component : scenario.precision.components) {
        const double divisor = expert_sharded(component.kind, scenario.precision.sharded_optimizer, layout) ? layout.expert_data_parallel() : 1.0;
        bytes += component.bytes_per_param * expert_params_per_gpu / divisor;
    }
    return bytes;
}

MemoryConstants memory_constants(const Scenario& scenario) {
    MemoryConstants k;
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    const PrecisionRecipe& recipe = scenario.precision;
    k.framework = framework_traits(scenario);
    k.layers = model.layers;
    k.embedding_and_loss_as_layers = train.embedding_and_loss_as_layers;
    k.seq_len = train.seq_len;
    k.hidden = model.hidden;
    k.heads = model.heads;
    k.kv_share = static_cast<double>(model.kv_heads) / model.heads;
    k.ffn_ratio = static_cast<double>(model.ffn_hidden) / model.hidden;
    k.vocab = model.vocab;
    k.gated_mlp = model.gated_mlp;
    k.flash_attention = train.fused_attention();
    k.dropout = train.dropout;
    const ParamBreakdown breakdown = count_params(model, train.seq_len);
    k.total_params = breakdown.total;
    k.bare_count = model.is_bare_count();
    if (model.is_bare_count()) {
        k.layer_params = breakdown.total / model.layers;  // a bare count: all of it in the layers
        k.head_params = 0;
    } else {
        k.layer_params = breakdown.per_layer;
        k.first_extra_params = breakdown.embedding + breakdown.position_embedding;
        k.head_params = model.tied_embeddings ? breakdown.embedding : breakdown.output_head;
        k.last_extra_params = breakdown.final_norm + k.head_params;
    }
    for (const StateComponent& component : recipe.components) k.state_bytes_per_param[static_cast<int>(component.kind)] += component.bytes_per_param;
    k.sharded_optimizer = recipe.sharded_optimizer;
    k.compute_bytes = recipe.compute_bytes;
    k.gemm_input_bytes = recipe.saved_gemm_input_bytes();
    k.weight_copy_bytes = recipe.weight_copy_bytes;
    k.gather_bytes = recipe.weight_comm_bytes_per_param();
    k.grad_comm_bytes = recipe.grad_comm_bytes_per_param();
    k.comm_bucket_bytes = recipe.comm_bucket_bytes;
    k.head_copied = k.gemm_input_bytes >= k.compute_bytes;  // fp8 recipes cast the layers' GEMMs, not the bf16 head
    k.spec = scenario.memory;
    k.hbm_bytes = scenario.cluster.gpu.hbm_bytes;
    k.global_batch = train.global_batch;
    if (runs_operator_recipe(scenario)) {
        k.operator_recipe = true;
        k.scenario = std::make_shared<const Scenario>(scenario);
        k.grads_from_start = framework_recipe_of(scenario).persistent_grads || !train.zero_grad_set_to_none;
        k.fsdp_kept_under_pipeline = framework_recipe_of(scenario).fsdp_under_pipeline.keeps_gathered;
    }
    if (trains_adapters(scenario.finetune)) {
        k.lora = true;
        k.lora_counts = lora_counts(scenario);
    }

    // Korthikanti et al. 2022 sec 4.1, each tensor in the bytes the recipe and the framework keep it in. Outside the TP
    // regions (replicated, or split over TP by sequence parallelism): the two norms' inputs (the residual stream), the
    // attention's and the MLP's GEMM inputs, the two dropout masks. Inside (split over TP): Q, K, V, the attention
    // output, the MLP's ffn-wide tensors and the down projection's input.
    const FrameworkTraits& framework = k.framework;
    const double c = k.compute_bytes, g = k.gemm_input_bytes, r = framework.residual_bytes;
    const double mlp_input_copies = k.gated_mlp ? framework.mlp_input_copies_gated : 1;
    const double masks = k.dropout ? 2.0 : 0.0;
    // Q, K and V at their widths over h (1, kv/heads, kv/heads for standard attention; Qwen3's and MLA's heads are not
    // h wide), and the out-projection's input at the value width.
    const double h = k.hidden;
    const double qkv = c * (attention_qk_width(model) + model.kv_heads * (model.qk_head_dim() + model.value_head_dim())) / h;
    const double attention_output = (c + (g < c ? g : 0.0)) * attention_v_width(model) / h;  // fp8 keeps the projection's own input beside it
    const double ffn_tensors = (k.gated_mlp ? framework.gated_ffn_tensors : 1.0) * c + g;  // per ffn-wide element
    const double mlp = k.ffn_ratio * ffn_tensors;
    // MLA keeps its two latents and the shared rope key, the up-projections' inputs (DeepSeek-V2 sec 2.1).
    const double latents = model.is_mla() ? c * (model.q_lora_rank + model.kv_lora_rank + model.qk_rope_head_dim) / h : 0.0;
    k.replicated_coefficient = 2.0 * r + g + mlp_input_copies * g + masks + latents;
    k.sharded_coefficient = qkv + attention_output + mlp;
    k.probs_coefficient = k.flash_attention ? 0.0 : framework.probs_bytes + (k.dropout ? framework.probs_dropout_bytes : 0.0);
    k.probs_backward_coefficient = k.flash_attention ? 0.0 : framework.probs_backward_bytes + (k.dropout ? c : 0.0);
    k.mlp_half_replicated = r + mlp_input_copies * g + masks;
    k.mlp_half_sharded = attention_output + mlp;
    k.mlp_gradient_coefficient = 2.0 * c * k.ffn_ratio;

    // Mixtures of experts: the shared experts are a TP-split MLP of their total width; each routed copy keeps its expert
    // input (the dispatched token), the ffn-wide tensors and its output, and the router its fp32 probabilities.
    k.moe = model.is_moe();
    if (k.moe) {
        k.first_dense_layers = model.first_dense_layers;
        k.moe_layer_step = model.moe_layer_step;
        k.moe_layer_params = breakdown.moe_layer;
        k.expert_layer_params = breakdown.routed_experts_per_layer;
        const double shared_ratio = static_cast<double>(model.shared_experts) * model.shared_ffn_hidden / h;
        k.moe_sharded_coefficient = qkv + attention_output + shared_ratio * ffn_tensors;
        k.moe_mlp_half_sharded = attention_output + shared_ratio * ffn_tensors;
        k.moe_mlp_gradient_coefficient = 2.0 * c * shared_ratio;
        k.router_bytes_per_token = 4.0 * model.experts;
        k.copies_per_token = model.experts_per_token * scenario.moe.load_factor();
        k.copy_input_bytes = g * h;
        k.copy_ffn_bytes = model.expert_ffn_hidden * ffn_tensors;
        k.copy_output_bytes = c * h;
        k.copy_gradient_bytes = 2.0 * c * model.expert_ffn_hidden;
    }
    return k;
}

namespace {

// One kind of the routed experts' state on a GPU holding expert_params_per_gpu of them: sharded over EDP from its ZeRO stage.
double expert_state_bytes(const MemoryConstants& k, const Layout& layout, StateKind kind, double expert_params_per_gpu) {
    const double bytes = k.state_bytes_per_param[static_cast<int>(kind)] * expert_params_per_gpu;
    return expert_sharded(kind, k.sharded_optimizer, layout) ? bytes / layout.expert_data_parallel() : bytes;
}

// The layers one stage's GPU holds: its own stage's, which store activations per micro-batch in flight (in whole-stage
// units), and all it keeps weights for (under DualPipe and DualPipeV a second stage's too); each with those that have
// routed experts.
struct DeviceLayers {
    int own = 0, own_moe = 0;
    double device = 0, device_moe = 0;
    bool first = false, last = false;
};

DeviceLayers device_layers_of(const MemoryConstants& k, const Layout& layout, int stage) {
    DeviceLayers d;
    const bool dualpipe = layout.schedule == ScheduleKind::dualpipe, dualpipe_v = layout.schedule == ScheduleKind::dualpipe_v;
    const auto moe_in = [&](int stages, int s) {
        return moe_layers_in(k.moe, k.first_dense_layers, k.moe_layer_step, k.split(stages).first_layer_of(s), k.split(stages).layers_on(s));
    };
    d.own = k.split(layout.pp).layers_on(stage);
    d.own_moe = k.moe ? moe_in(layout.pp, stage) : 0;
    // The two-way schedules put a second stage on each device: DualPipe stage d and p-1-d (each stage twice, the
    // DualPipe README's "2x parameters"), DualPipeV stage d and 2p-1-d of 2p; either way device 0 holds both ends.
    const int mirror = dualpipe ? layout.pp - 1 - stage : dualpipe_v ? 2 * layout.pp - 1 - stage : stage;
    d.first = stage == 0 || ((dualpipe || dualpipe_v) && mirror == 0);
    // DualPipe's two directions end on GPUs p-1 and 0 (each holds a head); DualPipeV's V ends on GPU 0 only.
    d.last = dualpipe ? (stage == layout.pp - 1 || mirror == layout.pp - 1) : dualpipe_v ? stage == 0 : stage == layout.pp - 1;
    if (dualpipe) {
        d.device = k.split(layout.pp).layers_on(stage) + k.split(layout.pp).layers_on(mirror);
        d.device_moe = k.moe ? moe_in(layout.pp, stage) + moe_in(layout.pp, mirror) : 0;
    } else if (dualpipe_v) {
        d.device = k.split(2 * layout.pp).layers_on(stage) + k.split(2 * layout.pp).layers_on(mirror);
        d.device_moe = k.moe ? moe_in(2 * layout.pp, stage) + moe_in(2 * layout.pp, mirror) : 0;
    } else {
        d.device = d.own;
        d.device_moe = d.own_moe;
    }
    return d;
}

// What a stage's GPU holds whatever the ZeRO stage: its layers and parameters, its stored activations, the loss's
// inputs and working sets, and its communicators.
struct StageShape {
    bool last = false;                 // it holds the final norm, the head and the loss
    double dense_params_per_gpu = 0;   // the dense parameters its layers (and edges) hold, on the GPU
    int all_moe = 0;                   // the model's layers with routed experts (pp = 1)
    double dense_layer_per_gpu = 0, moe_layer_per_gpu = 0, largest_layer_per_gpu = 0;
    double edge_per_microbatch = 0, edge = 0, logits = 0, working_set = 0;
    double nccl_bytes = 0;
};

// The ZeRO-independent part of stage_memory_into: the shape, and the memory fields it decides.
StageShape stage_shape_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const LayerBytes& layer, const LayerBytes& moe,
                            int stage, double inflight, double* per_microbatch) {
    const FrameworkTraits& framework = k.framework;
    const double per_tp = 1.0 / layout.tp;
    memory.stage = stage;
    StageShape shape;
    DeviceLayers d;
    if (!k.moe && layout.schedule != ScheduleKind::dualpipe && layout.schedule != ScheduleKind::dualpipe_v) {  // the planner's common case
        d.own = k.split(layout.pp).layers_on(stage);
        d.device = d.own;
        d.first = stage == 0;
        d.last = stage == layout.pp - 1;
    } else {
        d = device_layers_of(k, layout, stage);
    }
    memory.layers = d.own;
    memory.device_layers = static_cast<int>(d.device + 0.5);  // a count >= 0, rounded (a DualPipe mean may be a half)
    memory.holds_embedding = d.first;
    memory.holds_head = d.last;
    memory.moe_layers = d.own_moe;
    memory.inflight_microbatches = inflight;
    const bool first = d.first, last = d.last;
    shape.last = last;
    const bool dualpipe = layout.schedule == ScheduleKind::dualpipe;
    const bool whole_model = layout.pp == 1 && !dualpipe;
    // Megatron-Core's buckets: the routed experts split over EP x ETP, the rest (attention, dense MLPs, shared experts,
    // router, norms, embedding and head) over TP.
    const double extras = (first ? k.first_extra_params : 0.0) + (last ? k.last_extra_params : 0.0);
    double params = whole_model ? k.total_params : d.device * k.layer_params + extras;
    double moe_dense_part = 0, per_expert_shard = 1;
    if (k.moe) {
        moe_dense_part = k.moe_layer_params - k.expert_layer_params;
        per_expert_shard = 1.0 / (layout.ep * layout.etp);
        shape.all_moe = moe_layers_in(k.moe, k.first_dense_layers, k.moe_layer_step, 0, k.layers);
        const double expert_params = (whole_model ? shape.all_moe : d.device_moe) * k.expert_layer_params;
        params = whole_model ? k.total_params - expert_params : (d.device - d.device_moe) * k.layer_params + d.device_moe * moe_dense_part + extras;
        memory.expert_params_per_gpu = expert_params * per_expert_shard;
    }
    memory.params_per_gpu = params * per_tp + memory.expert_params_per_gpu;  // the state below splits it again
    shape.dense_params_per_gpu = params * per_tp;

    // A stage's own layers per micro-batch in flight, at the mean of the layers its GPU holds (exact but under DualPipe).
    double stored_per_layer = layer.stored;
    if (d.device_moe > 0) stored_per_layer += d.device_moe / d.device * (moe.stored - layer.stored);
    if (k.operator_recipe) stored_per_layer = operator_blocks(k, layout).layer.forward_delta_bytes;  // the walked layer
    memory.activations_bytes = stored_per_layer * memory.layers * inflight;

    shape.dense_layer_per_gpu = k.layer_params * per_tp;
    shape.moe_layer_per_gpu = k.moe ? moe_dense_part * per_tp + k.expert_layer_params * per_expert_shard : 0.0;
    shape.largest_layer_per_gpu = d.device_moe > 0 ? std::max(shape.moe_layer_per_gpu, d.device_moe < d.device ? shape.dense_layer_per_gpu : 0.0)
                                                   : shape.dense_layer_per_gpu;

    // The last stage's final norm and head inputs, kept for every micro-batch in flight (a layer's backward comes after
    // its own are freed), and the loss's working set.
    shape.edge_per_microbatch =
        last && !k.operator_recipe ? (framework.residual_bytes + k.gemm_input_bytes) * layer.sbh * (layer.sequence_parallel ? per_tp : 1.0) : 0.0;
    if (k.operator_recipe && first) shape.edge_per_microbatch = operator_blocks(k, layout).embedding.forward_delta_bytes;
    shape.edge = shape.edge_per_microbatch * inflight;
    shape.logits = layout.micro_batch * k.seq_len * k.vocab * per_tp / layout.cp;
    const bool full = layout.recompute == Recompute::full;
    const auto working_set_of = [&](const LayerBytes& one) {
        double bytes = one.backward;
        if (full) bytes += one.full;
        else if (layout.recompute == Recompute::selective) bytes += one.probs;
        return bytes;
    };
    shape.working_set = d.device_moe > 0 ? std::max(working_set_of(moe), d.device_moe < d.device ? working_set_of(layer) : 0.0)
                                         : working_set_of(layer);

    // NCCL's communicators, outside the allocator. With experts, the EP and ETP groups and the expert data-parallel group
    // (when it is not the DP group) are more.
    const bool expert_groups = k.moe && layout.ep * layout.etp > 1;
    const int groups = (layout.tp > 1) + (layout.cp > 1) + (layout.pp > 1) + (layout.dp > 1) +
                       (expert_groups ? (layout.ep > 1) + (layout.etp > 1) + (layout.expert_data_parallel() > 1) : 0);
    shape.nccl_bytes = groups * k.spec.nccl_bytes_per_group;
    if (per_microbatch) *per_microbatch = (stored_per_layer * memory.layers + shape.edge_per_microbatch) * (1.0 + k.spec.fragmentation);
    return shape;
}

void operator_stage_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const StageShape& shape);

// LoRA and QLoRA: the stage's frozen base in its stored bytes (no gradient, no master, no optimizer state) beside its
// adapters, which PEFT trains in their own dtype with no master copy; torch.optim.AdamW keeps exp_avg and exp_avg_sq as
// zeros_like(param) (torch/optim/adamw.py _init_group), two more copies in the adapters' dtype. Split over TP as the
// layers are; the adapters' gradients and moments sharded as the recipe's would be. ZeRO-3 shards the frozen base with the
// rest: FSDP flattens and shards every parameter, trainable or not (torch/distributed/fsdp/_fully_shard: requires_grad
// plays no part in which parameters it shards), and DeepSpeed's stage 3 partitions every parameter of the module.
void lora_state_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const StageShape& shape) {
    const LoraCounts& lora = k.lora_counts;
    const double per_tp = 1.0 / layout.tp;
    const bool whole_model = layout.pp == 1;
    const double layers = whole_model ? k.layers : memory.device_layers;
    const double frozen = layers * lora.layer_frozen_bytes + (whole_model || memory.holds_embedding ? lora.first_frozen_bytes : 0.0) +
                          (whole_model || shape.last ? lora.last_frozen_bytes : 0.0);
    const double adapters = layers * lora.layer_adapter_params * per_tp;
    const double a = lora.adapter_bytes_per_param;
    const auto share = [&](StateKind kind) { return shard_share(kind, k.sharded_optimizer, layout); };
    memory.weights_bytes = (frozen * per_tp + a * adapters) * share(StateKind::weights);
    memory.grads_bytes = a * adapters * share(StateKind::grads);
    memory.master_bytes = 0;
    memory.optimizer_bytes = 2.0 * a * adapters * share(StateKind::optimizer);
}

// The ZeRO-dependent part: the state at layout.zero, the weight copies and gathers, the moment of the peak, the buffers
// and the peak itself. `memory` holds the shape's fields (stage_shape_into).
void stage_state_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const StageShape& shape) {
    const FrameworkTraits& framework = k.framework;
    const double per_tp = 1.0 / layout.tp;
    const bool last = shape.last;

    // The state, each kind sharded over DP x CP from its ZeRO stage; the routed experts' over EDP.
    const double shards = shard_ranks(layout);
    const double per_shard = 1.0 / shards;
    const auto state_of = [&](StateKind kind) {
        const double bytes = k.state_bytes_per_param[static_cast<int>(kind)] * shape.dense_params_per_gpu;
        return is_sharded(kind, k.sharded_optimizer, layout) ? bytes * per_shard : bytes;
    };
    memory.weights_bytes = state_of(StateKind::weights);
    memory.grads_bytes = state_of(StateKind::grads);
    memory.master_bytes = state_of(StateKind::master);
    memory.optimizer_bytes = state_of(StateKind::optimizer);
    if (memory.expert_params_per_gpu > 0) {
        memory.weights_bytes += expert_state_bytes(k, layout, StateKind::weights, memory.expert_params_per_gpu);
        memory.grads_bytes += expert_state_bytes(k, layout, StateKind::grads, memory.expert_params_per_gpu);
        memory.master_bytes += expert_state_bytes(k, layout, StateKind::master, memory.expert_params_per_gpu);
        memory.optimizer_bytes += expert_state_bytes(k, layout, StateKind::optimizer, memory.expert_params_per_gpu);
    }
    if (k.lora) lora_state_into(memory, k, layout, shape);
    memory.state_bytes = memory.weights_bytes + memory.grads_bytes + memory.master_bytes + memory.optimizer_bytes;

    const bool zero3 = layout.zero == 3 && shards > 1;
    if (k.operator_recipe) {
        // ZeRO-3 / FSDP: the layer computing and the one prefetched, gathered (FSDP2's and FSDP1's default prefetch of
        // one layer), and one layer's unsharded gradients before their reduce-scatter.
        memory.gathered_weights_bytes = zero3 ? (2.0 * k.gather_bytes + k.grad_comm_bytes) * shape.largest_layer_per_gpu : 0.0;
        if (zero3 && layout.pp > 1 && k.fsdp_kept_under_pipeline) {
            // Kept gathered under the pipeline: every layer of the stage, and its unsharded gradients accumulated.
            const double stage_params = (memory.layers - memory.moe_layers) * shape.dense_layer_per_gpu + memory.moe_layers * shape.moe_layer_per_gpu;
            memory.gathered_weights_bytes = (k.gather_bytes + k.grad_comm_bytes) * stage_params;
        }
        if (zero3 && k.lora) {  // LoRA: the frozen base gathered in its stored bytes; only the adapters' gradients unsharded
            const double adapters = k.lora_counts.layer_adapter_params * k.lora_counts.adapter_bytes_per_param * per_tp;
            memory.gathered_weights_bytes = 2.0 * (k.lora_counts.layer_frozen_bytes * per_tp + adapters) + adapters;
        }
        operator_stage_into(memory, k, layout, shape);
    } else {
    // Weight copies: made per layer at the gather when ZeRO-3 gathers the cast weights (FSDP2), else for the whole stage.
    const bool copies_at_gather = zero3 && k.gather_bytes < k.state_bytes_per_param[static_cast<int>(StateKind::weights)];
    double copies_all = 0, copies_head = 0, copies_layer = 0;
    if (k.weight_copy_bytes > 0 && !copies_at_gather) {
        copies_head = last && k.head_copied ? k.weight_copy_bytes * k.head_params * per_tp : 0.0;
        copies_layer = k.weight_copy_bytes * shape.largest_layer_per_gpu;
        const int own_layers = layout.pp == 1 ? k.layers : memory.layers;
        const int own_moe = layout.pp == 1 ? shape.all_moe : memory.moe_layers;
        copies_all = k.weight_copy_bytes * ((own_layers - own_moe) * shape.dense_layer_per_gpu + own_moe * shape.moe_layer_per_gpu) + copies_head;
    }
    // ZeRO-3: the layer computing and the one prefetched, gathered, and one layer's unsharded gradients before they are
    // reduce-scattered (Rajbhandari et al. 2019 sec 5.3; FSDP2 prefetches one layer ahead).
    memory.gathered_weights_bytes = zero3 ? (2.0 * k.gather_bytes + k.grad_comm_bytes) * shape.largest_layer_per_gpu : 0.0;

    // The three moments, what each holds beside the state and the stored activations; the largest is the peak.
    const bool full = layout.recompute == Recompute::full;
    const bool released = framework.weight_copies_released_by_recompute;
    const double inflight = memory.inflight_microbatches;
    memory.phase = MemoryPhase::layer_backward;
    memory.weight_copies_bytes = released ? (full ? copies_layer : copies_all - copies_head) : copies_all;
    memory.logits_bytes = shape.edge_per_microbatch * std::max(inflight - 1.0, 0.0);
    memory.backward_working_set_bytes = shape.working_set;
    if (last) {
        const double layer_moment = memory.weight_copies_bytes + memory.logits_bytes + shape.working_set;
        const double forward_end = copies_all + shape.edge + framework.logits_forward_bytes * shape.logits;
        const double loss_copies = released && full ? copies_head : copies_all;
        const double loss_backward = loss_copies + shape.edge + framework.logits_backward_bytes * shape.logits;
        if (forward_end >= loss_backward && forward_end >= layer_moment) {  // ties go to the earlier moment
            memory.phase = MemoryPhase::forward_end;
            memory.weight_copies_bytes = copies_all;
            memory.logits_bytes = forward_end - copies_all;
            memory.backward_working_set_bytes = 0;
        } else if (loss_backward >= layer_moment) {
            memory.phase = MemoryPhase::loss_backward;
            memory.weight_copies_bytes = loss_copies;
            memory.logits_bytes = loss_backward - loss_copies;
            memory.backward_working_set_bytes = 0;
        }
    }

    }

    // Library and communication buffers: cuBLAS workspaces and gradient buckets in the allocator, NCCL outside it.
    const bool data_parallel = shards > 1;
    const double ddp_buckets = framework.ddp_bucket_copy && data_parallel && layout.zero == 0 && !k.sharded_optimizer
                                   ? k.grad_comm_bytes * memory.params_per_gpu : 0.0;
    const double buckets = ddp_buckets + (data_parallel ? k.comm_bucket_bytes : 0.0);
    memory.workspace_bytes = k.spec.workspace_bytes;
    memory.comm_buffers_bytes = shape.nccl_bytes + buckets;
    const double allocated = memory.state_bytes + memory.activations_bytes + memory.weight_copies_bytes + memory.gathered_weights_bytes +
                             memory.logits_bytes + memory.backward_working_set_bytes + memory.workspace_bytes + buckets;
    memory.fragmentation_bytes = k.spec.fragmentation * allocated;
    memory.peak_bytes = allocated + memory.fragmentation_bytes + shape.nccl_bytes;
}

// stage_memory with one layer's bytes already worked out (moe: a layer with experts, = dense for a dense model);
// per_microbatch (if given) receives what each further micro-batch in flight adds to the peak: the layers' stored
// activations and the last stage's edge, fragmentation included. Every moment holds them alike, so the peak grows
// linearly from one micro-batch in flight. Written into `memory`, default-constructed.
void stage_memory_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const LayerBytes& layer, const LayerBytes& moe,
                       int stage, double inflight, double* per_microbatch) {
    stage_state_into(memory, k, layout, stage_shape_into(memory, k, layout, layer, moe, stage, inflight, per_microbatch));
}

StageMemory stage_memory_of(const MemoryConstants& k, const Layout& layout, const LayerBytes& layer, const LayerBytes& moe, int stage,
                            double inflight, double* per_microbatch) {
    StageMemory memory;
    stage_memory_into(memory, k, layout, layer, moe, stage, inflight, per_microbatch);
    return memory;
}

}  // namespace


const MemoryConstants::OperatorBlocks& operator_blocks(const MemoryConstants& k, const Layout& layout) {
    LayerSplit split;
    split.tp = layout.tp;
    split.cp = layout.cp;
    split.micro_batch = layout.micro_batch;
    split.sequence_parallel = layout.sequence_parallel;
    split.recompute = layout.recompute;
    split.ep = layout.ep;
    split.etp = layout.etp;
    // The gradients are made in the backward when zero_grad freed them and the step has one micro-batch per rank.
    const int microbatches = std::max(1, k.global_batch / std::max(1, layout.dp * layout.micro_batch));
    const bool grads_allocated = !k.grads_from_start && microbatches == 1;
    // These constants' scenario already asked for this split: its blocks, without building the key again.
    for (const auto& held : k.held_blocks) {
        if (held->split == split && held->grads_allocated == grads_allocated) return *held;
    }
    const Scenario& scenario = *k.scenario;
    std::string key = block_key(scenario, split, BlockRole::layer) + (grads_allocated ? "|g" : "|-");
    // Shared by every thread and kept while they are in use: entries are never removed, the table starts afresh when full.
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const MemoryConstants::OperatorBlocks>> cache;
    std::shared_ptr<const MemoryConstants::OperatorBlocks> found;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = cache.find(key); it != cache.end()) found = it->second;
    }
    if (!found) {
        auto blocks = std::make_shared<MemoryConstants::OperatorBlocks>();
        blocks->split = split;
        blocks->grads_allocated = grads_allocated;
        blocks->key = key;
        blocks->embedding = block_memory(*block_program(scenario, split, BlockRole::embedding), Recompute::none, grads_allocated, true);
        blocks->layer = block_memory(*block_program(scenario, split, BlockRole::layer), layout.recompute, grads_allocated, true);
        // The head is not checkpointed; the model returns its logits, held to the end of the forward (the caller drops them
        // before the backward: Trainer.compute_loss, torchtitan's `del pred`).
        blocks->head = block_memory(*block_program(scenario, split, BlockRole::head), Recompute::none, grads_allocated, true, "logits");
        std::lock_guard<std::mutex> lock(mutex);
        if (cache.size() >= 256) cache.clear();
        found = cache.emplace(key, std::move(blocks)).first->second;
    }
    // Keep the blocks alive for as long as the constants are (the references handed out point into them).
    if (std::find(k.held_blocks.begin(), k.held_blocks.end(), found) == k.held_blocks.end()) k.held_blocks.push_back(found);
    return *found;
}

namespace {

// An operator recipe's stage at its peak: the moments of its step as the walked blocks give them (layer_memory.h): the
// end of the forward (the loss computed, autocast's cache still held), the head's backward, a layer's backward (the top
// one, or the bottom one where the gradients made outgrow the activations freed), the optimizer step with every
// gradient. Fills the StageMemory fields the shape's part leaves (stage_shape_into has set layers, params, in flight).
void operator_stage_into(StageMemory& memory, const MemoryConstants& k, const Layout& layout, const StageShape& shape) {
    const MemoryConstants::OperatorBlocks& blocks = operator_blocks(k, layout);
    const BlockMemory& layer = blocks.layer;
    const bool first = memory.holds_embedding, last = shape.last;
    const double layers = memory.layers;
    const double inflight = memory.inflight_microbatches;
    const double per_microbatch = layers * layer.forward_delta_bytes + (first ? blocks.embedding.forward_delta_bytes : 0.0);
    const double activations = per_microbatch * inflight;
    const double cache = layers * layer.autocast_cache_bytes;
    const double grads_all = memory.grads_bytes;
    // Gradients made in the backward: none before it; each block adds its own as it runs.
    const bool made_in_backward = blocks.grads_allocated;
    const double grads_at_start = made_in_backward ? 0.0 : grads_all;
    // ZeRO-2/3 reduce-scatter a block's gradients as its backward ends: the blocks done keep their shards only.
    const double kept_share = shard_share(StateKind::grads, k.sharded_optimizer, layout);
    struct Moment {
        MemoryPhase phase;
        double activations, copies, logits, working_set, grads;
        double total() const { return activations + copies + logits + working_set + grads; }
    };
    Moment best{MemoryPhase::forward_end, activations, cache, 0, 0, grads_at_start};
    const auto consider = [&](const Moment& moment) {
        if (moment.total() > best.total()) best = moment;
    };
    // The last layer's forward, on the way.
    consider({MemoryPhase::forward_end, activations - layer.forward_delta_bytes, cache, 0, layer.forward_peak_bytes, grads_at_start});
    double after_head = activations;
    double grads_after_head = grads_at_start;
    if (last) {
        const BlockMemory& head = blocks.head;
        consider({MemoryPhase::forward_end, activations, cache, head.forward_peak_bytes, 0, grads_at_start});
        consider({MemoryPhase::loss_backward, activations, 0, head.forward_delta_bytes, head.backward_peak_bytes - (made_in_backward ? 0.0 : 0.0),
                  grads_at_start});
        after_head = activations + head.forward_delta_bytes + head.backward_delta_bytes;
        grads_after_head += made_in_backward ? head.param_grad_bytes * kept_share : 0.0;
    }
    // Down the layers: each frees what its forward kept and makes its gradients; the peak is at the top or the bottom.
    const double per_layer_change = layer.backward_delta_bytes + (made_in_backward ? layer.param_grad_bytes * kept_share : 0.0);
    const double top_start = after_head;
    const double bottom_start = top_start + std::max(0.0, layers - 1.0) * per_layer_change;
    const double freed_per_layer = layer.backward_delta_bytes;
    consider({MemoryPhase::layer_backward, top_start, 0, 0, layer.backward_peak_bytes, grads_after_head});
    if (layers > 1) {
        consider({MemoryPhase::layer_backward, top_start + (layers - 1.0) * freed_per_layer, 0, 0, layer.backward_peak_bytes,
                  grads_after_head + (made_in_backward ? (layers - 1.0) * layer.param_grad_bytes * kept_share : 0.0)});
    }
    (void)bottom_start;
    memory.phase = best.phase;
    memory.grads_bytes = std::min(grads_all, best.grads);
    memory.state_bytes = memory.weights_bytes + memory.grads_bytes + memory.master_bytes + memory.optimizer_bytes;
    memory.activations_bytes = std::max(0.0, best.activations);
    memory.weight_copies_bytes = best.copies;
    memory.logits_bytes = best.logits;
    memory.backward_working_set_bytes = best.working_set + (best.grads - memory.grads_bytes);
}

}  // namespace

StageMemory stage_memory(const MemoryConstants& k, const Layout& layout, int stage, double inflight) {
    const LayerBytes layer = layer_bytes(k, layout);
    return stage_memory_of(k, layout, layer, k.moe ? layer_bytes(k, layout, true) : layer, stage, inflight, nullptr);
}

namespace {

ActivationReport activation_report(const LayerBytes& layer, const Layout& layout) {
    ActivationReport report;
    report.sequence_parallel = layer.sequence_parallel;
    report.sbh_coefficient = layer.sbh_coefficient;
    report.attention_score_bytes = layout.recompute == Recompute::none ? layer.probs : 0.0;
    report.bytes_per_score = report.attention_score_bytes > 0 ? layer.probs / layer.scores : 0.0;
    report.bytes_per_layer = layer.stored;
    report.expert_bytes = layer.expert;
    return report;
}

}  // namespace

ActivationReport activation_per_layer(const Scenario& scenario, const Layout& layout) {
    return activation_report(layer_bytes(memory_constants(scenario), layout), layout);
}

ActivationReport moe_activation_per_layer(const Scenario& scenario, const Layout& layout) {
    const MemoryConstants k = memory_constants(scenario);
    return activation_report(layer_bytes(k, layout, k.moe), layout);
}

namespace {

// memory_basis for `count` layouts that differ from `layout` in their ZeRO stage alone (zeros[i]), the layer's bytes
// already worked out: what the ZeRO stage does not change is worked out once per stage.
void fill_memory_bases(MemoryBasis* bases, const int* zeros, int count, const MemoryConstants& k, const Layout& layout, const LayerBytes& layer,
                       const LayerBytes& moe) {
    StageMemory first, last, middle;
    double first_per_microbatch = 0, last_per_microbatch = 0, middle_per_microbatch = 0;
    const StageShape first_shape = stage_shape_into(first, k, layout, layer, moe, 0, 1.0, &first_per_microbatch);
    StageShape last_shape, middle_shape;
    if (layout.pp > 1) last_shape = stage_shape_into(last, k, layout, layer, moe, layout.pp - 1, 1.0, &last_per_microbatch);
    // With experts (DeepSeek-V3's first layers are dense) a middle stage's GPU may hold more MoE layers than the first's.
    int middle_stage = -1;
    if (k.moe && layout.pp > 2) {
        double most = device_layers_of(k, layout, 0).device_moe;
        for (int stage = 1; stage + 1 < layout.pp; ++stage) {
            const double moe_layers = device_layers_of(k, layout, stage).device_moe;
            if (moe_layers > most) {
                most = moe_layers;
                middle_stage = stage;
            }
        }
    }
    // With the embedding and the loss as layers, stage 1 holds a layer more than stage 0 and almost as many in flight.
    if (middle_stage < 0 && layout.pp > 2 && k.split(layout.pp).layers_on(1) > k.split(layout.pp).layers_on(0)) middle_stage = 1;
    if (middle_stage > 0) middle_shape = stage_shape_into(middle, k, layout, layer, moe, middle_stage, 1.0, &middle_per_microbatch);

    Layout at_zero = layout;
    for (int i = 0; i < count; ++i) {
        at_zero.zero = zeros[i];
        MemoryBasis& basis = bases[i];
        basis.hbm_bytes = k.hbm_bytes;
        basis.first = first;
        stage_state_into(basis.first, k, at_zero, first_shape);
        basis.first_per_microbatch = first_per_microbatch;
        basis.first_activations_per_microbatch = basis.first.activations_bytes;
        if (layout.pp == 1) {
            basis.last = basis.first;
            basis.last_per_microbatch = basis.first_per_microbatch;
        } else {
            basis.last = last;
            stage_state_into(basis.last, k, at_zero, last_shape);
            basis.last_per_microbatch = last_per_microbatch;
        }
        basis.last_activations_per_microbatch = basis.last.activations_bytes;
        basis.middle_stage = middle_stage;
        if (middle_stage > 0) {
            StageMemory at_middle = middle;
            stage_state_into(at_middle, k, at_zero, middle_shape);
            basis.middle_peak_bytes = at_middle.peak_bytes;
            basis.middle_state_bytes = at_middle.state_bytes;
            basis.middle_per_microbatch = middle_per_microbatch;
            basis.middle_activations_per_microbatch = at_middle.activations_bytes;
        } else {
            basis.middle_peak_bytes = basis.middle_state_bytes = basis.middle_per_microbatch = basis.middle_activations_per_microbatch = 0;
        }
    }
}

}  // namespace

MemoryBasis memory_basis(const MemoryConstants& k, const Layout& layout) {
    MemoryBasis basis;
    const LayerBytes layer = layer_bytes(k, layout);
    std::optional<LayerBytes> moe_layer;
    if (k.moe) moe_layer = layer_bytes(k, layout, true);
    fill_memory_bases(&basis, &layout.zero, 1, k, layout, layer, k.moe ? *moe_layer : layer);
    return basis;
}

void memory_bases_by_zero(const MemoryConstants& k, const Layout& layout, MemoryBasis (&bases)[4]) {
    const LayerBytes layer = layer_bytes(k, layout);  // ZeRO moves state, never activations
    std::optional<LayerBytes> moe_layer;
    if (k.moe) moe_layer = layer_bytes(k, layout, true);
    constexpr int zeros[4] = {0, 1, 2, 3};
    fill_memory_bases(bases, zeros, 4, k, layout, layer, k.moe ? *moe_layer : layer);
}

// Every stage has at least one micro-batch in flight; from there on its peak grows linearly.
MemoryEstimate MemoryBasis::at(double inflight_first, double inflight_last, double inflight_middle) const {
    MemoryEstimate estimate;
    const double first_peak = first.peak_bytes + first_per_microbatch * (inflight_first - 1.0);
    const double last_peak = last.peak_bytes + last_per_microbatch * (inflight_last - 1.0);
    const bool last_heavier = last.stage != first.stage && last_peak > first_peak;
    const StageMemory& stage = last_heavier ? last : first;
    estimate.peak_stage = stage.stage;
    estimate.state_bytes = stage.state_bytes;
    estimate.peak_bytes = last_heavier ? last_peak : first_peak;
    estimate.activation_bytes = last_heavier ? last_activations_per_microbatch * inflight_last : first_activations_per_microbatch * inflight_first;
    if (middle_stage > 0) {
        const double inflight = inflight_middle >= 0 ? inflight_middle : inflight_first;
        const double middle_peak = middle_peak_bytes + middle_per_microbatch * (inflight - 1.0);
        if (middle_peak > estimate.peak_bytes) {
            estimate.peak_stage = middle_stage;
            estimate.state_bytes = middle_state_bytes;
            estimate.peak_bytes = middle_peak;
            estimate.activation_bytes = middle_activations_per_microbatch * inflight;
        }
    }
    estimate.total_bytes = estimate.state_bytes + estimate.activation_bytes;
    estimate.fits = estimate.peak_bytes <= hbm_bytes;
    return estimate;
}

namespace {

// The peak's blocks after the recipe's components, in the order the stack draws them (bottom up).
constexpr MemoryKind kPeakKinds[] = {MemoryKind::activations,    MemoryKind::weight_copies, MemoryKind::gathered_weights,
                                     MemoryKind::logits,         MemoryKind::backward_working_set, MemoryKind::workspace,
                                     MemoryKind::comm_buffers,   MemoryKind::fragmentation};

double stage_block_bytes(const StageMemory& stage, MemoryKind kind) {
    switch (kind) {
        case MemoryKind::weights: return stage.weights_bytes;
        case MemoryKind::grads: return stage.grads_bytes;
        case MemoryKind::master: return stage.master_bytes;
        case MemoryKind::optimizer: return stage.optimizer_bytes;
        case MemoryKind::activations: return stage.activations_bytes;
        case MemoryKind::kv_cache: return 0;
        case MemoryKind::weight_copies: return stage.weight_copies_bytes;
        case MemoryKind::gathered_weights: return stage.gathered_weights_bytes;
        case MemoryKind::logits: return stage.logits_bytes;
        case MemoryKind::backward_working_set: return stage.backward_working_set_bytes;
        case MemoryKind::workspace: return stage.workspace_bytes;
        case MemoryKind::comm_buffers: return stage.comm_buffers_bytes;
        case MemoryKind::fragmentation: return stage.fragmentation_bytes;
    }
    return 0;
}

}  // namespace

void fill_memory_report(const Scenario& scenario, const std::vector<double>& stage_inflight, MemoryReport& memory, const ScheduleTimeline* schedule) {
    const PrecisionRecipe& recipe = scenario.precision;
    const Layout layout = layout_of(scenario);
    const MemoryConstants constants = memory_constants(scenario);
    const LayerBytes layer = layer_bytes(constants, layout);
    const LayerBytes moe = constants.moe ? layer_bytes(constants, layout, true) : layer;
    const auto inflight_on = [&](int stage) { return stage < static_cast<int>(stage_inflight.size()) ? stage_inflight[stage] : 1.0; };

    memory.per_stage.clear();
    memory.peak_stage = 0;
    for (int stage = 0; stage < layout.pp; ++stage) {
        memory.per_stage.push_back(stage_memory_of(constants, layout, layer, moe, stage, inflight_on(stage), nullptr));
        if (memory.per_stage.back().peak_bytes > memory.per_stage[memory.peak_stage].peak_bytes) memory.peak_stage = stage;
    }
    const StageMemory& peak = memory.per_stage[memory.peak_stage];
    memory.peak_phase = peak.phase;

    // The whole model on one GPU, one micro-batch: the stack's left column.
    Layout one_gpu = layout;
    one_gpu.tp = one_gpu.pp = one_gpu.cp = one_gpu.dp = one_gpu.ep = one_gpu.etp = 1;
    one_gpu.zero = 0;
    one_gpu.sequence_parallel = false;
    one_gpu.schedule = ScheduleKind::one_f_one_b;
    one_gpu.virtual_stages = 1;
    const StageMemory whole = stage_memory(constants, one_gpu, 0, 1.0);

    const ParamBreakdown breakdown = count_params(scenario.model, scenario.train.seq_len);
    memory.params = constants.total_params;
    memory.params_active = breakdown.total_active;
    memory.params_per_gpu = peak.params_per_gpu;
    memory.bytes_per_param = recipe.bytes_per_param();
    memory.state_bytes = memory.bytes_per_param * constants.total_params;
    memory.blocks.clear();
    memory.per_gpu = {};
    for (std::size_t i = 0; i < recipe.components.size(); ++i) {
        const StateComponent& component = recipe.components[i];
        MemoryBlock block;
        block.kind = memory_kind_of(component.kind);
        block.component = static_cast<int>(i);
        block.bytes_per_param = component.bytes_per_param;
        block.sharded_over_dp = is_sharded(component.kind, recipe.sharded_optimizer, layout);
        block.whole_bytes = component.bytes_per_param * constants.total_params;
        const double dense_per_gpu = peak.params_per_gpu - peak.expert_params_per_gpu;
        block.per_gpu_bytes = component.bytes_per_param * dense_per_gpu / (block.sharded_over_dp ? shard_ranks(layout) : 1);
        // The routed experts' part (Megatron-Core's expert bucket): split over EP x ETP, sharded over the expert DP group.
        if (peak.expert_params_per_gpu > 0) {
            const bool sharded = expert_sharded(component.kind, recipe.sharded_optimizer, layout);
            block.expert_per_gpu_bytes = component.bytes_per_param * peak.expert_params_per_gpu / (sharded ? layout.expert_data_parallel() : 1);
            block.per_gpu_bytes += block.expert_per_gpu_bytes;
        }
        memory.blocks.push_back(block);
    }
    memory.trainable_params = constants.total_params;
    memory.finetune_adapters = constants.lora;
    memory.frozen_params = memory.frozen_bytes = 0;
    if (constants.lora) {
        // LoRA: the state is the frozen base and the adapters (lora_state_into), not the recipe's bytes per parameter.
        const LoraCounts& lora = constants.lora_counts;
        memory.trainable_params = lora.adapter_params;
        memory.frozen_params = lora.frozen_params;
        memory.frozen_bytes = lora.frozen_bytes;
        memory.blocks.clear();
        for (MemoryKind kind : {MemoryKind::weights, MemoryKind::grads, MemoryKind::optimizer}) {
            MemoryBlock block;
            block.kind = kind;
            block.whole_bytes = stage_block_bytes(whole, kind);
            block.per_gpu_bytes = stage_block_bytes(peak, kind);
            block.bytes_per_param = block.whole_bytes / std::max(1.0, constants.total_params);
            memory.blocks.push_back(block);
        }
        memory.state_bytes = whole.weights_bytes + whole.grads_bytes + whole.optimizer_bytes;
        memory.bytes_per_param = memory.state_bytes / std::max(1.0, constants.total_params);
    }
    for (MemoryKind kind : kPeakKinds) {
        MemoryBlock block;
        block.kind = kind;
        block.whole_bytes = stage_block_bytes(whole, kind);
        block.per_gpu_bytes = stage_block_bytes(peak, kind);
        memory.blocks.push_back(block);
    }

    // The step over time on the heaviest stage; an operator recipe's reserved peak is its caching allocator's, and the
    // allocator's slack (reserved over what the blocks hold) is the fragmentation block.
    memory.timeline = memory_timeline(constants, layout, memory.peak_stage, stage_order(schedule, memory.peak_stage),
                                      memory.per_stage[memory.peak_stage].inflight_microbatches);
    const double outside_allocator = peak.comm_buffers_bytes;  // NCCL's buffers (and DDP's buckets, counted with them)
    memory.peak_allocated_bytes = memory.timeline.peak_allocated_bytes;
    memory.peak_reserved_bytes = memory.timeline.peak_reserved_bytes;
    if (constants.operator_recipe) {
        StageMemory& stage = memory.per_stage[memory.peak_stage];
        const double held = stage.peak_bytes - stage.fragmentation_bytes - outside_allocator;
        stage.fragmentation_bytes = std::max(0.0, memory.peak_reserved_bytes - held);
        stage.peak_bytes = held + stage.fragmentation_bytes + outside_allocator;
        // One GPU alone is the whole model on one GPU: both columns hold the same allocator's slack, not one of them the allowance.
        const bool one_gpu_alone = layout.pp * layout.stage_gpus() == 1;
        for (MemoryBlock& block : memory.blocks) {
            if (block.kind != MemoryKind::fragmentation) continue;
            block.per_gpu_bytes = stage.fragmentation_bytes;
            if (one_gpu_alone) block.whole_bytes = stage.fragmentation_bytes;
        }
    }
    const StageMemory& at_peak = memory.per_stage[memory.peak_stage];

    PerGpuMemory& per_gpu = memory.per_gpu;
    per_gpu.weights_bytes = peak.weights_bytes;
    per_gpu.grads_bytes = peak.grads_bytes;
    per_gpu.master_bytes = peak.master_bytes;
    per_gpu.optimizer_bytes = peak.optimizer_bytes;
    per_gpu.activations_bytes = peak.activations_bytes;
    per_gpu.total_bytes = peak.state_bytes + peak.activations_bytes;
    per_gpu.weight_copies_bytes = peak.weight_copies_bytes;
    per_gpu.gathered_weights_bytes = peak.gathered_weights_bytes;
    per_gpu.logits_bytes = peak.logits_bytes;
    per_gpu.backward_working_set_bytes = peak.backward_working_set_bytes;
    per_gpu.workspace_bytes = peak.workspace_bytes;
    per_gpu.comm_buffers_bytes = peak.comm_buffers_bytes;
    per_gpu.fragmentation_bytes = at_peak.fragmentation_bytes;
    per_gpu.peak_bytes = at_peak.peak_bytes;

    memory.activations = activation_report(layer, layout);
    if (constants.operator_recipe) {  // the walked layer's (layer_memory.h), not Korthikanti's coefficients
        memory.activations.bytes_per_layer = operator_blocks(constants, layout).layer.forward_delta_bytes;
        memory.activations.sbh_coefficient = memory.activations.bytes_per_layer / layer.sbh;
        memory.activations.attention_score_bytes = 0;
        memory.activations.bytes_per_score = 0;
    }
    memory.activations.layers_on_first_stage = pipeline_split(scenario, layout.pp).layers_on(0);
    memory.activations.inflight_microbatches = inflight_on(0);
    memory.activations.first_stage_bytes = memory.per_stage.front().activations_bytes;

    // Mixtures of experts: the peak stage's routed-expert share, and its mean layer (dense and MoE layers differ).
    memory.experts = {};
    if (constants.moe) {
        ExpertMemory& experts = memory.experts;
        experts.params = breakdown.moe_layers * breakdown.routed_experts_per_layer;
        experts.stage_params = peak.expert_params_per_gpu * layout.ep * layout.etp;
        experts.params_per_gpu = peak.expert_params_per_gpu;
        experts.expert_data_parallel = layout.expert_data_parallel();
        experts.weights_bytes = expert_state_bytes(constants, layout, StateKind::weights, peak.expert_params_per_gpu);
        experts.grads_bytes = expert_state_bytes(constants, layout, StateKind::grads, peak.expert_params_per_gpu);
        experts.master_bytes = expert_state_bytes(constants, layout, StateKind::master, peak.expert_params_per_gpu);
        experts.optimizer_bytes = expert_state_bytes(constants, layout, StateKind::optimizer, peak.expert_params_per_gpu);
        // The routed copies' share of the peak stage's stored activations (its GPU's MoE layers over all it holds).
        const DeviceLayers device = device_layers_of(constants, layout, peak.stage);
        experts.activations_bytes = device.device_moe / device.device * moe.expert * peak.layers * peak.inflight_microbatches;
        experts.moe_layer_activation_bytes = moe.stored;
        memory.activations.expert_bytes = moe.expert;
        const double stage_units = peak.layers * peak.inflight_microbatches;
        if (peak.moe_layers > 0 && stage_units > 0) memory.activations.bytes_per_layer = peak.activations_bytes / stage_units;
    }

    memory.hbm_bytes = scenario.cluster.gpu.hbm_bytes;
    memory.fits = per_gpu.peak_bytes <= memory.hbm_bytes;
    memory.headroom_bytes = memory.hbm_bytes - per_gpu.peak_bytes;
    memory.state_gpus_worth = memory.state_bytes / memory.hbm_bytes;
    memory.per_gpu_over_hbm = per_gpu.peak_bytes / memory.hbm_bytes;
    memory.tipping_block = -1;
    double stacked = 0;
    for (std::size_t i = 0; i < memory.blocks.size() && !memory.fits; ++i) {
        stacked += memory.blocks[i].per_gpu_bytes;
        if (stacked > memory.hbm_bytes) {
            memory.tipping_block = static_cast<int>(i);
            break;
        }
    }

    const ModelSpec& model = scenario.model;
    const ServingSpec& serving = scenario.serving;
    memory.inference_weight_bytes = serving.weight_bytes_per_param * constants.total_params;
    memory.kv_cache_bytes_per_token = model.layers * kv_cache_elements_per_layer(model) * serving.kv_bytes_per_element;
    memory.kv_cache_bytes = memory.kv_cache_bytes_per_token * serving.context_tokens * serving.batch;
}

}  // namespace core
