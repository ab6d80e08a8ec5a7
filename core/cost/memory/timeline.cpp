#include "core/cost/memory/timeline.h"

#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/memory/allocator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace core {

namespace {

// The first point holding the most allocated bytes: where the panel marks the peak.
int highest_point(const std::vector<TimelinePoint>& points) {
    int peak = 0;
    for (std::size_t i = 1; i < points.size(); ++i) {
        if (points[i].allocated_bytes > points[static_cast<std::size_t>(peak)].allocated_bytes) peak = static_cast<int>(i);
    }
    return peak;
}

// Event ids: each block instance's own range, so that the allocator sees every tensor of the step once.
constexpr long long kInstanceStride = 1LL << 22;

// Replays an operator recipe's step through the caching allocator.
class Replay {
    // What a tracked tensor is, for the timeline's parts (everything else is counted by difference).
    enum class Part { other, weights, master, optimizer, grads, logits, count };

public:
    Replay(const MemoryConstants& k, const Layout& layout, int stage, const StageMemory& memory)
        : k_(k), blocks_(operator_blocks(k, layout)), memory_(memory), layers_(memory.layers),
          first_(memory.holds_embedding), last_(memory.holds_head) {
        // Which of the head's tensors are autocast's weight copies (not the logits and the loss's working set).
        if (last_) {
            for (const ProgramTensor& tensor : block_program(*k.scenario, blocks_.split, BlockRole::head)->tensors) {
                head_copies_.push_back(tensor.cached_weight);
            }
        }
        const double weight_bytes = k.state_bytes_per_param[static_cast<int>(StateKind::weights)];
        const double shards = std::max(1.0, memory.params_per_gpu > 0 ? 1.0 : 1.0);
        (void)shards;
        // The state's share on this GPU over the whole stage's parameters: each parameter tensor's part of it.
        const double params = std::max(1.0, memory.params_per_gpu);
        weight_share_ = memory.weights_bytes / params;
        master_share_ = memory.master_bytes / params;
        optimizer_share_ = memory.optimizer_bytes / params;
        grad_share_ = k.state_bytes_per_param[static_cast<int>(StateKind::grads)] * (memory.grads_bytes > 0 ? 1.0 : 1.0);
        if (k.lora) {  // the adapters in their dtype, their gradients and two moments alike, sharded as lora_state_into has them
            const double a = k.lora_counts.adapter_bytes_per_param;
            const auto share = [&](StateKind kind) { return shard_share(kind, k.sharded_optimizer, layout); };
            weight_share_ = a * share(StateKind::weights);
            grad_share_ = a * share(StateKind::grads);
            master_share_ = 0;
            optimizer_share_ = 2.0 * a * share(StateKind::optimizer);
            frozen_share_ = share(StateKind::weights);  // ZeRO-3 shards the frozen base too (FSDP and DeepSpeed shard every parameter)
        }
        // ZeRO-3 / FSDP: each layer's parameters all-gathered in the bytes they are gathered in (a frozen base in its own).
        if (is_sharded(StateKind::weights, k.sharded_optimizer, layout)) {
            const double tp = std::max(1, layout.tp);
            const LoraCounts& lora = k.lora_counts;
            layer_gather_bytes_ = k.lora ? (lora.layer_frozen_bytes + lora.layer_adapter_params * lora.adapter_bytes_per_param) / tp
                                         : k.layer_params / tp * k.gather_bytes;
        }
        // ZeRO-2 and 3: the gradients a block's backward makes whole are reduce-scattered as it ends; this GPU keeps a shard.
        if (is_sharded(StateKind::grads, k.sharded_optimizer, layout)) grad_shards_ = shard_ranks(layout);
        // FSDP kept gathered under the pipeline: the layers stay gathered, and the gradients whole, until the step's last
        // backward.
        kept_ = k.fsdp_kept_under_pipeline && layout.pp > 1 && layer_gather_bytes_ > 0 && grad_shards_ > 1;
        (void)weight_bytes;
        (void)stage;
    }

