#include "core/cost/report/trace.h"

#include "core/cost/kernels/collectives.h"
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/step/step.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <tuple>

namespace core {

const char* trace_thread_name(TraceThread thread) {
    switch (thread) {
        case TraceThread::schedule: return "pipeline ops (F / B / W)";
        case TraceThread::compute: return "compute (kernels)";
        case TraceThread::tp: return "TP collectives";
        case TraceThread::cp: return "CP ring (send/recv)";
        case TraceThread::pp: return "PP send/recv";
        case TraceThread::dp: return "DP / ZeRO collectives";
        case TraceThread::ep: return "EP all-to-all";
    }
    return "?";
}

const char* trace_detail_name(TraceDetail detail) {
    switch (detail) {
        case TraceDetail::kernels: return "kernels";
        case TraceDetail::layers: return "layers";
        case TraceDetail::ops: return "ops";
    }
    return "?";
}

namespace {

constexpr double kMicroseconds = 1e6;

// One thing a pipeline op does, in the compute stream's program order.
struct Item {
    enum class Kind { compute, comm, wait } kind = Kind::compute;
    TraceThread thread = TraceThread::compute;
    std::string name;
    std::string category;
    std::string pass;
    int layer = -1;
    int kernel = -1;
    int count = 0;
    double launches = 0;         // compute: CUDA launches of all instances (the recipe's kernels per op)
    double us = 0;               // compute and comm: duration; wait: how long the compute stream idles
    double flops = 0, bytes = 0;
    std::string bound;
    double efficiency = 0;
    int ranks = 0;
    double wait_us = 0;          // comm: the compute stream idles this long after issuing it (its exposed share)
    double issue_back_us = 0;    // comm: issued this long before the compute stream's current time (a ring step under
                                 // the attention it overlaps)
};

Item wait_item(double us) {
    Item item;
    item.kind = Item::Kind::wait;
    item.us = us;
    return item;
}

// Collectives of one pass of one layer that the compute stream may partly wait for: each gets its share of what the
// model says the pass exposes (exposed plus the compute slowed while overlapped), in proportion to its duration.
struct CommBatch {
    std::vector<Item> items;
    double exposed_us = 0;
    void share_waits() {
        double total = 0;
        for (const Item& item : items) total += item.us;
        for (Item& item : items) item.wait_us = total > 0 ? exposed_us * item.us / total : 0.0;
    }
};

class TraceBuilder {
public:
    TraceBuilder(const Scenario& scenario, const Report& report)
        : scenario_(scenario),
          report_(report),
          layout_(layout_of(scenario)),
          cost_(layer_cost(scenario, split_of(layout_), false)),
          in_(step_inputs(scenario, layout_, cost_)),
          step_(estimate_step(scenario, layout_, cost_, in_, PipelineTiming::timeline)) {
        if (schedule_op_count(step_.schedule) > max_schedule_ops) {
            throw too_many_microbatches("are too many ops to trace");
        }
        timeline_ = generate_schedule(step_.schedule);
        // Model stages and how many layers each runs: a device's L/pp share split into its chunks (interleaved v, equal by
        // check_layout; DualPipeV 2, the first of a device's two stages taking the odd layer; DualPipe a whole share each).
        const SchedulePlacement placement = schedule_placement(layout_.schedule, layout_.pp, layout_.virtual_stages);
        virtual_stages_ = placement.model_stages;
        chunks_ = std::max(1, static_cast<int>(std::lround(1.0 / placement.activation_share())));
        for (int stage = 0; stage < virtual_stages_; ++stage) {
            const bool first_of_device = stage < layout_.pp || chunks_ == 1;
            stage_layer_counts_.push_back(in_.stage_layers / chunks_ + (first_of_device && chunks_ == 2 ? in_.stage_layers % 2 : 0));
        }
        // The edge chunks hold the layers their stages have, as the schedule times them.
        shortfall_ = edge_shortfall(layout_, in_);
        stage_layer_counts_.front() -= shortfall_.first_layers;
        stage_layer_counts_.back() -= shortfall_.last_layers;
        // The device holding each model stage for each micro-batch, from the forwards (DualPipe runs a stage on two devices).
        for (const PipelineOp& op : timeline_.ops)
            if (op.kind == PipelineOpKind::forward) stage_device_[{op.stage, op.microbatch}] = op.device;
        tp_ranks_ = layout_.tp;
        cp_ranks_ = layout_.cp;
        dp_ranks_ = layout_.dp * layout_.cp;
    }

    InputError too_many_microbatches(const std::string& why) const {
        return InputError("parallel.microbatches", std::to_string(step_.schedule.microbatches) + " micro-batches on " +
                                                       std::to_string(layout_.pp) + " stages " + why);
    }

    StepTrace build() {
        for (TraceDetail detail : {TraceDetail::kernels, TraceDetail::layers, TraceDetail::ops}) {
            StepTrace trace;
            if (build_at(detail, trace)) return trace;
        }
        throw too_many_microbatches("give more than " + std::to_string(max_trace_slices) + " slices even one per op");
    }

private:
    const Scenario& scenario_;
    const Report& report_;
    Layout layout_;
    LayerCost cost_;
    StepInputs in_;
    EdgeShortfall shortfall_;  // the layers the edge chunks lack (step.h), once for every detail tried
    StepEstimate step_;
    ScheduleTimeline timeline_;
    int virtual_stages_ = 1, chunks_ = 1;
    std::vector<int> stage_layer_counts_;            // per model stage
    std::map<std::pair<int, int>, int> stage_device_;  // (model stage, micro-batch) -> device
    int tp_ranks_ = 1, cp_ranks_ = 1, dp_ranks_ = 1;
    TraceDetail detail_ = TraceDetail::kernels;
    std::map<std::tuple<int, int, bool>, std::vector<Item>> templates_;  // by op kind, virtual stage, last micro-batch

    bool zero_bubble() const { return layout_.schedule == ScheduleKind::zb_h1; }
    bool naive() const { return layout_.schedule == ScheduleKind::naive; }
    bool blocking_sends() const { return layout_.pp > 1 && !scenario_.overlap.pp_p2p; }

    int first_layer(int virtual_stage) const {
        int layer = 0;
        for (int stage = 0; stage < virtual_stage; ++stage) layer += stage_layer_counts_[stage];
        return layer;
    }

