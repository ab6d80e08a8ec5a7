#pragma once
// One training step of one layout, put together: the kernels of a layer and of the stage edges (kernels.h), each
// axis's communication and what hides it (comm.h, the scenario's overlap switches), the pipeline schedule with its
// uneven first and last stages, the data-parallel tail and the optimizer. evaluate() and the planner call these.
#include "core/cost/comm.h"
#include "core/cost/kernels.h"
#include "core/cost/memory.h"
#include "core/cost/pipeline_schedule.h"
#include "core/cost/report.h"

#include <vector>

namespace core {

// One layer and the stage edges, one micro-batch, one GPU: all that depends on how a layer is split, nothing else.
struct LayerCost {
    std::vector<Kernel> kernels;   // the layer's, then the edges' (kept for the report; a search drops them)
    PassSeconds layer;             // one transformer layer
    PassSeconds first_stage;       // the embedding
    PassSeconds last_stage;        // the final norm, the logits and the loss
};
LayerSplit split_of(const Layout&);
LayerCost layer_cost(const Scenario&, const LayerSplit&, bool keep_kernels);

// How the pipeline's makespan is found: by generating the schedule (evaluate) or in closed form (a search's first pass).
enum class PipelineTiming { timeline, closed_form };

struct StepEstimate {
    ScheduleParams schedule;                 // per-micro-batch stage durations, exposed communication included
    double makespan_seconds = 0;             // the pipelined part of the step
    double bubble_fraction = 0;
    double bubble_overhead = 0;
    double inflight_microbatches = 0;        // the first device's in-flight activations, in micro-batches of its layers
    int peak_inflight_microbatches = 0;
    MemoryEstimate memory;
    double dp_tail_exposed_seconds = 0;      // gradient reduction the last backward did not hide
    double param_gather_exposed_seconds = 0; // updated weights gathered before the next forward could start
    double optimizer_seconds = 0;
    Kernel optimizer;                        // the optimizer step over this GPU's share of the state
    double step_seconds = 0;
    StepBreakdown breakdown;                 // on the busiest stage; sums to step_seconds
    int busiest_stage = 0;
    double comm_seconds[4] = {0, 0, 0, 0};          // by CommAxis, per step: all of it
    double comm_bytes_per_gpu[4] = {0, 0, 0, 0};
    double comm_message_bytes[4] = {0, 0, 0, 0};    // one collective's buffer
};

// The step of a layout. `layout` must be valid for the scenario (check_layout); `cost` is layer_cost(split_of(layout)).
StepEstimate estimate_step(const Scenario&, const Layout&, const LayerCost&, PipelineTiming);

// One layer's forward and backward on the busiest GPU as streams in time (compute, TP, DP, PP, CP): the anatomy panel.
std::vector<TimelineOp> layer_timeline(const Scenario&, const Layout&, const LayerCost&, double& total_seconds);

}  // namespace core