    MemoryTimeline run(const std::vector<StageOp>& order, int microbatches) {
        MemoryTimeline timeline;
        timeline.stage = memory_.stage;
        timeline.allocator_model = true;
        allocate_state();
        for (const StageOp& op : order) {
            if (!op.forward) last_backward_microbatch_ = std::max(last_backward_microbatch_, op.microbatch);
        }
        for (int step = 0; step < 2; ++step) {
            recording_ = step == 1;
            points_ = &timeline.points;
            grads_live_ = k_.grads_from_start;
            if (k_.grads_from_start && step == 0) allocate_grads();
            for (const StageOp& op : order) {
                if (op.forward) forward(op.microbatch);
                else backward(op.microbatch, microbatches);
            }
            at(TimelinePhase::optimizer, -1, 0);
            optimizer_step(step == 0);
            point(TimelinePhase::optimizer, -1, 0);
            if (!k_.grads_from_start) release_grads();
            point(TimelinePhase::zero_grad, -1, 0);
        }
        timeline.peak_allocated_bytes = allocator_.peak_allocated_bytes() + untracked_bytes();
        timeline.peak_reserved_bytes = allocator_.peak_reserved_bytes() + untracked_bytes();
        // The step's highest moment falls inside an op (its working set, between two boundaries): a point of the curve
        // of its own, where it happened, so the curve reaches the peak it is marked with.
        double boundary_most = 0;
        for (const TimelinePoint& boundary : timeline.points) boundary_most = std::max(boundary_most, boundary.allocated_bytes);
        if (inside_peak_.allocated_bytes > boundary_most && inside_index_ <= timeline.points.size())
            timeline.points.insert(timeline.points.begin() + static_cast<std::ptrdiff_t>(inside_index_), inside_peak_);
        timeline.peak_point = highest_point(timeline.points);
        return timeline;
    }

private:
    // cuBLAS workspaces: allocated by the library outside the tensors the recipe names.
    double untracked_bytes() const { return memory_.workspace_bytes; }

    long long instance_id(int instance, int local) const { return static_cast<long long>(instance) * kInstanceStride + local; }

    // A block's events, with its input and output (and their gradients) the neighbouring blocks' own ids.
    void replay(const std::vector<TensorEvent>& events, const BlockMemory& block, int instance, int input_instance, long long input_id,
                long long input_grad_id, long long output_grad_id) {
        for (const TensorEvent& event : events) {
            long long id = instance_id(instance, event.tensor);
            if (event.tensor == block.input_id) id = input_id;
            if (event.tensor == block.grad_id_base + block.input_id) id = input_grad_id;
            if (event.tensor == block.grad_id_base + block.output_id) id = output_grad_id;
            (void)input_instance;
            if (event.bytes > 0) take(id, event.bytes, part_of(block, event.tensor));
            else give(id);
        }
    }

    // What a block's tensor is, for the stacked parts: its parameters' gradients; on the last stage the head's own tensors
    // and their gradients (the final norm's output, the logits, the loss's working set); the rest is counted by difference.
    Part part_of(const BlockMemory& block, int tensor) const {
        const int base = block.grad_id_base;
        if (tensor >= 2 * base && tensor < 3 * base) return Part::grads;
        if (&block != &blocks_.head || !last_ || tensor >= 3 * base) return Part::other;
        const int own = tensor < base ? tensor : tensor - base;
        if (own == block.input_id) return Part::other;  // the hidden state arriving, and its gradient going down
        if (own >= 0 && own < static_cast<int>(head_copies_.size()) && head_copies_[own]) return Part::other;
        return Part::logits;
    }