    // ---- what one op runs ----

    Item kernel_item(int index, int layer) const {
        const Kernel& kernel = report_.compute.kernels[index];
        Item item;
        item.kind = Item::Kind::compute;
        item.name = kernel.label ? kernel.label : kernel_name(kernel.id);
        item.category = kernel_category_name(kernel.category);
        item.pass = kernel_pass_name(kernel.pass);
        item.layer = layer;
        item.kernel = index;
        item.count = kernel.count;
        item.launches = kernel.launches * kernel.count;
        item.us = kernel.total_seconds() * kMicroseconds;
        item.flops = kernel.flops * kernel.count;
        item.bytes = kernel.bytes * kernel.count;
        item.bound = bound_name(kernel.bound);
        item.efficiency = kernel.efficiency;
        return item;
    }

    Item comm_item(TraceThread thread, const char* name, double seconds, double bytes, int ranks, const std::string& pass, int layer) const {
        Item item;
        item.kind = Item::Kind::comm;
        item.thread = thread;
        item.name = name;
        item.category = thread == TraceThread::tp   ? "tp"
                        : thread == TraceThread::cp ? "cp"
                        : thread == TraceThread::pp ? "pp"
                        : thread == TraceThread::ep ? "ep"
                                                    : "dp";
        item.pass = pass;
        item.layer = layer;
        item.count = 1;
        item.us = seconds * kMicroseconds;
        item.bytes = bytes;
        item.ranks = ranks;
        return item;
    }

    // The kernels of `scope` in `passes`, in the report's (execution) order.
    std::vector<int> kernels_of(KernelScope scope, std::initializer_list<KernelPass> passes) const {
        std::vector<int> indices;
        const std::vector<Kernel>& kernels = report_.compute.kernels;
        for (int i = 0; i < static_cast<int>(kernels.size()); ++i) {
            if (kernels[i].scope != scope) continue;
            if (std::find(passes.begin(), passes.end(), kernels[i].pass) != passes.end()) indices.push_back(i);
        }
        return indices;
    }

    // A layer with routed experts: its all-to-alls, each after the kernel that issues it (forward: the dispatch after the
    // permutation, the combine after the experts; backward: the output gradients out to the experts after the
    // unpermutation's, the input gradients back after the expert up-projection's), the compute stream waiting for the
    // share of what the model says the pass exposes.
    bool moe_layer(int layer) const { return in_.ep.forward_seconds > 0 && is_moe_layer(scenario_.model, layer); }

    void add_all_to_all(std::vector<Item>& body, KernelId after, KernelPass pass, int layer) const {
        const bool backward = pass == KernelPass::backward_input;
        const bool dispatch = backward ? after == KernelId::unpermute : after == KernelId::permute;
        const bool combine = backward ? after == KernelId::expert_up : after == KernelId::expert_down;
        if (!dispatch && !combine) return;
        const double seconds = (dispatch ? in_.ep.dispatch_seconds : in_.ep.combine_seconds) + in_.ep.etp_seconds / 2.0;
        // The dispatch sends tokens x top-k x h at the dispatch precision; the combine returns them in bf16.
        const double bytes = dispatch ? in_.ep.dispatch_message_bytes : in_.ep.dispatch_message_bytes / scenario_.moe.dispatch_bytes * 2.0;
        const char* name = dispatch ? (backward ? "all-to-all dispatch (gradients)" : "all-to-all dispatch")
                                    : (backward ? "all-to-all combine (gradients)" : "all-to-all combine");
        Item item = comm_item(TraceThread::ep, name, seconds, bytes, layout_.ep, kernel_pass_name(pass), layer);
        const Overlapped& exposed = pass == KernelPass::recompute ? in_.comm.ep_recompute : backward ? in_.comm.ep_backward : in_.comm.ep_forward;
        const double pass_seconds = pass == KernelPass::recompute ? in_.ep.recompute_seconds : backward ? in_.ep.backward_seconds : in_.ep.forward_seconds;
        item.wait_us = pass_seconds > 0 ? exposed.cost() * seconds / pass_seconds * kMicroseconds : 0.0;
        body.push_back(item);
    }

    // One layer's forward or recompute: its kernels, TP's collectives around the GEMMs that start and end each TP region
    // (Narayanan 2021 sec 3.2; under SP an all-gather before and a reduce-scatter after, Korthikanti 2022 sec 4.2.2) and
    // CP's ring steps under the attention core.
    void layer_forward(std::vector<Item>& items, KernelPass pass, int layer) const {
        const bool recompute = pass == KernelPass::recompute;
        const std::string pass_name = kernel_pass_name(pass);
        const double tp_seconds = recompute ? in_.tp.recompute_seconds : in_.tp.forward_seconds;
        const Overlapped& tp_cost = recompute ? in_.comm.tp_recompute : in_.comm.tp_forward;
        const bool sp = layout_.sequence_parallel && layout_.tp > 1;
        CommBatch tp;
        tp.exposed_us = tp_cost.cost() * kMicroseconds;
        const double one = sp ? tp_seconds / 4.0 : tp_seconds / 2.0;  // two regions; under SP each an all-gather and a reduce-scatter
        bool cp_done = layout_.cp <= 1 || (recompute && layout_.recompute == Recompute::none);
        std::vector<Item> body;
        for (int index : kernels_of(KernelScope::layer, {pass})) {
            const KernelId id = report_.compute.kernels[index].id;
            if (tp_seconds > 0 && sp && (id == KernelId::qkv || id == KernelId::mlp_up)) {
                body.push_back(comm_item(TraceThread::tp, "all-gather", one, in_.tp.message_bytes, tp_ranks_, pass_name, layer));
            }
            body.push_back(kernel_item(index, layer));
            if (moe_layer(layer)) add_all_to_all(body, id, pass, layer);
            if (tp_seconds > 0 && (id == KernelId::out_proj || id == KernelId::mlp_down)) {
                body.push_back(comm_item(TraceThread::tp, sp ? "reduce-scatter" : "all-reduce", one, in_.tp.message_bytes, tp_ranks_, pass_name, layer));
            }
            const bool attention_core = id == KernelId::attention || id == KernelId::attention_scores;
            if (!cp_done && attention_core) {
                ring_steps(body, body.back().us, in_.cp.step_forward_seconds, recompute ? in_.comm.cp_recompute : in_.comm.cp_forward, pass_name, layer);
                cp_done = true;
            }
        }
        if (!cp_done) ring_steps(body, 0.0, in_.cp.step_forward_seconds, recompute ? in_.comm.cp_recompute : in_.comm.cp_forward, pass_name, layer);
        share_tp_waits(body, tp);
        items.insert(items.end(), body.begin(), body.end());
    }

