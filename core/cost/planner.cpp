// The planner's search: enumerate layouts, prune by memory before timing, keep the fastest N in a bounded heap.
// The arithmetic mirrors memory.cpp (fill_state_memory, activation_memory), comm.cpp (communication) and evaluate.cpp
// (compute, bubble, step); tests/test_planner.cpp holds estimate_layout equal to evaluate() over a sweep of layouts.
#include "core/cost/planner.h"

#include "core/cost/collectives.h"
#include "core/model/errors.h"
#include "core/cost/evaluate.h"
#include "core/cost/flops.h"
#include "core/cost/memory.h"
#include "core/cost/pipeline_schedule.h"
#include "core/model/layout.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace core {
namespace {

// Everything of the scenario the inner loop reads, computed once per plan.
struct PlanConstants {
    int layers = 1, heads = 1, gpus = 1, gpus_per_node = 8, global_batch = 1, seq_len = 1;
    double hidden = 0, kv_width = 0, replicated_coefficient = 10, sharded_coefficient = 0;
    bool flash_attention = true, overlap_dp_comm = true;
    double weights_bpp = 0, grads_bpp = 0, master_optimizer_bpp = 0;
    int master_optimizer_sharded_from = 1;  // ZeRO stage from which master and optimizer shard (0: distributed optimizer)
    double grad_comm_bpp = 0, weight_comm_bpp = 0;
    double hbm_bytes = 0, peak_flops_per_s = 0, model_flops_per_step = 0, attention_share = 0;
    double compute_seconds[3] = {0, 0, 0};  // by Recompute
    LinkSpec scale_up, scale_out;
    std::vector<double> stage_params;        // by pp: the heaviest stage's parameters
};

PlanConstants constants_of(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    PlanConstants c;
    c.layers = model.layers;
    c.heads = model.heads;
    c.gpus = scenario.cluster.gpus;
    c.gpus_per_node = scenario.cluster.gpus_per_node;
    c.global_batch = train.global_batch;
    c.seq_len = train.seq_len;
    c.hidden = model.hidden;
    c.kv_width = static_cast<double>(model.kv_heads) * model.head_dim();
    // Korthikanti 2022 sec 4.1, as activation_memory() generalises it to GQA and gated MLPs.
    const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
    const double ffn_ratio = static_cast<double>(model.ffn_hidden) / model.hidden;
    c.sharded_coefficient = 4.0 + 4.0 * kv_share + (model.gated_mlp ? 6.0 : 4.0) * ffn_ratio;
    c.flash_attention = train.flash_attention;
    c.overlap_dp_comm = scenario.efficiency.overlap_dp_comm;

    const PrecisionRecipe& recipe = scenario.precision;
    c.weights_bpp = recipe.bytes_per_param(StateKind::weights);
    c.grads_bpp = recipe.bytes_per_param(StateKind::grads);
    c.master_optimizer_bpp = recipe.bytes_per_param(StateKind::master) + recipe.bytes_per_param(StateKind::optimizer);
    c.master_optimizer_sharded_from = recipe.sharded_optimizer ? 0 : 1;
    c.grad_comm_bpp = recipe.grad_comm_bytes_per_param();
    c.weight_comm_bpp = recipe.weight_comm_bytes_per_param();

    c.hbm_bytes = scenario.cluster.gpu.hbm_bytes;
    c.peak_flops_per_s = scenario.cluster.gpu.bf16_flops_per_s;
    const double tokens_per_step = static_cast<double>(train.global_batch) * train.seq_len;
    const double flops_per_token = model_flops_per_token(model, train.seq_len);
    c.model_flops_per_step = flops_per_token * tokens_per_step;
    c.attention_share = model.is_bare_count() ? 0.0 : 12.0 * model.layers * train.seq_len * model.hidden / flops_per_token;
    for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
        const double hardware = c.model_flops_per_step +
            recompute_flops_per_token(model, train.seq_len, recompute, train.flash_attention) * tokens_per_step;
        c.compute_seconds[static_cast<int>(recompute)] =
            hardware / c.gpus / (c.peak_flops_per_s * scenario.efficiency.compute_efficiency);
    }
    c.scale_up = scenario.cluster.scale_up;
    c.scale_out = scenario.cluster.scale_out;

    Scenario staged = scenario;
    staged.parallel.tp = 1;
    c.stage_params.assign(model.layers + 1, 0.0);
    for (int pp = 1; pp <= model.layers; ++pp) {
        staged.parallel.pp = pp;
        c.stage_params[pp] = heaviest_stage_params(staged).params;
    }
    return c;
}