    // The allocator's calls, with what each tracked tensor took (its block, rounding and all) added to its part.
    void take(long long id, double bytes, Part part) {
        const double before = allocator_.allocated_bytes();
        allocator_.allocate(id, bytes);
        const double taken = allocator_.allocated_bytes() - before;
        if (part != Part::other && taken > 0) {
            tracked_[id] = {part, taken};
            part_bytes_[static_cast<int>(part)] += taken;
        }
        // The recorded step's highest moment so far, wherever it falls: kept as the point it would be.
        if (recording_ && allocator_.allocated_bytes() + untracked_bytes() > inside_peak_.allocated_bytes) {
            inside_peak_ = snapshot(where_phase_, where_layer_, where_microbatch_);
            inside_peak_.inside_op = true;
            inside_index_ = points_->size();
        }
    }
    void give(long long id) {
        allocator_.release(id);
        const auto found = tracked_.find(id);
        if (found == tracked_.end()) return;
        part_bytes_[static_cast<int>(found->second.first)] -= found->second.second;
        tracked_.erase(found);
    }

    int instance_of(int microbatch, int block) const { return 1 + microbatch * (layers_ + 2) + block; }  // 0: the state

    void forward(int microbatch) {
        // Block 0 the embedding (on the first stage), 1..layers the layers, layers + 1 the head (on the last).
        long long input_id = -1;
        int input_instance = -1;
        at(TimelinePhase::forward, -1, microbatch);
        if (first_) {
            const int instance = instance_of(microbatch, 0);
            replay(blocks_.embedding.forward_events, blocks_.embedding, instance, -1, -1, -1, -1);
            input_id = instance_id(instance, blocks_.embedding.output_id);
            input_instance = instance;
            activations_ += blocks_.embedding.forward_delta_bytes;
        } else {
            // A later stage receives its input from the previous one: the boundary activation.
            input_id = instance_id(instance_of(microbatch, 0), 0);
            take(input_id, blocks_.layer.grad_in_bytes, Part::other);
            input_instance = instance_of(microbatch, 0);
            activations_ += blocks_.layer.grad_in_bytes;
        }
        for (int layer = 0; layer < layers_; ++layer) {
            const int instance = instance_of(microbatch, 1 + layer);
            at(TimelinePhase::forward, layer, microbatch);
            gather(layer, layer + 1);
            replay(blocks_.layer.forward_events, blocks_.layer, instance, input_instance, input_id, -1, -1);
            input_id = instance_id(instance, blocks_.layer.output_id);
            input_instance = instance;
            activations_ += blocks_.layer.forward_delta_bytes;
            point(TimelinePhase::forward, layer, microbatch);
            if (!kept_) reshard(layer);
        }
        if (last_) {
            const int instance = instance_of(microbatch, layers_ + 1);
            at(TimelinePhase::loss, -1, microbatch);
            replay(blocks_.head.forward_events, blocks_.head, instance, input_instance, input_id, -1, -1);
        }
        // Autocast's cache goes when the forward leaves autocast.
        for (int layer = 0; layer < layers_; ++layer) {
            for (int id : blocks_.layer.autocast_cache_ids) give(instance_id(instance_of(microbatch, 1 + layer), id));
        }
        if (last_) point(TimelinePhase::loss, -1, microbatch);
    }

