// The planner's search: enumerate layouts, prune by memory and by a compute-only lower bound, price the rest with the
// step model (pipeline in closed form), keep the best in a bounded heap, then price the kept ones exactly.
#include "core/cost/search/planner.h"

#include "core/cost/kernels/flops.h"
#include "core/cost/memory/memory.h"
#include "core/cost/report/expected_error.h"
#include "core/cost/step/step.h"
#include "core/model/errors.h"
#include "core/model/model_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace core {
namespace {

std::vector<int> divisors_of(int n) {
    std::vector<int> result;
    for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
        if (n % d != 0) continue;
        result.push_back(d);
        if (d != n / d) result.push_back(n / d);
    }
    std::sort(result.begin(), result.end());
    return result;
}

// A layer's kernels depend on its split alone: each split is timed once per search, and its recompute settings share the
// timed passes (a recomputed kernel is its forward kernel again). The key packs all but EP and ETP, which pick one of a
// few maps (a dense model has one).
class LayerCostCache {
public:
    explicit LayerCostCache(const Scenario& scenario)
        : scenario_(scenario), attention_core_(!scenario.train.flash_attention) {}  // selective recompute is searched without flash
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

// The expert-parallel degrees a stage of tp x cp x dp GPUs can take: 1 for a dense model; for one with experts, each
// divisor of E that divides the stage's GPUs (expert tensor parallelism stays 1 in the search).
std::vector<int> ep_choices(const ModelSpec& model, long long stage_gpus) {
    if (!model.is_moe()) return {1};
    std::vector<int> choices;
    for (int ep : divisors_of(model.experts)) if (stage_gpus % ep == 0) choices.push_back(ep);
    return choices;
}

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
    return std::make_tuple(std::llround(entry.estimate.step_seconds * 1e9), std::llround(entry.estimate.modelled_step_seconds * 1e9), 1LL * l.tp * l.pp * l.cp, entry.estimate.memory_per_gpu_bytes,
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
    if (scenario.cluster.gpus < 1) throw InputError("cluster.gpus", "must be >= 1, got " + std::to_string(scenario.cluster.gpus));
    if (scenario.train.global_batch < 1) throw InputError("train.global_batch", "must be >= 1, got " + std::to_string(scenario.train.global_batch));
}

}  // namespace

LayoutEstimate estimate_layout(const Scenario& scenario, const Layout& layout) {
    if (const auto problem = check_layout(apply_layout(scenario, layout), layout)) throw InputError(problem->field, problem->reason);
    const double flops = model_flops_per_token(scenario.model, scenario.train.seq_len) * scenario.train.global_batch * scenario.train.seq_len;
    const StepEstimate step = estimate_step(scenario, layout, layer_cost(scenario, split_of(layout), false), PipelineTiming::timeline);
    const double gpus = 1.0 * layout.tp * layout.pp * layout.cp * layout.dp;
    return estimate_of(step, flops, gpus, scenario.cluster.gpu.bf16_flops_per_s, ceiling_mfu_of(scenario));
}

