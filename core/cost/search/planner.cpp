// The planner's search: enumerate layouts, prune by memory and by a compute-only lower bound, price the rest with the
// step model (pipeline in closed form), keep the best in a bounded heap, then price the kept ones exactly.
#include "core/cost/search/planner.h"

#include "core/cost/kernels/flops.h"
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/memory/memory.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/expected_error.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/step/step.h"
#include "core/model/errors.h"
#include "core/model/model_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace core {
namespace {

// A layer's kernels depend on its split alone: each split is timed once per search, and its recompute settings share the
// timed passes (a recomputed kernel is its forward kernel again). The key packs all but EP and ETP, which pick one of a
// few maps (a dense model has one).
class LayerCostCache {
public:
    explicit LayerCostCache(const Scenario& scenario)
        : scenario_(scenario), attention_core_(!scenario.train.fused_attention()) {}  // selective recompute is searched without flash
    struct Entry {
        LayerCost cost;
        std::optional<LayerStepSeconds> dense_step;  // dense_step's, once asked for
    };

    const LayerCost& get(const LayerSplit& split) { return entry_of(split).cost; }

    Entry& entry_of(const LayerSplit& split) {
        const std::uint64_t key = key_of(split) | static_cast<std::uint64_t>(split.recompute);
        std::unordered_map<std::uint64_t, Entry>& costs = maps_of(split.ep, split.etp).costs;
        auto found = costs.find(key);
        if (found == costs.end()) {
            found = costs.emplace(key, Entry{layer_cost_of(passes_of(split), split.recompute, false), std::nullopt}).first;
        }
        return found->second;
    }

    // A dense layer's time with the TP and CP communication it cannot hide depends on its split alone (TP's and CP's
    // groups sit by tp and cp, and the GPU count is the search's): worked out once per split and recompute, not per layout.
    const LayerStepSeconds& dense_step(Entry& entry, const Layout& layout) {
        if (!entry.dense_step) entry.dense_step = layer_step_seconds(scenario_, layout, entry.cost, entry.cost.layer, 0.0);
        return *entry.dense_step;
    }

private:
    struct Maps {
        std::unordered_map<std::uint64_t, Entry> costs;
        std::unordered_map<std::uint64_t, SplitPasses> passes;  // keyed without the recompute
    };

    static std::uint64_t key_of(const LayerSplit& split) {
        return (static_cast<std::uint64_t>(split.tp) << 44) | (static_cast<std::uint64_t>(split.cp) << 24) |
               (static_cast<std::uint64_t>(split.micro_batch) << 3) | (split.sequence_parallel ? 4u : 0u);
    }

    const SplitPasses& passes_of(const LayerSplit& split) {
        std::unordered_map<std::uint64_t, SplitPasses>& passes = maps_of(split.ep, split.etp).passes;
        auto found = passes.find(key_of(split));
        if (found != passes.end()) return found->second;
        return passes.emplace(key_of(split), split_passes(scenario_, split, attention_core_)).first->second;
    }

    Maps& maps_of(int ep, int etp) {
        const std::pair<int, int> experts{ep, etp};
        if (last_ != nullptr && last_->first == experts) return last_->second;  // the search asks for one EP many times in a row
        const auto found = std::find_if(by_experts_.begin(), by_experts_.end(), [&](const auto& entry) { return entry.first == experts; });
        last_ = found != by_experts_.end() ? &*found : &by_experts_.emplace_back(experts, Maps{});
        return last_->second;
    }

