#pragma once
// Pipeline-parallel schedules as timelines: which device runs which micro-batch's F, B or W, and when.
// Bubble and in-flight figures are measured from the generated op list, and the closed forms of the papers
// (Huang 2019, Narayanan 2021, Qi 2024, DeepSeek-V3 2024 and its DualPipe README) are given beside them for comparison.
#include "core/model/schedule_kind.h"

#include <cstddef>
#include <vector>

namespace core {

// backward = the whole backward (B and W together, every schedule but zb-h1);
// backward_input = B and weight_grad = W, the two halves zb-h1 schedules separately.
enum class PipelineOpKind { forward, backward, backward_input, weight_grad };
const char* pipeline_op_kind_name(PipelineOpKind kind);  // "F", "B", "B", "W"

struct PipelineOp {
    int device = 0;       // 0..p-1
    int chunk = 0;        // virtual chunk on the device, 0..v-1 (0 unless interleaved); virtual stage = chunk*p + device
    int microbatch = 0;   // 0..m-1 (naive: 0, the whole batch)
    PipelineOpKind kind = PipelineOpKind::forward;
    double start_seconds = 0;
    double duration_seconds = 0;
    double end_seconds() const { return start_seconds + duration_seconds; }
    // The model stage the op computes, 0..model_stages-1 (schedule_placement): chunk*p + device for the one-way
    // schedules; DualPipe's reverse micro-batches run stage s on device p-1-s, DualPipeV's stage s >= p on 2p-1-s.
    int stage = 0;
    // One half of DualPipe's F&B cell: a forward and a backward chunk of two micro-batches run together, each hiding
    // the other's communication; both halves share start and duration, the forward listed first.
    bool overlapped = false;
};

struct ScheduleParams {
    ScheduleKind kind = ScheduleKind::one_f_one_b;
    int stages = 4;                  // p, devices in the pipeline
    int microbatches = 8;            // m
    int virtual_chunks = 1;          // v, interleaved only: each device holds v chunks of L/(p*v) layers
    double forward_seconds = 1;      // T_F: one micro-batch through one device's whole share of layers
    double backward_seconds = 2;     // B + W: one micro-batch's whole backward on one device
    double weight_grad_seconds = 1;  // W, the part of backward_seconds zb-h1 defers; read by zb-h1 only
    double p2p_seconds = 0;          // send/recv between consecutive stages on different devices (0 = free)
    // Stages that are not alike: the embedding runs on the first virtual stage, the logits and the loss on the last.
    // Each op of that stage takes this much longer (backward: B + W together; weight_grad: its W part, zb-h1); less where
    // the stage holds fewer layers than the others, so an extra can be negative (never more than its chunk's layers).
    double first_forward_extra_seconds = 0;
    double first_backward_extra_seconds = 0;
    double first_weight_grad_extra_seconds = 0;
    double last_forward_extra_seconds = 0;
    double last_backward_extra_seconds = 0;
    double last_weight_grad_extra_seconds = 0;

    // DualPipe and DualPipeV: F&B, one forward and one whole backward chunk run as one overlapped cell (DeepSeek-V3
    // sec 3.2.1), for this device's whole share like forward_seconds. 0: F + B, the overlap saves no time.
    double forward_backward_seconds = 0;