    // Ring attention: cp - 1 exchanges of K and V, each under its 1/cp of the attention core (Liu et al. 2023); under
    // PyTorch's all-gather rotation one gather of every rank's K and V, and backward cp sends of dK, dV. The compute
    // stream waits for what the model says is exposed.
    void ring_steps(std::vector<Item>& body, double attention_us, double step_seconds, const Overlapped& exposed, const std::string& pass, int layer) const {
        const double chunk_us = attention_us / layout_.cp;
        const bool backward = pass == "backward_input";
        if (in_.cp.rotation == CpRotation::all_gather) {
            Item gather = comm_item(TraceThread::cp, "all-gather K, V", in_.cp.gather_seconds, layout_.cp * in_.cp.message_bytes, cp_ranks_, pass, layer);
            gather.issue_back_us = attention_us;
            body.push_back(gather);
            for (int s = 0; backward && s < layout_.cp; ++s) {
                Item grads = comm_item(TraceThread::cp, "send/recv dK, dV", in_.cp.step_backward_seconds, in_.cp.grad_message_bytes, cp_ranks_, pass, layer);
                grads.issue_back_us = attention_us - (s + 1) * chunk_us;
                body.push_back(grads);
            }
        } else {
            for (int s = 0; s < in_.cp.steps; ++s) {
                Item step = comm_item(TraceThread::cp, "ring send/recv", step_seconds, in_.cp.message_bytes * (backward ? 2.0 : 1.0), cp_ranks_, pass, layer);
                step.issue_back_us = attention_us - s * chunk_us;
                body.push_back(step);
            }
        }
        if (exposed.cost() > 0) body.push_back(wait_item(exposed.cost() * kMicroseconds));
    }

    // The TP collectives of a pass share its exposed time; collectives the kernel list gave no place go at its end.
    static void share_tp_waits(std::vector<Item>& body, CommBatch& tp) {
        for (const Item& item : body)
            if (item.kind == Item::Kind::comm && item.thread == TraceThread::tp) tp.items.push_back(item);
        tp.share_waits();
        std::size_t next = 0;
        for (Item& item : body)
            if (item.kind == Item::Kind::comm && item.thread == TraceThread::tp) item.wait_us = tp.items[next++].wait_us;
        if (tp.items.empty() && tp.exposed_us > 0) body.push_back(wait_item(tp.exposed_us));
    }

    // One layer's backward: `passes` are backward_input and backward_weight together, or one of them (zb-h1's B and W).
    void layer_backward(std::vector<Item>& items, std::initializer_list<KernelPass> passes, int layer, bool with_waits, bool dp_buckets) const {
        const bool has_input = std::find(passes.begin(), passes.end(), KernelPass::backward_input) != passes.end();
        const bool has_weight = std::find(passes.begin(), passes.end(), KernelPass::backward_weight) != passes.end();
        const std::string pass_name = kernel_pass_name(KernelPass::backward_input);
        const bool sp = layout_.sequence_parallel && layout_.tp > 1;
        const double tp_seconds = has_input ? in_.tp.backward_seconds : 0.0;
        // Per region: an all-reduce of the input gradient; under SP an all-gather of the output gradient, the input
        // gathered again for the weight gradient, and a reduce-scatter of the input gradient.
        const double pair = in_.tp.forward_seconds / 2.0;
        const double regather = sp ? (in_.tp.backward_seconds - in_.tp.forward_seconds) / 2.0 : 0.0;
        CommBatch tp;
        tp.exposed_us = has_input && with_waits ? in_.comm.tp_backward.cost() * kMicroseconds : 0.0;
        bool cp_done = layout_.cp <= 1 || !has_input;
        std::vector<Item> body;
        for (int index : kernels_of(KernelScope::layer, passes)) {
            const Kernel& kernel = report_.compute.kernels[index];
            const bool input = kernel.pass == KernelPass::backward_input;
            if (tp_seconds > 0 && input && sp && (kernel.id == KernelId::out_proj || kernel.id == KernelId::mlp_down)) {
                body.push_back(comm_item(TraceThread::tp, "all-gather", pair / 2.0, in_.tp.message_bytes, tp_ranks_, pass_name, layer));
            }
            if (tp_seconds > 0 && input && sp && (kernel.id == KernelId::qkv || kernel.id == KernelId::mlp_up)) {
                body.push_back(comm_item(TraceThread::tp, "all-gather", regather, in_.tp.message_bytes, tp_ranks_, pass_name, layer));
            }
            body.push_back(kernel_item(index, layer));
            if (input && moe_layer(layer)) add_all_to_all(body, kernel.id, KernelPass::backward_input, layer);
            if (tp_seconds > 0 && input && (kernel.id == KernelId::qkv || kernel.id == KernelId::mlp_up)) {
                body.push_back(comm_item(TraceThread::tp, sp ? "reduce-scatter" : "all-reduce", sp ? pair / 2.0 : pair, in_.tp.message_bytes, tp_ranks_,
                                         pass_name, layer));
            }
            const bool attention_core = kernel.id == KernelId::attention || kernel.id == KernelId::attention_scores;
            if (!cp_done && input && attention_core) {
                ring_steps(body, body.back().us, in_.cp.step_backward_seconds, with_waits ? in_.comm.cp_backward : Overlapped{}, pass_name, layer);
                cp_done = true;
            }
        }
        if (!cp_done) ring_steps(body, 0.0, in_.cp.step_backward_seconds, with_waits ? in_.comm.cp_backward : Overlapped{}, pass_name, layer);
        share_tp_waits(body, tp);
        items.insert(items.end(), body.begin(), body.end());
        // The layer's gradients leave as soon as they exist: a bucket per layer (ZeRO-0/1 in the last micro-batch, ZeRO-2
        // every one), or ZeRO-3's reduce-scatter of the layer's gradients.
        if (has_weight && in_.dp_group.ranks > 1) {
            const std::string weight_pass = kernel_pass_name(KernelPass::backward_weight);
            if (layout_.zero == 3) {  // kept gathered under the pipeline (once_a_step): reduced in the step's tail
                if (!in_.dp.once_a_step) items.push_back(comm_item(TraceThread::dp, "reduce-scatter", in_.dp.layer_reduce_seconds, in_.dp.grad_bytes / in_.stage_layers, dp_ranks_,
                                          weight_pass, layer));
            } else if (dp_buckets) {
                items.push_back(comm_item(TraceThread::dp, in_.dp.all_reduce ? "all-reduce" : "reduce-scatter", in_.dp.grad_reduce_seconds / in_.stage_layers,
                                          in_.dp.grad_bytes / in_.stage_layers, dp_ranks_, weight_pass, layer));
            }
        }
    }