const LinkSpec& link_for(const PlanConstants& c, int span_gpus) { return within_node(span_gpus, c.gpus_per_node) ? c.scale_up : c.scale_out; }

int stage_layers_of(const PlanConstants& c, int pp) { return layers_on_first_stage(c.layers, pp); }

// Training state on one GPU of the heaviest stage: fill_state_memory's sum over the recipe.
double state_bytes_per_gpu(const PlanConstants& c, const Layout& layout) {
    const double params_per_gpu = c.stage_params[layout.pp] / layout.tp;
    const int shard_ranks = layout.dp * layout.cp;
    auto shard = [&](int sharded_from) { return layout.zero >= sharded_from && shard_ranks > 1 ? shard_ranks : 1; };
    return c.weights_bpp * params_per_gpu / shard(3) + c.grads_bpp * params_per_gpu / shard(2) +
           c.master_optimizer_bpp * params_per_gpu / shard(c.master_optimizer_sharded_from);
}

// activation_memory(): Korthikanti 2022 Table 2 per layer, one micro-batch.
double activation_bytes_per_layer(const PlanConstants& c, const Layout& layout) {
    const double t = layout.tp;
    const double s = static_cast<double>(c.seq_len) / layout.cp;
    const double b = layout.micro_batch;
    double coefficient = 2.0;  // full recompute keeps each layer's input only
    if (layout.recompute != Recompute::full) {
        const bool sequence_parallel = layout.sequence_parallel && layout.tp > 1;
        coefficient = (sequence_parallel ? c.replicated_coefficient / t : c.replicated_coefficient) + c.sharded_coefficient / t;
    }
    const bool scores_stored = layout.recompute == Recompute::none && !c.flash_attention;
    const double scores = scores_stored ? 5.0 * c.heads * s * s * b / t : 0.0;
    return s * b * c.hidden * coefficient + scores;
}

ScheduleParams schedule_of(const PlanConstants& c, const Layout& layout, int microbatches) {
    ScheduleParams params;
    params.kind = layout.schedule;
    params.stages = layout.pp;
    params.microbatches = microbatches;
    params.virtual_chunks = layout.virtual_stages;
    const double per_microbatch = c.compute_seconds[static_cast<int>(layout.recompute)] / microbatches;
    params.forward_seconds = per_microbatch / 3.0;
    params.backward_seconds = per_microbatch * 2.0 / 3.0;
    params.weight_grad_seconds = per_microbatch / 3.0;
    return params;
}

// The first device's in-flight activations in micro-batches' worth of its layers (evaluate's closed-form branch).
double inflight_activations(const ScheduleParams& params) {
    return closed_form_peak_inflight(params) / static_cast<double>(params.virtual_chunks);
}

// comm.cpp's exposed seconds per axis, summed.
double exposed_comm_seconds(const PlanConstants& c, const Layout& layout, int microbatches, double compute_seconds) {
    const double activation_element_bytes = 2.0;
    const double tokens_local = static_cast<double>(layout.micro_batch) * c.seq_len / layout.cp;
    const double m = microbatches;
    const int stage_layers = stage_layers_of(c, layout.pp);
    double exposed = 0;
    if (layout.tp > 1) {
        const int allreduces_per_layer = layout.recompute == Recompute::full ? 6 : 4;
        const double message = tokens_local * c.hidden * activation_element_bytes;
        const double collectives = static_cast<double>(allreduces_per_layer) * stage_layers * m;
        exposed += collectives * ring_seconds(Collective::all_reduce, layout.tp, message, link_for(c, layout.tp));
    }
    if (layout.cp > 1) {
        const double message = 2.0 * tokens_local * (c.kv_width / layout.tp) * activation_element_bytes;
        const double sends = 3.0 * (layout.cp - 1) * stage_layers * m;
        const double seconds = sends * ring_seconds(Collective::send_recv, 2, message, link_for(c, layout.tp * layout.cp));
        exposed += std::max(0.0, seconds - compute_seconds * c.attention_share);
    }
    if (layout.pp > 1) {
        const double sharded = layout.sequence_parallel ? layout.tp : 1.0;
        const double message = tokens_local * c.hidden * activation_element_bytes / sharded;
        const double sends = 2.0 * m * layout.virtual_stages;
        const double one_send = ring_seconds(Collective::send_recv, 2, message, link_for(c, layout.tp * layout.cp * layout.pp));
        const double seconds = sends * one_send;
        const double fill_and_drain = 2.0 * (layout.pp * layout.virtual_stages - 1) * one_send;
        exposed += std::max(0.0, seconds - std::max(0.0, seconds - fill_and_drain));
    }
    const int gradient_ranks = layout.dp * layout.cp;
    if (gradient_ranks > 1) {
        const double params_per_gpu = c.stage_params[layout.pp] / layout.tp;
        const double grad_bytes = params_per_gpu * c.grad_comm_bpp;
        const double weight_bytes = params_per_gpu * c.weight_comm_bpp;
        const LinkSpec& link = link_for(c, c.gpus);
        const int n = gradient_ranks;
        double overlap_window = c.overlap_dp_comm ? compute_seconds / m * 2.0 / 3.0 : 0.0;
        double seconds = 0;
        if (layout.zero == 3) {
            seconds = 2.0 * m * ring_seconds(Collective::all_gather, n, weight_bytes, link) +
                      ring_seconds(Collective::reduce_scatter, n, grad_bytes, link);
            if (c.overlap_dp_comm) overlap_window = compute_seconds;
        } else if (layout.zero >= 1 || c.master_optimizer_sharded_from == 0) {
            seconds = ring_seconds(Collective::reduce_scatter, n, grad_bytes, link) + ring_seconds(Collective::all_gather, n, weight_bytes, link);
        } else {
            seconds = ring_seconds(Collective::all_reduce, n, grad_bytes, link);
        }
        exposed += std::max(0.0, seconds - overlap_window);
    }
    return exposed;
}

