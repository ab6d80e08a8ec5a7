#include "core/cost/memory/layer_memory.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace core {

namespace {

// A block's walk over its tensors' storage (a view shares its base's).
class Walk {
public:
    Walk(const BlockProgram& program, Recompute recompute, bool grads_allocated, bool keep_events, const char* held_output)
        : program_(program), recompute_(recompute), grads_allocated_(grads_allocated), keep_events_(keep_events) {
        const std::size_t n = program.tensors.size();
        readers_.assign(n, 0);
        savers_.assign(n, 0);
        producer_.assign(n, -1);
        live_.assign(n, false);
        grad_.assign(n, false);
        for (std::size_t i = 0; i < program.ops.size(); ++i) {
            const ProgramOp& op = program.ops[i];
            for (int input : distinct_storage(op.inputs)) ++readers_[input];
            for (int saved : distinct_storage(op.saved)) ++savers_[saved];
            if (op.output >= 0) producer_[storage(op.output)] = static_cast<int>(i);
            for (int made : op.made) producer_[storage(made)] = static_cast<int>(i);
        }
        input_ = program.input >= 0 ? storage(program.input) : -1;
        output_ = program.output >= 0 ? storage(program.output) : -1;
        if (held_output) {
            for (std::size_t t = 0; t < n; ++t) {
                if (program.tensors[t].name == held_output) held_ = storage(static_cast<int>(t));
            }
        }
    }

    BlockMemory run() {
        BlockMemory memory;
        forward(memory);
        backward(memory);
        memory.grad_in_bytes = output_ >= 0 && program_.tensors[static_cast<std::size_t>(output_)].requires_grad ? bytes(output_) : 0.0;
        memory.grad_out_bytes = input_ >= 0 && program_.tensors[static_cast<std::size_t>(input_)].requires_grad ? grad_bytes(input_) : 0.0;
        if (keep_events_) {
            memory.forward_events = std::move(forward_events_);
            memory.backward_events = std::move(backward_events_);
            memory.autocast_cache_ids = std::move(cache_ids_);
            memory.param_grad_ids = std::move(param_grad_ids_);
            for (const ProgramOp& op : program_.ops) {
                if (op.weight_params > 0) memory.param_bytes.push_back(op.weight_params);
                if (op.frozen_bytes > 0) memory.frozen_bytes.push_back(op.frozen_bytes);
            }
        }
        memory.input_id = input_;
        memory.output_id = output_;
        memory.grad_id_base = static_cast<int>(program_.tensors.size());
        return memory;
    }

private:
    int storage(int tensor) const {
        const ProgramTensor& t = program_.tensors[static_cast<std::size_t>(tensor)];
        return t.alias_of >= 0 ? t.alias_of : tensor;
    }
    std::vector<int> distinct_storage(const std::vector<int>& tensors) const {
        std::vector<int> out;
        for (int tensor : tensors) {
            const int s = storage(tensor);
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
        }
        return out;
    }
    double bytes(int s) const {
        const ProgramTensor& t = program_.tensors[static_cast<std::size_t>(s)];
        return t.constant ? 0.0 : t.bytes();
    }
    // A gradient is the tensor's shape in its dtype (an index or a mask has none).
    double grad_bytes(int s) const {
        const ProgramTensor& t = program_.tensors[static_cast<std::size_t>(s)];
        if (t.constant || !t.requires_grad || t.dtype == Dtype::index || t.dtype == Dtype::mask) return 0.0;
        return t.bytes();
    }

    // Kept from the forward to the backward under the recompute setting: what some op saves, unless recompute rebuilds it
    // (full: everything but the checkpointed input; selective: what the ops marked recompute_selective made).
    bool kept(int s) const {
        if (savers_[static_cast<std::size_t>(s)] == 0 || s == input_) return false;
        switch (recompute_) {
            case Recompute::none: return true;
            case Recompute::full: return false;
            case Recompute::selective: {
                const int producer = producer_[static_cast<std::size_t>(s)];
                return producer < 0 || !program_.ops[static_cast<std::size_t>(producer)].recompute_selective;
            }
        }
        return true;
    }

