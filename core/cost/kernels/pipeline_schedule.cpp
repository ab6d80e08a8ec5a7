#include "core/cost/kernels/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
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
    bool overlaps_next = false;  // this forward and the backward in the next slot run as one F&B cell (DualPipe)
};

// Where the device orders are written: the slots are sized up front (schedule_op_count), so a push is a store, and a
// push past the end is a planner bug, not bad input.
class OrderOut {
public:
    OrderOut(PlannedOp* next, PlannedOp* end) : next_(next), end_(end) {}
    void push_back(const PlannedOp& op) {
        if (next_ == end_) throw std::logic_error("pipeline schedule: more ops than schedule_op_count");
        *next_++ = op;
    }
    PlannedOp& back() { return next_[-1]; }
    const PlannedOp* next() const { return next_; }

private:
    PlannedOp* next_;
    PlannedOp* end_;
};

// GPipe (Huang et al. 2019): every forward, then every backward, in micro-batch order.
void plan_gpipe(int device, int microbatches, OrderOut& order) {
    for (int j = 0; j < microbatches; ++j) order.push_back({PipelineOpKind::forward, device, j});
    for (int j = 0; j < microbatches; ++j) order.push_back({PipelineOpKind::backward, device, j});
}

// PipeDream-Flush 1F1B (Narayanan et al. 2021 sec 2.2.1): p-d-1 warm-up forwards, 1F1B pairs, cool-down backwards.
void plan_one_f_one_b(int device, int stages, int microbatches, OrderOut& order) {
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
void plan_interleaved(int device, int stages, int microbatches, int chunks, OrderOut& order) {
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
void plan_zb_h1(int device, int stages, int microbatches, OrderOut& order) {
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

// DualPipe (DeepSeek-V3 sec 3.2.1, fig. 5) and its cut-in-half DualPipeV (DualPipe README): a device holds two
// model chunks, "phase 0" fed from its nearer end of the pipeline and "phase 1" fed from the farther one, and runs
// eight phases of its order, named as in the README's figures: nF0, nF0F1, nB1W1F1, the steady nF0B1F1B0 whose
// pairs are overlapped F&B cells, nB1F1B0, nB1B0, nWB0, nW. A device `distance` from its nearer end of
// `half_devices` (DualPipe p/2, DualPipeV p) waits less and holds its weight gradients back longer.
class DualPipeOrder {
public:
    struct Phase {
        int stage;             // the model stage this chunk computes
        int first_microbatch;  // its micro-batches are first_microbatch .. first_microbatch + per-phase count - 1
    };
    DualPipeOrder(OrderOut& order, Phase phase0, Phase phase1) : order_(order), phases_{phase0, phase1} {}

    void plan(int distance, int half_devices, int microbatches_per_phase) {
        const int near = distance;                     // h in the README's code
        const int far = half_devices - distance - 1;   // H - h - 1
        const bool middle = far == 0;                  // the devices where the two directions meet
        for (int i = 0; i < 2 * far; ++i) forward(0);
        for (int i = 0; i < near + 1; ++i) {
            forward(0);
            forward(1);
        }
        // Zero bubble in the warm-up: B's input gradient goes out first, its W right after.
        for (int i = 0; i < far; ++i) {
            backward(1, true);
            weight();
            forward(1);
        }
        const int steady = microbatches_per_phase - 2 * half_devices + near + 1;
        for (int i = 0; i < steady; ++i) {
            // Where the directions meet, the first pair runs one after the other: it shortens the bubble (README code).
            if (i == 0 && middle) {
                forward(0);
                backward(1, false);
            } else {
                forward_backward(0, 1);
            }
            forward_backward(1, 0);
        }
        for (int i = 0; i < far; ++i) {
            backward(1, false);
            forward_backward(1, 0);
        }
        // Of the 2(near+1) backward chunks of nB1B0, the later half hold their W back to fill the drain.
        for (int i = 0; i < 2 * (near + 1); ++i) backward(i % 2 == 0 ? 1 : 0, i >= near + 1);
        for (int i = 0; i < far; ++i) {
            weight();
            backward(0, true);
        }
        for (int i = 0; i < near + 1; ++i) weight();
    }

private:
    void forward(int phase) { order_.push_back({PipelineOpKind::forward, phases_[phase].stage, next(forwards_[phase], phase)}); }
    void backward(int phase, bool hold_weight_grad) {
        const int microbatch = next(backwards_[phase], phase);
        order_.push_back({hold_weight_grad ? PipelineOpKind::backward_input : PipelineOpKind::backward, phases_[phase].stage, microbatch});
        if (hold_weight_grad) held_.push_back({PipelineOpKind::weight_grad, phases_[phase].stage, microbatch});
    }
    void weight() {
        order_.push_back(held_.front());
        held_.pop_front();
    }
    void forward_backward(int forward_phase, int backward_phase) {
        forward(forward_phase);
        order_.back().overlaps_next = true;
        backward(backward_phase, false);
    }
    int next(int& counter, int phase) const { return phases_[phase].first_microbatch + counter++; }

    OrderOut& order_;
    Phase phases_[2];
    int forwards_[2] = {0, 0};
    int backwards_[2] = {0, 0};
    std::deque<PlannedOp> held_;  // W held back, oldest first
};

// DualPipe: micro-batches 0..m/2-1 enter at device 0 and run stage s on device s; m/2..m-1 enter at device p-1
// and run stage s on device p-1-s. Phase 0 is the direction entering at the device's nearer end.
void plan_dualpipe(int device, int stages, int microbatches, OrderOut& order) {
    const int half = stages / 2;
    const int per_direction = microbatches / 2;
    const DualPipeOrder::Phase down{device, 0};                       // entering at device 0
    const DualPipeOrder::Phase up{stages - 1 - device, per_direction};  // entering at device p-1
    const bool upper_half = device < half;
    DualPipeOrder(order, upper_half ? down : up, upper_half ? up : down)
        .plan(std::min(device, stages - 1 - device), half, per_direction);
}

// DualPipeV: 2p stages in a V, stage s on device s going down and stage 2p-1-s on device s coming back; every
// micro-batch enters and leaves at device 0. Phase 0 is the way down, phase 1 the way back.
void plan_dualpipe_v(int device, int stages, int microbatches, OrderOut& order) {
    DualPipeOrder(order, {device, 0}, {2 * stages - 1 - device, 0}).plan(device, stages, microbatches);
}

// Each device's prescribed order, stored device after device; device d's slots are [begin[d], begin[d+1]).
struct DeviceOrders {
    std::vector<PlannedOp> slots;
    std::vector<std::size_t> begin;
};

DeviceOrders plan_orders(const ScheduleParams& params) {
    DeviceOrders orders;
    orders.slots.resize(schedule_op_count(params));
    orders.begin.reserve(params.stages + 1);
    OrderOut out(orders.slots.data(), orders.slots.data() + orders.slots.size());
    for (int device = 0; device < params.stages; ++device) {
        orders.begin.push_back(static_cast<std::size_t>(out.next() - orders.slots.data()));
        switch (params.kind) {
            case ScheduleKind::naive: plan_gpipe(device, 1, out); break;
            case ScheduleKind::gpipe: plan_gpipe(device, params.microbatches, out); break;
            case ScheduleKind::one_f_one_b:
                plan_one_f_one_b(device, params.stages, params.microbatches, out);
                break;
            case ScheduleKind::interleaved:
                // With one chunk per device the interleaved schedule is plain 1F1B (Megatron only interleaves v > 1).
                if (params.virtual_chunks == 1)
                    plan_one_f_one_b(device, params.stages, params.microbatches, out);
                else
                    plan_interleaved(device, params.stages, params.microbatches, params.virtual_chunks, out);
                break;
            case ScheduleKind::zb_h1: plan_zb_h1(device, params.stages, params.microbatches, out); break;
            case ScheduleKind::dualpipe: plan_dualpipe(device, params.stages, params.microbatches, out); break;
            case ScheduleKind::dualpipe_v: plan_dualpipe_v(device, params.stages, params.microbatches, out); break;
        }
    }
    if (out.next() != orders.slots.data() + orders.slots.size()) throw std::logic_error("pipeline schedule: fewer ops than schedule_op_count");
    orders.begin.push_back(orders.slots.size());
    return orders;
}

struct OpDurations {
    double forward, backward, backward_input, weight_grad, forward_backward;
};

OpDurations op_durations(const ScheduleParams& params) {
    // Naive pushes the whole batch, m micro-batches' worth; a chunk holds a share of one L/p share of the layers.
    const double scale = params.kind == ScheduleKind::naive
                             ? params.microbatches
                             : schedule_placement(params.kind, params.stages, params.virtual_chunks).activation_share();
    const double forward_backward =
        params.forward_backward_seconds > 0 ? params.forward_backward_seconds : params.forward_seconds + params.backward_seconds;
    return {params.forward_seconds * scale, params.backward_seconds * scale,
            (params.backward_seconds - params.weight_grad_seconds) * scale, params.weight_grad_seconds * scale,
            forward_backward * scale};
}

// A forward adds its activations; the op that ends the backward frees them. Naive's one op carries m micro-batches.
int inflight_count_per_op(ScheduleKind kind, int microbatches) { return kind == ScheduleKind::naive ? microbatches : 1; }

// The op that ends a micro-batch's backward on a stage: the whole backward, or W where B and W are split (W still
// reads the saved inputs). A B whose W follows frees nothing.
bool frees_activations(PipelineOpKind op_kind) {
    return op_kind == PipelineOpKind::backward || op_kind == PipelineOpKind::weight_grad;
}

// Where a stage runs: in order down the devices and round again (interleaved); DualPipe's second half of the
// micro-batches runs up the devices; DualPipeV's second half of the stages comes back up.
int device_of(const ScheduleParams& params, int virtual_stage, int microbatch) {
    switch (params.kind) {
        case ScheduleKind::dualpipe:
            return microbatch < params.microbatches / 2 ? virtual_stage : params.stages - 1 - virtual_stage;
        case ScheduleKind::dualpipe_v:
            return virtual_stage < params.stages ? virtual_stage : 2 * params.stages - 1 - virtual_stage;
        default: return virtual_stage % params.stages;
    }
}

// Which of its chunks a device runs: DualPipe 0 for the micro-batches entering at device 0; DualPipeV 0 on the
// way down; interleaved the round.
int chunk_of(const ScheduleParams& params, int virtual_stage, int microbatch) {
    switch (params.kind) {
        case ScheduleKind::dualpipe: return microbatch < params.microbatches / 2 ? 0 : 1;
        case ScheduleKind::dualpipe_v: return virtual_stage < params.stages ? 0 : 1;
        default: return virtual_stage / params.stages;
    }
}

// A schedule's ops and what each waits on, without their durations. Each device's order fixes its ops' sequence, so
// an op starts at max(its device is free, its inputs arrived) whatever the durations: one order that places every
// op after its inputs serves them all. Built once per kind, p, m and v (schedule_graph); a timeline is one pass over it.
struct ScheduleGraph {
    ScheduleKind kind = ScheduleKind::one_f_one_b;
    int stages = 0, microbatches = 0, virtual_chunks = 0;
    DeviceOrders orders;
    struct Cell {
        std::uint32_t slot = 0;         // its op in orders.slots; an F&B cell's backward is the slot after
        std::uint32_t device = 0;
        // The slots whose ends it waits on (an F&B cell: both halves' inputs); unused ones name the slot past the last,
        // which ends at 0.
        std::uint32_t inputs[3] = {};
        std::uint8_t input_count = 0;
        std::uint8_t crossing[3] = {};  // 1: input i comes from another device, p2p_seconds later
        std::uint8_t count = 1;         // 2 for an F&B cell
        std::uint16_t duration_class = 0;
    };
    std::vector<Cell> cells;                    // every input placed before the cells that wait on it
    std::vector<std::uint32_t> duration_slots;  // per duration class, a slot that has it (its kind, edges, F&B pairing)
    std::vector<int> peak_inflight;             // per device: the order alone decides it
    bool matches(const ScheduleParams& params) const {
        return kind == params.kind && stages == params.stages && microbatches == params.microbatches && virtual_chunks == params.virtual_chunks;
    }
};

ScheduleGraph build_schedule_graph(const ScheduleParams& params) {
    ScheduleGraph graph;
    graph.kind = params.kind;
    graph.stages = params.stages;
    graph.microbatches = params.microbatches;
    graph.virtual_chunks = params.virtual_chunks;
    graph.orders = plan_orders(params);
    const DeviceOrders& orders = graph.orders;
    const std::vector<PlannedOp>& slots = orders.slots;
    const int stages = params.stages;
    const int virtual_stages = schedule_placement(params.kind, params.stages, params.virtual_chunks).model_stages;
    const int microbatches = params.kind == ScheduleKind::naive ? 1 : params.microbatches;

    // Each stage and micro-batch's forward slot and backward (or B) slot: what the others wait on.
    const auto index = [&](int stage, int microbatch) { return static_cast<std::size_t>(stage) * microbatches + microbatch; };
    std::vector<std::uint32_t> forward_slot(static_cast<std::size_t>(virtual_stages) * microbatches, 0);
    std::vector<std::uint32_t> backward_slot(forward_slot.size(), 0);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const PlannedOp& slot = slots[i];
        if (slot.kind == PipelineOpKind::forward) forward_slot[index(slot.virtual_stage, slot.microbatch)] = static_cast<std::uint32_t>(i);
        else if (slot.kind != PipelineOpKind::weight_grad) backward_slot[index(slot.virtual_stage, slot.microbatch)] = static_cast<std::uint32_t>(i);
    }
    // A forward waits on the stage before's forward; a backward on its own forward and, but on the last stage, on the
    // stage after's backward; a W on its own B.
    const auto add_inputs = [&](const PlannedOp& slot, int device, ScheduleGraph::Cell& cell) {
        const auto add = [&](std::uint32_t input, int from_stage) {
            cell.crossing[cell.input_count] = device_of(params, from_stage, slot.microbatch) != device ? 1 : 0;
            cell.inputs[cell.input_count++] = input;
        };
        const int stage = slot.virtual_stage, j = slot.microbatch;
        switch (slot.kind) {
            case PipelineOpKind::forward:
                if (stage > 0) add(forward_slot[index(stage - 1, j)], stage - 1);
                break;
            case PipelineOpKind::backward:
            case PipelineOpKind::backward_input:
                add(forward_slot[index(stage, j)], stage);
                if (stage < virtual_stages - 1) add(backward_slot[index(stage + 1, j)], stage + 1);
                break;
            case PipelineOpKind::weight_grad: add(backward_slot[index(stage, j)], stage); break;
        }
    };
    // A duration depends on the op's kind and on whether its stage is the first or the last (the edges' extra work).
    const auto duration_key = [&](const PlannedOp& slot) {
        return static_cast<int>(slot.kind) * 4 + (slot.virtual_stage == 0 ? 2 : 0) + (slot.virtual_stage == virtual_stages - 1 ? 1 : 0);
    };
    std::vector<int> class_of_key(16 + 16 * 16, -1);

    // Each cell, with its inputs, made once at its first slot (the readiness loop below may look at a cell many times).
    const std::uint32_t past_last = static_cast<std::uint32_t>(slots.size());
    std::vector<ScheduleGraph::Cell> cell_at(slots.size());
    for (int device = 0; device < stages; ++device) {
        for (std::size_t at = orders.begin[device]; at < orders.begin[device + 1];) {
            ScheduleGraph::Cell& cell = cell_at[at];
            cell.slot = static_cast<std::uint32_t>(at);
            cell.device = static_cast<std::uint32_t>(device);
            cell.count = slots[at].overlaps_next ? 2 : 1;
            for (std::size_t k = 0; k < cell.count; ++k) add_inputs(slots[at + k], device, cell);
            for (int i = cell.input_count; i < 3; ++i) cell.inputs[i] = past_last;
            const int key = cell.count == 2 ? 16 + duration_key(slots[at]) * 16 + duration_key(slots[at + 1]) : duration_key(slots[at]);
            if (class_of_key[key] < 0) {
                class_of_key[key] = static_cast<int>(graph.duration_slots.size());
                graph.duration_slots.push_back(static_cast<std::uint32_t>(at));
            }
            cell.duration_class = static_cast<std::uint16_t>(class_of_key[key]);
            at += cell.count;
        }
    }

    // List scheduling with readiness alone: a device places its next cells while their inputs are placed; placing a
    // cell can only unblock the devices next to it. An unused input names the slot past the last, placed from the start.
    std::vector<char> placed(slots.size() + 1, 0);
    placed[past_last] = 1;
    std::vector<std::size_t> next(orders.begin.begin(), orders.begin.end() - 1);
    std::vector<int> to_visit;
    std::vector<char> queued(stages, 1);
    for (int device = stages - 1; device >= 0; --device) to_visit.push_back(device);
    graph.cells.reserve(slots.size());
    std::size_t placed_count = 0;
    while (!to_visit.empty()) {
        const int device = to_visit.back();
        to_visit.pop_back();
        queued[device] = 0;
        bool placed_here = false;
        while (next[device] < orders.begin[device + 1]) {
            const ScheduleGraph::Cell& cell = cell_at[next[device]];
            if (!(placed[cell.inputs[0]] & placed[cell.inputs[1]] & placed[cell.inputs[2]])) break;
            graph.cells.push_back(cell);
            placed[cell.slot] = 1;
            placed[cell.slot + cell.count - 1] = 1;
            next[device] += cell.count;
            placed_count += cell.count;
            placed_here = true;
        }
        if (!placed_here) continue;
        for (int neighbour : {(device + 1) % stages, (device + stages - 1) % stages}) {
            if (!queued[neighbour]) {
                queued[neighbour] = 1;
                to_visit.push_back(neighbour);
            }
        }
    }
    // Every order above is deadlock-free; reaching this means a planner bug, not bad input.
    if (placed_count != slots.size()) throw std::logic_error("pipeline schedule: device orders deadlock");

    // Per device, the most micro-batches whose forward has started and whose backward has not ended, in its order.
    const int count_per_op = inflight_count_per_op(params.kind, params.microbatches);
    graph.peak_inflight.assign(stages, 0);
    for (int device = 0; device < stages; ++device) {
        int inflight = 0;
        for (std::size_t i = orders.begin[device]; i < orders.begin[device + 1]; ++i) {
            if (slots[i].kind == PipelineOpKind::forward) inflight += count_per_op;
            if (frees_activations(slots[i].kind)) inflight -= count_per_op;
            graph.peak_inflight[device] = std::max(graph.peak_inflight[device], inflight);
        }
    }
    return graph;
}

// Graphs of at most this many ops are kept for reuse, the most recent on each thread: a drag that leaves the pipeline
// alone reuses its graph, and the 405B search's kept layouts share between 8 and 32 shapes (BM_Plan: 6.7 ms with 8 kept,
// 5.2 ms with 32 or 128). Their ops together stay under a bound, about 13 MB a thread.
inline constexpr std::size_t cached_graph_ops = 1u << 16;
inline constexpr std::size_t cached_graphs = 32;
inline constexpr std::size_t cached_ops_total = 1u << 18;

std::shared_ptr<const ScheduleGraph> schedule_graph(const ScheduleParams& params) {
    thread_local std::vector<std::shared_ptr<const ScheduleGraph>> recent;  // the most recently used last
    thread_local std::size_t recent_ops = 0;                                // their ops together
    for (std::size_t i = 0; i < recent.size(); ++i) {
        if (!recent[i]->matches(params)) continue;
        std::shared_ptr<const ScheduleGraph> found = recent[i];
        recent.erase(recent.begin() + static_cast<std::ptrdiff_t>(i));
        recent.push_back(found);
        return found;
    }
    auto graph = std::make_shared<const ScheduleGraph>(build_schedule_graph(params));
    const std::size_t ops = graph->orders.slots.size();
    if (ops <= cached_graph_ops) {
        while (!recent.empty() && (recent.size() == cached_graphs || recent_ops + ops > cached_ops_total)) {
            recent_ops -= recent.front()->orders.slots.size();
            recent.erase(recent.begin());
        }
        recent.push_back(graph);
        recent_ops += ops;
    }
    return graph;
}

// How long an op takes under the params: its kind's time on one chunk, plus its stage's edge extra.
class OpSeconds {
public:
    explicit OpSeconds(const ScheduleParams& params)
        : params_(params),
          virtual_stages_(schedule_placement(params.kind, params.stages, params.virtual_chunks).model_stages),
          durations_(op_durations(params)) {}

    // F&B: the overlapped pair's time, plus each chunk's edge-stage extra (the embedding, the logits and loss).
    double overlapped_duration(const PlannedOp& forward, const PlannedOp& backward) const {
        return durations_.forward_backward + edge_extra_of(forward) + edge_extra_of(backward);
    }

    double duration_of(const PlannedOp& slot) const {
        double duration = 0;
        switch (slot.kind) {
            case PipelineOpKind::forward: duration = durations_.forward; break;
            case PipelineOpKind::backward: duration = durations_.backward; break;
            case PipelineOpKind::backward_input: duration = durations_.backward_input; break;
            case PipelineOpKind::weight_grad: duration = durations_.weight_grad; break;
        }
        return duration + edge_extra_of(slot);
    }

private:
    double edge_extra_of(const PlannedOp& slot) const {
        const double scale = params_.kind == ScheduleKind::naive ? params_.microbatches : 1.0;  // naive pushes the whole batch
        double extra = 0;
        if (slot.virtual_stage == 0) extra += scale * extra_of(slot.kind, params_.first_forward_extra_seconds, params_.first_backward_extra_seconds,
                                                                params_.first_weight_grad_extra_seconds);
        if (slot.virtual_stage == virtual_stages_ - 1) {
            extra += scale * extra_of(slot.kind, params_.last_forward_extra_seconds, params_.last_backward_extra_seconds,
                                      params_.last_weight_grad_extra_seconds);
        }
        return extra;
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

    const ScheduleParams& params_;
    int virtual_stages_;
    OpDurations durations_;
};

// DualPipe's chunk times: its chunk is one L/p share, DualPipeV's half of one (its PP is 2p stages).
struct ChunkSeconds {
    double forward, backward, weight_grad, forward_backward;  // backward: the whole chunk, B + W
};

ChunkSeconds dualpipe_chunk_seconds(const ScheduleParams& params) {
    const double share = schedule_placement(params.kind, params.stages, params.virtual_chunks).activation_share();
    const double forward_backward =
        params.forward_backward_seconds > 0 ? params.forward_backward_seconds : params.forward_seconds + params.backward_seconds;
    return {params.forward_seconds * share, params.backward_seconds * share, params.weight_grad_seconds * share,
            forward_backward * share};
}

// The DualPipe README table's bubble, (PP/2-1)(F&B+B-3W), in seconds: the idle time of the devices where the two
// directions meet. Devices nearer the ends run fewer overlapped cells, so with F&B < F + B they idle less.
double dualpipe_idle_seconds(const ScheduleParams& params) {
    const ChunkSeconds chunk = dualpipe_chunk_seconds(params);
    const int model_stages = schedule_placement(params.kind, params.stages, params.virtual_chunks).model_stages;
    return (model_stages / 2.0 - 1) * (chunk.forward_backward + chunk.backward - 3 * chunk.weight_grad);
}

// The F&B cells of a device h from its nearer end of H (DualPipeOrder::plan): two per steady step, but the first
// where the directions meet, and one per nB1F1B0 step.
int dualpipe_overlapped_cells(int distance, int half_devices, int microbatches_per_phase) {
    const int far = half_devices - distance - 1;
    const int steady = microbatches_per_phase - 2 * half_devices + distance + 1;
    return 2 * steady - (far == 0 ? 1 : 0) + far;
}

}  // namespace

SchedulePlacement schedule_placement(ScheduleKind kind, int devices, int virtual_chunks) {
    SchedulePlacement placement;
    placement.devices = devices;
    placement.model_stages = devices;
    switch (kind) {
        case ScheduleKind::interleaved:
            placement.stages_per_device = virtual_chunks;
            placement.model_stages = devices * virtual_chunks;
            break;
        case ScheduleKind::dualpipe: placement.stages_per_device = 2; break;
        case ScheduleKind::dualpipe_v:
            placement.stages_per_device = 2;
            placement.model_stages = 2 * devices;
            break;
        default: break;
    }
    return placement;
}

double SchedulePlacement::parameter_copies() const {
    // Stages held times layers per stage, over L/p: interleaved v (L/(p v)) / (L/p) = 1, DualPipe 2 (L/p) / (L/p) = 2.
    return static_cast<double>(stages_per_device) * activation_share();
}

double SchedulePlacement::activation_share() const { return static_cast<double>(devices) / model_stages; }

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
        case ScheduleKind::dualpipe: {
            // Device h from its nearer end splits off 2H - h - 1 weight gradients; two devices per h.
            const std::size_t half = stages / 2;
            return stages * microbatches * 2 + 3 * half * half - half;
        }
        case ScheduleKind::dualpipe_v: return stages * microbatches * 4 + (3 * stages * stages - stages) / 2;
        default: return stages * microbatches * 2;
    }
}