    // ZeRO-3's gathers of each layer's weights before it runs (prefetched a layer ahead when the scenario allows): the
    // first is waited for whole, the rest of what the model exposes is shared by the layers after it.
    std::vector<double> zero3_waits(double total_seconds, double first_seconds, int layers) const {
        std::vector<double> waits(layers, 0.0);
        if (layers == 0) return waits;
        waits[0] = std::min(total_seconds, first_seconds);
        for (int i = 1; i < layers; ++i) waits[i] = (total_seconds - waits[0]) / (layers - 1);
        if (layers == 1) waits[0] = total_seconds;
        return waits;
    }

    void add_zero3_gather(std::vector<Item>& items, int layer, double wait_seconds, const std::string& pass) const {
        Item gather = comm_item(TraceThread::dp, "all-gather", in_.dp.layer_gather_seconds, in_.dp.weight_bytes / in_.stage_layers, dp_ranks_, pass, layer);
        gather.wait_us = wait_seconds * kMicroseconds;
        items.push_back(gather);
    }

    std::vector<Item> edge_kernels_of(KernelScope scope, std::initializer_list<KernelPass> passes) const {
        std::vector<Item> items;
        for (int index : kernels_of(scope, passes)) items.push_back(kernel_item(index, -1));
        return items;
    }

    std::vector<Item> forward_op(int virtual_stage) const {
        std::vector<Item> items;
        const std::string pass = kernel_pass_name(KernelPass::forward);
        const int layers = stage_layer_counts_[virtual_stage];
        const int first = first_layer(virtual_stage);
        if (virtual_stage == 0) {
            items = edge_kernels_of(KernelScope::first_stage, {KernelPass::forward});
            if (in_.first_tp_seconds > 0) {
                Item reduce = comm_item(TraceThread::tp, layout_.sequence_parallel ? "reduce-scatter" : "all-reduce", in_.first_tp_seconds, in_.tp.message_bytes,
                                        tp_ranks_, pass, -1);
                reduce.wait_us = reduce.us;
                items.push_back(reduce);
            }
        }
        const bool zero3 = layout_.zero == 3 && in_.dp_group.ranks > 1 && !in_.dp.once_a_step;
        const std::vector<double> waits = zero3 ? zero3_waits(in_.zero3_forward.cost() / chunks_, in_.dp.layer_gather_seconds, layers) : std::vector<double>{};
        for (int i = 0; i < layers; ++i) {
            if (zero3 && (i == 0 || !scenario_.overlap.zero3_prefetch)) add_zero3_gather(items, first + i, waits[i], pass);
            if (zero3 && i > 0 && scenario_.overlap.zero3_prefetch) items.push_back(wait_item(waits[i] * kMicroseconds));
            if (zero3 && scenario_.overlap.zero3_prefetch && i + 1 < layers) add_zero3_gather(items, first + i + 1, 0.0, pass);
            layer_forward(items, KernelPass::forward, first + i);
        }
        if (virtual_stage == virtual_stages_ - 1) {
            for (Item& kernel : edge_kernels_of(KernelScope::last_stage, {KernelPass::forward})) {
                if (in_.last_tp_forward_seconds > 0 && kernel.name == kernel_name(KernelId::logits)) {
                    Item gather = comm_item(TraceThread::tp, "all-gather", in_.last_tp_forward_seconds, in_.tp.message_bytes, tp_ranks_, pass, -1);
                    gather.wait_us = gather.us;
                    items.push_back(gather);
                }
                items.push_back(kernel);
            }
        }
        if (blocking_sends()) items.push_back(wait_item(in_.pp.send_seconds * kMicroseconds));
        return items;
    }

