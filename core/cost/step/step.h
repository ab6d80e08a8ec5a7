#pragma once
// One training step of one layout, put together: the kernels of a layer and of the stage edges (kernels.h), each
// axis's communication and what hides it (comm.h, the scenario's overlap switches), the pipeline schedule with its
// uneven first and last stages, the data-parallel tail and the optimizer. evaluate() and the planner call these.
#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/kernels.h"
#include "core/cost/memory/memory.h"
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/step/step_report.h"

#include <optional>
#include <vector>

namespace core {

// One layer and the stage edges, one micro-batch, one GPU: all that depends on how a layer is split, nothing else.
struct LayerCost {
    std::vector<Kernel> kernels;   // the layer's (an MoE layer's for a model with experts), then the edges' (for the report)
    PassSeconds layer;             // one transformer layer (with the dense MLP)
    PassSeconds first_stage;       // the embedding
    PassSeconds last_stage;        // the final norm, the logits and the loss
    PassSeconds moe_layer;         // one layer with routed experts (zero for a dense model)
};
LayerSplit split_of(const Layout&);
LayerCost layer_cost(const Scenario&, const LayerSplit&, bool keep_kernels);
// A split's kernels built and timed, whatever its recompute: what a search shares across recompute settings.
struct SplitPasses {
    LayerPasses dense;
    std::optional<LayerPasses> moe;  // a layer with routed experts (a model with experts only)
    std::vector<Kernel> edges;       // the embedding, the final norm, the logits and the loss
};
// attention_core: also build the attention core alone, what selective recompute reruns.
SplitPasses split_passes(const Scenario&, const LayerSplit&, bool attention_core);
// layer_cost from a split's passes, under a recompute setting.
LayerCost layer_cost_of(const SplitPasses&, Recompute, bool keep_kernels);
// The mean layer of a stage whose share moe_share of layers has experts: what x stage layers gives the stage's compute.
PassSeconds mean_layer(const LayerCost&, double moe_share);
// The share of the heaviest pipeline stage's layers that have routed experts (0 for a dense model).
double stage_moe_share(const Scenario&, int pp);

// The share of the compute a synchronous step adds waiting for its slowest machine: each of the M machines the layout
// spans is slow with probability p and then takes s longer (cluster.straggler_share, straggler_slowdown; MegaScale), so
// the step waits s x (1 - (1 - p)^M). One machine waits for none: its tables are its own.
double straggler_wait(const ClusterSpec&, long long gpus);

// Communication that may hide behind compute: what shows on the compute stream, and the compute it slows while hidden.
struct Overlapped {
    double exposed = 0;
    double slowdown = 0;
    double cost() const { return exposed + slowdown; }
};

// One layer's communication on the busiest stage, per micro-batch, each pass with what hides it.
struct LayerComm {
    Overlapped tp_forward, tp_recompute, tp_backward;
    Overlapped cp_forward, cp_recompute, cp_backward;
    double tp_seconds = 0, cp_seconds = 0;  // all of it, all passes
    Overlapped ep_forward, ep_recompute, ep_backward;  // one MoE layer's all-to-alls, each with what hides it
    double ep_seconds = 0;                  // one MoE layer, all passes
};

// All of a layout's step that does not depend on its pipeline schedule (layout.schedule and virtual_stages are not
// read): each axis's communication and what hides it, the memory basis, the optimizer. A search computes it once for
// the schedules it tries on the same layout.
struct StepInputs {
    int microbatches = 1;
    int stage_layers = 1;               // the busiest stage's layers (PipelineSplit::most_layers): every stage is timed at it
    int first_stage_layers = 1, last_stage_layers = 1;  // the edge stages' own layers: the schedule takes off what they lack
    TpComm tp;
    CpComm cp;
    PpComm pp;
    StageParams stage;
    DpComm dp;
    GroupPlacement dp_group;
    double dp_slowdown = 0;
    LayerComm comm;
    double layer_forward_seconds = 0;   // one layer, one micro-batch, with the TP and CP communication it could not hide
    double layer_backward_seconds = 0;  // the same backward, recompute included
    Overlapped zero3_forward, zero3_backward, zero2_backward;  // per micro-batch, the whole stage
    double first_tp_seconds = 0, last_tp_forward_seconds = 0, last_tp_backward_seconds = 0;  // the stage edges' TP
    MemoryBasis memory;
    Kernel optimizer;
    PassSeconds layer;                  // the heaviest stage's mean layer (its dense and MoE layers); = cost.layer when dense
    // An operator recipe's host: CPU seconds per launch and per recomputed launch (0: its kernels carry their own floor).
    double host_seconds_per_launch = 0, host_seconds_per_recompute_launch = 0;
    double moe_share = 0;               // the share of that stage's layers with routed experts
    EpComm ep;                          // one MoE layer, one micro-batch
};
// One layer of the heaviest stage, one micro-batch: its mean kernels (dense and MoE layers) with the TP, CP and EP
// communication they could not hide. What step_inputs times each layer at, and what bounds a search's step from below.
struct LayerStepSeconds {
    TpComm tp;
    CpComm cp;
    EpComm ep;
    LayerComm comm;
    double forward_seconds = 0;
    double backward_seconds = 0;  // recompute included
};
LayerStepSeconds layer_step_seconds(const Scenario&, const Layout&, const LayerCost&, const PassSeconds& mean_layer, double moe_share);

StepInputs step_inputs(const Scenario&, const Layout&, const LayerCost&);
// The same with the scenario's memory constants already known: a search computes them once, not per layout.
StepInputs step_inputs(const Scenario&, const Layout&, const LayerCost&, const MemoryConstants&);

// The pipeline schedule's parameters for the layout's schedule: per-micro-batch stage durations with the exposed
// communication, the uneven first and last stages, the sends.
ScheduleParams schedule_params(const Scenario&, const Layout&, const LayerCost&, const StepInputs&);
// The same for a scenario's own layout: the schedule its step is timed with, each op in seconds (the pipeline panel
// draws a pinned baseline's and the scenario's one above the other).
ScheduleParams scenario_schedule_params(const Scenario&);

// The layers the first and the last stage's edge chunk lack against the busiest stage's (one each when the embedding and
// the loss take a layer's place; the last stages' share when the layers do not divide): one-way schedules only, where
// the edges are a device's first and last chunk, and never more than a chunk holds.
struct EdgeShortfall {
    int first_layers = 0, last_layers = 0;
};
EdgeShortfall edge_shortfall(const Layout&, const StepInputs&);

// How the pipeline's makespan is found: by generating the schedule (evaluate) or in closed form (a search's first pass).
enum class PipelineTiming { timeline, closed_form };

struct StepEstimate {
    ScheduleParams schedule;                 // per-micro-batch stage durations, exposed communication included
    double makespan_seconds = 0;             // the pipelined part of the step
    double bubble_fraction = 0;
    double bubble_overhead = 0;
    double inflight_microbatches = 0;        // the first device's in-flight activations, in micro-batches of its layers
    int peak_inflight_microbatches = 0;
    MemoryEstimate memory;                   // the heaviest stage's peak: the first's or the last's
    double dp_tail_exposed_seconds = 0;      // gradient reduction the last backward did not hide
    double param_gather_exposed_seconds = 0; // updated weights gathered before the next forward could start
    double optimizer_seconds = 0;
    Kernel optimizer;                        // the optimizer step over this GPU's share of the state
    double step_seconds = 0;
    StepBreakdown breakdown;                 // on the busiest stage; sums to step_seconds
    int busiest_stage = 0;
    double runs_per_step[4] = {0, 0, 0, 1};  // by KernelScope: how often the busiest GPU runs each per step
    double comm_seconds[kCommAxes] = {};            // by CommAxis, per step: all of it
    double comm_bytes_per_gpu[kCommAxes] = {};
    double comm_message_bytes[kCommAxes] = {};      // one collective's buffer
    double inflight_last_microbatches = 0;   // the last device's in-flight activations, the same units
};

// The step of a layout. `layout` must be valid for the scenario (check_layout); `cost` is layer_cost(split_of(layout))
// and `inputs` step_inputs(scenario, layout, cost), of a layout that differs from this one in its schedule at most.
StepEstimate estimate_step(const Scenario&, const Layout&, const LayerCost&, const StepInputs&, PipelineTiming);
inline StepEstimate estimate_step(const Scenario& scenario, const Layout& layout, const LayerCost& cost, PipelineTiming timing) {
    return estimate_step(scenario, layout, cost, step_inputs(scenario, layout, cost), timing);
}

// The generated schedule (its ops by device, in time) when estimate_step generates one, else null: what the memory
// timeline walks a stage's micro-batches in.
const ScheduleTimeline* generated_schedule(const ScheduleParams&, PipelineTiming);

// Each pipeline stage's micro-batches in flight, in whole-stage activations: measured on the generated timeline where
// estimate_step generates it (PipelineTiming::timeline and not too many ops), else the closed forms.
std::vector<double> stage_inflight_microbatches(const ScheduleParams&, PipelineTiming);

// One layer's forward and backward on the busiest GPU as streams in time (compute, TP, DP, PP, CP): the anatomy panel.
std::vector<TimelineOp> layer_timeline(const Scenario&, const Layout&, const LayerCost&, double& total_seconds);

}  // namespace core
