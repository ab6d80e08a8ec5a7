#pragma once
// One training step taken apart (the anatomy panel and the roofline's scenario kernels): the step as one
// stacked bar beside the ideal step at peak FLOP/s, MFU as the bar grows, the waits and passes of one layer's timeline,
// and the scenario's own kernels as points under the HBM roof. Read from the Report: sums and ratios of its figures,
// no new model.
#include "core/cost/report/report.h"

#include <vector>

namespace core {

// The stacked bar's parts, in the order they are laid end to end: compute, then what compute could not hide.
enum class StepPart { gemm, attention, elementwise, optimizer, exposed_tp, exposed_cp, exposed_pp, exposed_dp, exposed_ep, bubble, stragglers, beyond_model };
inline constexpr int kStepPartCount = 12;
const char* step_part_name(StepPart);   // "GEMMs", "attention", ..., "exposed TP", ..., "pipeline bubble", "beyond the model"
bool is_exposed_comm(StepPart);         // exposed_tp .. exposed_ep

struct StepSegment {
    StepPart part = StepPart::gemm;
    double start_seconds = 0;
    double seconds = 0;
};

// Where MFU stands as the bar grows: the ideal step over the bar's length up to a point.
enum class MfuMilestone { kernels, exposed_comm, modelled_step, step };
const char* mfu_milestone_name(MfuMilestone);  // "all kernels", "+ exposed communication", "modelled step", "the step"

struct MfuMark {
    MfuMilestone milestone = MfuMilestone::step;
    double end_seconds = 0;
    double mfu = 0;                      // ideal step / end_seconds
};

struct StepBar {
    std::vector<StepSegment> segments;   // every part in StepPart order (zero-length ones too), end to end from 0
    double total_seconds = 0;            // the bar's length: the step, or the modelled step where an assumed or measured one is shorter
    double step_seconds = 0;             // compute.step_seconds
    double modelled_step_seconds = 0;    // compute.modelled_step_seconds: the breakdown's sum
    double ideal_step_seconds = 0;       // model FLOPs per step / (GPUs x peak FLOP/s): the step at 100 % MFU
    double mfu = 0;                      // ideal / step: compute.mfu as a ratio of two lengths
    std::vector<MfuMark> marks;          // kernels, + exposed communication, (the modelled step,) the step
    int best_gemm_kernel = -1;           // the layer's GEMM nearest its peak: where "why only 40 %?" starts
    double best_gemm_efficiency = 0;     // its FLOP/s over peak
};

// Throws InputError("report.compute", ...) if the report has no GPUs or no peak.
StepBar step_bar(const Report&);

// A stretch of one layer's timeline in which the compute stream waits for communication it could not hide.
struct ComputeStall {
    double start_seconds = 0;
    double seconds = 0;
    Stream waiting_for = Stream::tp;
};
// The gaps in the compute stream that exposed communication covers; a gap nothing exposed covers (a ZeRO-3 gather
// prefetched during the layer before) is not a wait. In time order.
std::vector<ComputeStall> compute_stalls(const std::vector<TimelineOp>&);

// Where the forward, the recompute and the backward (input and weight gradients together) of the compute stream run.
struct PassSpan {
    KernelPass pass = KernelPass::forward;   // forward, recompute, or backward_input for the whole backward
    double start_seconds = 0;
    double end_seconds = 0;
};
std::vector<PassSpan> pass_spans(const std::vector<TimelineOp>&);

// Where the play cursor stands in the layer timeline when the whole layer plays in play_seconds: t clamped to the
// animation (a NaN t is its start), scaled to the timeline's length.
double cursor_seconds_at(double t_seconds, double play_seconds, double timeline_seconds);

// The operations of the layer timeline running at a moment of it (the play cursor), by index, compute first.
std::vector<int> ops_at(const std::vector<TimelineOp>&, double at_seconds);

// One of the scenario's kernels under the HBM roof, per GPU after sharding: its intensity and the FLOP/s it reaches.
struct KernelPoint {
    int kernel = -1;                         // index into compute.kernels
    double intensity_flops_per_byte = 0;     // FLOPs / bytes moved to and from HBM
    double achieved_flops_per_s = 0;         // FLOPs / its time
    Bound bound = Bound::memory;
    bool first_of_its_name = false;          // the first point of this kernel name: the one that carries a label
};
// Every kernel with FLOPs, bytes and a time (a log axis cannot show 0: the embedding's lookup does no arithmetic).
std::vector<KernelPoint> kernel_points(const Report&);

// The index of the occurrence-th kernel (0 the first) with this name, pass and scope, or -1: a selection survives a
// re-evaluation that reorders or resizes the kernel list.
int find_kernel(const std::vector<Kernel>&, KernelId, KernelPass, KernelScope, int occurrence);
// Which occurrence of its name, pass and scope the kernel at index is (0 the first).
int kernel_occurrence(const std::vector<Kernel>&, int index);

}  // namespace core