    // The whole backward (B + W), or zb-h1's B (input gradients, with what waits on communication) or W.
    std::vector<Item> backward_op(int virtual_stage, PipelineOpKind kind, bool last_microbatch) const {
        std::vector<Item> items;
        const bool input = kind != PipelineOpKind::weight_grad;
        const bool weight = kind != PipelineOpKind::backward_input;
        const std::initializer_list<KernelPass> edge_passes_b = {KernelPass::recompute, KernelPass::backward_input};
        const std::initializer_list<KernelPass> edge_passes_w = {KernelPass::backward_weight};
        const std::initializer_list<KernelPass> edge_passes_all = {KernelPass::recompute, KernelPass::backward_input, KernelPass::backward_weight};
        const std::initializer_list<KernelPass> edge_passes = !weight ? edge_passes_b : !input ? edge_passes_w : edge_passes_all;
        const int layers = stage_layer_counts_[virtual_stage];
        const int first = first_layer(virtual_stage);
        if (virtual_stage == virtual_stages_ - 1) {
            for (Item& kernel : edge_kernels_of(KernelScope::last_stage, edge_passes)) {
                items.push_back(kernel);
                if (input && in_.last_tp_backward_seconds > 0 && kernel.name == kernel_name(KernelId::logits) && kernel.pass == kernel_pass_name(KernelPass::backward_input)) {
                    Item reduce = comm_item(TraceThread::tp, layout_.sequence_parallel ? "reduce-scatter" : "all-reduce", in_.last_tp_backward_seconds,
                                            in_.tp.message_bytes, tp_ranks_, kernel.pass, -1);
                    reduce.wait_us = reduce.us;
                    items.push_back(reduce);
                }
            }
        }
        const bool zero3 = layout_.zero == 3 && in_.dp_group.ranks > 1 && !in_.dp.once_a_step;
        const std::vector<double> waits =
            zero3 && input ? zero3_waits(in_.zero3_backward.cost() / chunks_, in_.dp.layer_gather_seconds + in_.dp.layer_reduce_seconds, layers) : std::vector<double>{};
        const bool buckets = layout_.zero == 2 || (last_microbatch && scenario_.overlap.dp_grad_reduce);
        const std::string gather_pass = kernel_pass_name(KernelPass::backward_input);
        for (int i = layers - 1; i >= 0; --i) {
            const int step = layers - 1 - i;  // backward runs the chunk's layers last to first
            if (zero3 && input) {
                if (step == 0 || !scenario_.overlap.zero3_prefetch) add_zero3_gather(items, first + i, waits[step], gather_pass);
                if (step > 0 && scenario_.overlap.zero3_prefetch) items.push_back(wait_item(waits[step] * kMicroseconds));
                if (scenario_.overlap.zero3_prefetch && i > 0) add_zero3_gather(items, first + i - 1, 0.0, gather_pass);
            }
            if (input && layout_.recompute != Recompute::none) layer_forward(items, KernelPass::recompute, first + i);
            if (input && weight) layer_backward(items, {KernelPass::backward_input, KernelPass::backward_weight}, first + i, true, buckets);
            else if (input) layer_backward(items, {KernelPass::backward_input}, first + i, true, false);
            else layer_backward(items, {KernelPass::backward_weight}, first + i, false, buckets);
        }
        if (virtual_stage == 0) {
            std::vector<Item> edge = edge_kernels_of(KernelScope::first_stage, edge_passes);
            items.insert(items.end(), edge.begin(), edge.end());
        }
        if (input && layout_.zero == 2 && in_.zero2_backward.cost() > 0) items.push_back(wait_item(in_.zero2_backward.cost() / chunks_ * kMicroseconds));
        if (input && blocking_sends()) items.push_back(wait_item(in_.pp.send_seconds * kMicroseconds));
        return items;
    }

    // ---- coarser detail: one slice per layer pass or per op, communication summed per thread ----

    static std::string group_key(const Item& item, TraceDetail detail) {
        if (detail == TraceDetail::ops) return {};
        return std::to_string(item.layer) + "/" + (item.pass == "backward_weight" ? std::string("backward_input") : item.pass);
    }

    static std::vector<Item> coarsen(const std::vector<Item>& items, TraceDetail detail) {
        if (detail == TraceDetail::kernels) return items;
        std::vector<Item> out;
        std::size_t begin = 0;
        while (begin < items.size()) {
            // A group: consecutive items with the same key; waits join the group they are in.
            const std::string key = group_key(items[begin], detail);
            std::size_t end = begin + 1;
            while (end < items.size() && (items[end].kind == Item::Kind::wait || group_key(items[end], detail) == key)) ++end;
            Item compute;
            compute.kind = Item::Kind::compute;
            compute.category = detail == TraceDetail::ops ? "op" : "layer";
            std::array<Item, trace_thread_count> comms{};
            double waits_us = 0;
            for (std::size_t i = begin; i < end; ++i) {
                const Item& item = items[i];
                if (item.kind == Item::Kind::wait) {
                    waits_us += item.us;
                    continue;
                }
                Item& into = item.kind == Item::Kind::compute ? compute : comms[static_cast<int>(item.thread)];
                if (into.count == 0) {
                    into.kind = item.kind;
                    into.thread = item.thread;
                    into.pass = item.pass;
                    into.layer = item.layer;
                    into.ranks = item.ranks;
                    if (item.kind == Item::Kind::comm) into.category = item.category;
                }
                into.count += item.count;
                into.us += item.us;
                into.flops += item.flops;
                into.bytes += item.bytes;
                waits_us += item.wait_us;
            }
            for (Item& comm : comms) {
                if (comm.count == 0) continue;
                comm.name = comm.category + " collectives";
                out.push_back(comm);  // issued as the group starts, beside its compute
            }
            if (compute.count > 0) {
                compute.name = detail == TraceDetail::ops ? "kernels" : compute.layer >= 0 ? "layer " + std::to_string(compute.layer) : "stage edge";
                if (detail == TraceDetail::layers) compute.name += " " + compute.pass;
                if (detail == TraceDetail::ops) compute.layer = -1;
                out.push_back(compute);
            }
            if (waits_us > 0) out.push_back(wait_item(waits_us));
            begin = end;
        }
        return out;
    }

    // How long a template runs on the compute stream: kernels and waits.
    static double content_us(const std::vector<Item>& items) {
        double us = 0;
        for (const Item& item : items) us += item.kind == Item::Kind::comm ? item.wait_us : item.us;
        return us;
    }

    const std::vector<Item>& op_items(const PipelineOp& op, int virtual_stage, bool last_microbatch) {
        const bool buckets_matter = op.kind != PipelineOpKind::forward && layout_.zero <= 1;
        const auto key = std::make_tuple(static_cast<int>(op.kind), virtual_stage, buckets_matter && last_microbatch);
        auto found = templates_.find(key);
        if (found != templates_.end()) return found->second;
        std::vector<Item> items = op.kind == PipelineOpKind::forward ? forward_op(virtual_stage) : backward_op(virtual_stage, op.kind, last_microbatch);
        return templates_.emplace(key, coarsen(items, detail_)).first->second;
    }

    // ---- placing slices in time ----

    struct Placement {
        std::vector<TraceSlice>* slices;
        std::vector<std::array<double, trace_thread_count>> free_us;  // per stage, per thread: when its last slice ends
        std::size_t cap = max_trace_slices;
        bool over = false;
    };

    bool emit(Placement& placement, TraceSlice slice) const {
        if (placement.slices->size() >= placement.cap) {
            placement.over = true;
            return false;
        }
        double& free_us = placement.free_us[slice.stage][static_cast<int>(slice.thread)];
        slice.start_us = std::max(slice.start_us, free_us);  // rounding never lets two slices of a thread overlap
        free_us = slice.start_us + slice.duration_us;
        placement.slices->push_back(std::move(slice));
        return true;
    }