void validate_schedule_params(const ScheduleParams& params) {
    if (params.kind < ScheduleKind::naive || params.kind > ScheduleKind::dualpipe_v)
        throw InputError("parallel.schedule", "unknown schedule kind " + std::to_string(static_cast<int>(params.kind)));
    if (params.stages < 1 || params.stages > max_stages)
        throw InputError("parallel.pp", must_be_in(1, max_stages, params.stages));
    if (params.microbatches < 1 || params.microbatches > max_microbatches)
        throw InputError("parallel.microbatches", must_be_in(1, max_microbatches, params.microbatches));
    if (params.virtual_chunks < 1)
        throw InputError("parallel.virtual_stages", must_be_at_least_one(params.virtual_chunks));
    if (params.virtual_chunks > 1 && params.kind != ScheduleKind::interleaved)
        throw InputError("parallel.virtual_stages", "must be 1 unless the schedule is interleaved, got " +
                                                        std::to_string(params.virtual_chunks) + " with " +
                                                        schedule_name(params.kind));
    if (params.kind == ScheduleKind::interleaved && params.virtual_chunks > 1 &&
        params.microbatches % params.stages != 0)
        throw InputError("parallel.microbatches", "the interleaved schedule needs a multiple of parallel.pp (" +
                                                      std::to_string(params.stages) + "), got " +
                                                      std::to_string(params.microbatches));
    // The model's layer count is the layout's concern (check_layout); here only the pipeline's own needs.
    if (const auto fit = schedule_fit_problem(params.kind, params.stages, params.microbatches, std::numeric_limits<int>::max()))
        throw InputError(fit->pipeline_size ? "parallel.pp" : "parallel.microbatches", fit->reason);
    require_positive_seconds(params.forward_seconds, "schedule.forward_seconds");
    require_positive_seconds(params.backward_seconds, "schedule.backward_seconds");
    // Split schedules need a W inside B + W; for DualPipe an F&B cell takes at least its longer half and at most both in a row.
    if (schedule_traits(params.kind).splits_weight_gradient) {
        require_positive_seconds(params.weight_grad_seconds, "schedule.weight_grad_seconds");
        if (params.weight_grad_seconds >= params.backward_seconds)
            throw InputError("schedule.weight_grad_seconds",
                             "must be less than the whole backward (" + format_double(params.backward_seconds) +
                                 " s), got " + format_double(params.weight_grad_seconds));
    }
    const double longer = std::max(params.forward_seconds, params.backward_seconds);
    const double both = params.forward_seconds + params.backward_seconds;
    if (!std::isfinite(params.forward_backward_seconds) || params.forward_backward_seconds < 0 ||
        (params.forward_backward_seconds > 0 && (params.forward_backward_seconds < longer * (1 - 1e-12) || params.forward_backward_seconds > both * (1 + 1e-12))))
        throw InputError("schedule.forward_backward_seconds",
                         "must be 0 (no overlap) or between the longer of F and B (" + format_double(longer) + " s) and F + B (" +
                             format_double(both) + " s), got " + format_double(params.forward_backward_seconds));
    if (!std::isfinite(params.p2p_seconds) || params.p2p_seconds < 0)
        throw InputError("schedule.p2p_seconds",
                         "must be a finite number of seconds >= 0, got " + format_double(params.p2p_seconds));
    if (schedule_op_count(params) > max_schedule_ops)
        throw InputError("parallel.microbatches", "the timeline would hold " +
                                                      std::to_string(schedule_op_count(params)) +
                                                      " ops, more than the limit of " +
                                                      std::to_string(max_schedule_ops));
}

