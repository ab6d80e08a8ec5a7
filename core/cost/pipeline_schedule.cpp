#include "core/cost/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/model/errors.h"

namespace core {

namespace {

inline constexpr int max_stages = 1024;
inline constexpr int max_microbatches = 100000;

std::string format_double(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

void require_positive_seconds(double seconds, const char* field) {
    if (!std::isfinite(seconds) || seconds <= 0)
        throw InputError(field, "must be a finite number of seconds > 0, got " + format_double(seconds));
}

// One slot of a device's prescribed order, before it is placed in time.
struct PlannedOp {
    PipelineOpKind kind;
    int virtual_stage;
    int microbatch;
};

// GPipe (Huang et al. 2019): every forward, then every backward, in micro-batch order.
void plan_gpipe(int device, int microbatches, std::vector<PlannedOp>& order) {
    for (int j = 0; j < microbatches; ++j) order.push_back({PipelineOpKind::forward, device, j});
    for (int j = 0; j < microbatches; ++j) order.push_back({PipelineOpKind::backward, device, j});
}

// PipeDream-Flush 1F1B (Narayanan et al. 2021 sec 2.2.1): p-d-1 warm-up forwards, 1F1B pairs, cool-down backwards.
void plan_one_f_one_b(int device, int stages, int microbatches, std::vector<PlannedOp>& order) {
    const int warmup = std::min(stages - device - 1, microbatches);
    for (int j = 0; j < warmup; ++j) order.push_back({PipelineOpKind::forward, device, j});
    for (int k = 0; k < microbatches - warmup; ++k) {
        order.push_back({PipelineOpKind::forward, device, warmup + k});
        order.push_back({PipelineOpKind::backward, device, k});
    }
    for (int j = microbatches - warmup; j < microbatches; ++j) order.push_back({PipelineOpKind::backward, device, j});
}

// Megatron's interleaved 1F1B (Narayanan et al. 2021 sec 2.2.2): the k-th chunk-op takes micro-batches in groups of
// p through chunk 0, then chunk 1, ...; backward walks the chunks in reverse; warm-up 2(p-d-1) + (v-1)p.
void plan_interleaved(int device, int stages, int microbatches, int chunks, std::vector<PlannedOp>& order) {
    const int ops_per_group = stages * chunks;
    const auto chunk_op = [&](int k, bool forward) {
        const int in_group = k % ops_per_group;
        const int chunk = forward ? in_group / stages : chunks - 1 - in_group / stages;
        const int microbatch = (k / ops_per_group) * stages + in_group % stages;
        return PlannedOp{forward ? PipelineOpKind::forward : PipelineOpKind::backward, chunk * stages + device,
                         microbatch};
    };
    const int total = microbatches * chunks;
    const int warmup = std::min(2 * (stages - device - 1) + (chunks - 1) * stages, total);
    for (int k = 0; k < warmup; ++k) order.push_back(chunk_op(k, true));
    for (int k = 0; k < total - warmup; ++k) {
        order.push_back(chunk_op(warmup + k, true));
        order.push_back(chunk_op(k, false));
    }
    for (int k = total - warmup; k < total; ++k) order.push_back(chunk_op(k, false));
}

// ZB-H1 (Qi et al. 2024 sec 2.1): 1F1B's order of F and B, but device d holds back d weight-gradient passes, so
// every device keeps p micro-batches in flight and the held-back W fill the tail the B chain leaves idle.
void plan_zb_h1(int device, int stages, int microbatches, std::vector<PlannedOp>& order) {
    const int warmup = std::min(stages - device - 1, microbatches);
    int oldest_pending_w = 0;
    const auto backward_input = [&](int j) {
        order.push_back({PipelineOpKind::backward_input, device, j});
        if (j + 1 - oldest_pending_w > device)
            order.push_back({PipelineOpKind::weight_grad, device, oldest_pending_w++});
    };
    for (int j = 0; j < warmup; ++j) order.push_back({PipelineOpKind::forward, device, j});
    for (int k = 0; k < microbatches - warmup; ++k) {
        order.push_back({PipelineOpKind::forward, device, warmup + k});
        backward_input(k);
    }
    for (int j = microbatches - warmup; j < microbatches; ++j) backward_input(j);
    while (oldest_pending_w < microbatches)
        order.push_back({PipelineOpKind::weight_grad, device, oldest_pending_w++});
}

// Each device's prescribed order, stored device after device; device d's slots are [begin[d], begin[d+1]).
struct DeviceOrders {
    std::vector<PlannedOp> slots;
    std::vector<std::size_t> begin;
};

DeviceOrders plan_orders(const ScheduleParams& params) {
    DeviceOrders orders;
    orders.slots.reserve(schedule_op_count(params));
    orders.begin.reserve(params.stages + 1);
    for (int device = 0; device < params.stages; ++device) {
        orders.begin.push_back(orders.slots.size());
        switch (params.kind) {
            case ScheduleKind::naive: plan_gpipe(device, 1, orders.slots); break;
            case ScheduleKind::gpipe: plan_gpipe(device, params.microbatches, orders.slots); break;
            case ScheduleKind::one_f_one_b:
                plan_one_f_one_b(device, params.stages, params.microbatches, orders.slots);
                break;
            case ScheduleKind::interleaved:
                // With one chunk per device the interleaved schedule is plain 1F1B (Megatron only interleaves v > 1).
                if (params.virtual_chunks == 1)
                    plan_one_f_one_b(device, params.stages, params.microbatches, orders.slots);
                else
                    plan_interleaved(device, params.stages, params.microbatches, params.virtual_chunks, orders.slots);
                break;
            case ScheduleKind::zb_h1: plan_zb_h1(device, params.stages, params.microbatches, orders.slots); break;
        }
    }
    orders.begin.push_back(orders.slots.size());
    return orders;
}

struct OpDurations {
    double forward, backward, backward_input, weight_grad;
};

OpDurations op_durations(const ScheduleParams& params) {
    // Naive pushes the whole batch, m micro-batches' worth; interleaved chunks hold 1/v of a device's layers.
    const double scale = params.kind == ScheduleKind::naive         ? params.microbatches
                         : params.kind == ScheduleKind::interleaved ? 1.0 / params.virtual_chunks
                                                                    : 1.0;
    return {params.forward_seconds * scale, params.backward_seconds * scale,
            (params.backward_seconds - params.weight_grad_seconds) * scale, params.weight_grad_seconds * scale};
}

// End times of placed ops, indexed by virtual stage and micro-batch; negative until placed.
class EndTimes {
public:
    EndTimes(int virtual_stages, int microbatches)
        : microbatches_(microbatches),
          forward_(static_cast<std::size_t>(virtual_stages) * microbatches, -1.0),
          backward_(forward_.size(), -1.0),
          weight_grad_(forward_.size(), -1.0) {}
    double& forward(int stage, int microbatch) { return forward_[index(stage, microbatch)]; }
    double& backward(int stage, int microbatch) { return backward_[index(stage, microbatch)]; }
    double& weight_grad(int stage, int microbatch) { return weight_grad_[index(stage, microbatch)]; }

private:
    std::size_t index(int stage, int microbatch) const {
        return static_cast<std::size_t>(stage) * microbatches_ + microbatch;
    }
    int microbatches_;
    std::vector<double> forward_, backward_, weight_grad_;
};

// Places every op at max(its device is free, its inputs arrived): list scheduling in each device's order.
class ListScheduler {
public:
    ListScheduler(const ScheduleParams& params, const DeviceOrders& orders)
        : params_(params),
          orders_(orders),
          stages_(params.stages),
          virtual_stages_(params.stages * (params.kind == ScheduleKind::interleaved ? params.virtual_chunks : 1)),
          durations_(op_durations(params)),
          ends_(virtual_stages_, params.kind == ScheduleKind::naive ? 1 : params.microbatches) {}

    std::vector<PipelineOp> run() {
        std::vector<PipelineOp> ops(orders_.slots.size());
        std::vector<std::size_t> next(orders_.begin.begin(), orders_.begin.end() - 1);
        std::vector<double> device_free(stages_, 0.0);
        // Devices that may be able to place their next op; placing an op can only unblock its neighbours.
        std::vector<int> to_visit;
        std::vector<char> queued(stages_, 1);
        for (int device = stages_ - 1; device >= 0; --device) to_visit.push_back(device);
        std::size_t placed = 0;
        while (!to_visit.empty()) {
            const int device = to_visit.back();
            to_visit.pop_back();
            queued[device] = 0;
            bool placed_here = false;
            while (next[device] < orders_.begin[device + 1]) {
                const PlannedOp& slot = orders_.slots[next[device]];
                const double ready = ready_seconds(slot);
                if (ready < 0) break;
                const double start = std::max(device_free[device], ready);
                const double duration = duration_of(slot);
                ops[next[device]] = PipelineOp{device, slot.virtual_stage / stages_, slot.microbatch, slot.kind,
                                               start, duration};
                device_free[device] = start + duration;
                record_end(slot, start + duration);
                ++next[device];
                ++placed;
                placed_here = true;
            }
            if (!placed_here) continue;
            for (int neighbour : {(device + 1) % stages_, (device + stages_ - 1) % stages_}) {
                if (!queued[neighbour]) {
                    queued[neighbour] = 1;
                    to_visit.push_back(neighbour);
                }
            }
        }
        // Every order above is deadlock-free; reaching this means a planner bug, not bad input.
        if (placed != ops.size()) throw std::logic_error("pipeline schedule: device orders deadlock");
        return ops;
    }

private:
    int device_of(int virtual_stage) const { return virtual_stage % stages_; }

    double transfer_seconds(int from_stage, int to_stage) const {
        return device_of(from_stage) == device_of(to_stage) ? 0.0 : params_.p2p_seconds;
    }

    double duration_of(const PlannedOp& slot) const {
        double duration = 0;
        switch (slot.kind) {
            case PipelineOpKind::forward: duration = durations_.forward; break;
            case PipelineOpKind::backward: duration = durations_.backward; break;
            case PipelineOpKind::backward_input: duration = durations_.backward_input; break;
            case PipelineOpKind::weight_grad: duration = durations_.weight_grad; break;
        }
        const double scale = params_.kind == ScheduleKind::naive ? params_.microbatches : 1.0;  // naive pushes the whole batch
        if (slot.virtual_stage == 0) duration += scale * extra_of(slot.kind, params_.first_forward_extra_seconds, params_.first_backward_extra_seconds,
                                                                   params_.first_weight_grad_extra_seconds);
        if (slot.virtual_stage == virtual_stages_ - 1) {
            duration += scale * extra_of(slot.kind, params_.last_forward_extra_seconds, params_.last_backward_extra_seconds,
                                         params_.last_weight_grad_extra_seconds);
        }
        return duration;
    }

    static double extra_of(PipelineOpKind kind, double forward, double backward, double weight_grad) {
        switch (kind) {
            case PipelineOpKind::forward: return forward;
            case PipelineOpKind::backward: return backward;
            case PipelineOpKind::backward_input: return backward - weight_grad;
            case PipelineOpKind::weight_grad: return weight_grad;
        }
        return 0;
    }

    // When the slot's inputs are all on its device, or -1 if one of them has not been placed yet.
    double ready_seconds(const PlannedOp& slot) {
        const int stage = slot.virtual_stage;
        const int j = slot.microbatch;
        switch (slot.kind) {
            case PipelineOpKind::forward: {
                if (stage == 0) return 0.0;
                const double input_end = ends_.forward(stage - 1, j);
                return input_end < 0 ? -1.0 : input_end + transfer_seconds(stage - 1, stage);
            }
            case PipelineOpKind::backward:
            case PipelineOpKind::backward_input: {
                const double own_forward_end = ends_.forward(stage, j);
                if (own_forward_end < 0) return -1.0;
                if (stage == virtual_stages_ - 1) return own_forward_end;
                const double gradient_end = ends_.backward(stage + 1, j);
                if (gradient_end < 0) return -1.0;
                return std::max(own_forward_end, gradient_end + transfer_seconds(stage + 1, stage));
            }
            case PipelineOpKind::weight_grad: return ends_.backward(stage, j);
        }
        return -1.0;
    }

    void record_end(const PlannedOp& slot, double end_seconds) {
        switch (slot.kind) {
            case PipelineOpKind::forward: ends_.forward(slot.virtual_stage, slot.microbatch) = end_seconds; break;
            case PipelineOpKind::backward:
            case PipelineOpKind::backward_input:
                ends_.backward(slot.virtual_stage, slot.microbatch) = end_seconds;
                break;
            case PipelineOpKind::weight_grad:
                ends_.weight_grad(slot.virtual_stage, slot.microbatch) = end_seconds;
                break;
        }
    }

    const ScheduleParams& params_;
    const DeviceOrders& orders_;
    int stages_;
    int virtual_stages_;
    OpDurations durations_;
    EndTimes ends_;
};

// Idle time summed over devices: the gaps before, between and after each device's ops. Summing the gaps
// rather than subtracting busy time from the makespan keeps a gap-free schedule at exactly zero.
double measure_idle_seconds(const std::vector<PipelineOp>& ops, double first_start, double last_end) {
    double idle = 0;
    double previous_end = first_start;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        idle += ops[i].start_seconds - previous_end;
        previous_end = ops[i].end_seconds();
        const bool last_on_device = i + 1 == ops.size() || ops[i + 1].device != ops[i].device;
        if (last_on_device) {
            idle += last_end - previous_end;
            previous_end = first_start;
        }
    }
    return idle;
}

// A forward adds its activations; the op that ends the backward frees them. Naive's one op carries m micro-batches.
int inflight_count_per_op(ScheduleKind kind, int microbatches) { return kind == ScheduleKind::naive ? microbatches : 1; }

bool frees_activations(ScheduleKind kind, PipelineOpKind op_kind) {
    return kind == ScheduleKind::zb_h1 ? op_kind == PipelineOpKind::weight_grad : op_kind == PipelineOpKind::backward;
}

// Walks each device's ops in time order, counting what is in flight after each.
void measure_inflight(const ScheduleParams& params, ScheduleTimeline& timeline) {
    const int count_per_op = inflight_count_per_op(params.kind, params.microbatches);
    const double activations_per_count =
        params.kind == ScheduleKind::interleaved ? 1.0 / params.virtual_chunks : 1.0;
    timeline.peak_inflight_microbatches.assign(params.stages, 0);
    timeline.peak_inflight_activations.assign(params.stages, 0.0);
    int inflight = 0;
    int device = -1;
    for (const PipelineOp& op : timeline.ops) {
        if (op.device != device) {
            device = op.device;
            inflight = 0;
        }
        if (op.kind == PipelineOpKind::forward) inflight += count_per_op;
        if (frees_activations(params.kind, op.kind)) inflight -= count_per_op;
        int& peak = timeline.peak_inflight_microbatches[device];
        peak = std::max(peak, inflight);
    }
    for (int d = 0; d < params.stages; ++d)
        timeline.peak_inflight_activations[d] = timeline.peak_inflight_microbatches[d] * activations_per_count;
}

}  // namespace

const char* pipeline_op_kind_name(PipelineOpKind kind) {
    switch (kind) {
        case PipelineOpKind::forward: return "F";
        case PipelineOpKind::backward: return "B";
        case PipelineOpKind::backward_input: return "B";
        case PipelineOpKind::weight_grad: return "W";
    }
    return "F";
}

std::size_t schedule_op_count(const ScheduleParams& params) {
    const std::size_t stages = static_cast<std::size_t>(std::max(params.stages, 0));
    const std::size_t microbatches = static_cast<std::size_t>(std::max(params.microbatches, 0));
    switch (params.kind) {
        case ScheduleKind::naive: return stages * 2;
        case ScheduleKind::zb_h1: return stages * microbatches * 3;
        case ScheduleKind::interleaved:
            return stages * microbatches * 2 * static_cast<std::size_t>(std::max(params.virtual_chunks, 0));
        default: return stages * microbatches * 2;
    }
}

void validate_schedule_params(const ScheduleParams& params) {
    if (params.kind < ScheduleKind::naive || params.kind > ScheduleKind::zb_h1)
        throw InputError("parallel.schedule", "unknown schedule kind " + std::to_string(static_cast<int>(params.kind)));
    if (params.stages < 1 || params.stages > max_stages)
        throw InputError("parallel.pp", "must be in 1.." + std::to_string(max_stages) + ", got " +
                                            std::to_string(params.stages));
    if (params.microbatches < 1 || params.microbatches > max_microbatches)
        throw InputError("parallel.microbatches", "must be in 1.." + std::to_string(max_microbatches) + ", got " +
                                                      std::to_string(params.microbatches));
    if (params.virtual_chunks < 1)
        throw InputError("parallel.virtual_stages", "must be >= 1, got " + std::to_string(params.virtual_chunks));
    if (params.virtual_chunks > 1 && params.kind != ScheduleKind::interleaved)
        throw InputError("parallel.virtual_stages", "must be 1 unless the schedule is interleaved, got " +
                                                        std::to_string(params.virtual_chunks) + " with " +
                                                        schedule_name(params.kind));
    if (params.kind == ScheduleKind::interleaved && params.virtual_chunks > 1 &&
        params.microbatches % params.stages != 0)
        throw InputError("parallel.microbatches", "the interleaved schedule needs a multiple of parallel.pp (" +
                                                      std::to_string(params.stages) + "), got " +
                                                      std::to_string(params.microbatches));
    require_positive_seconds(params.forward_seconds, "schedule.forward_seconds");
    require_positive_seconds(params.backward_seconds, "schedule.backward_seconds");
    if (params.kind == ScheduleKind::zb_h1) {
        require_positive_seconds(params.weight_grad_seconds, "schedule.weight_grad_seconds");
        if (params.weight_grad_seconds >= params.backward_seconds)
            throw InputError("schedule.weight_grad_seconds",
                             "must be less than the whole backward (" + format_double(params.backward_seconds) +
                                 " s), got " + format_double(params.weight_grad_seconds));
    }
    if (!std::isfinite(params.p2p_seconds) || params.p2p_seconds < 0)
        throw InputError("schedule.p2p_seconds",
                         "must be a finite number of seconds >= 0, got " + format_double(params.p2p_seconds));
    if (schedule_op_count(params) > max_schedule_ops)
        throw InputError("parallel.microbatches", "the timeline would hold " +
                                                      std::to_string(schedule_op_count(params)) +
                                                      " ops, more than the limit of " +
                                                      std::to_string(max_schedule_ops));
}

ScheduleTimeline generate_schedule(const ScheduleParams& params) {
    validate_schedule_params(params);
    const DeviceOrders orders = plan_orders(params);
    ScheduleTimeline timeline;
    timeline.kind = params.kind;
    timeline.stages = params.stages;
    timeline.microbatches = params.microbatches;
    timeline.virtual_chunks = params.virtual_chunks;
    timeline.ops = ListScheduler(params, orders).run();

    double first_start = timeline.ops.front().start_seconds;
    double last_end = 0;
    for (const PipelineOp& op : timeline.ops) {
        first_start = std::min(first_start, op.start_seconds);
        last_end = std::max(last_end, op.end_seconds());
    }
    timeline.makespan_seconds = last_end - first_start;
    // The mean over devices: the first and the last carry the edge stages' extra work.
    const double edge_extra = params.first_forward_extra_seconds + params.first_backward_extra_seconds + params.last_forward_extra_seconds +
                              params.last_backward_extra_seconds;
    timeline.busy_seconds_per_device = params.microbatches * (params.forward_seconds + params.backward_seconds + edge_extra / params.stages);
    const double idle_seconds_per_device = measure_idle_seconds(timeline.ops, first_start, last_end) / params.stages;
    timeline.bubble_fraction = idle_seconds_per_device / timeline.makespan_seconds;
    timeline.bubble_overhead = idle_seconds_per_device / timeline.busy_seconds_per_device;
    measure_inflight(params, timeline);
    return timeline;
}

double closed_form_bubble_overhead(const ScheduleParams& params) {
    const double p = params.stages;
    const double m = params.microbatches;
    switch (params.kind) {
        case ScheduleKind::naive: return p - 1;
        case ScheduleKind::gpipe:
        case ScheduleKind::one_f_one_b: return (p - 1) / m;
        case ScheduleKind::interleaved: return (p - 1) / (params.virtual_chunks * m);
        case ScheduleKind::zb_h1: {
            const double t_f = params.forward_seconds;
            const double t_w = params.weight_grad_seconds;
            const double t_b = params.backward_seconds - t_w;
            const double idle_per_device = (p - 1) * std::max({t_f + t_b - t_w, t_f, t_b});
            return idle_per_device / (m * (t_f + t_b + t_w));
        }
    }
    return 0;
}

double closed_form_bubble_fraction(const ScheduleParams& params) {
    const double overhead = closed_form_bubble_overhead(params);
    return overhead / (1 + overhead);
}

int closed_form_peak_inflight(const ScheduleParams& params) { return closed_form_peak_inflight_on(params, 0); }

int closed_form_peak_inflight_on(const ScheduleParams& params, int device) {
    const int p = params.stages;
    const int m = params.microbatches;
    const int v = params.virtual_chunks;
    switch (params.kind) {
        case ScheduleKind::naive:
        case ScheduleKind::gpipe: return m;
        case ScheduleKind::one_f_one_b: return std::min(p - device, m);
        case ScheduleKind::zb_h1: return std::min(p, m);
        case ScheduleKind::interleaved:
            if (v == 1) return std::min(p - device, m);
            return std::min(2 * (p - device - 1) + (v - 1) * p + 1, v * m);
    }
    return 0;
}

bool closed_form_applies(const ScheduleParams& params) {
    if (params.p2p_seconds > 0 || params.has_uneven_stages()) return false;
    if (params.kind == ScheduleKind::zb_h1 && params.microbatches < params.stages) return false;
    return true;
}

double closed_form_makespan(const ScheduleParams& params) {
    const double p = params.stages;
    const double m = params.microbatches;
    const double per_microbatch = params.forward_seconds + params.backward_seconds;
    const double first = params.first_forward_extra_seconds + params.first_backward_extra_seconds;
    const double last = params.last_forward_extra_seconds + params.last_backward_extra_seconds;
    const double mean = per_microbatch + (first + last) / p;
    const double heaviest = per_microbatch + (params.stages == 1 ? first + last : std::max(first, last));
    // The heaviest stage sets the steady state; the papers' idle time scales with the mean stage; fill and drain
    // each wait on every boundary's send.
    const double sends = params.kind == ScheduleKind::interleaved ? p * params.virtual_chunks - 1 : p - 1;
    return m * heaviest + closed_form_bubble_overhead(params) * m * mean + 2.0 * sends * params.p2p_seconds;
}

double op_progress(const PipelineOp& op, double t_seconds) {
    if (t_seconds <= op.start_seconds) return 0.0;
    if (t_seconds >= op.end_seconds()) return 1.0;
    return (t_seconds - op.start_seconds) / op.duration_seconds;
}

std::vector<int> inflight_at(const ScheduleTimeline& timeline, double t_seconds) {
    std::vector<int> inflight(timeline.stages, 0);
    const int count_per_op = inflight_count_per_op(timeline.kind, timeline.microbatches);
    for (const PipelineOp& op : timeline.ops) {
        if (op.kind == PipelineOpKind::forward && op.start_seconds < t_seconds) inflight[op.device] += count_per_op;
        if (frees_activations(timeline.kind, op.kind) && op.end_seconds() <= t_seconds)
            inflight[op.device] -= count_per_op;
    }
    return inflight;
}

std::vector<double> inflight_activations_at(const ScheduleTimeline& timeline, double t_seconds) {
    const std::vector<int> counts = inflight_at(timeline, t_seconds);
    const double per_count = timeline.kind == ScheduleKind::interleaved ? 1.0 / timeline.virtual_chunks : 1.0;
    std::vector<double> activations(counts.size());
    for (std::size_t d = 0; d < counts.size(); ++d) activations[d] = counts[d] * per_count;
    return activations;
}

}  // namespace core