    const Scenario& scenario_;
    bool attention_core_;
    std::deque<std::pair<std::pair<int, int>, Maps>> by_experts_;  // deque: stable references
    std::pair<std::pair<int, int>, Maps>* last_ = nullptr;          // the entry found last
};

// The best MFU published for the scenario's framework on its GPU: evaluate() holds every layout's step under it, so does the plan.
double ceiling_mfu_of(const Scenario& scenario) {
    return mfu_ceiling(scenario, fp8_gemms(scenario.cluster.gpu, framework_traits(scenario))).mfu;
}

LayoutEstimate estimate_of(const StepEstimate& step, double model_flops_per_step, double gpus, double peak_flops_per_s, double ceiling_mfu) {
    LayoutEstimate estimate;
    estimate.memory_per_gpu_bytes = step.memory.peak_bytes;
    estimate.activations_bytes = step.memory.activation_bytes;
    estimate.fits = step.memory.fits;
    const StepBreakdown& parts = step.breakdown;
    estimate.compute_seconds = parts.gemm_seconds + parts.attention_seconds + parts.elementwise_seconds + parts.optimizer_seconds;
    estimate.bubble_seconds = parts.bubble_seconds;
    estimate.exposed_comm_seconds = parts.exposed_comm_total();
    estimate.modelled_step_seconds = step.step_seconds;
    estimate.step_seconds = step_within_ceiling_seconds(step.step_seconds, model_flops_per_step, gpus * peak_flops_per_s, ceiling_mfu);
    estimate.mfu = model_flops_per_step / (estimate.step_seconds * gpus * peak_flops_per_s);
    estimate.breakdown = parts;
    return estimate;
}

// Ranking: step time at nanosecond resolution (so rounding noise does not split ties), then the modelled step where the
// ceiling ties them; among equal times the simpler
// layout (fewer GPUs per model replica), then the one with more memory to spare, then a fixed order.
auto rank_key(const PlanEntry& entry) {
    const Layout& l = entry.layout;
    return std::make_tuple(std::llround(entry.estimate.step_seconds * 1e9), std::llround(entry.estimate.modelled_step_seconds * 1e9),
                           gpus_per_replica(l), entry.estimate.memory_per_gpu_bytes,
                           l.tp, l.pp, l.cp, l.zero, l.micro_batch, static_cast<int>(l.recompute), static_cast<int>(l.schedule),
                           l.virtual_stages, l.ep, l.etp);
}

bool ranks_before(const PlanEntry& a, const PlanEntry& b) { return rank_key(a) < rank_key(b); }

// Two entries that differ only in ZeRO stage and tie on step time: the planner shows one of them.
bool zero_tie(const PlanEntry& a, const PlanEntry& b) {
    Layout same_zero = a.layout;
    same_zero.zero = b.layout.zero;
    return same_zero == b.layout && std::get<0>(rank_key(a)) == std::get<0>(rank_key(b));
}

// The fastest N seen so far: a max-heap on rank, so the worst kept entry is at the front. Collapsing ties, a tie group
// takes one place: the member that ranks first (the least memory), as the final list shows it.
class TopLayouts {
public:
    TopLayouts(std::size_t capacity, bool collapse_zero_ties) : capacity_(std::max<std::size_t>(1, capacity)), collapse_(collapse_zero_ties) {
        heap_.reserve(capacity_);
    }
    // The slowest step a new entry may have and still be kept.
    double admission_seconds() const { return heap_.size() < capacity_ ? INFINITY : heap_.front().estimate.step_seconds; }
    void offer(const PlanEntry& entry) {
        if (collapse_) {
            const auto tied = std::find_if(heap_.begin(), heap_.end(), [&](const PlanEntry& kept) { return zero_tie(kept, entry); });
            if (tied != heap_.end()) {
                if (ranks_before(entry, *tied)) {
                    *tied = entry;
                    std::make_heap(heap_.begin(), heap_.end(), ranks_before);
                }
                return;
            }
        }
        if (heap_.size() < capacity_) {
            heap_.push_back(entry);
            std::push_heap(heap_.begin(), heap_.end(), ranks_before);
        } else if (ranks_before(entry, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
            heap_.back() = entry;
            std::push_heap(heap_.begin(), heap_.end(), ranks_before);
        }
    }
    std::vector<PlanEntry> take() && { return std::move(heap_); }

private:
    std::size_t capacity_;
    bool collapse_;
    std::vector<PlanEntry> heap_;
};

// What the search needs of the scenario itself (its own layout aside): a valid model, cluster and batch.
void check_search_inputs(const Scenario& scenario) {
    validate_model_shape(scenario.model, "model");
    if (scenario.cluster.gpus < 1) throw InputError("cluster.gpus", must_be_at_least_one(scenario.cluster.gpus));
    if (scenario.train.global_batch < 1) throw InputError("train.global_batch", must_be_at_least_one(scenario.train.global_batch));
}

}  // namespace

// An operator recipe's peak is its caching allocator's reserved peak over the step (the memory timeline), which the step
// model's closed form does not replay: a layout priced exactly takes its memory from evaluate(), as the report shows it.
void take_allocator_peak(const Scenario& scenario, const Layout& layout, LayoutEstimate& estimate) {
    if (!runs_operator_recipe(scenario)) return;
    const Report report = evaluate(apply_layout(scenario, layout));
    estimate.memory_per_gpu_bytes = report.memory.per_gpu.peak_bytes;
    estimate.activations_bytes = report.memory.per_gpu.activations_bytes;
    estimate.fits = report.memory.fits;
}

LayoutEstimate estimate_layout(const Scenario& scenario, const Layout& layout) {
    if (const auto problem = check_layout(apply_layout(scenario, layout), layout)) throw InputError(problem->field, problem->reason);
    const double flops = step_flops_per_token(scenario).model_per_token * scenario.train.global_batch * scenario.train.seq_len;
    const StepEstimate step = estimate_step(scenario, layout, layer_cost(scenario, split_of(layout), false), PipelineTiming::timeline);
    const double gpus = 1.0 * gpus_per_replica(layout) * layout.dp;
    LayoutEstimate estimate = estimate_of(step, flops, gpus, scenario.cluster.gpu.bf16_flops_per_s, ceiling_mfu_of(scenario));
    take_allocator_peak(scenario, layout, estimate);
    return estimate;
}

namespace {

// A layout without its schedule, that fits with the fewest micro-batches in flight, and the schedules to try on it.
struct Candidate {
    Layout layout;             // schedule and virtual_stages unset
    double lower_bound = 0;    // no schedule's step is shorter: the busiest stage's layers, every micro-batch
    const std::vector<int>* chunk_counts = nullptr;  // the interleaved chunk counts this layout allows, ascending
    std::uint32_t first_fitting_chunks = 0;          // the index of the first of them that fits; the rest fit too
    bool one_f_one_b = true;   // the rules allow 1F1B, and ZB-H1, on this layout
    bool zb_h1 = false;
    const LayerCost* cost = nullptr;
};

// The idle time closed_form_makespan gives the best of the schedules the search tries (1F1B, ZB-H1, interleaving with
// the most chunks that fit) for a stage of this many layers (a fraction: see below), each timed as given.
double least_idle_seconds(const LayerStepSeconds& layer, double weight_grad_seconds, double stage_layers, int pp, int microbatches, int most_chunks) {
    if (pp == 1) return 0.0;
    ScheduleParams params;
    params.stages = pp;
    params.microbatches = microbatches;
    params.forward_seconds = stage_layers * layer.forward_seconds;
    params.backward_seconds = stage_layers * layer.backward_seconds;
    params.weight_grad_seconds = stage_layers * weight_grad_seconds;
    params.kind = ScheduleKind::one_f_one_b;
    double least = closed_form_idle_seconds(params);
    params.kind = ScheduleKind::zb_h1;
    least = std::min(least, closed_form_idle_seconds(params));
    if (most_chunks > 1) {
        params.kind = ScheduleKind::interleaved;
        params.virtual_chunks = most_chunks;
        least = std::min(least, closed_form_idle_seconds(params));
    }
    return least;
}

// No schedule's step is shorter than this (closed_form_makespan, with edges and schedule_params' durations): the
// busiest stage's layers every micro-batch, each with the TP, CP and EP time it could not hide, and the least idle time
// any schedule tried leaves. ZeRO-3's gathers, the sends, the optimizer and DP's exposed traffic only add. An edge stage
// may lack up to `first_missing` and `last_missing` layers (its embedding or loss costs >= 0): the idle time scales with
// the mean stage, and with two stages the busiest may be an edge.
double step_lower_bound(const LayerStepSeconds& layer, double weight_grad_seconds, int stage_layers, int first_missing, int last_missing, int pp,
                        int microbatches, int most_chunks) {
    const double layer_seconds = layer.forward_seconds + layer.backward_seconds;
    const double lighter_busiest = pp == 2 ? std::min(first_missing, last_missing) : 0;
    const double mean_layers = stage_layers - static_cast<double>(first_missing + last_missing) / pp;
    return microbatches * (stage_layers - lighter_busiest) * layer_seconds +
           least_idle_seconds(layer, weight_grad_seconds, mean_layers, pp, microbatches, most_chunks);
}

// The in-flight micro-batches a schedule keeps on the first, the last and (when the basis has one) the middle device,
// in whole-stage activations: with the state, what decides whether it fits. The same for every ZeRO stage.
struct Inflight {
    double first = 0, last = 0, middle = -1;
};

Inflight inflight_of(ScheduleKind kind, int pp, int microbatches, int virtual_stages, int middle_stage) {
    ScheduleParams params;
    params.kind = kind;
    params.stages = pp;
    params.microbatches = microbatches;
    params.virtual_chunks = virtual_stages;
    const double chunks = virtual_stages;
    Inflight inflight;
    inflight.first = closed_form_peak_inflight_on(params, 0) / chunks;
    inflight.last = closed_form_peak_inflight_on(params, pp - 1) / chunks;
    if (middle_stage > 0) inflight.middle = closed_form_peak_inflight_on(params, middle_stage) / chunks;
    return inflight;
}

bool fits_with(const MemoryBasis& memory, const Inflight& inflight) { return memory.at(inflight.first, inflight.last, inflight.middle).fits; }

}  // namespace

namespace {

using V = LayoutValue;

// The search chooses a layout's values in this order, each with the ones after it open (core/model/layout.h:
// allowed_values): TP (sequence parallelism with it), CP, PP, DP, EP, the micro-batch, then recompute and ZeRO, the
// schedule and its chunks last. Expert tensor parallelism stays 1.
constexpr LayoutValues kOpenAfterMicroBatch = value_set(V::zero, V::schedule, V::virtual_stages);
constexpr LayoutValues kOpenAfterEp = kOpenAfterMicroBatch | value_bit(V::micro_batch);
constexpr LayoutValues kOpenAfterDp = kOpenAfterEp | value_bit(V::ep);
constexpr LayoutValues kOpenAfterPp = kOpenAfterDp | value_bit(V::dp);
constexpr LayoutValues kOpenAfterCp = kOpenAfterPp | value_bit(V::pp);
constexpr LayoutValues kOpenAfterTp = kOpenAfterCp | value_bit(V::cp);
constexpr LayoutValues kOpenBeforeTp = kOpenAfterTp | value_set(V::tp, V::sequence_parallel);
constexpr int kZeroStages = 4;  // MemoryBasis per ZeRO stage, 0 to 3
constexpr std::size_t kValueCount = static_cast<std::size_t>(V::edges) + 1;  // LayoutValue's values

// What one search holds for every layout it looks at: the scenario's constants, the rules and the caches.
struct Search {
    Search(const Scenario& scenario, const PlanOptions& options)
        : scenario(scenario),
          options(options),
          model_flops(step_flops_per_token(scenario).model_per_token * scenario.train.global_batch * scenario.train.seq_len),
          ceiling_mfu(ceiling_mfu_of(scenario)),
          memory_constants(core::memory_constants(scenario)),
          moe_share(scenario.model.layers + 1, 0.0),
          chunk_counts_by_pp(scenario.model.layers + 1),
          costs(scenario) {
        // Selective recompute is left out under flash attention, which already drops the scores it would recompute.
        recomputes = scenario.train.fused_attention() ? std::vector<Recompute>{Recompute::none, Recompute::full}
                                                    : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
        for (int pp = 1; pp <= scenario.model.layers; ++pp) moe_share[pp] = stage_moe_share(scenario, pp);
        for (std::size_t value = 0; value < rules_reading.size(); ++value) {
            for (const LayoutRule& rule : options.rules) {
                if (rule.reads & value_bit(static_cast<LayoutValue>(value))) rules_reading[value].push_back(rule);
            }
        }
        allowed_values(scenario, Layout{}, V::zero, kOpenBeforeTp & ~value_bit(V::zero), kZeroStages - 1, zero_stages, rules_of(V::zero));
    }