    void backward(int microbatch, int microbatches) {
        if (!grads_live_) {
            grads_live_ = true;
            if (microbatches > 1) allocate_grads();  // the first micro-batch's backward makes them all (accumulation)
        }
        // The gradient arriving at the top: the head's input gradient, or the next stage's.
        long long output_grad = -1;
        const int head = instance_of(microbatch, layers_ + 1);
        const int top = instance_of(microbatch, layers_);
        at(TimelinePhase::loss, -1, microbatch);
        if (last_) {
            output_grad = instance_id(head, blocks_.head.grad_id_base + blocks_.head.input_id);
            replay(blocks_.head.backward_events, blocks_.head, head, top, instance_id(top, blocks_.layer.output_id), output_grad, -1);
            reduce_scatter(blocks_.head, head);
        } else {
            output_grad = instance_id(head, 1);
            take(output_grad, blocks_.layer.grad_in_bytes, Part::other);
        }
        for (int layer = layers_ - 1; layer >= 0; --layer) {
            const int instance = instance_of(microbatch, 1 + layer);
            const long long input_id = layer > 0 ? instance_id(instance_of(microbatch, layer), blocks_.layer.output_id)
                                                 : first_ ? instance_id(instance_of(microbatch, 0), blocks_.embedding.output_id)
                                                          : instance_id(instance_of(microbatch, 0), 0);
            const long long input_grad = instance_id(instance, blocks_.layer.grad_id_base + blocks_.layer.input_id);
            at(TimelinePhase::backward, layer, microbatch);
            gather(layer, layer - 1);
            replay(blocks_.layer.backward_events, blocks_.layer, instance, -1, input_id, input_grad, output_grad);
            output_grad = input_grad;
            activations_ -= blocks_.layer.forward_delta_bytes;
            point(TimelinePhase::backward, layer, microbatch);
            const bool last_backward = microbatch == last_backward_microbatch_;
            if (kept_ && !last_backward) {
                accumulate(blocks_.layer, instance);
            } else {
                reduce_scatter(blocks_.layer, instance);
                reshard(layer);
            }
        }
        at(TimelinePhase::backward, -1, microbatch);
        if (first_) {
            const int instance = instance_of(microbatch, 0);
            replay(blocks_.embedding.backward_events, blocks_.embedding, instance, -1, -1, -1, output_grad);
            reduce_scatter(blocks_.embedding, instance);
            activations_ -= blocks_.embedding.forward_delta_bytes;
        } else {
            give(output_grad);
            give(instance_id(instance_of(microbatch, 0), 0));
            activations_ -= blocks_.layer.grad_in_bytes;
        }
        give(output_grad);
    }

    // Every parameter tensor of the stage: its weights, master copy and (after the first step) optimizer state.
    template <class Visit>
    void for_each_param(Visit&& visit) const {
        int index = 0;
        const auto block = [&](const BlockMemory& memory, int copies) {
            for (int copy = 0; copy < copies; ++copy) {
                for (double params : memory.param_bytes) visit(index++, params);
            }
        };
        if (first_) block(blocks_.embedding, 1);
        block(blocks_.layer, layers_);
        if (last_) block(blocks_.head, 1);
    }

    void allocate_state() {
        for_each_param([&](int index, double params) {
            take(instance_id(0, 4 * index), params * weight_share_, Part::weights);
            if (master_share_ > 0) take(instance_id(0, 4 * index + 1), params * master_share_, Part::master);
        });
        // LoRA's frozen base: each weight tensor once, in its stored bytes (no gradient, no optimizer state).
        long long id = kFrozenIds;
        const auto frozen = [&](const BlockMemory& memory, int copies) {
            for (int copy = 0; copy < copies; ++copy) {
                for (double bytes : memory.frozen_bytes) take(id++, bytes * frozen_share_, Part::weights);  // the stage's weights: frozen and adapters
            }
        };
        if (first_) frozen(blocks_.embedding, 1);
        frozen(blocks_.layer, layers_);
        if (last_) frozen(blocks_.head, 1);
    }
    void optimizer_step(bool first_step) {
        // torch.optim's Adam makes each parameter's state at its first step (zeros_like, exp_avg then exp_avg_sq).
        if (!first_step) return;
        for_each_param([&](int index, double params) {
            if (optimizer_share_ > 0) {
                take(instance_id(0, 4 * index + 2), params * optimizer_share_ / 2.0, Part::optimizer);
                take(instance_id(0, 4 * index + 3), params * optimizer_share_ / 2.0, Part::optimizer);
            }
        });
    }
    void allocate_grads() {
        grads_allocated_here_ = true;
        for_each_param([&](int index, double params) { take(kGradIds + index, params * grad_share_, Part::grads); });
    }
    void release_grads() {
        grads_live_ = false;
        if (grads_allocated_here_) {
            for_each_param([&](int index, double) { give(kGradIds + index); });
            grads_allocated_here_ = false;
        }
        // The gradients the blocks' backwards made (one micro-batch per step).
        const auto block = [&](const BlockMemory& memory, int first_instance, int count) {
            for (int i = 0; i < count; ++i) {
                for (int id : memory.param_grad_ids) give(instance_id(first_instance + i, id));
                give(instance_id(first_instance + i, kShardedGrads));
            }
        };
        if (first_) block(blocks_.embedding, instance_of(0, 0), 1);
        block(blocks_.layer, instance_of(0, 1), layers_);
        if (last_) block(blocks_.head, instance_of(0, layers_ + 1), 1);
    }

