#include "core/model/scenario_edits.h"

#include "core/model/errors.h"
#include "core/model/format.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace core {
namespace {

// What the user moved: the settling keeps it and moves the others.
enum class Moved { model, gpus, layout, batch, other };

std::vector<int> divisors_of(int n) {
    std::vector<int> result;
    for (int d = 1; 1LL * d * d <= n; ++d) {
        if (n % d != 0) continue;
        result.push_back(d);
        if (d != n / d) result.push_back(n / d);
    }
    std::sort(result.begin(), result.end());
    return result;
}

std::string change(const char* what, long long from, long long to, const std::string& because) {
    return std::string(what) + " " + std::to_string(from) + " -> " + std::to_string(to) + ": " + because;
}

long long model_parallel(const ParallelSpec& p) { return 1LL * p.tp * p.pp * p.cp; }

// Expert parallelism follows the model and the stage's GPUs: none for a dense model; EP dividing the experts, ETP the expert
// width, and EP x ETP the tp x cp x dp GPUs of a stage, each the largest that does at most what it was; sequence parallelism
// on with TP (Megatron-Core refuses MoE with TP but without it).
void settle_experts(Scenario& scenario, std::vector<std::string>& notes) {
    ParallelSpec& parallel = scenario.parallel;
    const ModelSpec& model = scenario.model;
    if (!model.is_moe()) {
        if (parallel.ep != 1) notes.push_back(change("EP", parallel.ep, 1, "the model has no experts"));
        if (parallel.etp != 1) notes.push_back(change("ETP", parallel.etp, 1, "the model has no experts"));
        parallel.ep = parallel.etp = 1;
        return;
    }
    if (parallel.tp > 1 && !scenario.train.sequence_parallel) {
        notes.push_back("Sequence parallel off -> on: a model with experts needs it with TP > 1 (Megatron-Core)");
        scenario.train.sequence_parallel = true;
    }
    const long long stage_gpus = 1LL * parallel.tp * parallel.cp * data_parallel_degree(scenario);
    if (model.expert_ffn_hidden % parallel.etp != 0 || stage_gpus % parallel.etp != 0) {
        int etp = 1;
        for (int d : divisors_of(model.expert_ffn_hidden)) if (d <= parallel.etp && stage_gpus % d == 0) etp = d;
        notes.push_back(change("ETP", parallel.etp, etp, "it must divide the expert width " + std::to_string(model.expert_ffn_hidden) +
                                                             " and the stage's " + std::to_string(stage_gpus) + " GPUs"));
        parallel.etp = etp;
    }
    if (model.experts % parallel.ep != 0 || stage_gpus % (1LL * parallel.ep * parallel.etp) != 0) {
        int ep = 1;
        for (int d : divisors_of(model.experts)) if (d <= parallel.ep && stage_gpus % (1LL * d * parallel.etp) == 0) ep = d;
        notes.push_back(change("EP", parallel.ep, ep, "it must divide the " + std::to_string(model.experts) + " experts, and EP x ETP the stage's " +
                                                          std::to_string(stage_gpus) + " GPUs (TP x CP x DP)"));
        parallel.ep = ep;
    }
}

// The chunk count nearest `wanted` in `direction` (-1: at most, +1: at least) that splits the busiest stage's places
// (PipelineSplit) into equal whole chunks with a layer each (check_layout's rule); 1 when none does.
int chunks_splitting_stage(const Scenario& scenario, int pp, int wanted, int direction) {
    const PipelineSplit split = pipeline_split(scenario, pp);
    const int stage_places = split.busiest_places();
    for (int v = wanted; v >= 2 && v <= stage_places; v += direction) {
        if (stage_places % v == 0 && 1LL * pp * v <= split.places()) return v;
    }
    return 1;
}

// The fields that must follow an edit, in a fixed order: the model's shape bounds TP, PP and CP; the GPU count must hold
// TP x PP x CP; DP follows the GPU count; the batch must divide over DP; the schedule must fit the micro-batches.
Edit settle(Scenario scenario, Moved moved, std::vector<std::string> notes = {}) {
    ParallelSpec& parallel = scenario.parallel;
    TrainSpec& train = scenario.train;
    const ModelSpec& model = scenario.model;
    const int gpus = scenario.cluster.gpus;
    const auto fits_gpus = [&](long long product) { return product <= gpus && gpus % product == 0; };

    if (model.heads % parallel.tp != 0) {
        int tp = 1;
        for (int d : divisors_of(model.heads)) {
            if (d <= parallel.tp && fits_gpus(1LL * d * parallel.pp * parallel.cp)) tp = d;
        }
        if (tp != parallel.tp) {
            notes.push_back(change("TP", parallel.tp, tp, "it must divide the " + std::to_string(model.heads) + " attention heads"));
            parallel.tp = tp;
        }
    }
    if (parallel.pp > model.layers) {
        int pp = 1;
        for (int p = 1; p <= model.layers; ++p) if (fits_gpus(1LL * parallel.tp * p * parallel.cp)) pp = p;
        notes.push_back(change("PP", parallel.pp, pp, "each stage needs a layer (" + format_counted(model.layers, "layer", "layers") + ")"));
        parallel.pp = pp;
    }
    if (parallel.virtual_stages > 1) {
        const int v = chunks_splitting_stage(scenario, parallel.pp, parallel.virtual_stages, -1);
        if (v != parallel.virtual_stages) {
            notes.push_back(change("Virtual stages", parallel.virtual_stages, v,
                                   "each chunk holds the same whole layers (" + std::to_string(pipeline_split(scenario, parallel.pp).busiest_places()) +
                                       (scenario.train.embedding_and_loss_as_layers ? " places" : "") + " per stage)"));
            parallel.virtual_stages = v;
        }
    }
    if (train.seq_len % parallel.cp != 0) {
        int cp = 1;
        for (int d : divisors_of(train.seq_len)) if (d <= parallel.cp && fits_gpus(1LL * parallel.tp * parallel.pp * d)) cp = d;
        notes.push_back(change("CP", parallel.cp, cp, "it must divide the sequence length " + std::to_string(train.seq_len)));
        parallel.cp = cp;
    }
    if (!fits_gpus(model_parallel(parallel))) {
        return {scenario, notes,
                LayoutProblem{"cluster.gpus", std::to_string(gpus) + " GPUs are not divisible by tp x pp x cp = " +
                                                  std::to_string(model_parallel(parallel))}};
    }
    parallel.dp = 0;  // derived from the GPU count from here on, so the two never contradict
    const int dp = data_parallel_degree(scenario);
    if (train.global_batch % dp != 0) {
        if (moved == Moved::batch) {
            return {scenario, notes,
                    LayoutProblem{"train.global_batch", std::to_string(train.global_batch) + " is not divisible by dp = " + std::to_string(dp)}};
        }
        const long long batch = (1LL * train.global_batch + dp - 1) / dp * dp;
        if (batch > 100000000) return {scenario, notes, LayoutProblem{"train.global_batch", "would exceed 100,000,000 sequences"}};
        notes.push_back(change("Global batch", train.global_batch, batch, "it must divide over DP " + std::to_string(dp)));
        train.global_batch = static_cast<int>(batch);
    }
    const int per_rank = train.global_batch / dp;
    if (per_rank % train.micro_batch != 0) {
        int micro = 1;
        for (int d : divisors_of(per_rank)) if (d <= train.micro_batch) micro = d;
        notes.push_back(change("Micro-batch", train.micro_batch, micro, "it must divide the " + format_counted(per_rank, "sequence", "sequences") + " per DP rank"));
        train.micro_batch = micro;
    }
    settle_experts(scenario, notes);
    if (parallel.virtual_stages > 1 && parallel.schedule != ScheduleKind::interleaved) parallel.virtual_stages = 1;
    const int microbatches = per_rank / train.micro_batch;
    if (parallel.schedule == ScheduleKind::interleaved && microbatches % parallel.pp != 0) {
        notes.push_back("Schedule interleaved -> 1f1b: the " + std::to_string(microbatches) + " micro-batches are not a multiple of PP " +
                        std::to_string(parallel.pp));
        parallel.schedule = ScheduleKind::one_f_one_b;
        parallel.virtual_stages = 1;
    }
    if (const auto fit = schedule_fit_problem(parallel.schedule, parallel.pp, microbatches, model.layers)) {
        notes.push_back(std::string("Schedule ") + schedule_name(parallel.schedule) + " -> 1f1b: " + fit->reason);
        parallel.schedule = ScheduleKind::one_f_one_b;
    }
    // A batch the parser fitted stays marked only while it is still the fitted one; a chosen batch is the user's.
    if (train.global_batch_fitted && (moved == Moved::batch || train.global_batch != fitted_global_batch(scenario) ||
                                      train.global_batch == TrainSpec{}.global_batch)) {
        train.global_batch_fitted = false;
    }
    Edit edit{scenario, std::move(notes), check_layout(scenario, layout_of(scenario))};
    return edit;
}

Edit refused(const Scenario& scenario, const char* field, std::string reason) { return {scenario, {}, LayoutProblem{field, std::move(reason)}}; }

// EP or ETP moved: refused when check_layout refuses it (settling would only move it back), else settled.
Edit with_expert_axis(const Scenario& scenario, LayoutAxis axis, int value) {
    Scenario result = scenario;
    (axis == LayoutAxis::ep ? result.parallel.ep : result.parallel.etp) = value;
    const auto problem = check_layout(result, layout_of(result));
    if (problem && (problem->field == "parallel.ep" || problem->field == "parallel.etp")) return {scenario, {}, problem};
    return settle(result, Moved::layout);
}

// Offers each candidate whose edit is valid.
template <typename Value, typename EditFn>
std::vector<Value> offered(const std::vector<Value>& candidates, EditFn edit) {
    std::vector<Value> result;
    for (const Value& value : candidates) if (edit(value).ok()) result.push_back(value);
    return result;
}

}  // namespace

