#pragma once
// A parallel layout: how a scenario's model is split over its GPUs. The one place where a layout's validity is decided.
#include "core/model/scenario.h"

#include <optional>
#include <string>

namespace core {

// More micro-batches per step than this are refused (a timeline of that length is not a useful picture).
inline constexpr int kMaxMicrobatches = 100000;

// One point of the planner's search space; everything else comes from the scenario.
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
    bool sequence_parallel = false;
    int ep = 1;   // expert parallel (models with experts): folds over tp x cp x dp, the GPU count does not change
    int etp = 1;  // expert tensor parallel

    int expert_data_parallel() const { return static_cast<int>(1LL * tp * cp * dp / (1LL * ep * etp)); }  // EDP: expert state shards
    bool operator==(const Layout&) const = default;
};

// The layout a scenario has now (dp resolved, sequence parallel as the scenario says).
Layout layout_of(const Scenario&);

// The scenario with the layout applied: the GPU count becomes tp x pp x cp x dp, dp is derived from it.
Scenario apply_layout(Scenario, const Layout&);

// The first rule the layout breaks for this scenario's model, batch and cluster, naming the field; none when valid.
struct LayoutProblem {
    std::string field;   // "parallel.tp"
    std::string reason;  // "3 does not divide the 64 attention heads"
};
std::optional<LayoutProblem> check_layout(const Scenario&, const Layout&);
inline bool layout_is_valid(const Scenario& scenario, const Layout& layout) { return !check_layout(scenario, layout); }

// How a pipeline of `stages` splits the model's layers, as Megatron does: L / stages each, the first stages one more
// when they do not divide. With the scenario's train.embedding_and_loss_as_layers the split counts L + 2 places, the
// embedding taking the first stage's first and the loss the last stage's last (Dubey et al. 2024 sec 3.3.2).
struct PipelineSplit {
    int layers = 1;
    int stages = 1;
    bool embedding_and_loss_as_layers = false;

    bool edges_count() const { return embedding_and_loss_as_layers && stages > 1; }
    int places() const { return layers + (edges_count() ? 2 : 0); }
    int layers_on(int stage) const;
    int first_layer_of(int stage) const;
    // The most layers any stage holds: every stage is timed at it, the edge stages less what they lack (step.cpp).
    int most_layers() const;
    // The busiest stage's places, ceil(places / stages): what interleaving splits into v equal chunks.
    int busiest_places() const { return (places() + stages - 1) / stages; }
};
PipelineSplit pipeline_split(const Scenario&, int stages);

// The layout's degrees in one line, as the sizing tables print it: "TP 1 PP 2 DP 1024 EP 256 ZeRO 1" (CP, EP and ETP
// only where more than 1), so a cluster that needs expert parallelism to fit never reads as if it did not.
std::string layout_label(const Layout&);

// Whether a group of span_gpus consecutive ranks stays inside one node (ranks run TP fastest, then CP, PP, DP).
bool within_node(int span_gpus, int gpus_per_node);

// Where a global rank sits in the mesh: ranks run TP fastest, then CP, PP, DP, and nodes hold gpus_per_node
// consecutive ranks.
struct RankCoordinates {
    int tp = 0, cp = 0, pp = 0, dp = 0;
    long long node = 0;
    int slot = 0;  // the GPU's index inside its node
    // Expert ranks fold over a stage's tp x cp x dp GPUs in that order, expert tensor parallel fastest, then expert parallel,
    // then expert data parallel (Megatron-Core MoE parallel folding).
    int etp = 0, ep = 0, edp = 0;
};
// The index of a rank among its pipeline stage's tp x cp x dp GPUs: tp + tp (cp + cp dp).
long long stage_rank_index(const RankCoordinates&, const Layout&);
// The global rank of the GPU with index `index` among stage `pp`'s tp x cp x dp GPUs.
long long rank_of_stage_index(const Layout&, int pp, long long index);
RankCoordinates rank_coordinates(const Layout&, int gpus_per_node, long long rank);

}  // namespace core