namespace {

// A layout without its schedule, that fits with the fewest micro-batches in flight, and the schedules to try on it.
struct Candidate {
    Layout layout;             // schedule and virtual_stages unset
    double lower_bound = 0;    // no schedule's step is shorter: the busiest stage's layers, every micro-batch
    const std::vector<int>* chunk_counts = nullptr;  // the interleaved chunk counts this layout allows, ascending
    std::size_t first_fitting_chunks = 0;            // the index of the first of them that fits; the rest fit too
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

Plan plan_layouts(const Scenario& scenario, const PlanOptions& options) {
    check_search_inputs(scenario);
    if (options.top < 1) throw InputError("plan.top", "must be >= 1, got " + std::to_string(options.top));
    const ModelSpec& model = scenario.model;
    const int gpus = scenario.cluster.gpus;
    const int global_batch = scenario.train.global_batch;
    const double peak = scenario.cluster.gpu.bf16_flops_per_s;
    const double ceiling_mfu = ceiling_mfu_of(scenario);
    const double model_flops = model_flops_per_token(model, scenario.train.seq_len) * global_batch * scenario.train.seq_len;
    const std::vector<Recompute> recomputes = scenario.train.flash_attention ? std::vector<Recompute>{Recompute::none, Recompute::full}
                                                                             : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
    const MemoryConstants memory_constants_of_scenario = memory_constants(scenario);
    std::vector<double> moe_share(model.layers + 1, 0.0);
    for (int pp = 1; pp <= model.layers; ++pp) moe_share[pp] = stage_moe_share(scenario, pp);
    LayerCostCache costs(scenario);

    // First pass: every valid layout counted, memory decided from the state and the schedule's in-flight micro-batches
    // alone, and a lower bound on the step of each that fits.
    Plan plan;
    std::vector<Candidate> candidates;
    std::vector<std::vector<int>> chunk_counts_by_pp(model.layers + 1);
    std::vector<Inflight> interleaved_inflight;  // per chunk count of the layout at hand, as far as its fit checks went
    MemoryBasis bases[4];                        // the layout at hand's, per ZeRO stage (each field rewritten per layout)
    Layout layout;
    for (int tp : divisors_of(model.heads)) {
        if (tp > options.max_tp || gpus % tp != 0) continue;
        layout.tp = tp;
        layout.sequence_parallel = tp > 1;
        for (int cp : divisors_of(scenario.train.seq_len)) {
            if (gpus % (tp * cp) != 0) continue;
            layout.cp = cp;
            for (int pp = 1; pp <= model.layers; ++pp) {
                if (gpus % (tp * cp * pp) != 0) continue;
                const int dp = gpus / (tp * cp * pp);
                if (global_batch % dp != 0) continue;
                layout.pp = pp;
                layout.dp = dp;
                const PipelineSplit split = pipeline_split(scenario, pp);
                const int stage_layers = split.most_layers();
                const int first_missing = stage_layers - split.layers_on(0), last_missing = stage_layers - split.layers_on(pp - 1);
                const int max_virtual = options.max_virtual_stages > 0 ? std::min(split.places() / pp, options.max_virtual_stages) : split.places() / pp;
                // Interleaving needs the busiest stage's places split into v equal chunks (check_layout's rule).
                std::vector<int>& chunk_counts = chunk_counts_by_pp[pp];
                chunk_counts.clear();
                for (int v = 2; v <= max_virtual; ++v) if (split.busiest_places() % v == 0) chunk_counts.push_back(v);
                for (int ep : ep_choices(model, 1LL * tp * cp * dp)) {
                    layout.ep = ep;
                    for (int micro_batch : divisors_of(global_batch / dp)) {
                        const int microbatches = global_batch / (dp * micro_batch);
                        if (microbatches > kMaxMicrobatches) continue;
                        layout.micro_batch = micro_batch;
                        const bool interleaves = pp > 1 && microbatches % pp == 0;
                        const int schedules = pp == 1 ? 1 : 2 + (interleaves ? static_cast<int>(chunk_counts.size()) : 0);
                        for (Recompute recompute : recomputes) {
                            layout.recompute = recompute;
                            const LayerCost* cost = nullptr;
                            PassSeconds stage_layer;       // the stage's mean layer: its kernels
                            LayerStepSeconds timed_layer;  // and with the communication they cannot hide
                            memory_bases_by_zero(memory_constants_of_scenario, layout, bases);
                            // The schedules' in-flight counts, worked out once for the 4 ZeRO stages (interleaving's as needed).
                            const int middle_stage = bases[0].middle_stage;
                            const Inflight one_f_one_b = inflight_of(ScheduleKind::one_f_one_b, pp, microbatches, 1, middle_stage);
                            const Inflight zb_h1 = pp > 1 ? inflight_of(ScheduleKind::zb_h1, pp, microbatches, 1, middle_stage) : Inflight{};
                            interleaved_inflight.clear();
                            const auto interleaved_at = [&](std::size_t i) -> const Inflight& {
                                while (interleaved_inflight.size() <= i) {
                                    interleaved_inflight.push_back(
                                        inflight_of(ScheduleKind::interleaved, pp, microbatches, chunk_counts[interleaved_inflight.size()], middle_stage));
                                }
                                return interleaved_inflight[i];
                            };
                            for (int zero = 0; zero <= 3; ++zero) {
                                layout.zero = zero;
                                plan.layouts_considered += schedules;
                                const MemoryBasis& memory = bases[zero];
                                // 1F1B keeps the fewest in flight on every device (ZB-H1 as many on the first, more on the
                                // last; interleaving more on both): when it does not fit, no schedule does.
                                if (!fits_with(memory, one_f_one_b)) continue;
                                const bool zb_fits = pp > 1 && fits_with(memory, zb_h1);
                                Candidate candidate;
                                candidate.layout = layout;
                                // Interleaving keeps min(p + (p - 1) / v, m) stages' worth in flight: fewer as v grows, so
                                // the chunk counts that fit run from the first that does to the most allowed.
                                candidate.chunk_counts = &chunk_counts;
                                candidate.first_fitting_chunks = chunk_counts.size();
                                if (interleaves) {
                                    candidate.first_fitting_chunks = 0;
                                    while (candidate.first_fitting_chunks < chunk_counts.size() &&
                                           !fits_with(memory, interleaved_at(candidate.first_fitting_chunks))) {
                                        ++candidate.first_fitting_chunks;
                                    }
                                }
                                plan.layouts_fitting += 1 + (zb_fits ? 1 : 0) + static_cast<std::int64_t>(chunk_counts.size() - candidate.first_fitting_chunks);
                                if (cost == nullptr) {
                                    LayerCostCache::Entry& entry = costs.entry_of(split_of(layout));
                                    cost = &entry.cost;
                                    stage_layer = mean_layer(*cost, moe_share[pp]);  // its dense and MoE layers
                                    timed_layer = model.is_moe() ? layer_step_seconds(scenario, layout, *cost, stage_layer, moe_share[pp])
                                                                 : costs.dense_step(entry, layout);
                                }
                                candidate.cost = cost;
                                const bool interleaving_fits = interleaves && candidate.first_fitting_chunks < chunk_counts.size();
                                candidate.lower_bound = step_lower_bound(timed_layer, stage_layer.backward_weight, stage_layers, first_missing,
                                                                         last_missing, pp, microbatches, interleaving_fits ? chunk_counts.back() : 1);
                                candidates.push_back(candidate);
                            }
                        }
                    }
                }
            }
        }
    }

    // Second pass, most promising first: price each candidate's schedules (pipeline in closed form) until the lower
    // bound alone is slower than the slowest layout kept.
    // A min-heap on the bounds, popped as needed: the search stops long before most are reached, so sorting them all
    // would be wasted.
    std::vector<std::pair<double, std::size_t>> order(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) order[i] = {candidates[i].lower_bound, i};
    const auto later = [](const std::pair<double, std::size_t>& a, const std::pair<double, std::size_t>& b) { return a > b; };
    std::make_heap(order.begin(), order.end(), later);
    // The exact re-pricing may reorder neighbours (the closed form is within 2 % of the generated timeline on the
    // shipped scenarios, and moved no kept layout more than one place): keep a margin. Uncollapsed, a tie group holds
    // up to the 4 ZeRO stages.
    const int margin = 10;
    TopLayouts top(static_cast<std::size_t>(options.collapse_zero_ties ? options.top + margin : options.top * 4 + margin), options.collapse_zero_ties);
    while (!order.empty()) {
        std::pop_heap(order.begin(), order.end(), later);
        const auto [lower_bound, index] = order.back();
        order.pop_back();
        if (lower_bound > top.admission_seconds()) break;
        const Candidate& candidate = candidates[index];
        Layout priced = candidate.layout;
        const StepInputs inputs = step_inputs(scenario, priced, *candidate.cost, memory_constants_of_scenario);
        const auto try_schedule = [&](ScheduleKind kind, int virtual_stages) {
            priced.schedule = kind;
            priced.virtual_stages = virtual_stages;
            // The pipelined part and the optimizer alone first: most schedules tried are already too slow there.
            const double makespan = closed_form_makespan(schedule_params(scenario, priced, *candidate.cost, inputs));
            if (makespan + inputs.optimizer.seconds > top.admission_seconds()) return;
            const StepEstimate step = estimate_step(scenario, priced, *candidate.cost, inputs, PipelineTiming::closed_form);
            if (step.memory.fits && step.step_seconds <= top.admission_seconds()) top.offer({priced, estimate_of(step, model_flops, gpus, peak, ceiling_mfu)});
        };
        try_schedule(ScheduleKind::one_f_one_b, 1);
        if (priced.pp == 1) continue;
        try_schedule(ScheduleKind::zb_h1, 1);
        for (std::size_t i = candidate.first_fitting_chunks; i < candidate.chunk_counts->size(); ++i) {
            try_schedule(ScheduleKind::interleaved, (*candidate.chunk_counts)[i]);
        }
    }

    // The kept layouts priced again as evaluate() prices them: the generated schedule instead of its closed form.
    std::vector<PlanEntry> kept = std::move(top).take();
    // In rank order, an uncollapsed tie group's members (same pipeline, another ZeRO stage) come together: the schedule
    // generated for the first serves the rest (cached_schedule).
    std::sort(kept.begin(), kept.end(), ranks_before);
    for (PlanEntry& entry : kept) {
        const StepEstimate step = estimate_step(scenario, entry.layout, costs.get(split_of(entry.layout)), PipelineTiming::timeline);
        entry.estimate = estimate_of(step, model_flops, gpus, peak, ceiling_mfu);
    }
    std::sort(kept.begin(), kept.end(), ranks_before);
    for (const PlanEntry& entry : kept) {
        if (static_cast<int>(plan.best.size()) >= options.top) break;
        if (!entry.estimate.fits) continue;
        const bool tied = options.collapse_zero_ties &&
                          std::any_of(plan.best.begin(), plan.best.end(), [&](const PlanEntry& earlier) { return zero_tie(earlier, entry); });
        if (!tied) plan.best.push_back(entry);
    }
    return plan;
}

}  // namespace core