LayoutEstimate estimate(const PlanConstants& c, const Layout& layout) {
    const int microbatches = c.global_batch / (layout.dp * layout.micro_batch);
    const ScheduleParams params = schedule_of(c, layout, microbatches);
    LayoutEstimate result;
    result.activations_bytes = activation_bytes_per_layer(c, layout) * stage_layers_of(c, layout.pp) * inflight_activations(params);
    result.memory_per_gpu_bytes = state_bytes_per_gpu(c, layout) + result.activations_bytes;
    result.fits = result.memory_per_gpu_bytes <= c.hbm_bytes;
    result.compute_seconds = c.compute_seconds[static_cast<int>(layout.recompute)];
    result.bubble_seconds = std::max(0.0, result.compute_seconds * closed_form_bubble_overhead(params));
    result.exposed_comm_seconds = exposed_comm_seconds(c, layout, microbatches, result.compute_seconds);
    result.step_seconds = result.compute_seconds + result.bubble_seconds + result.exposed_comm_seconds;
    result.mfu = c.model_flops_per_step / (result.step_seconds * c.gpus * c.peak_flops_per_s);
    return result;
}

// Ranking: step time at nanosecond resolution (so rounding noise does not split ties); among equal times the simpler
// layout (fewer GPUs per model replica), then the one with more memory to spare, then a fixed order.
auto rank_key(const PlanEntry& entry) {
    const Layout& l = entry.layout;
    return std::make_tuple(std::llround(entry.estimate.step_seconds * 1e9), 1LL * l.tp * l.pp * l.cp, entry.estimate.memory_per_gpu_bytes,
                           l.tp, l.pp, l.cp, l.zero, l.micro_batch, static_cast<int>(l.recompute), static_cast<int>(l.schedule),
                           l.virtual_stages);
}

bool ranks_before(const PlanEntry& a, const PlanEntry& b) { return rank_key(a) < rank_key(b); }

// The fastest N seen so far: a max-heap on rank, so the worst kept entry is at the front.
class TopLayouts {
public:
    explicit TopLayouts(int capacity) : capacity_(static_cast<std::size_t>(std::max(1, capacity))) { heap_.reserve(capacity_); }
    // The slowest step a new entry may have and still be kept.
    double admission_seconds() const { return heap_.size() < capacity_ ? INFINITY : heap_.front().estimate.step_seconds; }
    void offer(const PlanEntry& entry) {
        if (heap_.size() < capacity_) {
            heap_.push_back(entry);
            std::push_heap(heap_.begin(), heap_.end(), ranks_before);
        } else if (ranks_before(entry, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
            heap_.back() = entry;
            std::push_heap(heap_.begin(), heap_.end(), ranks_before);
        }
    }
    std::vector<PlanEntry> sorted() && {
        std::sort_heap(heap_.begin(), heap_.end(), ranks_before);
        return std::move(heap_);
    }

private:
    std::size_t capacity_;
    std::vector<PlanEntry> heap_;
};

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

int max_virtual_stages(const PlanConstants& c, const PlanOptions& options, int pp) {
    const int by_layers = c.layers / pp;
    return options.max_virtual_stages > 0 ? std::min(by_layers, options.max_virtual_stages) : by_layers;
}

// How many schedules the planner tries for pp stages and m micro-batches: 1F1B, ZB-H1, interleaved v = 2..max.
int schedule_count(int pp, int microbatches, int max_virtual) {
    if (pp == 1) return 1;
    return 1 + (microbatches >= pp ? 1 : 0) + (microbatches % pp == 0 ? std::max(0, max_virtual - 1) : 0);
}

}  // namespace