    void point(TimelinePhase phase, int layer, int microbatch) {
        if (!recording_) return;
        points_->push_back(snapshot(phase, layer, microbatch));
    }

    // What the allocator holds now, as a point of the step.
    TimelinePoint snapshot(TimelinePhase phase, int layer, int microbatch) const {
        TimelinePoint point;
        point.phase = phase;
        point.layer = layer;
        point.microbatch = microbatch;
        point.allocated_bytes = allocator_.allocated_bytes() + untracked_bytes();
        point.reserved_bytes = allocator_.reserved_bytes() + untracked_bytes();
        // The tracked parts as the allocator holds them; the layers' stored activations (their walked figure) out of what
        // remains, and the rest (copies, working sets, gradients passing between blocks, workspaces) transient.
        const auto part = [&](Part which) { return std::max(0.0, part_bytes_[static_cast<int>(which)]); };
        point.weights_bytes = part(Part::weights);
        point.master_bytes = part(Part::master);
        point.optimizer_bytes = part(Part::optimizer);
        point.state_bytes = point.weights_bytes + point.master_bytes + point.optimizer_bytes;
        point.grads_bytes = part(Part::grads);
        point.logits_bytes = part(Part::logits);
        const double rest = std::max(0.0, point.allocated_bytes - point.state_bytes - point.grads_bytes - point.logits_bytes);
        point.activations_bytes = std::clamp(activations_, 0.0, rest);
        point.transient_bytes = point.allocated_bytes - point.state_bytes - point.grads_bytes - point.activations_bytes;
        return point;
    }

    // Where the replay is, for a peak that falls inside an op: the phase, layer and micro-batch of the op running.
    void at(TimelinePhase phase, int layer, int microbatch) {
        where_phase_ = phase;
        where_layer_ = layer;
        where_microbatch_ = microbatch;
    }

    static constexpr long long kGradIds = kInstanceStride - (1LL << 20);
    static constexpr long long kFrozenIds = kInstanceStride - (1LL << 21);  // below the gradients', in instance 0
    static constexpr long long kGatherIds = kFrozenIds + (1LL << 19);      // ZeRO-3's gathered layers, by layer
    static constexpr int kShardedGrads = static_cast<int>(kInstanceStride) - 1;  // in a block's instance: its gradients' shard

    // ZeRO-2/3: a block's gradients, made whole by its backward, reduce-scattered as it ends (FSDP's post-backward hook,
    // DeepSpeed's reduce-scatter of each bucket); this GPU keeps its shard until the optimizer step.
    void reduce_scatter(const BlockMemory& block, int instance) {
        if (grad_shards_ <= 1 || block.param_grad_ids.empty()) return;
        for (int id : block.param_grad_ids) give(instance_id(instance, id));
        take(instance_id(instance, kShardedGrads), block.param_grad_bytes / grad_shards_, Part::grads);
    }