    void allocate(int s, double& live, double& peak, std::vector<TensorEvent>& events) {
        if (live_[static_cast<std::size_t>(s)] || s == input_) return;
        const double b = bytes(s);
        live_[static_cast<std::size_t>(s)] = true;
        if (b <= 0) return;
        live += b;
        peak = std::max(peak, live);
        if (keep_events_) events.push_back({b, s});
    }
    void release(int s, double& live, std::vector<TensorEvent>& events) {
        if (!live_[static_cast<std::size_t>(s)] || s == input_) return;
        live_[static_cast<std::size_t>(s)] = false;
        const double b = bytes(s);
        if (b <= 0) return;
        live -= b;
        if (keep_events_) events.push_back({-b, s});
    }
    // An event of a tensor that is not one of the program's (a gradient, a scratch buffer): ids above the tensors'.
    void transient(double b, int id, double& live, double& peak, std::vector<TensorEvent>& events) {
        if (b == 0) return;
        live += b;
        peak = std::max(peak, live);
        if (keep_events_) events.push_back({b, id});
    }

    // A weight's gradient, as the .grad it becomes (freed by zero_grad, outside the block).
    void param_grad(const ProgramOp& op, int id, double& live, double& peak, BlockMemory& memory) {
        const double b = op.weight_params * dtype_bytes(program_.grad_dtype);
        memory.param_grad_bytes += b;
        transient(b, id, live, peak, backward_events_);
        param_grad_ids_.push_back(id);
    }

    // Runs ops [0, n) forward, freeing what no later op reads and nothing keeps; `keep` says what stays.
    template <class Keep>
    void run_forward(double& live, double& peak, std::vector<TensorEvent>& events, Keep&& keep, bool only_selective) {
        std::vector<int> readers = readers_;
        for (std::size_t i = 0; i < program_.ops.size(); ++i) {
            const ProgramOp& op = program_.ops[i];
            if (only_selective && !op.recompute_selective) continue;
            for (int made : op.made) allocate(storage(made), live, peak, events);
            if (op.output >= 0) allocate(storage(op.output), live, peak, events);
            for (int input : distinct_storage(op.inputs)) --readers[static_cast<std::size_t>(input)];
            const auto maybe_free = [&](int s) {
                if (readers[static_cast<std::size_t>(s)] > 0 || keep(s) || s == output_ || s == held_) return;
                if (program_.tensors[static_cast<std::size_t>(s)].cached_weight && in_forward_) return;  // autocast's cache
                release(s, live, events);
            };
            for (int made : op.made) maybe_free(storage(made));
            if (op.output >= 0) maybe_free(storage(op.output));
            for (int input : distinct_storage(op.inputs)) maybe_free(input);
        }
    }

    void forward(BlockMemory& memory) {
        double live = 0, peak = 0;
        in_forward_ = true;
        run_forward(live, peak, forward_events_, [&](int s) { return kept(s); }, false);
        in_forward_ = false;
        // Autocast's cached weight copies that the graph does not keep leave with the cache at the forward's end.
        for (std::size_t s = 0; s < live_.size(); ++s) {
            if (live_[s] && program_.tensors[s].cached_weight && !kept(static_cast<int>(s))) {
                memory.autocast_cache_bytes += bytes(static_cast<int>(s));
                cache_ids_.push_back(static_cast<int>(s));
            }
        }
        // The block's input: freed here when nothing keeps it (the previous block counted it in its own output).
        if (input_ >= 0 && recompute_ != Recompute::full && savers_[static_cast<std::size_t>(input_)] == 0 && input_ != output_) {
            const double b = bytes(input_);
            live -= b;
            if (keep_events_ && b > 0) forward_events_.push_back({-b, input_});
        }
        memory.forward_delta_bytes = live - memory.autocast_cache_bytes;
        memory.forward_peak_bytes = peak;
        if (held_ >= 0 && !kept(held_)) {  // a returned output is held to the end of the forward, then dropped (unless saved)
            memory.forward_delta_bytes -= bytes(held_);
            release(held_, live, forward_events_);
            live_[static_cast<std::size_t>(held_)] = false;
        }
    }

