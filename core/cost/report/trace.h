#pragma once
// The modelled step as a Chrome trace (the trace-event JSON that Perfetto and chrome://tracing open): one process per
// pipeline stage, standing for its representative rank (tp = cp = dp = 0; every rank of the stage runs the same step in
// the model), one thread per stream, one slice per pipeline op, kernel, collective and send. Times come from the step
// model: the generated pipeline schedule places each F, B and W (pipeline_schedule.h); inside each, the layer's kernels
// run back to back on the compute stream, and each collective starts where the model issues it, for as long as the
// model says it lasts, while the compute stream waits for the part the model says is exposed (step.h, StepInputs).
#include "core/cost/kernels/kernels.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <cstddef>
#include <string>
#include <vector>

namespace core {

// The threads of a stage's process, in display order; the trace's tid is the index + 1.
enum class TraceThread { schedule, compute, tp, cp, pp, dp, ep };
inline constexpr int trace_thread_count = 7;
const char* trace_thread_name(TraceThread);  // "pipeline ops (F / B / W)", "compute (kernels)", ...

// How finely the compute stream is cut: a slice per kernel, per layer pass, or per pipeline op. The finest whose slice
// count stays under max_trace_slices is used, so a long schedule still opens in a viewer.
enum class TraceDetail { kernels, layers, ops };
const char* trace_detail_name(TraceDetail);  // "kernels", "layers", "ops"
inline constexpr std::size_t max_trace_slices = 400'000;  // about 100 MB of JSON, which Perfetto opens

struct TraceSlice {
    std::string name;             // "qkv", "all-reduce", "send activation", "F"
    std::string category;         // kernel category ("gemm", ...), "layer", "op", or the stream ("tp", "pp", "schedule")
    int stage = 0;                // the pipeline stage: the process
    TraceThread thread = TraceThread::compute;
    double start_us = 0;          // from the start of the step, microseconds
    double duration_us = 0;
    int microbatch = -1;          // -1: the step's own (optimizer, gradient reduction, weight gather)
    int chunk = -1;               // interleaved model chunk, -1 outside a pipeline op
    int layer = -1;               // the model's layer, 0-based; -1 for the stage edges and the step's own work
    std::string pass;             // "forward", "recompute", "backward_input", "backward_weight", or "F" / "B" / "W"
    int kernel = -1;              // index into ComputeReport::kernels (kernel detail only)
    int count = 0;                // kernels merged into this slice (instances)
    double launches = 0;          // kernels: CUDA launches of all its instances
    double flops = 0;             // all instances
    double bytes = 0;             // kernels: to and from HBM; collectives and sends: one call's buffer
    std::string bound;            // kernels: "compute", "memory" or "launch"
    double efficiency = 0;        // kernels: achieved over peak
    int ranks = 0;                // collectives: ranks in the group
    double exposed_us = 0;        // collectives: how long the compute stream waited for it, slowdown included
};

struct StepTrace {
    TraceDetail detail = TraceDetail::kernels;
    std::vector<std::string> stage_names;      // per process: "stage 0: rank 0 (tp 0, cp 0, dp 0), one of 8 alike"
    std::vector<TraceSlice> slices;            // by stage, then thread, then time; never overlapping within a thread
    std::vector<double> stage_compute_seconds; // per stage: the compute thread's slices summed
    double step_seconds = 0;                   // the modelled step (report.compute.modelled_step_seconds)
    int stage_layers = 0;                      // layers each middle stage runs (the heaviest stage's, as the model has it)
    int first_stage_layers = 0, last_stage_layers = 0;  // what the edge stages run (fewer where the split leaves them fewer)
    int microbatches = 0;
};

// The step of evaluate(scenario) = report. Throws InputError naming parallel.microbatches when the schedule has more
// ops than generate_schedule accepts.
StepTrace step_trace(const Scenario& scenario, const Report& report);

// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}: process and thread names as metadata events
// ("ph": "M"), every slice a complete event ("ph": "X") with ts and dur in microseconds and its figures as args.
std::string trace_to_json(const Scenario& scenario, const Report& report, const StepTrace& trace);

}  // namespace core
