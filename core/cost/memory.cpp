// Memory per GPU: the recipe's training state under DP / ZeRO / TP / PP, and activations (Korthikanti et al. 2022).
#include "core/cost/memory.h"

#include <algorithm>
#include <cmath>

namespace core {

int layers_on_first_stage(int layers, int pp) { return (layers + pp - 1) / pp; }

int moe_layers_on_heaviest_stage(const ModelSpec& model, int pp) {
    if (!model.is_moe()) return 0;
    const int per_stage = layers_on_first_stage(model.layers, pp);
    int most = 0;
    for (int first = 0; first < model.layers; first += per_stage) most = std::max(most, moe_layers_in(model, first, std::min(per_stage, model.layers - first)));
    return most;
}

StageParams heaviest_stage_params(const Scenario& scenario, int pp, int tp, int expert_shards) {
    const ModelSpec& model = scenario.model;
    const ParamBreakdown breakdown = count_params(model, scenario.train.seq_len);
    StageParams stage;
    stage.total = breakdown.total;
    if (model.is_bare_count() || pp == 1) {
        stage.params = breakdown.total;
        stage.expert = breakdown.moe_layers * breakdown.routed_experts_per_layer;
    } else {
        // The stage with the most MoE layers is the heaviest; a dense model's stages all hold per_layer weights each.
        const int stage_layers = layers_on_first_stage(model.layers, pp);
        const int stage_moe = moe_layers_on_heaviest_stage(model, pp);
        const double layer_block = stage_moe == 0 ? stage_layers * breakdown.per_layer
                                                  : (stage_layers - stage_moe) * breakdown.per_layer + stage_moe * breakdown.moe_layer;
        const double first = layer_block + breakdown.embedding + breakdown.position_embedding;
        const double last = layer_block + breakdown.final_norm + (model.tied_embeddings ? breakdown.embedding : breakdown.output_head);
        stage.params = std::max(first, last);
        stage.expert = stage_moe * breakdown.routed_experts_per_layer;
    }
    stage.expert_per_gpu = stage.expert / expert_shards;
    stage.per_gpu = (stage.params - stage.expert) / tp + stage.expert_per_gpu;
    return stage;
}

namespace {

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

bool is_sharded(StateKind kind, const PrecisionRecipe& recipe, const Layout& layout) {
    return layout.zero >= sharded_from_stage(kind, recipe.sharded_optimizer) && shard_ranks(layout) > 1;
}

}  // namespace

double state_bytes_per_gpu(const Scenario& scenario, const Layout& layout, double params_per_gpu) {
    double bytes = 0;
    for (const StateComponent& component : scenario.precision.components) {
        const double divisor = is_sharded(component.kind, scenario.precision, layout) ? shard_ranks(layout) : 1.0;
        bytes += component.bytes_per_param * params_per_gpu / divisor;
    }
    return bytes;
}

namespace {

bool expert_state_sharded(StateKind kind, const PrecisionRecipe& recipe, const Layout& layout) {
    return layout.zero >= sharded_from_stage(kind, recipe.sharded_optimizer) && layout.expert_data_parallel() > 1;
}

}  // namespace

double expert_state_bytes_per_gpu(const Scenario& scenario, const Layout& layout, double expert_params_per_gpu) {
    double bytes = 0;
    if (expert_params_per_gpu <= 0) return bytes;
    for (const StateComponent& component : scenario.precision.components) {
        const double divisor = expert_state_sharded(component.kind, scenario.precision, layout) ? layout.expert_data_parallel() : 1.0;
        bytes += component.bytes_per_param * expert_params_per_gpu / divisor;
    }
    return bytes;
}

namespace {

// Table 2's bracket for one layer, with mlp_sharded the MLP's bytes per element of s b h inside the TP region.
ActivationReport layer_activations(const Scenario& scenario, const Layout& layout, double mlp_sharded) {
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    const double t = layout.tp;
    const double s = static_cast<double>(train.seq_len) / layout.cp;  // context parallel splits the sequence
    const double b = layout.micro_batch;
    const double h = model.hidden;
    const double a = model.heads;
    const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
    // Outside the TP regions: two LayerNorm inputs 4, attention and MLP inputs 2 + 2, two dropout masks 1 + 1 (sec 4.1);
    // MLA also keeps its two latents for the up-projections' weight gradients.
    double replicated = 8.0 + (train.dropout ? 2.0 : 0.0);
    if (model.is_mla()) replicated += 2.0 * (model.q_lora_rank + model.kv_lora_rank + model.qk_rope_head_dim) / h;
    // Inside: Q 2, K and V 2 each (x kv/heads under GQA), out-projection input 2 (each x its width over h where the heads
    // are not h wide, as in Qwen3 and MLA); the MLP's part.
    const bool standard_widths = !model.is_mla() && attention_qk_width(model) == h;
    const double attention = standard_widths ? 4.0 + 4.0 * kv_share
                                             : 2.0 * (attention_qk_width(model) + model.kv_heads * (model.qk_head_dim() + model.value_head_dim()) +
                                                      attention_v_width(model)) / h;
    const double sharded = attention + mlp_sharded;
    ActivationReport report;
    report.sequence_parallel = layout.sequence_parallel && t > 1;
    const bool scores_stored = layout.recompute == Recompute::none && !train.flash_attention;
    if (layout.recompute == Recompute::full) {
        report.sbh_coefficient = 2.0;  // only each layer's input is kept
    } else {
        report.sbh_coefficient = (report.sequence_parallel ? replicated / t : replicated) + sharded / t;
    }
    // Scores 2, softmax output 2, dropout mask 1 bytes per element of the a s^2 b scores.
    report.attention_score_bytes = scores_stored ? (train.dropout ? 5.0 : 4.0) * a * s * s * b / t : 0.0;
    report.bytes_per_layer = s * b * h * report.sbh_coefficient + report.attention_score_bytes;
    return report;
}

}  // namespace

ActivationReport activation_per_layer(const Scenario& scenario, const Layout& layout) {
    const ModelSpec& model = scenario.model;
    const double ffn_ratio = static_cast<double>(model.ffn_hidden) / model.hidden;
    // MLP 2 bytes per ffn element per stored tensor: GeLU's input and output, or SwiGLU's gate, up and product.
    return layer_activations(scenario, layout, (model.gated_mlp ? 6.0 : 4.0) * ffn_ratio);
}

ActivationReport moe_activation_per_layer(const Scenario& scenario, const Layout& layout) {
    const ModelSpec& model = scenario.model;
    const double per_element = model.gated_mlp ? 6.0 : 4.0;
    const double shared_ratio = static_cast<double>(model.shared_experts) * model.shared_ffn_hidden / model.hidden;
    ActivationReport report = layer_activations(scenario, layout, per_element * shared_ratio);
    if (layout.recompute == Recompute::full || !model.is_moe()) return report;
    // The routed part on one GPU: its tokens' router probabilities (fp32), and for each routed copy it computes (its share of
    // the ETP group's, at the busiest GPU's load) the expert input 2 h, the intermediates (2 or 3 per expert-width element
    // x 2 B) and the output 2 h the combine's backward needs.
    const double tokens = layout.micro_batch * static_cast<double>(scenario.train.seq_len) / (1.0 * layout.cp * layout.tp);
    const double copies = tokens * model.experts_per_token * scenario.moe.load_factor();
    const double h = model.hidden;
    report.expert_bytes = tokens * model.experts * 4.0 + copies * layout.etp * (2.0 * h + per_element * model.expert_ffn_hidden / layout.etp) +
                          copies * 2.0 * h;
    report.bytes_per_layer += report.expert_bytes;
    return report;
}

double stage_activation_bytes_per_microbatch(const Scenario& scenario, const Layout& layout) {
    const int stage_layers = layers_on_first_stage(scenario.model.layers, layout.pp);
    const int stage_moe = moe_layers_on_heaviest_stage(scenario.model, layout.pp);
    const double dense_bytes = activation_per_layer(scenario, layout).bytes_per_layer;
    if (stage_moe == 0) return dense_bytes * stage_layers;
    return dense_bytes * (stage_layers - stage_moe) + moe_activation_per_layer(scenario, layout).bytes_per_layer * stage_moe;
}

MemoryBasis memory_basis(const Scenario& scenario, const Layout& layout, const StageParams& stage) {
    MemoryBasis basis;
    basis.state_bytes = state_bytes_per_gpu(scenario, layout, stage.dense_per_gpu()) + expert_state_bytes_per_gpu(scenario, layout, stage.expert_per_gpu);
    basis.activation_bytes_per_microbatch = stage_activation_bytes_per_microbatch(scenario, layout);
    basis.hbm_bytes = scenario.cluster.gpu.hbm_bytes;
    return basis;
}

MemoryEstimate MemoryBasis::at(double inflight_microbatches) const {
    MemoryEstimate estimate;
    estimate.state_bytes = state_bytes;
    estimate.activation_bytes = activation_bytes_per_microbatch * inflight_microbatches;
    estimate.total_bytes = estimate.state_bytes + estimate.activation_bytes;
    estimate.fits = estimate.total_bytes <= hbm_bytes;
    return estimate;
}

void fill_memory_report(const Scenario& scenario, double inflight_microbatches, MemoryReport& memory) {
    const PrecisionRecipe& recipe = scenario.precision;
    const Layout layout = layout_of(scenario);
    const StageParams stage = heaviest_stage_params(scenario, layout.pp, layout.tp, layout.ep * layout.etp);
    const ParamBreakdown breakdown = count_params(scenario.model, scenario.train.seq_len);
    const double all_experts = breakdown.moe_layers * breakdown.routed_experts_per_layer;
    memory.params = stage.total;
    memory.params_active = breakdown.total_active;
    memory.params_per_gpu = stage.per_gpu;
    memory.bytes_per_param = recipe.bytes_per_param();
    memory.state_bytes = memory.bytes_per_param * stage.total;
    memory.blocks.clear();
    memory.per_gpu = {};
    memory.experts = {};
    const auto add_to_totals = [&](StateKind kind, double bytes, PerGpuMemory& totals) {
        switch (kind) {
            case StateKind::weights: totals.weights_bytes += bytes; break;
            case StateKind::grads: totals.grads_bytes += bytes; break;
            case StateKind::master: totals.master_bytes += bytes; break;
            case StateKind::optimizer: totals.optimizer_bytes += bytes; break;
        }
    };  // as before: one block per recipe component
    ExpertMemory& experts = memory.experts;
    const auto expert_total = [&](StateKind kind) -> double& {
        switch (kind) {
            case StateKind::weights: return experts.weights_bytes;
            case StateKind::grads: return experts.grads_bytes;
            case StateKind::master: return experts.master_bytes;
            case StateKind::optimizer: return experts.optimizer_bytes;
        }
        return experts.weights_bytes;
    };
    if (all_experts > 0) {
        experts.params = all_experts;
        experts.stage_params = stage.expert;
        experts.params_per_gpu = stage.expert_per_gpu;
        experts.expert_data_parallel = layout.expert_data_parallel();
    }
    for (std::size_t i = 0; i < recipe.components.size(); ++i) {
        const StateComponent& component = recipe.components[i];
        MemoryBlock block;
        block.kind = memory_kind_of(component.kind);
        block.component = static_cast<int>(i);
        block.bytes_per_param = component.bytes_per_param;
        block.sharded_over_dp = is_sharded(component.kind, recipe, layout);
        block.whole_bytes = component.bytes_per_param * stage.total;
        block.per_gpu_bytes = component.bytes_per_param * stage.dense_per_gpu() / (block.sharded_over_dp ? shard_ranks(layout) : 1);
        // The routed experts' part (Megatron-Core's expert bucket): split over EP x ETP, sharded over the expert data-parallel group.
        if (stage.expert_per_gpu > 0) {
            const bool expert_sharded = expert_state_sharded(component.kind, recipe, layout);
            block.expert_per_gpu_bytes = component.bytes_per_param * stage.expert_per_gpu / (expert_sharded ? layout.expert_data_parallel() : 1);
            block.per_gpu_bytes += block.expert_per_gpu_bytes;
            expert_total(component.kind) += block.expert_per_gpu_bytes;
        }
        add_to_totals(component.kind, block.per_gpu_bytes, memory.per_gpu);
        memory.blocks.push_back(block);
    }

    const int stage_layers = layers_on_first_stage(scenario.model.layers, layout.pp);
    const int stage_moe = moe_layers_on_heaviest_stage(scenario.model, layout.pp);
    memory.activations = activation_per_layer(scenario, layout);
    memory.activations.layers_on_first_stage = stage_layers;
    memory.activations.inflight_microbatches = inflight_microbatches;
    memory.activations.first_stage_bytes = stage_activation_bytes_per_microbatch(scenario, layout) * inflight_microbatches;
    if (stage_moe > 0) {
        // Dense and MoE layers differ: bytes_per_layer is the heaviest stage's mean, so that x layers x in flight holds.
        const ActivationReport moe_layer = moe_activation_per_layer(scenario, layout);
        memory.activations.bytes_per_layer = stage_activation_bytes_per_microbatch(scenario, layout) / stage_layers;
        memory.activations.expert_bytes = moe_layer.expert_bytes;
        memory.experts.moe_layer_activation_bytes = moe_layer.bytes_per_layer;
        memory.experts.activations_bytes = moe_layer.expert_bytes * stage_moe * inflight_microbatches;
    }
    MemoryBlock activations;
    activations.kind = MemoryKind::activations;
    // One micro-batch through all layers on one GPU: x tp would count the replicated part of Table 2 t times.
    Layout unsharded = layout;
    unsharded.tp = 1;
    unsharded.cp = 1;
    unsharded.ep = 1;
    unsharded.etp = 1;
    activations.whole_bytes = activation_per_layer(scenario, unsharded).bytes_per_layer * breakdown.dense_layers;
    if (breakdown.moe_layers > 0) activations.whole_bytes += moe_activation_per_layer(scenario, unsharded).bytes_per_layer * breakdown.moe_layers;
    activations.per_gpu_bytes = memory.activations.first_stage_bytes;
    memory.blocks.push_back(activations);
    memory.per_gpu.activations_bytes = activations.per_gpu_bytes;
    memory.per_gpu.total_bytes = memory.per_gpu.weights_bytes + memory.per_gpu.grads_bytes + memory.per_gpu.master_bytes +
                                 memory.per_gpu.optimizer_bytes + memory.per_gpu.activations_bytes;

    memory.hbm_bytes = scenario.cluster.gpu.hbm_bytes;
    memory.fits = memory.per_gpu.total_bytes <= memory.hbm_bytes;
    memory.headroom_bytes = memory.hbm_bytes - memory.per_gpu.total_bytes;
    memory.state_gpus_worth = memory.state_bytes / memory.hbm_bytes;
    memory.per_gpu_over_hbm = memory.per_gpu.total_bytes / memory.hbm_bytes;

    const ModelSpec& model = scenario.model;
    const ServingSpec& serving = scenario.serving;
    memory.inference_weight_bytes = serving.weight_bytes_per_param * stage.total;
    memory.kv_cache_bytes_per_token = model.layers * kv_cache_elements_per_layer(model) * serving.kv_bytes_per_element;
    memory.kv_cache_bytes = memory.kv_cache_bytes_per_token * serving.context_tokens * serving.batch;
}

}  // namespace core