    bool has_uneven_stages() const {
        return first_forward_extra_seconds != 0 || first_backward_extra_seconds != 0 || last_forward_extra_seconds != 0 ||
               last_backward_extra_seconds != 0;
    }
    bool operator==(const ScheduleParams&) const = default;
};

// How a schedule lays the model's layers on its p devices. The DualPipe README's table compares schedules "based on
// the same number of PP stages"; here pp always counts devices, so that table's PP is model_stages.
struct SchedulePlacement {
    int devices = 1;            // p
    int model_stages = 1;       // the model cut into this many stages of equal layers: p; interleaved p*v; DualPipeV 2p
    int stages_per_device = 1;  // interleaved v; DualPipe 2 (stage d and stage p-1-d); DualPipeV 2 (d and 2p-1-d)
    // A device's parameters over one L/p share of the layers: DualPipe 2 (every stage is held twice, once for each
    // direction), every other schedule 1.
    double parameter_copies() const;
    // One chunk's activations for one micro-batch over one L/p share: 1/v interleaved, 1/2 DualPipeV, else 1.
    double activation_share() const;
};
SchedulePlacement schedule_placement(ScheduleKind kind, int devices, int virtual_chunks);

struct ScheduleTimeline {
    ScheduleKind kind = ScheduleKind::one_f_one_b;
    std::vector<PipelineOp> ops;     // sorted by device, then start
    int stages = 0, microbatches = 0, virtual_chunks = 1;  // virtual_chunks: chunks per device (DualPipe(V): 2)
    double makespan_seconds = 0;         // first start to last end
    double busy_seconds_per_device = 0;  // ideal compute per device: m*(T_F + T_B+W), the same for naive
                                         // (DualPipe's F&B cells counted as F + B, what they compute)
    double bubble_fraction = 0;          // idle share of all device-time: idle / makespan (= 1 - busy/makespan)
    double bubble_overhead = 0;          // idle time over ideal compute: idle / busy, the papers' (p-1)/m
                                         // (idle: the measured gaps on a device, averaged over devices)
    // Per device, the most micro-batches whose forward has started and whose backward (zb-h1: W) has not finished.
    // Interleaved and DualPipe(V) count (micro-batch, chunk) pairs, Megatron's unit and the DualPipe table's
    // "activation per device"; naive counts its one batch as m micro-batches.
    std::vector<int> peak_inflight_microbatches;
    // The same peak in micro-batches' worth of activations for one L/p share of layers
    // (interleaved: pairs / v; DualPipeV: pairs / 2), so schedules compare directly.
    std::vector<double> peak_inflight_activations;
    // The most idle device's idle time: the DualPipe table's bubble (for the one-way schedules, the same on every
    // device under even stages).
    double max_idle_seconds = 0;
};

// Above this many ops the timeline is refused (memory and time); use the closed forms instead.
inline constexpr std::size_t max_schedule_ops = 1'000'000;

// How many ops generate_schedule would produce (valid params assumed): p*m*2 (zb-h1: 3, interleaved: *v, naive: p*2;
// DualPipe 2pm plus its W ops split off, 3H^2 - H with H = p/2; DualPipeV 4pm + (3p^2 - p)/2).
std::size_t schedule_op_count(const ScheduleParams& params);

// Throws InputError naming the field: parallel.schedule, parallel.pp, parallel.microbatches,
// parallel.virtual_stages, schedule.forward_seconds, schedule.backward_seconds, schedule.weight_grad_seconds,
// schedule.p2p_seconds, schedule.forward_backward_seconds.
void validate_schedule_params(const ScheduleParams& params);

// Validates, orders each device's ops as the schedule prescribes, then places every op at the earliest time its
// dependencies and its device allow (list scheduling), and measures the figures from the result.
ScheduleTimeline generate_schedule(const ScheduleParams& params);
// generate_schedule's figures without its op list (ops left empty): what the step model reads, without storing
// every op's placement.
ScheduleTimeline schedule_figures(const ScheduleParams& params);

// ---- Closed forms from the papers, for free communication (p2p ignored) ----
// Idle time over ideal compute: naive p-1; gpipe and 1f1b (p-1)/m; interleaved (p-1)/(v*m);
// zb-h1 (p-1)(T_F+T_B-T_W)/(m(T_F+T_B+T_W)) with T_B the B part only (Qi et al. 2024 sec 2.1), for m >= p.
// The paper's form assumes T_W <= T_F and T_W <= T_B; beyond that the F or B chain sets the idle time, so zb-h1
// uses (p-1)*max(T_F+T_B-T_W, T_F, T_B), which equals the paper's inside its regime.
// DualPipe: idle (PP/2-1)(F&B+B-3W) per device over m(F+B) (DualPipe README table; B the whole backward chunk), with
// PP = p and chunks of one L/p share; DualPipeV the same with PP = 2p stages and chunks of half a share.
double closed_form_bubble_overhead(const ScheduleParams& params);
// The same as idle seconds on the most idle device: overhead x m (T_F + T_B+W); DualPipe the table's (PP/2-1)(F&B+B-3W).
double closed_form_idle_seconds(const ScheduleParams& params);
// Idle share of device-time, overhead/(1+overhead): naive (p-1)/p, gpipe and 1f1b (p-1)/(m+p-1),
// interleaved (p-1)/(v*m+p-1).
double closed_form_bubble_fraction(const ScheduleParams& params);
// Peak in-flight on the first device, in peak_inflight_microbatches' units: naive and gpipe m, 1f1b and zb-h1
// min(p, m), interleaved min(2(p-1) + (v-1)p + 1, v*m) (Megatron's warm-up plus one), DualPipe and DualPipeV PP+1
// chunks (the DualPipe table; PP = model_stages).
int closed_form_peak_inflight(const ScheduleParams& params);
// The same on any device d: naive and gpipe m; 1f1b min(p - d, m); zb-h1 min(p, m) on every device (each holds the
// micro-batches whose W it defers); interleaved min(2(p - d - 1) + (v - 1)p + 1, v m).
int closed_form_peak_inflight_on(const ScheduleParams& params, int device);
// False where the closed forms above do not describe the generated schedule exactly:
// p2p > 0, uneven stages, or zb-h1 with m < p.
bool closed_form_applies(const ScheduleParams& params);
// The makespan without generating the timeline, for searches over many layouts: the papers' idle time over the mean
// stage, plus the heaviest stage's m micro-batches, plus the fill and drain sends. Exact where closed_form_applies.
double closed_form_makespan(const ScheduleParams& params);

// ---- Animation: time is a parameter ----
// How far op has run at t: 0 before its start, 1 after its end, linear in between.
double op_progress(const PipelineOp& op, double t_seconds);
// Per device, what is in flight at t, in peak_inflight_microbatches' units: forwards started before t whose
// backward (zb-h1: W) has not ended by t. Its maximum over t is the peak.
std::vector<int> inflight_at(const ScheduleTimeline& timeline, double t_seconds);
// The same in peak_inflight_activations' units (interleaved: pairs / v), so schedules compare directly.
std::vector<double> inflight_activations_at(const ScheduleTimeline& timeline, double t_seconds);

}  // namespace core
