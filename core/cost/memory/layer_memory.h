#pragma once
// What one block of an operator recipe (core/cost/kernels/recipe_ops.h) holds over its forward and backward, found by
// walking its tensors as PyTorch allocates and frees them: each op's output and the tensors it makes, freed once their
// last reader has run unless an op keeps them for its backward; under recompute only the block's input is kept (the
// checkpoint), and the backward reruns the forward first. The step's memory (core/cost/memory/memory.h) and its timeline
// (core/cost/memory/timeline.h) are built from these figures, so both say the same.
#include "core/cost/kernels/recipe_ops.h"

namespace core {

// One allocation or release of a block's walk, in order: what the allocator sees (core/cost/memory/allocator.h).
struct TensorEvent {
    double bytes = 0;      // > 0 allocated, < 0 freed
    int tensor = -1;       // the program's tensor (its own id for the allocator)
};

struct BlockMemory {
    // The forward of one micro-batch: what is live after it beyond what was before (its stored activations and its
    // output, less the input it freed), and the most it holds above the start on the way.
    double forward_delta_bytes = 0;
    double forward_peak_bytes = 0;
    // Autocast's cached weight copies not kept by the graph (under recompute): freed when the forward leaves autocast.
    double autocast_cache_bytes = 0;
    // The backward (its recompute first): the most it holds above the start, what is live after it beyond the start
    // (negative: it frees the stored activations; the parameters' gradients it makes are counted apart), and those
    // gradients (zero when the framework keeps them in a buffer).
    double backward_peak_bytes = 0;
    double backward_delta_bytes = 0;
    double param_grad_bytes = 0;
    // The gradient it receives and the one it hands back (the stream's dtype; at the head: none received).
    double grad_in_bytes = 0;
    double grad_out_bytes = 0;
    std::vector<TensorEvent> forward_events, backward_events;  // for the allocator (kept only when asked)
    std::vector<int> autocast_cache_ids;  // the cached weight copies the forward's end releases (their event ids)
    std::vector<int> param_grad_ids;      // the parameters' gradients the backward made (zero_grad releases them)
    std::vector<double> param_bytes;      // each weight tensor the block reads, in its storage dtype's bytes per element x 1
    std::vector<double> frozen_bytes;     // LoRA's frozen weights the block reads, in the bytes they are stored in
    int input_id = -1, output_id = -1;    // the event ids of the block's input and output (the next block's input)
    int grad_id_base = 0;                 // a tensor's gradient has event id grad_id_base + the tensor's id
};

// grads_allocated: the parameters' gradients are made in this backward (PyTorch's zero_grad(set_to_none=True) freed them,
// and this is the first micro-batch of the step); else they already exist (a buffer, or an earlier micro-batch).
// held_output: the block's output is returned to the caller and held to the end of the forward (the head's logits).
BlockMemory block_memory(const BlockProgram&, Recompute, bool grads_allocated, bool keep_events = false,
                         const char* held_output = nullptr);

}  // namespace core