    // Kept under a pipeline: the backward's gradients added into the stage's whole ones (allocate_grads: FSDP2's
    // unsharded_accumulated_grad, in the reduce dtype) and freed; no reduce-scatter before the last backward.
    void accumulate(const BlockMemory& block, int instance) {
        for (int id : block.param_grad_ids) give(instance_id(instance, id));
    }

    // ZeRO-3: the layer about to compute gathered (if its prefetch has not), and the next one's all-gather issued beside
    // it (FSDP2's default prefetch of one layer, torch/distributed/fsdp/_fully_shard/_fsdp_state.py); reshard frees it.
    void gather(int layer, int prefetch) {
        if (layer_gather_bytes_ <= 0) return;
        for (int which : {layer, prefetch}) {
            if (which >= 0 && which < layers_) take(kGatherIds + which, layer_gather_bytes_, Part::other);  // once while held
        }
    }
    void reshard(int layer) {
        if (layer_gather_bytes_ > 0) give(kGatherIds + layer);
    }

    const MemoryConstants& k_;
    const MemoryConstants::OperatorBlocks& blocks_;
    const StageMemory& memory_;
    int layers_ = 1;
    bool first_ = true, last_ = true;
    double weight_share_ = 0, master_share_ = 0, optimizer_share_ = 0, grad_share_ = 0;
    double frozen_share_ = 1;  // the part of each frozen (LoRA base) weight this GPU holds
    double layer_gather_bytes_ = 0;  // ZeRO-3: one layer's parameters gathered
    bool kept_ = false;              // ZeRO-3 kept gathered under a pipeline until the last backward
    int last_backward_microbatch_ = 0;  // the order's last backward: where the kept layers are reduced and resharded
    int grad_shards_ = 1;            // ZeRO-2/3: the ranks a block's gradients are reduce-scattered over
    CachingAllocator allocator_;
    bool recording_ = false, grads_live_ = false, grads_allocated_here_ = false;
    double activations_ = 0;
    std::vector<TimelinePoint>* points_ = nullptr;
    TimelinePhase where_phase_ = TimelinePhase::forward;
    int where_layer_ = -1, where_microbatch_ = 0;
    TimelinePoint inside_peak_;        // the recorded step's highest moment
    std::size_t inside_index_ = 0;     // the points before it
    std::vector<bool> head_copies_;                                   // per head tensor: autocast's weight copy
    std::unordered_map<long long, std::pair<Part, double>> tracked_;  // a live tensor of a part: its part and bytes
    double part_bytes_[static_cast<int>(Part::count)] = {};
};

// A block recipe's step from its per-layer figures: each forward of a micro-batch adds its layers' activations, each
// backward frees them, in the order the stage's schedule runs them (1F1B's staircase); what the closed form (memory.h)
// holds beside them at its peak moment comes at that moment of each micro-batch, so both find the same peak.
MemoryTimeline block_timeline(const MemoryConstants& k, const StageMemory& memory, std::vector<StageOp> order) {
    MemoryTimeline timeline;
    timeline.stage = memory.stage;
    const double frag = 1.0 + k.spec.fragmentation;
    const double state = memory.weights_bytes + memory.master_bytes + memory.optimizer_bytes;
    const double grads = memory.grads_bytes;
    const double nccl = memory.comm_buffers_bytes;  // outside the allocator: neither allocated nor reserved by it
    const double fixed = memory.workspace_bytes;
    const int layers = std::max(1, memory.layers);
    const double inflight = std::max(1.0, memory.inflight_microbatches);
    const double per_microbatch = memory.activations_bytes / inflight;
    const double per_layer = per_microbatch / layers;
    const double allocated_peak = memory.peak_bytes - memory.fragmentation_bytes - nccl;
    const double extra = allocated_peak - state - grads - memory.activations_bytes - fixed;  // beside the activations at the peak
    if (order.empty()) order = {{true, 0, 1.0}, {false, 0, 1.0}};
    timeline.points.reserve(std::min<std::size_t>(20000, order.size() * (static_cast<std::size_t>(layers) + 2) + 4));
    double activations = 0;
    // At the closed form's peak moment (of each micro-batch) the point holds `extra`; elsewhere the weight copies or nothing.
    const auto add = [&](TimelinePhase phase, int layer, int microbatch, bool peak_moment, double otherwise) {
        const double transient = peak_moment ? extra : otherwise;
        if (timeline.points.size() >= 20000) return;  // a very long step: its first points show its pattern
        TimelinePoint point;
        point.phase = phase;
        point.layer = layer;
        point.microbatch = microbatch;
        point.weights_bytes = memory.weights_bytes;
        point.master_bytes = memory.master_bytes;
        point.optimizer_bytes = memory.optimizer_bytes;
        point.state_bytes = state;
        // The closed form's logits are part of what it holds beside the activations at its peak moment.
        point.logits_bytes = peak_moment ? std::clamp(memory.logits_bytes, 0.0, std::max(0.0, extra)) : 0.0;
        point.grads_bytes = grads;
        point.activations_bytes = std::max(0.0, activations);
        point.transient_bytes = transient + fixed;
        point.allocated_bytes = state + grads + point.activations_bytes + point.transient_bytes;
        point.reserved_bytes = point.allocated_bytes * frag;
        timeline.points.push_back(point);
    };
    for (const StageOp& op : order) {
        const int count = std::max(1, static_cast<int>(std::lround(layers * op.share)));
        if (op.forward) {
            for (int layer = 0; layer < count; ++layer) {
                activations += per_layer * layers * op.share / count;
                const bool end = layer == count - 1;
                add(TimelinePhase::forward, layer, op.microbatch, end && memory.phase == MemoryPhase::forward_end, memory.weight_copies_bytes);
            }
            if (memory.holds_head) add(TimelinePhase::loss, -1, op.microbatch, memory.phase == MemoryPhase::loss_backward, 0.0);
        } else {
            for (int layer = count - 1; layer >= 0; --layer) {
                const bool top = layer == count - 1;
                add(TimelinePhase::backward, layer, op.microbatch,
                    top && memory.phase == MemoryPhase::layer_backward, memory.weight_copies_bytes);
                activations -= per_layer * layers * op.share / count;
            }
        }
    }
    activations = 0;
    add(TimelinePhase::optimizer, -1, 0, false, 0.0);
    add(TimelinePhase::zero_grad, -1, 0, false, 0.0);
    timeline.peak_allocated_bytes = allocated_peak;
    timeline.peak_reserved_bytes = allocated_peak * frag;
    timeline.peak_point = highest_point(timeline.points);
    return timeline;
}

}  // namespace