Edit with_model(const Scenario& scenario, const ModelSpec& model) {
    Scenario result = scenario;
    result.model = model;
    result.train.seq_len = model.default_seq_len;
    if (!(model == scenario.model)) result.efficiency.step_seconds.reset();  // it was measured on the other model
    return settle(result, Moved::model);
}

Edit with_imported_model(const Scenario& scenario, const ModelSpec& model) {
    Scenario result = scenario;
    result.model = model;
    std::vector<std::string> notes;
    if (result.train.seq_len > model.default_seq_len) {
        notes.push_back(change("Sequence length", result.train.seq_len, model.default_seq_len, "the model's context window (max_position_embeddings)"));
        result.train.seq_len = model.default_seq_len;
    }
    if (!(model == scenario.model)) result.efficiency.step_seconds.reset();  // it was measured on the other model
    return settle(result, Moved::model, std::move(notes));
}

Edit with_params(const Scenario& scenario, double params) {
    if (!(params >= kMinBareParams && params <= kMaxBareParams)) {
        return refused(scenario, "model.params", "must be between " + format_number(kMinBareParams) + " and " + format_number(kMaxBareParams) +
                                                     ", got " + format_number(params));
    }
    // The shape adapts to the layout rather than the layout to the shape: the slider only moves the size.
    ModelSpec model = synthesize_shape(params);
    const int tp = std::max(1, scenario.parallel.tp);
    if (model.heads % tp != 0) {
        model.heads = (model.heads / tp + 1) * tp;
        model.kv_heads = model.heads;
        model.hidden = model.heads * 128;
        model.ffn_hidden = 4 * model.hidden;
    }
    model.layers = std::max(model.layers, scenario.parallel.pp * scenario.parallel.virtual_stages);
    Scenario result = scenario;
    result.model = model;
    result.efficiency.step_seconds.reset();
    return settle(result, Moved::other);
}

