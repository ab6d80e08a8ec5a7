// Memory per GPU: the recipe's training state under DP / ZeRO / TP / PP, and activations (Korthikanti et al. 2022).
#include "core/cost/memory.h"

#include "core/cost/pipeline_schedule.h"

#include <algorithm>
#include <cmath>

namespace core {

int layers_on_first_stage(int layers, int pp) { return (layers + pp - 1) / pp; }

StageParams heaviest_stage_params(const Scenario& scenario, int pp, int tp) {
    const ModelSpec& model = scenario.model;
    const ParamBreakdown breakdown = count_params(model, scenario.train.seq_len);
    StageParams stage;
    stage.total = breakdown.total;
    if (model.is_bare_count() || pp == 1) {
        stage.params = breakdown.total;
    } else {
        const double layer_block = layers_on_first_stage(model.layers, pp) * breakdown.per_layer;
        const double first = layer_block + breakdown.embedding + breakdown.position_embedding;
        const double last = layer_block + breakdown.final_norm + (model.tied_embeddings ? breakdown.embedding : breakdown.output_head);
        stage.params = std::max(first, last);
    }
    stage.per_gpu = stage.params / tp;
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

ActivationReport activation_per_layer(const Scenario& scenario, const Layout& layout) {
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    const double t = layout.tp;
    const double s = static_cast<double>(train.seq_len) / layout.cp;  // context parallel splits the sequence
    const double b = layout.micro_batch;
    const double h = model.hidden;
    const double a = model.heads;
    const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
    const double ffn_ratio = static_cast<double>(model.ffn_hidden) / model.hidden;
    // Outside the TP regions: two LayerNorm inputs 4, attention and MLP inputs 2 + 2, two dropout masks 1 + 1 (sec 4.1).
    const double replicated = 8.0 + (train.dropout ? 2.0 : 0.0);
    // Inside: Q 2, K and V 2 each (x kv/heads under GQA), out-projection input 2; MLP 2 bytes per ffn element per stored tensor.
    const double sharded = 4.0 + 4.0 * kv_share + (model.gated_mlp ? 6.0 : 4.0) * ffn_ratio;
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

MemoryBasis memory_basis(const Scenario& scenario, const Layout& layout, const StageParams& stage) {
    MemoryBasis basis;
    basis.state_bytes = state_bytes_per_gpu(scenario, layout, stage.per_gpu);
    basis.activation_bytes_per_microbatch = activation_per_layer(scenario, layout).bytes_per_layer * layers_on_first_stage(scenario.model.layers, layout.pp);
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
    const StageParams stage = held_stage_params(heaviest_stage_params(scenario, layout.pp, layout.tp), layout);
    memory.params = stage.total;
    memory.params_per_gpu = stage.per_gpu;
    memory.bytes_per_param = recipe.bytes_per_param();
    memory.state_bytes = memory.bytes_per_param * stage.total;
    memory.blocks.clear();
    memory.per_gpu = {};
    for (std::size_t i = 0; i < recipe.components.size(); ++i) {
        const StateComponent& component = recipe.components[i];
        MemoryBlock block;
        block.kind = memory_kind_of(component.kind);
        block.component = static_cast<int>(i);
        block.bytes_per_param = component.bytes_per_param;
        block.sharded_over_dp = is_sharded(component.kind, recipe, layout);
        block.whole_bytes = component.bytes_per_param * stage.total;
        block.per_gpu_bytes = component.bytes_per_param * stage.per_gpu / (block.sharded_over_dp ? shard_ranks(layout) : 1);
        switch (component.kind) {
            case StateKind::weights: memory.per_gpu.weights_bytes += block.per_gpu_bytes; break;
            case StateKind::grads: memory.per_gpu.grads_bytes += block.per_gpu_bytes; break;
            case StateKind::master: memory.per_gpu.master_bytes += block.per_gpu_bytes; break;
            case StateKind::optimizer: memory.per_gpu.optimizer_bytes += block.per_gpu_bytes; break;
        }
        memory.blocks.push_back(block);
    }

    memory.activations = activation_per_layer(scenario, layout);
    memory.activations.layers_on_first_stage = layers_on_first_stage(scenario.model.layers, layout.pp);
    memory.activations.inflight_microbatches = inflight_microbatches;
    memory.activations.first_stage_bytes = memory.activations.bytes_per_layer * memory.activations.layers_on_first_stage * inflight_microbatches;
    MemoryBlock activations;
    activations.kind = MemoryKind::activations;
    // One micro-batch through all layers on one GPU: x tp would count the replicated part of Table 2 t times.
    Layout unsharded = layout;
    unsharded.tp = 1;
    unsharded.cp = 1;
    activations.whole_bytes = activation_per_layer(scenario, unsharded).bytes_per_layer * scenario.model.layers;
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
    memory.kv_cache_bytes_per_token = 2.0 * model.layers * model.kv_heads * model.head_dim() * serving.kv_bytes_per_element;
    memory.kv_cache_bytes = memory.kv_cache_bytes_per_token * serving.context_tokens * serving.batch;
}

StageParams held_stage_params(StageParams stage, const Layout& layout) {
    const double copies = schedule_placement(layout.schedule, layout.pp, layout.virtual_stages).parameter_copies();
    stage.params *= copies;
    stage.per_gpu *= copies;
    return stage;
}

}  // namespace core