// A stage's forwards and backwards in the order its device runs them (a weight-gradient pass frees what its micro-batch
// kept, as the backward of a one-pass schedule does); a chunk of an interleaved schedule holds its share of the layers.
std::vector<StageOp> stage_order(const ScheduleTimeline* schedule, int stage) {
    std::vector<StageOp> order;
    if (!schedule || schedule->stages <= 1) return order;
    const bool split_backward = std::any_of(schedule->ops.begin(), schedule->ops.end(),
                                            [](const PipelineOp& op) { return op.kind == PipelineOpKind::weight_grad; });
    const double share = 1.0 / std::max(1, schedule->virtual_chunks);
    for (const PipelineOp& op : schedule->ops) {
        if (op.device != stage) continue;
        if (op.kind == PipelineOpKind::forward) order.push_back({true, op.microbatch, share});
        else if (op.kind == PipelineOpKind::weight_grad || (!split_backward && op.kind != PipelineOpKind::forward)) {
            order.push_back({false, op.microbatch, share});
        }
    }
    return order;
}

namespace {

// No generated schedule: 1F1B's order in closed form. The stage's in-flight micro-batches forward (the warm-up), then one
// backward and one forward while micro-batches remain (the steady state's staircase), then the backwards left (the
// cool-down). most_microbatches: how many of the step's to lay out (the steady state repeats itself).
std::vector<StageOp> closed_form_1f1b_order(const MemoryConstants& k, const Layout& layout, double inflight, int most_microbatches) {
    std::vector<StageOp> steps;
    const int count = std::max(1, static_cast<int>(std::ceil(inflight - 1e-9)));
    const int microbatches = std::min(most_microbatches, std::max(count, k.global_batch / std::max(1, layout.dp * layout.micro_batch)));
    const double share = inflight / count;
    int forwarded = 0, backwarded = 0;
    for (; forwarded < std::min(count, microbatches); ++forwarded) steps.push_back({true, forwarded, share});
    while (forwarded < microbatches) {
        steps.push_back({false, backwarded++, share});
        steps.push_back({true, forwarded++, share});
    }
    while (backwarded < forwarded) steps.push_back({false, backwarded++, share});
    return steps;
}

}  // namespace