namespace {

// generate_schedule's work, its op list kept or not: one pass over the schedule's graph places every op at
// max(its device is free, its inputs arrived) and measures each device's idle gaps. Idle sums the gaps before and
// between ops rather than subtracting busy time from the makespan, so a gap-free device idles exactly zero; the two
// halves of an F&B cell share their time, so the second adds no gap.
ScheduleTimeline run_schedule(const ScheduleParams& params, bool keep_ops) {
    validate_schedule_params(params);
    const std::shared_ptr<const ScheduleGraph> graph = schedule_graph(params);
    const std::vector<PlannedOp>& slots = graph->orders.slots;
    ScheduleTimeline timeline;
    timeline.kind = params.kind;
    timeline.stages = params.stages;
    timeline.microbatches = params.microbatches;
    timeline.virtual_chunks = schedule_placement(params.kind, params.stages, params.virtual_chunks).stages_per_device;
    if (keep_ops) timeline.ops.resize(slots.size());

    const OpSeconds op_seconds(params);
    std::vector<double> durations(graph->duration_slots.size());
    for (std::size_t c = 0; c < durations.size(); ++c) {
        const std::uint32_t at = graph->duration_slots[c];
        durations[c] = slots[at].overlaps_next ? op_seconds.overlapped_duration(slots[at], slots[at + 1]) : op_seconds.duration_of(slots[at]);
    }
    std::vector<double> ends(slots.size() + 1, 0.0);  // the last: what an unused input reads
    const double transfer_seconds[2] = {0.0, params.p2p_seconds};
    // Every device is free from 0 and device 0's first op, stage 0's first forward, waits on nothing: the step starts at 0.
    std::vector<double> device_free(params.stages, 0.0), previous_end(params.stages, 0.0), idle_gaps(params.stages, 0.0);
    for (const ScheduleGraph::Cell& cell : graph->cells) {
        // Ends and transfers are >= 0, so an unused input (0 + 0) never moves the maximum.
        const double ready = std::max(std::max(ends[cell.inputs[0]] + transfer_seconds[cell.crossing[0]], ends[cell.inputs[1]] + transfer_seconds[cell.crossing[1]]),
                                      ends[cell.inputs[2]] + transfer_seconds[cell.crossing[2]]);
        const std::uint32_t device = cell.device;
        const double start = std::max(device_free[device], ready);
        const double duration = durations[cell.duration_class];
        const double end = start + duration;
        // An F&B cell's second half starts where its first does, before the first ends: it adds no gap.
        ends[cell.slot] = end;
        ends[cell.slot + cell.count - 1] = end;
        idle_gaps[device] += std::max(0.0, start - previous_end[device]);
        previous_end[device] = std::max(previous_end[device], end);
        if (keep_ops) {
            for (std::uint32_t k = 0; k < cell.count; ++k) {
                const PlannedOp& one = slots[cell.slot + k];
                PipelineOp& op = timeline.ops[cell.slot + k];
                op = PipelineOp{static_cast<int>(device), chunk_of(params, one.virtual_stage, one.microbatch), one.microbatch, one.kind, start, duration};
                op.stage = one.virtual_stage;
                op.overlapped = cell.count == 2;
            }
        }
        device_free[device] = end;
    }

    double last_end = 0;
    for (double end : previous_end) last_end = std::max(last_end, end);
    timeline.makespan_seconds = last_end;
    // The mean over devices: the first and the last carry the edge stages' extra work.
    const double edge_extra = params.first_forward_extra_seconds + params.first_backward_extra_seconds + params.last_forward_extra_seconds +
                              params.last_backward_extra_seconds;
    timeline.busy_seconds_per_device = params.microbatches * (params.forward_seconds + params.backward_seconds + edge_extra / params.stages);
    // Each device idles after its last op until the step ends.
    double idle_sum = 0;
    const double activations_per_count =
        params.kind == ScheduleKind::naive ? 1.0 : schedule_placement(params.kind, params.stages, params.virtual_chunks).activation_share();
    timeline.peak_inflight_microbatches = graph->peak_inflight;
    timeline.peak_inflight_activations.resize(params.stages);
    for (int d = 0; d < params.stages; ++d) {
        const double idle = idle_gaps[d] + (last_end - previous_end[d]);
        idle_sum += idle;
        timeline.max_idle_seconds = std::max(timeline.max_idle_seconds, idle);
        timeline.peak_inflight_activations[d] = graph->peak_inflight[d] * activations_per_count;
    }
    const double idle_seconds_per_device = idle_sum / params.stages;
    timeline.bubble_fraction = idle_seconds_per_device / timeline.makespan_seconds;
    timeline.bubble_overhead = idle_seconds_per_device / timeline.busy_seconds_per_device;
    return timeline;
}

}  // namespace

