#pragma once
// Memory over one training step on one GPU: allocated and reserved bytes after each layer's forward and backward, at the
// loss, the optimizer step and zero_grad, for the heaviest pipeline stage with its micro-batches in the order its schedule
// runs them. Operator recipes replay their blocks' tensor events (core/cost/memory/layer_memory.h) through PyTorch's
// caching allocator (core/cost/memory/allocator.h), a warm-up step then the step itself (the optimizer's state is made in
// the first); block recipes (Megatron's family, the probe module) step through their per-layer figures, reserved being
// allocated plus the measured allowance (memory.fragmentation).
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/memory/memory.h"

#include <string>
#include <vector>

namespace core {

// One step's order on a stage: forward or backward of a micro-batch.
struct StageOp {
    bool forward = true;
    int microbatch = 0;
    double share = 1;  // of the stage's layers it runs (an interleaved schedule's chunk: 1 / v)
};


// A stage's forwards and backwards in the order a generated schedule runs them on its device (empty: none generated).
std::vector<StageOp> stage_order(const ScheduleTimeline*, int stage);

// The stage's timeline. `order`: its micro-batches' forwards and backwards as its schedule runs them (empty: a pipeline
// stage runs `inflight` forwards before the first backward, a single stage one micro-batch after another); `stage`: the
// stage it describes (the heaviest).
MemoryTimeline memory_timeline(const MemoryConstants&, const Layout&, int stage, const std::vector<StageOp>& order, double inflight = 1);

}  // namespace core