LayoutEstimate estimate_layout(const Scenario& scenario, const Layout& layout) {
    if (!layout_is_valid(scenario, layout)) throw InputError("parallel", "the layout is not valid for this scenario");
    return estimate(constants_of(scenario), layout);
}

Plan plan_layouts(const Scenario& scenario, const PlanOptions& options) {
    validate_scenario(scenario);
    if (options.top < 1) throw InputError("plan.top", "must be >= 1, got " + std::to_string(options.top));
    const PlanConstants c = constants_of(scenario);
    const std::vector<Recompute> recomputes = c.flash_attention ? std::vector<Recompute>{Recompute::none, Recompute::full}
                                                                : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
    Plan plan;
    // A tie group holds at most the 4 ZeRO stages, so the best 4N entries contain the best N groups.
    TopLayouts top(options.collapse_zero_ties ? options.top * 4 : options.top);
    Layout layout;
    for (int tp : divisors_of(c.heads)) {
        if (tp > options.max_tp || c.gpus % tp != 0) continue;
        layout.tp = tp;
        layout.sequence_parallel = tp > 1;
        for (int cp : divisors_of(c.seq_len)) {
            if (c.gpus % (tp * cp) != 0) continue;
            layout.cp = cp;
            for (int pp = 1; pp <= c.layers; ++pp) {
                if (c.gpus % (tp * cp * pp) != 0) continue;
                const int dp = c.gpus / (tp * cp * pp);
                if (c.global_batch % dp != 0) continue;
                layout.pp = pp;
                layout.dp = dp;
                const int max_virtual = max_virtual_stages(c, options, pp);
                const int stage_layers = stage_layers_of(c, pp);
                const std::vector<int> micro_batches = divisors_of(c.global_batch / dp);
                for (int zero = 0; zero <= 3; ++zero) {
                    layout.zero = zero;
                    const double state = state_bytes_per_gpu(c, layout);
                    for (int micro_batch : micro_batches) {
                        const int microbatches = c.global_batch / (dp * micro_batch);
                        if (microbatches > kMaxMicrobatches) continue;
                        layout.micro_batch = micro_batch;
                        const int schedules = schedule_count(pp, microbatches, max_virtual);
                        for (Recompute recompute : recomputes) {
                            plan.layouts_considered += schedules;
                            if (state > c.hbm_bytes) continue;  // activations only add: prune before timing
                            layout.recompute = recompute;
                            // 1F1B and ZB-H1 keep the fewest micro-batches in flight: if 1F1B does not fit, nothing does.
                            const double per_layer = activation_bytes_per_layer(c, layout) * stage_layers;
                            if (state + per_layer * std::min(pp, microbatches) > c.hbm_bytes) continue;
                            auto try_schedule = [&](ScheduleKind kind, int virtual_stages) {
                                layout.schedule = kind;
                                layout.virtual_stages = virtual_stages;
                                const LayoutEstimate result = estimate(c, layout);
                                if (!result.fits) return false;
                                ++plan.layouts_fitting;
                                if (result.step_seconds <= top.admission_seconds()) top.offer({layout, result});
                                return true;
                            };
                            try_schedule(ScheduleKind::one_f_one_b, 1);
                            if (pp == 1) continue;
                            if (microbatches >= pp) try_schedule(ScheduleKind::zb_h1, 1);
                            if (microbatches % pp != 0) continue;
                            // More chunks keep more in flight: once one does not fit, the rest do not either.
                            for (int v = 2; v <= max_virtual; ++v) if (!try_schedule(ScheduleKind::interleaved, v)) break;
                        }
                    }
                }
            }
        }
    }
    plan.best = std::move(top).sorted();
    if (options.collapse_zero_ties) {
        std::vector<PlanEntry> kept;
        for (const PlanEntry& entry : plan.best) {
            const bool tied = std::any_of(kept.begin(), kept.end(), [&](const PlanEntry& earlier) {
                Layout same_zero = entry.layout;
                same_zero.zero = earlier.layout.zero;
                return same_zero == earlier.layout && std::get<0>(rank_key(earlier)) == std::get<0>(rank_key(entry));
            });
            if (!tied && static_cast<int>(kept.size()) < options.top) kept.push_back(entry);
        }
        plan.best = std::move(kept);
    }
    return plan;
}

}  // namespace core