    void backward(BlockMemory& memory) {
        // Start: what the forward kept (its cached copies gone), the gradient of the output arriving.
        for (std::size_t s = 0; s < live_.size(); ++s) {
            if (live_[s] && (!kept(static_cast<int>(s)) || static_cast<int>(s) == output_)) live_[s] = false;
        }
        double live = 0, peak = 0;
        const int grad_base = static_cast<int>(program_.tensors.size());
        // Recompute first: the whole forward again (full), or the ops the policy marks (selective), keeping what the
        // backward needs.
        if (recompute_ != Recompute::none) {
            in_forward_ = false;
            run_forward(live, peak, backward_events_, [&](int s) { return savers_[static_cast<std::size_t>(s)] > 0 && s != output_; },
                        recompute_ == Recompute::selective);
            if (output_ >= 0 && live_[static_cast<std::size_t>(output_)] && savers_[static_cast<std::size_t>(output_)] == 0) {
                release(output_, live, backward_events_);
            }
        }
        std::vector<int> savers = savers_;
        // What an op saved, freed once its last saver's backward is done (the block's input: counted by the previous block).
        const auto release_saved = [&](const ProgramOp& op) {
            for (int saved : distinct_storage(op.saved)) {
                if (--savers[static_cast<std::size_t>(saved)] > 0) continue;
                if (saved == input_) {
                    // The block's input, kept for this backward (a saved tensor or the checkpoint): the last reader done.
                    const double b = bytes(input_);
                    live -= b;
                    if (keep_events_ && b > 0) backward_events_.push_back({-b, input_});
                } else {
                    release(saved, live, backward_events_);
                }
            }
        };
        for (int i = static_cast<int>(program_.ops.size()) - 1; i >= 0; --i) {
            const ProgramOp& op = program_.ops[static_cast<std::size_t>(i)];
            // Scratch the backward allocates and frees (fp32 gradients inside attention, a dequantized weight), and a bf16
            // dW awaiting its cast under autocast.
            transient(op.backward_scratch_bytes, grad_base * 3, live, peak, backward_events_);
            // A chunked op's backward runs chunk by chunk, each chunk's saved input freed as its gradient is written: at
            // most one chunk of the gradient beside the whole saved input (the scratch above), then the gradient alone.
            if (op.chunks > 1) release_saved(op);
            transient(op.weight_grad_cast_bytes, grad_base * 3 + 1, live, peak, backward_events_);
            for (int input : distinct_storage(op.inputs)) {
                if (grad_[static_cast<std::size_t>(input)] || grad_bytes(input) <= 0) continue;
                grad_[static_cast<std::size_t>(input)] = true;
                transient(grad_bytes(input), grad_base + input, live, peak, backward_events_);
            }
            const bool weight_grad = op.weight_params > 0 && grads_allocated_;
            const bool cast_later = op.weight_grad_cast_bytes > 0;
            // Without a cast the GEMM's node writes the .grad itself (AccumulateGrad steals it).
            if (weight_grad && !cast_later) param_grad(op, grad_base * 2 + i, live, peak, memory);
            transient(-op.backward_scratch_bytes, grad_base * 3, live, peak, backward_events_);
            // The output's gradient is used up (the block's own output's is the one it received): autograd's engine
            // releases a node's incoming gradient when the node returns (torch/csrc/autograd/engine.cpp, evaluate_function).
            const int out = op.output >= 0 ? storage(op.output) : -1;
            if (out >= 0 && out != input_) {
                const double g = grad_[static_cast<std::size_t>(out)] ? grad_bytes(out) : 0.0;
                if (out == output_) {
                    const double b = output_ >= 0 && program_.tensors[static_cast<std::size_t>(output_)].requires_grad ? bytes(output_) : 0.0;
                    transient(-b, grad_base + out, live, peak, backward_events_);
                } else if (g > 0) {
                    transient(-g, grad_base + out, live, peak, backward_events_);
                }
                grad_[static_cast<std::size_t>(out)] = false;
            }
            // Then autocast's cast node (ToCopyBackward0) turns the bf16 dW into the fp32 .grad and drops it.
            if (weight_grad && cast_later) param_grad(op, grad_base * 2 + i, live, peak, memory);
            transient(-op.weight_grad_cast_bytes, grad_base * 3 + 1, live, peak, backward_events_);
            for (int made : op.made) {
                const int s = storage(made);
                if (grad_[static_cast<std::size_t>(s)]) {  // an autocast cast's gradient, cast back into its source's
                    transient(-grad_bytes(s), grad_base + s, live, peak, backward_events_);
                    grad_[static_cast<std::size_t>(s)] = false;
                }
            }
            if (op.chunks <= 1) release_saved(op);
        }
        memory.param_grad_bytes = memory.param_grad_bytes;
        memory.backward_peak_bytes = peak;
        memory.backward_delta_bytes = live - memory.param_grad_bytes;
    }

    const BlockProgram& program_;
    Recompute recompute_;
    bool grads_allocated_;
    bool keep_events_;
    bool in_forward_ = false;
    std::vector<int> readers_, savers_, producer_;
    std::vector<bool> live_, grad_;
    int input_ = -1, output_ = -1, held_ = -1;
    std::vector<TensorEvent> forward_events_, backward_events_;
    std::vector<int> cache_ids_, param_grad_ids_;
};

}  // namespace

BlockMemory block_memory(const BlockProgram& program, Recompute recompute, bool grads_allocated, bool keep_events, const char* held_output) {
    return Walk(program, recompute, grads_allocated, keep_events, held_output).run();
}

}  // namespace core