    TraceSlice slice_of(const Item& item, int stage, int microbatch, int chunk) const {
        TraceSlice slice;
        slice.name = item.name;
        slice.category = item.category;
        slice.stage = stage;
        slice.thread = item.kind == Item::Kind::compute ? TraceThread::compute : item.thread;
        slice.duration_us = item.us;
        slice.microbatch = microbatch;
        slice.chunk = chunk;
        slice.layer = item.layer;
        slice.pass = item.pass;
        slice.kernel = item.kernel;
        slice.count = item.count;
        slice.launches = item.launches;
        slice.flops = item.flops;
        slice.bytes = item.bytes;
        slice.bound = item.bound;
        slice.efficiency = item.efficiency;
        slice.ranks = item.ranks;
        slice.exposed_us = item.wait_us;
        return slice;
    }

    // Lays `items` out from start_us within duration_us: kernels back to back, waits scaled so they fit (the model's op
    // duration is the truth), collectives from where they are issued on their own thread. Returns the compute clock.
    double lay_out(Placement& placement, const std::vector<Item>& items, double start_us, double duration_us, int stage, int microbatch, int chunk) {
        double kernels_us = 0, waits_us = 0;
        for (const Item& item : items) {
            if (item.kind == Item::Kind::compute) kernels_us += item.us;
            else if (item.kind == Item::Kind::wait) waits_us += item.us;
            else waits_us += item.wait_us;
        }
        // The op's kernels never outlast it; the scale guards against rounding in its last digit.
        const double kernel_scale = kernels_us > duration_us && kernels_us > 0 ? duration_us / kernels_us : 1.0;
        const double room_us = std::max(0.0, duration_us - kernels_us * kernel_scale);
        const double wait_scale = waits_us > room_us && waits_us > 0 ? room_us / waits_us : 1.0;
        double clock = start_us;
        for (const Item& item : items) {
            switch (item.kind) {
                case Item::Kind::compute: {
                    TraceSlice slice = slice_of(item, stage, microbatch, chunk);
                    slice.start_us = clock;
                    slice.duration_us = item.us * kernel_scale;
                    clock += slice.duration_us;
                    if (!emit(placement, std::move(slice))) return clock;
                    break;
                }
                case Item::Kind::wait: clock += item.us * wait_scale; break;
                case Item::Kind::comm: {
                    TraceSlice slice = slice_of(item, stage, microbatch, chunk);
                    slice.start_us = std::max(start_us, clock - item.issue_back_us * kernel_scale);
                    slice.exposed_us = item.wait_us * wait_scale;
                    clock += slice.exposed_us;
                    if (!emit(placement, std::move(slice))) return clock;
                    break;
                }
            }
        }
        return clock;
    }

    bool build_at(TraceDetail detail, StepTrace& trace) {
        detail_ = detail;
        templates_.clear();
        trace.detail = detail;
        trace.step_seconds = step_.step_seconds;
        trace.stage_layers = in_.stage_layers;
        trace.first_stage_layers = in_.stage_layers - shortfall_.first_layers;
        trace.last_stage_layers = in_.stage_layers - shortfall_.last_layers;
        trace.microbatches = step_.schedule.microbatches;
        Placement placement;
        placement.slices = &trace.slices;
        placement.free_us.assign(layout_.pp, {});
        if (!place_hidden_param_gather(placement) || !place_pipeline_ops(placement) || !place_step_tails(placement)) return false;
        name_stages(trace);
        return true;
    }

    // The updated weights' all-gather runs behind the next step's first forward but for its exposed share: in a steady
    // state this step opens with the previous one's hidden part, so the step holds one gather and ends on time.
    bool place_hidden_param_gather(Placement& placement) const {
        const double param_gather_hidden_us =
            in_.dp_group.ranks > 1 ? std::max(0.0, in_.dp.param_gather_seconds - step_.param_gather_exposed_seconds) * kMicroseconds : 0.0;
        if (param_gather_hidden_us <= 0) return true;
        for (int stage = 0; stage < layout_.pp; ++stage) {
            Item hidden = comm_item(TraceThread::dp, "all-gather", param_gather_hidden_us / kMicroseconds,
                                    in_.dp.weight_bytes * param_gather_hidden_us / (in_.dp.param_gather_seconds * kMicroseconds), dp_ranks_, "step", -1);
            hidden.name = "all-gather (the last step's update, behind the first forward)";
            if (!emit(placement, slice_of(hidden, stage, -1, -1))) return false;
        }
        return true;
    }

    // Where an op's slices lie: an F&B cell lists its forward and backward chunk with one start and duration; the trace
    // runs the forward first and the backward after it, each for its share of the cell by what it computes and waits.
    // `cell_split_us` carries where the cell's forward half ends to its backward half (-1 outside a cell).
    std::pair<double, double> op_span(const PipelineOp& op, double& cell_split_us) {
        const int m = step_.schedule.microbatches;
        double start_us = op.start_seconds * kMicroseconds;
        double duration_us = op.duration_seconds * kMicroseconds;
        if (op.overlapped && op.kind == PipelineOpKind::forward) {
            const double forward_us = content_us(op_items(op, op.stage, op.microbatch == m - 1));
            const PipelineOp* partner = &op + 1;
            const bool paired = partner <= &timeline_.ops.back() && partner->overlapped && partner->device == op.device;
            const double backward_us = paired ? content_us(op_items(*partner, partner->stage, partner->microbatch == m - 1)) : 0.0;
            duration_us *= forward_us + backward_us > 0 ? forward_us / (forward_us + backward_us) : 1.0;
            cell_split_us = start_us + duration_us;
        } else if (op.overlapped && cell_split_us >= 0) {
            duration_us = start_us + duration_us - cell_split_us;
            start_us = cell_split_us;
            cell_split_us = -1;
        }
        return {start_us, duration_us};
    }

    bool place_pipeline_ops(Placement& placement) {
        double cell_split_us = -1;  // DualPipe's F&B cell: where its forward half ends and its backward half starts
        for (const PipelineOp& op : timeline_.ops) {
            const auto [start_us, duration_us] = op_span(op, cell_split_us);
            if (!place_op(placement, op, start_us, duration_us) || !place_send(placement, op, start_us, duration_us)) return false;
        }
        return true;
    }