ScheduleTimeline generate_schedule(const ScheduleParams& params) { return run_schedule(params, true); }

ScheduleTimeline schedule_figures(const ScheduleParams& params) { return run_schedule(params, false); }

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
        case ScheduleKind::dualpipe:
        case ScheduleKind::dualpipe_v:
            return dualpipe_idle_seconds(params) / (m * (params.forward_seconds + params.backward_seconds));
    }
    return 0;
}

double closed_form_idle_seconds(const ScheduleParams& params) {
    if (is_dualpipe(params.kind)) return dualpipe_idle_seconds(params);
    return closed_form_bubble_overhead(params) * params.microbatches * (params.forward_seconds + params.backward_seconds);
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
        case ScheduleKind::dualpipe:
        case ScheduleKind::dualpipe_v: return schedule_placement(params.kind, p, v).model_stages + 1;
    }
    return 0;
}

bool closed_form_applies(const ScheduleParams& params) {
    if (params.p2p_seconds > 0 || params.has_uneven_stages()) return false;
    if (params.kind == ScheduleKind::zb_h1 && params.microbatches < params.stages) return false;
    if (is_dualpipe(params.kind)) {
        // The table's regime, that of the README's figure: B's input half as long as F, and W no longer than F.
        const double input_grad = params.backward_seconds - params.weight_grad_seconds;
        const double tolerance = 1e-9 * params.forward_seconds;
        if (std::fabs(input_grad - params.forward_seconds) > tolerance || params.weight_grad_seconds > params.forward_seconds + tolerance)
            return false;
    }
    return true;
}