MemoryTimeline memory_timeline(const MemoryConstants& k, const Layout& layout, int stage, const std::vector<StageOp>& order, double inflight) {
    if (!k.operator_recipe) {
        std::vector<StageOp> steps = order;
        if (steps.empty() && layout.pp > 1) steps = closed_form_1f1b_order(k, layout, inflight, std::numeric_limits<int>::max());
        // At the in-flight count the closed form found the peak at (the order's most): the stage's own figures.
        double most = 1, live = 0;
        for (const StageOp& op : steps) most = std::max(most, live += (op.forward ? op.share : -op.share));
        return block_timeline(k, stage_memory(k, layout, stage, most), steps);
    }
    const StageMemory memory = stage_memory(k, layout, stage, 1.0);
    std::vector<StageOp> steps = order;
    const int microbatches = std::max(1, k.global_batch / std::max(1, layout.dp * layout.micro_batch));
    // The replay is the costly part: one per distinct step (its blocks, the state it holds, its micro-batches and their
    // order), shared by every thread through a bounded cache.
    std::string key = operator_blocks(k, layout).key;
    const auto add = [&key](auto value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); };
    for (int value : {layout.dp, layout.zero, layout.pp, stage, microbatches, memory.layers, static_cast<int>(k.grads_from_start),
                      static_cast<int>(k.fsdp_kept_under_pipeline)}) add(value);
    for (double value : {memory.weights_bytes, memory.master_bytes, memory.optimizer_bytes, memory.grads_bytes, memory.workspace_bytes}) add(value);
    for (const StageOp& op : order) key += op.forward ? 'F' : 'B', key += std::to_string(op.microbatch);
    if (order.empty()) add(inflight);
    static std::mutex mutex;
    static std::unordered_map<std::string, MemoryTimeline> cache;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto found = cache.find(key); found != cache.end()) return found->second;
    }
    if (steps.empty() && layout.pp > 1) {
        // A pipeline stage holds its in-flight micro-batches' activations: the warm-up, one turn of the steady state and
        // the cool-down (the rest of the steady state repeats that turn).
        const int count = std::max(1, static_cast<int>(std::ceil(inflight - 1e-9)));
        steps = closed_form_1f1b_order(k, layout, inflight, count + 1);
    }
    if (steps.empty()) {
        // One stage, micro-batch after micro-batch: each after the first finds the allocator as the one before left it,
        // so two show every step's pattern (the first makes the gradients, the second accumulates into them).
        for (int microbatch = 0; microbatch < std::min(microbatches, 2); ++microbatch) {
            steps.push_back({true, microbatch});
            steps.push_back({false, microbatch});
        }
    }
    MemoryTimeline timeline = Replay(k, layout, stage, memory).run(steps, microbatches);
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 128) cache.clear();
    cache.emplace(std::move(key), timeline);
    return timeline;
}

}  // namespace core
