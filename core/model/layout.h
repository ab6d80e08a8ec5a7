#pragma once
// A parallel layout: how a scenario's model is split over its GPUs. The one place where a layout's validity is decided.
#include "core/model/errors.h"
#include "core/model/scenario.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace core {

// More micro-batches per step than this are refused (a timeline of that length is not a useful picture).
inline constexpr int kMaxMicrobatches = 100000;

// What check_layout finds wrong: the field and why.
struct LayoutProblem {
    std::string field;   // "parallel.tp"
    std::string reason;  // "3 does not divide the 64 attention heads"
};

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

    long long stage_gpus() const { return 1LL * tp * cp * dp; }  // a pipeline stage's GPUs, over which EP x ETP fold
    int expert_data_parallel() const { return static_cast<int>(stage_gpus() / (1LL * ep * etp)); }  // EDP: expert state shards
    bool operator==(const Layout&) const = default;
};

// The layout a scenario has now (dp resolved, sequence parallel as the scenario says).
Layout layout_of(const Scenario&);

// The scenario with the layout applied: the GPU count becomes tp x pp x cp x dp, dp is derived from it.
Scenario apply_layout(Scenario, const Layout&);

// The values a layout rule reads, bounds or moves: the layout's own, and the three of the scenario's it answers to.
enum class LayoutValue : std::uint8_t {
    tp, pp, cp, dp, micro_batch, virtual_stages, zero, ep, etp,  // the layout's integers
    schedule, sequence_parallel,                                  // its switches
    gpus, global_batch, edges,                                    // cluster.gpus, train.global_batch, train.embedding_and_loss_as_layers
};
using LayoutValues = std::uint32_t;  // a set of LayoutValue, one bit each
constexpr LayoutValues value_bit(LayoutValue value) { return LayoutValues{1} << static_cast<int>(value); }
template <typename... Values>
constexpr LayoutValues value_set(Values... values) { return (LayoutValues{0} | ... | value_bit(values)); }

// A layout integer (tp to etp) by name.
int layout_integer(const Layout&, LayoutValue);
int& layout_integer(Layout&, LayoutValue);

// The values of one layout integer a rule allows: those in [at_least, at_most] that divide `divides` (-1: no divisor
// bound; 0: none, as when what they must divide is not whole).
struct Allowed {
    long long divides = -1;
    long long at_least = 0;
    long long at_most = std::numeric_limits<long long>::max();
    bool admits(long long value) const;
};

// When settle (core/model/scenario_edits.cpp) repairs a rule, in this order: the model's shape bounds TP, PP, the
// interleaved chunks and CP; the GPU count must hold TP x PP x CP; DP follows the GPU count, then the batch divides over
// DP and the micro-batch over a rank's share; the model decides what may split experts; the expert degrees fold over a
// pipeline stage; the schedule must fit the micro-batches. `check`: never repaired, the final check names it.
enum class SettleStep { shape, gpus, batch, switches, experts, schedule, check };

struct LayoutRule;
using LayoutRules = std::span<const LayoutRule>;

// A scenario being settled: the edit, the notes saying what followed it ("TP 8 -> 4: it must divide the 20 attention
// heads"), and a problem that stopped a repair.
struct Settling {
    Scenario scenario;
    LayoutRules rules;
    std::vector<std::string> notes;
    std::optional<LayoutProblem> problem;
};
// A note saying a value followed an edit: "TP 8 -> 4: it must divide the 20 attention heads".
std::string change_note(const char* what, long long from, long long to, const std::string& because);

// One rule of a valid layout, and everything that follows from it: the check names `field` with `reason` when it fails;
// allows() gives the values of a layout integer it reads that keep it holding (what the controls offer and the planner
// enumerates); settle runs `repair` at `step` (core/model/scenario_edits.h).
struct LayoutRule {
    const char* name;      // what it says: "TP divides the attention heads"
    const char* field;     // what a refusal names: "parallel.tp"
    LayoutValue guards;    // what it is about: an edit of this value that breaks it is refused, not settled
    LayoutValues reads;    // every value its test reads, `guards` included
    LayoutValues relaxes;  // of those, the ones it still holds with at 1 (factors of what must divide): a search may choose them later
    // The values of `which` (an integer it reads) that keep it holding, the layout's other values as they are; nullopt:
    // no bound on `which`, the test decides each value.
    std::optional<Allowed> (*allows)(const Scenario&, const Layout&, LayoutValue which);
    bool (*test)(const Scenario&, const Layout&);           // nullptr: it holds when allows() admits the value it guards
    std::string (*reason)(const Scenario&, const Layout&);  // why it fails, with the numbers
    SettleStep step;
    void (*repair)(Settling&);  // moves what follows so that it holds, with a note; nullptr: settle refuses
};

// The rules of a valid layout, in the order the check names them.
LayoutRules layout_rules();
bool rule_holds(const LayoutRule&, const Scenario&, const Layout&);

// The first rule the layout breaks for this scenario's model, batch and cluster, naming the field; none when valid.
std::optional<LayoutProblem> check_layout(const Scenario&, const Layout&, LayoutRules = layout_rules());
inline bool layout_is_valid(const Scenario& scenario, const Layout& layout) { return !check_layout(scenario, layout); }
// The first broken rule of those that guard `value`: what an edit of that value alone is refused for.
std::optional<LayoutProblem> check_layout_value(const Scenario&, const Layout&, LayoutValue, LayoutRules = layout_rules());

// The values a layout integer may take under the rules that read it, the layout's other values as they are but for
// those in `open` (chosen later: a rule that reads one is left out, or read with it at 1 where it relaxes it),
// ascending, from 1 (ZeRO: 0) to `limit`. Into `values`, which it clears first.
void allowed_values(const Scenario&, const Layout&, LayoutValue, LayoutValues open, long long limit, std::vector<int>& values,
                    LayoutRules = layout_rules());
std::vector<int> allowed_values(const Scenario&, const Layout&, LayoutValue, LayoutValues open, long long limit,
                                LayoutRules = layout_rules());
// Whether every rule that reads `value` holds, those that read an open value left out (a switch such as the schedule).
bool value_allowed(const Scenario&, const Layout&, LayoutValue, LayoutValues open, LayoutRules = layout_rules());


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