double closed_form_makespan(const ScheduleParams& params) {
    const double p = params.stages;
    const double m = params.microbatches;
    if (is_dualpipe(params.kind)) {
        // The devices where the directions meet: all their chunks, less what their F&B cells save, plus the table's
        // bubble; the edge devices' embedding and loss (DualPipe: half the micro-batches each way, DualPipeV: all,
        // both ends on device 0); the fill and drain sends.
        const bool v_shape = params.kind == ScheduleKind::dualpipe_v;
        const ChunkSeconds chunk = dualpipe_chunk_seconds(params);
        const int half_devices = v_shape ? params.stages : params.stages / 2;
        const int per_phase = v_shape ? params.microbatches : params.microbatches / 2;
        const double chunks = 2.0 * per_phase;
        const double cells = dualpipe_overlapped_cells(half_devices - 1, half_devices, per_phase);
        const double middle_busy = chunks * (chunk.forward + chunk.backward) - cells * (chunk.forward + chunk.backward - chunk.forward_backward);
        const double edges = per_phase * (params.first_forward_extra_seconds + params.first_backward_extra_seconds +
                                          params.last_forward_extra_seconds + params.last_backward_extra_seconds);
        const double sends = v_shape ? 2.0 * (p - 1) : p - 1;
        return middle_busy + dualpipe_idle_seconds(params) + edges + 2.0 * sends * params.p2p_seconds;
    }
    const double per_microbatch = params.forward_seconds + params.backward_seconds;
    const double first = params.first_forward_extra_seconds + params.first_backward_extra_seconds;
    const double last = params.last_forward_extra_seconds + params.last_backward_extra_seconds;
    const double mean = per_microbatch + (first + last) / p;
    // A middle stage carries neither edge: with three stages or more it sets the pace when both edges are lighter.
    const double heaviest = per_microbatch + (params.stages == 1 ? first + last
                                              : params.stages == 2 ? std::max(first, last)
                                                                   : std::max({0.0, first, last}));
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
        if (frees_activations(op.kind) && op.end_seconds() <= t_seconds)
            inflight[op.device] -= count_per_op;
    }
    return inflight;
}

std::vector<double> inflight_activations_at(const ScheduleTimeline& timeline, double t_seconds) {
    const std::vector<int> counts = inflight_at(timeline, t_seconds);
    const double per_count = timeline.kind == ScheduleKind::naive
                                 ? 1.0
                                 : schedule_placement(timeline.kind, timeline.stages, timeline.virtual_chunks).activation_share();
    std::vector<double> activations(counts.size());
    for (std::size_t d = 0; d < counts.size(); ++d) activations[d] = counts[d] * per_count;
    return activations;
}

}  // namespace core