Edit with_model_scaled(const Scenario& scenario, double params) {
    const ModelSpec& own = scenario.model;
    if (own.is_bare_count()) return with_params(scenario, params);
    if (!(params >= 1e6 && params <= 1e15)) return refused(scenario, "model.params", "must be between 1e6 and 1e15, got " + format_number(params));
    const int seq_len = scenario.train.seq_len;
    const double own_total = count_params(own, seq_len).total;
    if (std::fabs(params / own_total - 1.0) < 1e-9) return settle(scenario, Moved::other);
    const int head_dim = own.head_dim();
    const int group = std::max(1, own.heads / std::max(1, own.kv_heads));
    const int tp = std::max(1, scenario.parallel.tp);
    const int heads_step = std::lcm(group, tp);  // whole KV groups that TP divides
    const double ffn_ratio = static_cast<double>(own.ffn_hidden) / own.hidden;
    const double expert_ratio = static_cast<double>(own.expert_ffn_hidden) / own.hidden;
    const double shared_ratio = static_cast<double>(own.shared_ffn_hidden) / own.hidden;
    const double aspect = static_cast<double>(own.hidden) / own.layers;
    const int min_layers = std::max(1, scenario.parallel.pp * scenario.parallel.virtual_stages);
    // For each width in whole steps of heads, the depth that comes closest to params; keep the one whose hidden / layers
    // is nearest the model's own.
    std::optional<ModelSpec> best;
    double best_aspect_error = 0;
    for (long long heads = heads_step; heads <= 1LL << 16; heads += heads_step) {
        ModelSpec model = own;
        model.heads = static_cast<int>(heads);
        model.kv_heads = static_cast<int>(heads / group);
        model.hidden = model.heads * head_dim;
        model.ffn_hidden = std::max(1, static_cast<int>(std::lround(model.hidden * ffn_ratio / 64.0)) * 64);
        // Experts keep their count and their width's ratio to the model's, as the dense MLP does.
        if (own.expert_ffn_hidden > 0) model.expert_ffn_hidden = std::max(64, static_cast<int>(std::lround(model.hidden * expert_ratio / 64.0)) * 64);
        if (own.shared_ffn_hidden > 0) model.shared_ffn_hidden = std::max(64, static_cast<int>(std::lround(model.hidden * shared_ratio / 64.0)) * 64);
        const auto total_at = [&](long long layers) {
            model.layers = static_cast<int>(layers);
            return count_params(model, seq_len).total;
        };
        if (total_at(min_layers) > params * 1.1) break;  // wider only grows: no more candidates
        constexpr long long kMaxLayers = 100000;
        if (total_at(kMaxLayers) < params * 0.9) continue;
        // The depth closest to params, searched: the count grows with depth, but not by one fixed amount per layer when
        // the layers differ (a mixture of experts' dense first layers, then expert layers every moe_layer_step).
        long long low = min_layers, high = kMaxLayers;
        while (low < high) {
            const long long middle = low + (high - low) / 2;
            if (total_at(middle) < params) low = middle + 1;
            else high = middle;
        }
        if (low > min_layers && std::fabs(total_at(low - 1) - params) < std::fabs(total_at(low) - params)) --low;
        const double total = total_at(low);
        if (std::fabs(total / params - 1.0) > 0.1) continue;
        const double aspect_error = std::fabs(std::log(model.hidden / (aspect * model.layers)));
        if (!best || aspect_error < best_aspect_error) {
            best = model;
            best_aspect_error = aspect_error;
        }
    }
    if (!best) {
        return refused(scenario, "model.params", own.name + " cannot be scaled to " + format_count(params) + " parameters (" +
                                                     "its smallest is one layer of " + std::to_string(heads_step * head_dim) + " wide with a " +
                                                     std::to_string(own.vocab) + "-token vocabulary)");
    }
    best->id = "custom";
    best->name = own.name + " scaled to " + format_count(count_params(*best, seq_len).total);
    Scenario result = scenario;
    result.model = *best;
    result.efficiency.step_seconds.reset();  // it was measured on the model's own size
    return settle(result, Moved::other);
}