    // The op's marker on the schedule thread, then what it runs (the naive schedule pushes the whole batch through each op).
    bool place_op(Placement& placement, const PipelineOp& op, double start_us, double duration_us) {
        const int m = step_.schedule.microbatches;
        const int reps = naive() ? m : 1;
        TraceSlice marker;
        marker.name = std::string(pipeline_op_kind_name(op.kind)) + (naive() ? " (whole batch)" : op.overlapped ? " (F&B cell)" : "");
        marker.category = "schedule";
        marker.stage = op.device;
        marker.thread = TraceThread::schedule;
        marker.start_us = start_us;
        marker.duration_us = duration_us;
        marker.microbatch = naive() ? -1 : op.microbatch;
        marker.chunk = op.chunk;
        marker.pass = marker.name;
        if (!emit(placement, marker)) return false;
        const double rep_us = duration_us / reps;
        for (int rep = 0; rep < reps; ++rep) {
            const int microbatch = naive() ? rep : op.microbatch;
            const std::vector<Item>& items = op_items(op, op.stage, microbatch == m - 1);
            lay_out(placement, items, start_us + rep * rep_us, rep_us, op.device, microbatch, op.chunk);
            if (placement.over) return false;
        }
        return true;
    }

    // The activation to the next stage after a forward, its gradient to the previous one after a backward.
    bool place_send(Placement& placement, const PipelineOp& op, double start_us, double duration_us) {
        const int virtual_stage = op.stage;
        const bool sends_forward = op.kind == PipelineOpKind::forward && virtual_stage + 1 < virtual_stages_;
        const bool sends_backward = (op.kind == PipelineOpKind::backward || op.kind == PipelineOpKind::backward_input) && virtual_stage > 0;
        const int to = sends_forward ? virtual_stage + 1 : virtual_stage - 1;
        const auto to_device = stage_device_.find({to, op.microbatch});
        const bool same_device = to_device != stage_device_.end() && to_device->second == op.device;  // DualPipeV's turn
        if (layout_.pp <= 1 || !(sends_forward || sends_backward) || same_device) return true;
        const std::string forward_name = pipeline_op_kind_name(PipelineOpKind::forward);
        Item send = comm_item(TraceThread::pp, sends_forward ? "send activation" : "send gradient", step_.schedule.p2p_seconds, in_.pp.message_bytes, 2,
                              sends_forward ? forward_name : std::string(pipeline_op_kind_name(op.kind)), -1);
        TraceSlice slice = slice_of(send, op.device, naive() ? -1 : op.microbatch, op.chunk);
        if (to_device != stage_device_.end()) slice.name += " to stage " + std::to_string(to_device->second);
        slice.start_us = start_us + duration_us - (blocking_sends() ? send.us : 0.0);
        if (blocking_sends()) slice.exposed_us = send.us;
        return emit(placement, std::move(slice));
    }

    // After the pipeline: the gradient reduction's exposed tail, the optimizer (every stage together: gradient clipping
    // needs the global norm), then the updated weights' all-gather, partly behind the next step's forward.
    bool place_step_tails(Placement& placement) {
        const double makespan_us = step_.makespan_seconds * kMicroseconds;
        int optimizer_index = -1;
        for (int i = 0; i < static_cast<int>(report_.compute.kernels.size()); ++i)
            if (report_.compute.kernels[i].scope == KernelScope::step) optimizer_index = i;
        for (int stage = 0; stage < layout_.pp; ++stage) {
            std::vector<Item> tail;
            if (in_.dp_group.ranks > 1 && ((layout_.zero <= 1 && !scenario_.overlap.dp_grad_reduce) || in_.dp.once_a_step)) {
                Item reduce = comm_item(TraceThread::dp, in_.dp.all_reduce ? "all-reduce" : "reduce-scatter", in_.dp.grad_reduce_seconds, in_.dp.grad_bytes, dp_ranks_,
                                        "step", -1);
                reduce.wait_us = step_.dp_tail_exposed_seconds * kMicroseconds;
                tail.push_back(reduce);
            } else if (step_.dp_tail_exposed_seconds > 0) {
                tail.push_back(wait_item(step_.dp_tail_exposed_seconds * kMicroseconds));
            }
            if (optimizer_index >= 0) tail.push_back(kernel_item(optimizer_index, -1));
            if (in_.dp_group.ranks > 1 && step_.param_gather_exposed_seconds > 0) {  // its hidden share opened the step
                const double exposed_seconds = step_.param_gather_exposed_seconds;
                Item gather = comm_item(TraceThread::dp, "all-gather", exposed_seconds, in_.dp.weight_bytes * exposed_seconds / in_.dp.param_gather_seconds,
                                        dp_ranks_, "step", -1);
                gather.wait_us = exposed_seconds * kMicroseconds;
                tail.push_back(gather);
            }
            const double tail_us = step_.step_seconds * kMicroseconds - makespan_us;
            lay_out(placement, tail, makespan_us, tail_us, stage, -1, -1);  // three slices at most: kept whole at any detail
            if (placement.over) return false;
        }
        return true;
    }

