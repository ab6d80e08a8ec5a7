// Memory per GPU: the recipe's training state under DP / ZeRO / TP / PP, and activations (Korthikanti et al. 2022).
#include "core/cost/memory.h"

#include "core/model/format.h"

#include <algorithm>
#include <cmath>

namespace core {

int layers_on_first_stage(int layers, int pp) { return (layers + pp - 1) / pp; }

ActivationReport activation_memory(const Scenario& scenario, int stage_layers, double inflight_microbatches) {
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    const double t = scenario.parallel.tp;
    const double s = static_cast<double>(train.seq_len) / scenario.parallel.cp;  // context parallel splits the sequence
    const double b = train.micro_batch;
    const double h = model.hidden;
    const double a = model.heads;
    const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
    const double ffn_ratio = static_cast<double>(model.ffn_hidden) / model.hidden;
    // Outside the TP regions: two LayerNorm inputs 4, attention and MLP inputs 2 + 2, two dropout masks 1 + 1 (sec 4.1).
    const double replicated = 10.0;
    // Inside: Q 2, K and V 2 each (x kv/heads under GQA), out-projection input 2; MLP 2 bytes per ffn element per stored tensor.
    const double sharded = 4.0 + 4.0 * kv_share + (model.gated_mlp ? 6.0 : 4.0) * ffn_ratio;
    const bool sequence_parallel = train.sequence_parallel && t > 1;
    const bool scores_stored = train.recompute == Recompute::none && !train.flash_attention;

    ActivationReport report;
    report.layers_on_first_stage = stage_layers;
    report.inflight_microbatches = inflight_microbatches;
    if (train.recompute == Recompute::full) {
        report.sbh_coefficient = 2.0;  // only each layer's input is kept
        report.configuration = "full recompute";
    } else {
        report.sbh_coefficient = (sequence_parallel ? replicated / t : replicated) + sharded / t;
        report.configuration = t > 1 ? (sequence_parallel ? "tensor + sequence parallel" : "tensor parallel") : "no parallelism";
        if (train.recompute == Recompute::selective) report.configuration += " + selective recompute";
        else if (train.flash_attention) report.configuration += " + flash attention";
    }
    report.attention_score_bytes = scores_stored ? 5.0 * a * s * s * b / t : 0.0;
    report.bytes_per_layer = s * b * h * report.sbh_coefficient + report.attention_score_bytes;
    report.first_stage_bytes = report.bytes_per_layer * stage_layers * inflight_microbatches;
    report.formula = "s b h x " + format_number(report.sbh_coefficient) +
                     (scores_stored ? " + 5 a s^2 b / t" : "") + " = " + format_bytes(report.bytes_per_layer) + " per layer; x " +
                     std::to_string(stage_layers) + " layers x " + format_number(inflight_microbatches) + " micro-batches in flight = " +
                     format_bytes(report.first_stage_bytes);
    return report;
}

StageParams heaviest_stage_params(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    const ParamBreakdown breakdown = count_params(model, scenario.train.seq_len);
    const int pp = scenario.parallel.pp;
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
    stage.per_gpu = stage.params / scenario.parallel.tp;
    return stage;
}

void fill_state_memory(const Scenario& scenario, double inflight_microbatches, MemoryReport& memory) {
    const PrecisionRecipe& recipe = scenario.precision;
    const StageParams stage = heaviest_stage_params(scenario);
    const int zero = scenario.parallel.zero;
    const int shard_ranks = data_parallel_degree(scenario) * scenario.parallel.cp;  // CP ranks hold the same weights too
    memory.params = stage.total;
    memory.params_per_gpu = stage.per_gpu;
    memory.bytes_per_param = recipe.bytes_per_param();
    memory.state_bytes = memory.bytes_per_param * stage.total;

    const std::string layout = "tp " + std::to_string(scenario.parallel.tp) + ", pp " + std::to_string(scenario.parallel.pp);
    memory.blocks.clear();
    memory.per_gpu = {};
    for (const StateComponent& component : recipe.components) {
        int sharded_from_stage = 4;  // the ZeRO stage from which this kind is sharded over DP
        switch (component.kind) {
            case StateKind::weights: sharded_from_stage = 3; break;
            case StateKind::grads: sharded_from_stage = 2; break;
            case StateKind::master:
            case StateKind::optimizer: sharded_from_stage = recipe.sharded_optimizer ? 0 : 1; break;
        }
        const bool sharded = zero >= sharded_from_stage && shard_ranks > 1;
        MemoryBlock block;
        block.label = component.label;
        block.kind = state_kind_name(component.kind);
        block.bytes_per_param = component.bytes_per_param;
        block.whole_bytes = component.bytes_per_param * stage.total;
        block.per_gpu_bytes = component.bytes_per_param * stage.per_gpu / (sharded ? shard_ranks : 1);
        block.whole_formula = component.label + ": " + format_plain(component.bytes_per_param) + " B x " + format_sci(stage.total) +
                              " = " + format_bytes(block.whole_bytes);
        block.per_gpu_formula = component.label + ": " + format_plain(component.bytes_per_param) + " B x " + format_sci(stage.per_gpu) +
                                " params on the GPU (" + layout + ")" +
                                (sharded ? " / " + std::to_string(shard_ranks) + " (ZeRO-" + std::to_string(zero) + ")" : std::string()) +
                                " = " + format_bytes(block.per_gpu_bytes);
        switch (component.kind) {
            case StateKind::weights: memory.per_gpu.weights_bytes += block.per_gpu_bytes; break;
            case StateKind::grads: memory.per_gpu.grads_bytes += block.per_gpu_bytes; break;
            case StateKind::master: memory.per_gpu.master_bytes += block.per_gpu_bytes; break;
            case StateKind::optimizer: memory.per_gpu.optimizer_bytes += block.per_gpu_bytes; break;
        }
        memory.blocks.push_back(block);
    }

    memory.activations = activation_memory(scenario, layers_on_first_stage(scenario.model.layers, scenario.parallel.pp), inflight_microbatches);
    MemoryBlock activations;
    activations.label = "activations";
    activations.kind = "activations";
    // One micro-batch through all layers on one GPU: x tp would count the replicated 10 sbh of Table 2 t times.
    Scenario unsharded = scenario;
    unsharded.parallel.tp = 1;
    unsharded.parallel.cp = 1;
    activations.whole_bytes = activation_memory(unsharded, 1, 1).bytes_per_layer * scenario.model.layers;
    activations.per_gpu_bytes = memory.activations.first_stage_bytes;
    activations.whole_formula = "activations, one micro-batch, all " + std::to_string(scenario.model.layers) + " layers: " +
                                format_bytes(activations.whole_bytes);
    activations.per_gpu_formula = "activations (" + memory.activations.configuration + "): " + memory.activations.formula;
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

}  // namespace core