Edit with_gpu(const Scenario& scenario, const GpuSpec& gpu) {
    Scenario result = scenario;
    result.cluster.gpu = gpu;
    result.cluster.scale_up = scale_up_link_of(gpu);
    if (!(gpu == scenario.cluster.gpu)) result.efficiency.step_seconds.reset();  // it was measured on the other GPU
    apply_price_basis(result);  // a catalog price follows the GPU; a custom one stays
    return settle(result, Moved::other);
}

Edit with_gpus(const Scenario& scenario, int gpus) {
    if (gpus < 1 || gpus > 100000000) return refused(scenario, "cluster.gpus", "must be between 1 and 100,000,000, got " + std::to_string(gpus));
    Scenario result = scenario;
    result.cluster.gpus = gpus;
    result.parallel.dp = 0;
    return settle(result, Moved::gpus);
}

Edit with_gpus_per_node(const Scenario& scenario, int gpus_per_node) {
    if (gpus_per_node < 1 || gpus_per_node > 1024) {
        return refused(scenario, "cluster.gpus_per_node", "must be between 1 and 1024, got " + std::to_string(gpus_per_node));
    }
    Scenario result = scenario;
    result.cluster.gpus_per_node = gpus_per_node;
    return settle(result, Moved::other);
}

Edit with_axis(const Scenario& scenario, LayoutAxis axis, int value) {
    if (value < 1) return refused(scenario, "parallel", "must be >= 1, got " + std::to_string(value));
    if (axis == LayoutAxis::ep || axis == LayoutAxis::etp) return with_expert_axis(scenario, axis, value);
    Scenario result = scenario;
    ParallelSpec& parallel = result.parallel;
    switch (axis) {
        case LayoutAxis::tp: parallel.tp = value; break;
        case LayoutAxis::pp: parallel.pp = value; break;
        case LayoutAxis::cp: parallel.cp = value; break;
        case LayoutAxis::dp: {
            const long long gpus = 1LL * value * parallel.tp * parallel.pp * parallel.cp;
            if (gpus > 100000000) return refused(scenario, "parallel.dp", "dp x tp x pp x cp would exceed 100,000,000 GPUs");
            result.cluster.gpus = static_cast<int>(gpus);
            break;
        }
        case LayoutAxis::micro_batch: result.train.micro_batch = value; break;
        case LayoutAxis::virtual_stages:
            parallel.virtual_stages = value;
            if (value > 1) parallel.schedule = ScheduleKind::interleaved;
            break;
        case LayoutAxis::ep:
        case LayoutAxis::etp: break;  // with_expert_axis
    }
    if (axis == LayoutAxis::virtual_stages && value > 1 && chunks_splitting_stage(scenario, parallel.pp, value, -1) != value) {
        return refused(scenario, "parallel.virtual_stages", std::to_string(value) + " chunks do not split the " +
                                                                format_counted((scenario.model.layers + parallel.pp - 1) / parallel.pp, "layer", "layers") +
                                                                " of a pipeline stage evenly");
    }
    if (axis == LayoutAxis::tp && scenario.model.heads % value != 0) {
        return refused(scenario, "parallel.tp", std::to_string(value) + " does not divide the " + std::to_string(scenario.model.heads) + " attention heads");
    }
    if (axis == LayoutAxis::cp && scenario.train.seq_len % value != 0) {
        return refused(scenario, "parallel.cp", std::to_string(value) + " does not divide seq_len " + std::to_string(scenario.train.seq_len));
    }
    // Interleaving needs the micro-batches to be a multiple of PP: offering v > 1 otherwise would settle back to 1F1B.
    if (axis == LayoutAxis::virtual_stages && value > 1 && microbatches_per_step(scenario) % std::max(1, scenario.parallel.pp) != 0) {
        return refused(scenario, "parallel.virtual_stages", "interleaved needs the micro-batches (" + std::to_string(microbatches_per_step(scenario)) +
                                                                ") to be a multiple of PP (" + std::to_string(scenario.parallel.pp) + ")");
    }
    if (axis == LayoutAxis::micro_batch) {
        const int dp = data_parallel_degree(scenario);
        if (scenario.train.global_batch % (1LL * dp * value) != 0) {
            return refused(scenario, "train.micro_batch", std::to_string(value) + " does not divide the " +
                                                              std::to_string(scenario.train.global_batch / std::max(1, dp)) + " sequences per DP rank");
        }
    }
    return settle(result, axis == LayoutAxis::dp ? Moved::gpus : Moved::layout);
}