    const Scenario& scenario;
    const PlanOptions& options;
    double model_flops;
    double ceiling_mfu;                                // the published MFU ceiling every layout's step is held to
    MemoryConstants memory_constants;
    std::vector<double> moe_share;                     // per pp: the share of a stage's layers with experts
    std::vector<std::vector<int>> chunk_counts_by_pp;  // the interleaved chunk counts of the pipeline at hand
    LayerCostCache costs;
    std::vector<Recompute> recomputes;
    std::vector<int> zero_stages;
    std::vector<int> eps, micro_batches;               // the values allowed at those steps, reused
    std::vector<Inflight> interleaved_inflight;        // per chunk count of the layout at hand, as far as its fit checks went
    MemoryBasis bases[kZeroStages];                    // the layout at hand's, per ZeRO stage (each field rewritten per layout)

    // The rules that read each value: all a question about that value needs, looked up once per search.
    std::array<std::vector<LayoutRule>, kValueCount> rules_reading;

    LayoutRules rules_of(LayoutValue value) const { return rules_reading[static_cast<std::size_t>(value)]; }
    int gpus() const { return scenario.cluster.gpus; }
    double peak() const { return scenario.cluster.gpu.bf16_flops_per_s; }
    bool schedule_allowed(Layout layout, ScheduleKind kind, int virtual_stages, LayoutValues open) const {
        layout.schedule = kind;
        layout.virtual_stages = virtual_stages;
        return value_allowed(scenario, layout, V::schedule, open, rules_of(V::schedule));
    }
};

// A pipeline's shape as the bounds need it: its busiest stage's layers, what its edge stages lack, its chunk counts.
struct PipelineShape {
    int stage_layers = 1;
    int first_missing = 0, last_missing = 0;
    const std::vector<int>* chunk_counts = nullptr;
};

// A pipeline's split, and the interleaved chunk counts (>= 2) the rules allow on it, at most options.max_virtual_stages.
PipelineShape pipeline_shape(Search& search, const Layout& layout) {
    const int pp = layout.pp;
    const PipelineSplit split = pipeline_split(search.scenario, pp);
    PipelineShape shape;
    shape.stage_layers = split.most_layers();
    shape.first_missing = shape.stage_layers - split.layers_on(0);
    shape.last_missing = shape.stage_layers - split.layers_on(pp - 1);
    Layout interleaved = layout;
    interleaved.schedule = ScheduleKind::interleaved;
    const long long most = search.options.max_virtual_stages > 0 ? search.options.max_virtual_stages : std::numeric_limits<int>::max();
    std::vector<int>& chunk_counts = search.chunk_counts_by_pp[pp];
    allowed_values(search.scenario, interleaved, V::virtual_stages, kOpenAfterDp, most, chunk_counts, search.rules_of(V::virtual_stages));
    std::erase(chunk_counts, 1);
    shape.chunk_counts = &chunk_counts;
    return shape;
}

// The candidates of one layout up to its recompute and ZeRO stage: memory decided from the state and the schedules'
// in-flight micro-batches alone, a lower bound on the step of each that fits.
void add_candidates(Search& search, Layout layout, const PipelineShape& shape, Plan& plan, std::vector<Candidate>& candidates) {
    const int pp = layout.pp;
    const int microbatches = static_cast<int>(search.scenario.train.global_batch / (1LL * layout.dp * layout.micro_batch));
    const std::vector<int>& chunk_counts = *shape.chunk_counts;
    // One stage: every schedule is 1F1B. Interleaving as the rules allow it (p | m), with the chunk counts they allow.
    const bool one_f_one_b = search.schedule_allowed(layout, ScheduleKind::one_f_one_b, 1, value_bit(V::zero));
    const bool zb_h1 = pp > 1 && search.schedule_allowed(layout, ScheduleKind::zb_h1, 1, value_bit(V::zero));
    const bool interleaves = pp > 1 && search.schedule_allowed(layout, ScheduleKind::interleaved, 1, value_set(V::zero, V::virtual_stages));
    const int schedules = (one_f_one_b ? 1 : 0) + (zb_h1 ? 1 : 0) + (interleaves ? static_cast<int>(chunk_counts.size()) : 0);
    for (Recompute recompute : search.recomputes) {
        layout.recompute = recompute;
        const LayerCost* cost = nullptr;
        PassSeconds stage_layer;       // the stage's mean layer: its kernels
        LayerStepSeconds timed_layer;  // and with the communication they cannot hide
        memory_bases_by_zero(search.memory_constants, layout, search.bases);
        // The schedules' in-flight counts, worked out once for the 4 ZeRO stages (interleaving's as needed).
        const int middle_stage = search.bases[0].middle_stage;
        const Inflight first_schedule = inflight_of(ScheduleKind::one_f_one_b, pp, microbatches, 1, middle_stage);
        const Inflight zb_h1_inflight = pp > 1 ? inflight_of(ScheduleKind::zb_h1, pp, microbatches, 1, middle_stage) : Inflight{};
        search.interleaved_inflight.clear();
        const auto interleaved_at = [&](std::size_t i) -> const Inflight& {
            while (search.interleaved_inflight.size() <= i) {
                search.interleaved_inflight.push_back(
                    inflight_of(ScheduleKind::interleaved, pp, microbatches, chunk_counts[search.interleaved_inflight.size()], middle_stage));
            }
            return search.interleaved_inflight[i];
        };
        for (int zero : search.zero_stages) {
            layout.zero = zero;
            plan.layouts_considered += schedules;
            const MemoryBasis& memory = search.bases[zero];
            // 1F1B keeps the fewest in flight on every device (ZB-H1 as many on the first, more on the last; interleaving
            // more on both): when it does not fit, no schedule does.
            if (!fits_with(memory, first_schedule)) continue;
            const bool zb_fits = zb_h1 && fits_with(memory, zb_h1_inflight);
            Candidate candidate;
            candidate.layout = layout;
            candidate.one_f_one_b = one_f_one_b;
            candidate.zb_h1 = zb_h1;
            // Interleaving keeps min(p + (p - 1) / v, m) stages' worth in flight: fewer as v grows, so the chunk counts
            // that fit run from the first that does to the most allowed.
            candidate.chunk_counts = &chunk_counts;
            candidate.first_fitting_chunks = static_cast<std::uint32_t>(chunk_counts.size());
            if (interleaves) {
                candidate.first_fitting_chunks = 0;
                while (candidate.first_fitting_chunks < chunk_counts.size() && !fits_with(memory, interleaved_at(candidate.first_fitting_chunks))) {
                    ++candidate.first_fitting_chunks;
                }
            }
            plan.layouts_fitting += (one_f_one_b ? 1 : 0) + (zb_fits ? 1 : 0) + static_cast<std::int64_t>(chunk_counts.size() - candidate.first_fitting_chunks);
            if (cost == nullptr) {
                LayerCostCache::Entry& entry = search.costs.entry_of(split_of(layout));
                cost = &entry.cost;
                stage_layer = mean_layer(*cost, search.moe_share[pp]);  // its dense and MoE layers
                timed_layer = search.scenario.model.is_moe() ? layer_step_seconds(search.scenario, layout, *cost, stage_layer, search.moe_share[pp])
                                                             : search.costs.dense_step(entry, layout);
            }
            candidate.cost = cost;
            const bool interleaving_fits = interleaves && candidate.first_fitting_chunks < chunk_counts.size();
            candidate.lower_bound = step_lower_bound(timed_layer, stage_layer.backward_weight, shape.stage_layers, shape.first_missing,
                                                     shape.last_missing, pp, microbatches, interleaving_fits ? chunk_counts.back() : 1);
            candidates.push_back(candidate);
        }
    }
}

// One pipeline (TP, CP, PP and DP chosen): its EP degrees and micro-batches as the rules allow them.
void add_pipeline_candidates(Search& search, Layout layout, Plan& plan, std::vector<Candidate>& candidates) {
    const PipelineShape shape = pipeline_shape(search, layout);
    allowed_values(search.scenario, layout, V::ep, kOpenAfterEp, search.gpus(), search.eps, search.rules_of(V::ep));
    for (int ep : search.eps) {
        layout.ep = ep;
        allowed_values(search.scenario, layout, V::micro_batch, kOpenAfterMicroBatch, search.scenario.train.global_batch,
                       search.micro_batches, search.rules_of(V::micro_batch));
        for (int micro_batch : search.micro_batches) {
            layout.micro_batch = micro_batch;
            add_candidates(search, layout, shape, plan, candidates);
        }
    }
}

// First pass: every valid layout counted, and the candidates that fit. The search's own bounds: TP at most
// options.max_tp, PP at most the layers (the rules allow one or two more with the embedding and the loss as layers,
// a stage then holding one of them alone).
std::vector<Candidate> enumerate_candidates(Search& search, Plan& plan) {
    const Scenario& scenario = search.scenario;
    std::vector<Candidate> candidates;
    std::vector<int> tps, cps, pps, dps;
    Layout layout;
    allowed_values(scenario, layout, V::tp, kOpenBeforeTp, search.options.max_tp, tps, search.rules_of(V::tp));
    for (int tp : tps) {
        layout.tp = tp;
        layout.sequence_parallel = tp > 1;
        allowed_values(scenario, layout, V::cp, kOpenAfterTp & ~value_bit(V::cp), search.gpus(), cps, search.rules_of(V::cp));
        for (int cp : cps) {
            layout.cp = cp;
            allowed_values(scenario, layout, V::pp, kOpenAfterCp & ~value_bit(V::pp), scenario.model.layers, pps, search.rules_of(V::pp));
            for (int pp : pps) {
                layout.pp = pp;
                allowed_values(scenario, layout, V::dp, kOpenAfterPp & ~value_bit(V::dp), search.gpus(), dps, search.rules_of(V::dp));
                for (int dp : dps) {
                    layout.dp = dp;
                    add_pipeline_candidates(search, layout, plan, candidates);
                }
            }
        }
    }
    return candidates;
}

// Second pass, most promising first: price each candidate's schedules (pipeline in closed form) until the lower bound
// alone is slower than the slowest layout kept. A min-heap on the bounds, popped as needed: the search stops long
// before most are reached, so sorting them all would be wasted.
TopLayouts price_candidates(Search& search, const std::vector<Candidate>& candidates) {
    const Scenario& scenario = search.scenario;
    std::vector<std::pair<double, std::size_t>> order(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) order[i] = {candidates[i].lower_bound, i};
    const auto later = [](const std::pair<double, std::size_t>& a, const std::pair<double, std::size_t>& b) { return a > b; };
    std::make_heap(order.begin(), order.end(), later);
    // The exact re-pricing may reorder neighbours (the closed form is within 2 % of the generated timeline on the
    // shipped scenarios, and moved no kept layout more than one place): keep a margin. Uncollapsed, a tie group holds
    // up to the 4 ZeRO stages.
    const int margin = 10;
    const PlanOptions& options = search.options;
    TopLayouts top(static_cast<std::size_t>(options.collapse_zero_ties ? options.top + margin : options.top * 4 + margin), options.collapse_zero_ties);
    while (!order.empty()) {
        std::pop_heap(order.begin(), order.end(), later);
        const auto [lower_bound, index] = order.back();
        order.pop_back();
        if (lower_bound > top.admission_seconds()) break;
        const Candidate& candidate = candidates[index];
        Layout priced = candidate.layout;
        const StepInputs inputs = step_inputs(scenario, priced, *candidate.cost, search.memory_constants);
        const auto try_schedule = [&](ScheduleKind kind, int virtual_stages) {
            priced.schedule = kind;
            priced.virtual_stages = virtual_stages;
            // The pipelined part and the optimizer alone first: most schedules tried are already too slow there.
            const double makespan = closed_form_makespan(schedule_params(scenario, priced, *candidate.cost, inputs));
            if (makespan + inputs.optimizer.seconds > top.admission_seconds()) return;
            const StepEstimate step = estimate_step(scenario, priced, *candidate.cost, inputs, PipelineTiming::closed_form);
            if (step.memory.fits && step.step_seconds <= top.admission_seconds()) {
                top.offer({priced, estimate_of(step, search.model_flops, search.gpus(), search.peak(), search.ceiling_mfu)});
            }
        };
        if (candidate.one_f_one_b) try_schedule(ScheduleKind::one_f_one_b, 1);
        if (candidate.zb_h1) try_schedule(ScheduleKind::zb_h1, 1);
        for (std::size_t i = candidate.first_fitting_chunks; i < candidate.chunk_counts->size(); ++i) {
            try_schedule(ScheduleKind::interleaved, (*candidate.chunk_counts)[i]);
        }
    }
    return top;
}

// The kept layouts priced again as evaluate() prices them (the generated schedule instead of its closed form), the
// fastest options.top that fit, a ZeRO tie group once.
std::vector<PlanEntry> best_of(Search& search, TopLayouts top) {
    std::vector<PlanEntry> kept = std::move(top).take();
    // In rank order, an uncollapsed tie group's members (same pipeline, another ZeRO stage) come together: the schedule
    // generated for the first serves the rest (cached_schedule).
    std::sort(kept.begin(), kept.end(), ranks_before);
    for (PlanEntry& entry : kept) {
        const StepEstimate step = estimate_step(search.scenario, entry.layout, search.costs.get(split_of(entry.layout)), PipelineTiming::timeline);
        entry.estimate = estimate_of(step, search.model_flops, search.gpus(), search.peak(), search.ceiling_mfu);
        take_allocator_peak(search.scenario, entry.layout, entry.estimate);
    }
    std::sort(kept.begin(), kept.end(), ranks_before);
    std::vector<PlanEntry> best;
    for (const PlanEntry& entry : kept) {
        if (static_cast<int>(best.size()) >= search.options.top) break;
        if (!entry.estimate.fits) continue;
        const bool tied = search.options.collapse_zero_ties &&
                          std::any_of(best.begin(), best.end(), [&](const PlanEntry& earlier) { return zero_tie(earlier, entry); });
        if (!tied) best.push_back(entry);
    }
    return best;
}

}  // namespace

Plan plan_layouts(const Scenario& scenario, const PlanOptions& options) {
    check_search_inputs(scenario);
    if (options.top < 1) throw InputError("plan.top", must_be_at_least_one(options.top));
    Search search(scenario, options);
    Plan plan;
    const std::vector<Candidate> candidates = enumerate_candidates(search, plan);
    plan.best = best_of(search, price_candidates(search, candidates));
    return plan;
}

}  // namespace core
