#pragma once
// The planner: every valid parallel layout of the scenario's model on its GPUs, those that fit in HBM, ranked by
// modelled step time. It calls the step model's own functions (core/cost/step/step.h): a layer's kernels are timed once
// per split and cached; the scan prices the pipeline in closed form, and the layouts it keeps are priced again
// exactly, from the generated schedule as evaluate() does, so the figures it reports are evaluate()'s.
#include "core/cost/report/report.h"
#include "core/model/layout.h"

#include <cstdint>
#include <vector>

namespace core {

// The figures evaluate() would report for a layout, step time modelled (efficiency.mfu and step_seconds ignored).
struct LayoutEstimate {
    double memory_per_gpu_bytes = 0;   // Report.memory.per_gpu.peak_bytes: the heaviest stage's peak
    double activations_bytes = 0;      // Report.memory.per_gpu.activations_bytes
    double compute_seconds = 0;        // Report.compute.compute_seconds
    double bubble_seconds = 0;         // Report.compute.bubble_seconds
    double exposed_comm_seconds = 0;   // Report.compute.exposed_comm_seconds
    double step_seconds = 0;           // Report.compute.step_seconds: the modelled step, held to the published MFU ceiling
    double modelled_step_seconds = 0;  // Report.compute.modelled_step_seconds: ranks the layouts the ceiling ties
    double mfu = 0;                    // model FLOPs / (step x GPUs x peak)
    bool fits = false;                 // memory_per_gpu_bytes <= HBM, as Report.memory.fits
    StepBreakdown breakdown;           // Report.compute.breakdown_seconds
};

struct PlanEntry {
    Layout layout;
    LayoutEstimate estimate;
};

struct PlanOptions {
    int top = 10;                 // how many of the fastest layouts to keep
    int max_tp = 64;              // TP beyond a node runs on the scale-out link; kept so the ranking shows what it costs
    int max_virtual_stages = 0;   // interleaved chunks per device; 0 = up to places / pp (one layer, or an edge, per chunk)
    bool collapse_zero_ties = true;  // layouts that differ only in ZeRO stage and tie on step time: keep the least memory
};

struct Plan {
    std::vector<PlanEntry> best;         // fastest first; equal step times: fewer GPUs per replica, then less memory
    std::int64_t layouts_considered = 0; // valid layouts enumerated
    std::int64_t layouts_fitting = 0;    // of those, the ones whose memory per GPU fits in HBM
};

// Enumerates TP (divides heads, <= max_tp), PP (1..layers, uneven splits as the model does), CP (divides seq_len),
// DP (tp pp cp dp = GPUs, global batch divisible by dp x micro-batch), ZeRO 0-3, recompute, micro-batch, schedule
// (1F1B; ZB-H1; interleaved with 2.. virtual stages when p divides m), and for a model with experts EP (each divisor of
// the experts that divides a stage's TP x CP x DP GPUs; ETP stays 1; SP on with TP, as Megatron-Core requires).
// GPipe and naive are left out: they never beat 1F1B (same or larger bubble, more memory). Selective recompute is left out under flash attention, which already
// drops the attention scores it would recompute. The scenario's own layout is ignored: only its model, cluster, batch
// and switches matter. Throws InputError when those are invalid.
Plan plan_layouts(const Scenario&, const PlanOptions& = {});

// The figures of evaluate(with_layout(scenario, layout)) for one layout, by the same functions.
LayoutEstimate estimate_layout(const Scenario&, const Layout&);

}  // namespace core