Edit with_zero(const Scenario& scenario, int stage) {
    if (stage < 0 || stage > 3) return refused(scenario, "parallel.zero", "must be 0 to 3, got " + std::to_string(stage));
    Scenario result = scenario;
    result.parallel.zero = stage;
    return settle(result, Moved::other);
}

Edit with_schedule(const Scenario& scenario, ScheduleKind kind) {
    Scenario result = scenario;
    ParallelSpec& parallel = result.parallel;
    parallel.schedule = kind;
    if (kind != ScheduleKind::interleaved) parallel.virtual_stages = 1;
    else if (parallel.virtual_stages == 1) parallel.virtual_stages = chunks_splitting_stage(scenario, parallel.pp, 2, +1);
    if (kind == ScheduleKind::interleaved && microbatches_per_step(scenario) % parallel.pp != 0) {
        return refused(scenario, "parallel.schedule", "interleaved needs the micro-batches (" + std::to_string(microbatches_per_step(scenario)) +
                                                          ") to be a multiple of PP (" + std::to_string(parallel.pp) + ")");
    }
    if (const auto fit = schedule_fit_problem(kind, parallel.pp, microbatches_per_step(scenario), scenario.model.layers)) {
        return refused(scenario, "parallel.schedule", fit->reason);
    }
    return settle(result, Moved::layout);
}

