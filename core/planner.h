#pragma once
// The planner: every valid parallel layout of the scenario's model on its GPUs, those that fit in HBM, ranked by
// modelled step time. The inner loop is closed-form arithmetic mirroring evaluate() (no Report, no schedule timeline,
// no allocation), so millions of layouts take a fraction of a second; tests hold the two equal.
#include "core/scenario.h"

#include <cstdint>
#include <vector>

namespace core {

// One point of the search space: what the planner varies. Everything else comes from the scenario.
struct Layout {
    int tp = 1;
    int pp = 1;
    int cp = 1;
    int dp = 1;
    int zero = 0;
    int micro_batch = 1;
    Recompute recompute = Recompute::none;
    ScheduleKind schedule = ScheduleKind::one_f_one_b;
    int virtual_stages = 1;
    bool sequence_parallel = false;  // the planner turns it on whenever tp > 1: less memory, no more traffic (Korthikanti 2022)

    bool operator==(const Layout&) const = default;
};

// The figures evaluate() would report for a layout, step time modelled (efficiency.mfu and step_seconds ignored).
struct LayoutEstimate {
    double memory_per_gpu_bytes = 0;   // Report.memory.per_gpu.total_bytes
    double activations_bytes = 0;      // Report.memory.per_gpu.activations_bytes
    double compute_seconds = 0;        // Report.compute.compute_seconds
    double bubble_seconds = 0;         // Report.compute.bubble_seconds
    double exposed_comm_seconds = 0;   // Report.compute.exposed_comm_seconds
    double step_seconds = 0;           // compute + bubble + exposed communication
    double mfu = 0;                    // model FLOPs / (step x GPUs x peak)
    bool fits = false;                 // memory_per_gpu_bytes <= HBM
};

struct PlanEntry {
    Layout layout;
    LayoutEstimate estimate;
};

struct PlanOptions {
    int top = 10;                 // how many of the fastest layouts to keep
    int max_tp = 64;              // TP beyond a node runs on the scale-out link; kept so the ranking shows what it costs
    int max_virtual_stages = 0;   // interleaved chunks per device; 0 = up to layers / pp (one layer per chunk)
    bool collapse_zero_ties = true;  // layouts that differ only in ZeRO stage and tie on step time: keep the least memory
};

struct Plan {
    std::vector<PlanEntry> best;         // fastest first; equal step times: fewer GPUs per replica, then less memory
    std::int64_t layouts_considered = 0; // valid layouts enumerated
    std::int64_t layouts_fitting = 0;    // of those, the ones whose memory per GPU fits in HBM
};

// Enumerates TP (divides heads, <= max_tp), PP (1..layers, uneven splits as the model does), CP (divides seq_len),
// DP (tp pp cp dp = GPUs, global batch divisible by dp x micro-batch), ZeRO 0-3, recompute, micro-batch, schedule
// (1F1B; ZB-H1 when m >= p; interleaved with 2.. virtual stages when p divides m). GPipe and naive are left out:
// they never beat 1F1B (same or larger bubble, more memory). Selective recompute is left out under flash attention,
// which already drops the attention scores it would recompute (identical figures).
// Throws InputError when the scenario itself (model, cluster, batch) is invalid.
Plan plan_layouts(const Scenario&, const PlanOptions& = {});

// The planner's inner loop for one layout: the figures of evaluate(apply_layout(scenario, layout)), closed form.
LayoutEstimate estimate_layout(const Scenario&, const Layout&);

// The layout a scenario has now (dp resolved, sequence parallel as the scenario says).
Layout layout_of(const Scenario&);

// The scenario with the layout applied; efficiency.mfu and step_seconds cleared, so its step time is modelled.
Scenario apply_layout(Scenario, const Layout&);

// Whether evaluate(apply_layout(scenario, layout)) would accept the layout: validate_scenario's rules, without throwing.
bool layout_is_valid(const Scenario&, const Layout&);

// The values each control of the configurator may take from the scenario's current layout, changing only that axis.
// TP, PP and CP keep the GPU count (DP follows); DP keeps TP, PP and CP (the GPU count follows).
struct LayoutChoices {
    std::vector<int> tp, pp, cp, dp, micro_batch, virtual_stages;
};
LayoutChoices layout_choices(const Scenario&, int max_tp = 64);

// Changes one axis of the scenario's layout to value and repairs what that breaks: DP (or the GPU count) follows,
// an interleaved schedule that no longer divides falls back to 1F1B, the micro-batch shrinks until the batch divides.
enum class LayoutAxis { tp, pp, cp, dp, micro_batch, virtual_stages };
Scenario with_axis(const Scenario&, LayoutAxis, int value);

// Where a global rank sits in the mesh: ranks run TP fastest, then CP, PP, DP (as comm.h places the axes), and nodes
// hold gpus_per_node consecutive ranks.
struct RankCoordinates {
    int tp = 0, cp = 0, pp = 0, dp = 0;
    long long node = 0;
    int slot = 0;  // the GPU's index inside its node
};
RankCoordinates rank_coordinates(const Layout&, int gpus_per_node, long long rank);

}  // namespace core