    // By stage, then thread, then time: the order a reader expects, and what the overlap guard assumed per thread. Each
    // stage's compute time, and its name: the rank that stands for it.
    void name_stages(StepTrace& trace) const {
        std::stable_sort(trace.slices.begin(), trace.slices.end(), [](const TraceSlice& a, const TraceSlice& b) {
            return std::tie(a.stage, a.thread, a.start_us) < std::tie(b.stage, b.thread, b.start_us);
        });
        trace.stage_compute_seconds.assign(layout_.pp, 0.0);
        for (const TraceSlice& slice : trace.slices)
            if (slice.thread == TraceThread::compute) trace.stage_compute_seconds[slice.stage] += slice.duration_us / kMicroseconds;
        const long long alike = layout_.stage_gpus();
        for (int stage = 0; stage < layout_.pp; ++stage) {
            const long long rank = 1LL * stage * layout_.tp * layout_.cp;
            std::string name = "stage " + std::to_string(stage) + ": rank " + std::to_string(rank) + " (tp 0, cp 0, dp 0)";
            if (alike > 1) name += ", one of " + std::to_string(alike) + " alike";
            trace.stage_names.push_back(name);
        }
    }
};

// Shortest text that reads back as the same double.
void append_number(std::string& out, double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void append_string(std::string& out, const std::string& text) { out += nlohmann::json(text).dump(); }

void append_key(std::string& out, const char* key) {
    out += '"';
    out += key;
    out += "\":";
}

// Names and order of the processes (stages) and their threads (streams): metadata events.
void append_metadata_events(std::string& out, const StepTrace& trace, bool& first) {
    const auto begin_event = [&] {
        if (!first) out += ",\n";
        first = false;
    };
    for (int stage = 0; stage < static_cast<int>(trace.stage_names.size()); ++stage) {
        const std::string pid = std::to_string(stage + 1);
        begin_event();
        out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":0,\"args\":{\"name\":";
        append_string(out, trace.stage_names[stage]);
        out += "}}";
        begin_event();
        out += "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":0,\"args\":{\"sort_index\":" + pid + "}}";
        std::array<bool, trace_thread_count> used{};
        for (const TraceSlice& slice : trace.slices)
            if (slice.stage == stage) used[static_cast<int>(slice.thread)] = true;
        for (int thread = 0; thread < trace_thread_count; ++thread) {
            if (!used[thread]) continue;
            const std::string tid = std::to_string(thread + 1);
            begin_event();
            out += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid + ",\"args\":{\"name\":";
            append_string(out, trace_thread_name(static_cast<TraceThread>(thread)));
            out += "}}";
            begin_event();
            out += "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid + ",\"args\":{\"sort_index\":" + tid + "}}";
        }
    }
}

// A slice's args: where it sits in the step, and what it computes or sends.
void append_slice_args(std::string& out, const TraceSlice& slice) {
    bool first_arg = true;
    const auto arg = [&](const char* key) {
        if (!first_arg) out += ',';
        first_arg = false;
        append_key(out, key);
    };
    if (!slice.pass.empty()) {
        arg("pass");
        append_string(out, slice.pass);
    }
    if (slice.microbatch >= 0) {
        arg("microbatch");
        out += std::to_string(slice.microbatch);
    }
    if (slice.chunk >= 0) {
        arg("chunk");
        out += std::to_string(slice.chunk);
    }
    if (slice.layer >= 0) {
        arg("layer");
        out += std::to_string(slice.layer);
    }
    if (slice.count > 1) {
        arg("count");
        out += std::to_string(slice.count);
    }
    if (slice.thread == TraceThread::compute) {
        if (slice.launches > 0) {
            arg("launches");
            append_number(out, slice.launches);
        }
        arg("flops");
        append_number(out, slice.flops);
        arg("bytes");
        append_number(out, slice.bytes);
        if (!slice.bound.empty()) {
            arg("bound");
            append_string(out, slice.bound);
            arg("efficiency");
            append_number(out, slice.efficiency);
        }
    } else if (slice.thread != TraceThread::schedule) {
        arg("bytes");
        append_number(out, slice.bytes);
        arg("ranks");
        out += std::to_string(slice.ranks);
        arg("exposed_us");
        append_number(out, slice.exposed_us);
    }
}

void append_slice_event(std::string& out, const TraceSlice& slice) {
    out += "{\"name\":";
    append_string(out, slice.name);
    out += ",\"cat\":";
    append_string(out, slice.category);
    out += ",\"ph\":\"X\",\"pid\":" + std::to_string(slice.stage + 1) + ",\"tid\":" + std::to_string(static_cast<int>(slice.thread) + 1) + ",\"ts\":";
    append_number(out, slice.start_us);
    out += ",\"dur\":";
    append_number(out, slice.duration_us);
    out += ",\"args\":{";
    append_slice_args(out, slice);
    out += "}}";
}

// What the trace is: the scenario, the layout, the step, and a paragraph saying how to read it.
nlohmann::ordered_json trace_other_data(const Scenario& scenario, const Report& report, const StepTrace& trace) {
    nlohmann::ordered_json other;
    other["generator"] = "shardscope trace";
    other["model"] = scenario.model.name;
    other["gpu"] = scenario.cluster.gpu.name;
    other["layout"] = {{"gpus", report.layout.gpus}, {"tp", report.layout.tp}, {"pp", report.layout.pp}, {"cp", report.layout.cp},
                       {"dp", report.layout.dp}, {"zero", report.layout.zero}, {"microbatches", trace.microbatches},
                       {"schedule", schedule_name(report.pipeline.schedule)}, {"virtual_stages", report.pipeline.virtual_stages}};
    other["step_seconds"] = trace.step_seconds;
    other["detail"] = trace_detail_name(trace.detail);
    other["stage_layers"] = trace.stage_layers;
    other["stage_compute_seconds"] = trace.stage_compute_seconds;
    std::string about = "The modelled step, not a measurement. Each process is one pipeline stage's representative rank; every rank of a "
                        "stage runs the same step in the model. Times in microseconds from the step's start.";
    if (trace.detail != TraceDetail::kernels) about += " The step has too many kernels for one slice each: the compute thread has one slice per " +
                                                       std::string(trace.detail == TraceDetail::layers ? "layer pass" : "pipeline op") + ".";
    other["first_stage_layers"] = trace.first_stage_layers;
    other["last_stage_layers"] = trace.last_stage_layers;
    if (report.layout.pp > 1 && (scenario.model.layers % report.layout.pp != 0 || trace.first_stage_layers != trace.stage_layers ||
                                 trace.last_stage_layers != trace.stage_layers)) {
        about += " The middle stages run the heaviest stage's " + format_counted(trace.stage_layers, "layer", "layers") + ", as the model times them; the first runs " +
                 std::to_string(trace.first_stage_layers) + " and the last " + std::to_string(trace.last_stage_layers) + ".";
    }
    other["about"] = about;
    return other;
}

}  // namespace

StepTrace step_trace(const Scenario& scenario, const Report& report) { return TraceBuilder(scenario, report).build(); }

std::string trace_to_json(const Scenario& scenario, const Report& report, const StepTrace& trace) {
    std::string out;
    out.reserve(trace.slices.size() * 240 + 4096);
    out += "{\"traceEvents\":[\n";
    bool first = true;
    append_metadata_events(out, trace, first);
    for (const TraceSlice& slice : trace.slices) {
        if (!first) out += ",\n";
        first = false;
        append_slice_event(out, slice);
    }
    out += "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":";
    out += trace_other_data(scenario, report, trace).dump();
    out += "\n}\n";
    return out;
}

}  // namespace core