Edit with_recompute(const Scenario& scenario, Recompute recompute) {
    Scenario result = scenario;
    result.train.recompute = recompute;
    return settle(result, Moved::other);
}

Edit with_precision(const Scenario& scenario, const PrecisionRecipe& recipe) {
    Scenario result = scenario;
    result.precision = recipe;
    return settle(result, Moved::other);
}

Edit with_seq_len(const Scenario& scenario, int seq_len) {
    if (seq_len < 1 || seq_len > 10000000) return refused(scenario, "train.seq_len", "must be between 1 and 10,000,000, got " + std::to_string(seq_len));
    Scenario result = scenario;
    result.train.seq_len = seq_len;
    return settle(result, Moved::other);
}

Edit with_global_batch(const Scenario& scenario, int global_batch) {
    if (global_batch < 1 || global_batch > 100000000) {
        return refused(scenario, "train.global_batch", "must be between 1 and 100,000,000, got " + std::to_string(global_batch));
    }
    Scenario result = scenario;
    result.train.global_batch = global_batch;
    return settle(result, Moved::batch);
}

Edit with_sequence_parallel(const Scenario& scenario, bool on) {
    if (!on && scenario.model.is_moe() && scenario.parallel.tp > 1) {
        return refused(scenario, "train.sequence_parallel", "a model with experts needs it with TP > 1 (Megatron-Core)");
    }
    Scenario result = scenario;
    result.train.sequence_parallel = on;
    return settle(result, Moved::other);
}

Edit with_embedding_and_loss_as_layers(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.train.embedding_and_loss_as_layers = on;
    const auto problem = check_layout(result, layout_of(result));
    if (problem && problem->field == "train.embedding_and_loss_as_layers") return {scenario, {}, problem};
    return settle(result, Moved::other);  // the interleaved chunks follow the stage's places
}

Edit with_flash_attention(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.train.flash_attention = on;
    return settle(result, Moved::other);
}

Edit with_layout(const Scenario& scenario, const Layout& layout) {
    Scenario result = apply_layout(scenario, layout);  // an assumed MFU stays assumed, as with every layout control
    if (const auto problem = check_layout(result, layout_of(result))) return {result, {}, problem};
    return settle(result, Moved::layout);
}

Edit with_load_imbalance(const Scenario& scenario, double max_over_mean) {
    if (!(max_over_mean >= 1.0 && max_over_mean <= MoeSpec::max_load_factor)) {
        return refused(scenario, "moe.load_imbalance",
                       "must be between 1 and " + format_number(MoeSpec::max_load_factor) + " (max / mean), got " + format_number(max_over_mean));
    }
    Scenario result = scenario;
    result.moe.load_imbalance = max_over_mean;
    return settle(result, Moved::other);
}

Edit with_capacity_factor(const Scenario& scenario, double factor) {
    if (!(factor == 0.0 || (factor >= 1.0 && factor <= MoeSpec::max_load_factor))) {
        return refused(scenario, "moe.capacity_factor",
                       "must be 0 (no capacity) or between 1 and " + format_number(MoeSpec::max_load_factor) + ", got " + format_number(factor));
    }
    Scenario result = scenario;
    result.moe.capacity_factor = factor;
    return settle(result, Moved::other);
}

Edit with_node_limit(const Scenario& scenario, int nodes) {
    if (nodes < 0 || nodes > 1000000) return refused(scenario, "moe.node_limit", "must be 0 (any) or a node count, got " + std::to_string(nodes));
    Scenario result = scenario;
    result.moe.node_limit = nodes;
    return settle(result, Moved::other);
}

Edit with_ep_overlap(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.overlap.ep_all_to_all = on;
    return settle(result, Moved::other);
}

Edit with_framework(const Scenario& scenario, Framework framework) {
    Scenario result = scenario;
    result.train.framework = framework;
    return settle(result, Moved::other);
}

Edit with_fragmentation(const Scenario& scenario, double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) return refused(scenario, "memory.fragmentation", "must be between 0 and 1");
    Scenario result = scenario;
    result.memory.fragmentation = fraction;
    return settle(result, Moved::other);
}

Edit with_price_basis(const Scenario& scenario, PriceBasis basis) {
    Scenario result = scenario;
    result.budget.price = basis;
    apply_price_basis(result);
    std::vector<std::string> notes;
    if (result.budget.price != basis) {
        notes.push_back(std::string("Price stays custom: the catalog has no ") + price_basis_name(basis) + " price for the " + scenario.cluster.gpu.name);
    }
    return settle(result, Moved::other, std::move(notes));
}

Edit with_dollars_per_gpu_hour(const Scenario& scenario, double dollars) {
    if (!(dollars >= 0 && dollars <= 1e6)) {
        return refused(scenario, "operations.dollars_per_gpu_hour", "must be between 0 and 1e6, got " + format_number(dollars));
    }
    Scenario result = scenario;
    result.operations.dollars_per_gpu_hour = dollars;
    result.budget.price = PriceBasis::custom;  // the user's own figure: it stays when the GPU changes
    return settle(result, Moved::other);
}

Edit with_setup_hours(const Scenario& scenario, double hours) {
    if (!(hours >= 0 && hours <= 1e5)) return refused(scenario, "budget.setup_hours", "must be between 0 and 100,000, got " + format_number(hours));
    Scenario result = scenario;
    result.budget.setup_hours = hours;
    return settle(result, Moved::other);
}

Edit with_budget_dollars(const Scenario& scenario, std::optional<double> dollars) {
    if (dollars && !(*dollars >= 0 && *dollars <= 1e12)) {
        return refused(scenario, "budget.dollars", "must be between 0 and 1e12, got " + format_number(*dollars));
    }
    Scenario result = scenario;
    result.budget.budget_dollars = dollars;
    return settle(result, Moved::other);
}

double size_slider_min(double scenario_params) {
    if (!(scenario_params > 0)) return 1e8;
    return std::min(1e8, std::max(kMinBareParams, std::pow(10.0, std::floor(std::log10(scenario_params)))));
}

Choices choices_of(const Scenario& scenario) {
    Choices choices;
    const int gpus = scenario.cluster.gpus;
    const ModelSpec& model = scenario.model;
    const auto axis = [&](LayoutAxis which) { return [&, which](int value) { return with_axis(scenario, which, value); }; };
    std::vector<int> tp_candidates;
    for (int d : divisors_of(model.heads)) if (d <= gpus) tp_candidates.push_back(d);
    choices.tp = offered(tp_candidates, axis(LayoutAxis::tp));
    std::vector<int> pp_candidates;
    for (int p = 1; p <= std::min(model.layers, gpus); ++p) if (gpus % p == 0) pp_candidates.push_back(p);
    choices.pp = offered(pp_candidates, axis(LayoutAxis::pp));
    std::vector<int> cp_candidates;
    for (int d : divisors_of(scenario.train.seq_len)) if (d <= gpus) cp_candidates.push_back(d);
    choices.cp = offered(cp_candidates, axis(LayoutAxis::cp));
    const long long model_parallel = 1LL * scenario.parallel.tp * scenario.parallel.pp * scenario.parallel.cp;
    std::vector<int> dp_candidates;
    for (int d : divisors_of(scenario.train.global_batch)) if (model_parallel * d <= 100000000) dp_candidates.push_back(d);
    choices.dp = offered(dp_candidates, axis(LayoutAxis::dp));
    const int dp = data_parallel_degree(scenario);
    if (dp > 0 && scenario.train.global_batch % dp == 0) choices.micro_batch = offered(divisors_of(scenario.train.global_batch / dp), axis(LayoutAxis::micro_batch));
    std::vector<int> v_candidates;
    for (int v = 1; v <= model.layers / std::max(1, scenario.parallel.pp); ++v) v_candidates.push_back(v);
    choices.virtual_stages = offered(v_candidates, axis(LayoutAxis::virtual_stages));
    choices.zero = offered(std::vector<int>{0, 1, 2, 3}, [&](int stage) { return with_zero(scenario, stage); });
    choices.sequence_parallel_off = with_sequence_parallel(scenario, false).ok();
    choices.embedding_and_loss_as_layers_on = with_embedding_and_loss_as_layers(scenario, true).ok();
    if (model.is_moe()) {
        choices.ep = offered(divisors_of(model.experts), axis(LayoutAxis::ep));
        choices.etp = offered(divisors_of(model.expert_ffn_hidden), axis(LayoutAxis::etp));
    } else {
        choices.ep = choices.etp = {1};
    }
    std::vector<int> seq_candidates;
    for (long long s = 128; s <= (1 << 20); s *= 2) seq_candidates.push_back(static_cast<int>(s));
    if (std::find(seq_candidates.begin(), seq_candidates.end(), scenario.train.seq_len) == seq_candidates.end()) {
        seq_candidates.insert(std::upper_bound(seq_candidates.begin(), seq_candidates.end(), scenario.train.seq_len), scenario.train.seq_len);
    }
    choices.seq_len = offered(seq_candidates, [&](int s) { return with_seq_len(scenario, s); });
    choices.gpus_per_node = offered(std::vector<int>{1, 2, 4, 8, 16, 32, 64, 72}, [&](int n) { return with_gpus_per_node(scenario, n); });
    choices.schedules = offered(std::vector<ScheduleKind>{ScheduleKind::one_f_one_b, ScheduleKind::interleaved, ScheduleKind::zb_h1,
                                                          ScheduleKind::dualpipe, ScheduleKind::dualpipe_v, ScheduleKind::gpipe, ScheduleKind::naive},
                                [&](ScheduleKind kind) { return with_schedule(scenario, kind); });
    choices.recomputes = offered(std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full},
                                 [&](Recompute recompute) { return with_recompute(scenario, recompute); });
    return choices;
}

int next_gpus(const Scenario& scenario, int direction) {
    const long long step = 1LL * scenario.parallel.tp * scenario.parallel.pp * scenario.parallel.cp;
    long long gpus = scenario.cluster.gpus;
    // Count in whole model replicas, so every candidate holds TP x PP x CP; at most a few thousand tries.
    for (int tries = 0; tries < 4096; ++tries) {
        gpus = direction > 0 ? (gpus / step + 1) * step : ((gpus + step - 1) / step - 1) * step;
        if (gpus < 1 || gpus > 100000000) break;
        if (with_gpus(scenario, static_cast<int>(gpus)).ok()) return static_cast<int>(gpus);
    }
    return scenario.cluster.gpus;
}

int next_global_batch(const Scenario& scenario, int direction) {
    const long long step = 1LL * data_parallel_degree(scenario) * scenario.train.micro_batch;
    long long batch = scenario.train.global_batch;
    for (int tries = 0; tries < 4096; ++tries) {
        batch = direction > 0 ? (batch / step + 1) * step : ((batch + step - 1) / step - 1) * step;
        if (batch < 1 || batch > 100000000) break;
        if (with_global_batch(scenario, static_cast<int>(batch)).ok()) return static_cast<int>(batch);
    }
    return scenario.train.global_batch;
}

int nearest_choice_index(const std::vector<int>& choices, int value) {
    int best = 0;
    for (int i = 1; i < static_cast<int>(choices.size()); ++i) {
        if (std::llabs(1LL * choices[i] - value) < std::llabs(1LL * choices[best] - value)) best = i;
    }
    return best;
}

}  // namespace core
