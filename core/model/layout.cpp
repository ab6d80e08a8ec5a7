#include "core/model/layout.h"
#include "core/model/format.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <numeric>
#include <stdexcept>

namespace core {

Layout layout_of(const Scenario& scenario) {
    Layout layout;
    layout.tp = scenario.parallel.tp;
    layout.pp = scenario.parallel.pp;
    layout.cp = scenario.parallel.cp;
    layout.dp = data_parallel_degree(scenario);
    layout.zero = scenario.parallel.zero;
    layout.micro_batch = scenario.train.micro_batch;
    layout.recompute = scenario.train.recompute;
    layout.schedule = scenario.parallel.schedule;
    layout.virtual_stages = scenario.parallel.virtual_stages;
    layout.sequence_parallel = scenario.train.sequence_parallel;
    layout.ep = scenario.parallel.ep;
    layout.etp = scenario.parallel.etp;
    return layout;
}

namespace {
int places_on(const PipelineSplit& split, int stage) { return split.places() / split.stages + (stage < split.places() % split.stages ? 1 : 0); }
}  // namespace

int PipelineSplit::layers_on(int stage) const {
    const bool edges = edges_count();
    return places_on(*this, stage) - (edges && stage == 0 ? 1 : 0) - (edges && stage == stages - 1 ? 1 : 0);
}

int PipelineSplit::first_layer_of(int stage) const {
    const int place = stage * (places() / stages) + std::min(stage, places() % stages);
    return edges_count() && stage > 0 ? place - 1 : place;  // the embedding's place is not a layer
}

int PipelineSplit::most_layers() const {
    if (!edges_count()) return places_on(*this, 0);
    const int edges = std::max(layers_on(0), layers_on(stages - 1));
    return stages > 2 ? std::max(edges, places_on(*this, 1)) : edges;  // stage 1 is the fullest middle stage
}

PipelineSplit pipeline_split(const Scenario& scenario, int stages) {
    return PipelineSplit{scenario.model.layers, stages, scenario.train.embedding_and_loss_as_layers};
}

Scenario apply_layout(Scenario scenario, const Layout& layout) {
    scenario.parallel.tp = layout.tp;
    scenario.parallel.pp = layout.pp;
    scenario.parallel.cp = layout.cp;
    scenario.parallel.dp = 0;  // derived from the GPU count below, so the two can never contradict
    scenario.parallel.zero = layout.zero;
    scenario.parallel.schedule = layout.schedule;
    scenario.parallel.virtual_stages = layout.virtual_stages;
    scenario.train.micro_batch = layout.micro_batch;
    scenario.train.recompute = layout.recompute;
    scenario.train.sequence_parallel = layout.sequence_parallel;
    scenario.parallel.ep = layout.ep;
    scenario.parallel.etp = layout.etp;
    scenario.cluster.gpus = static_cast<int>(std::clamp<long long>(gpus_per_replica(layout) * layout.dp, 1, 100000000));
    return scenario;
}

namespace {
template <typename SomeLayout>
auto& integer_field(SomeLayout& layout, LayoutValue value) {
    switch (value) {
        case LayoutValue::tp: return layout.tp;
        case LayoutValue::pp: return layout.pp;
        case LayoutValue::cp: return layout.cp;
        case LayoutValue::dp: return layout.dp;
        case LayoutValue::micro_batch: return layout.micro_batch;
        case LayoutValue::virtual_stages: return layout.virtual_stages;
        case LayoutValue::zero: return layout.zero;
        case LayoutValue::ep: return layout.ep;
        case LayoutValue::etp: return layout.etp;
        default: throw std::logic_error("layout_integer: not one of the layout's integers");
    }
}
}  // namespace

int layout_integer(const Layout& layout, LayoutValue value) { return integer_field(layout, value); }
int& layout_integer(Layout& layout, LayoutValue value) { return integer_field(layout, value); }

bool Allowed::admits(long long value) const {
    if (value < at_least || value > at_most) return false;
    return divides < 0 || (value >= 1 && divides > 0 && divides % value == 0);
}

std::string change_note(const char* what, long long from, long long to, const std::string& because) {
    return std::string(what) + " " + std::to_string(from) + " -> " + std::to_string(to) + ": " + because;
}

namespace {

using V = LayoutValue;

// ---- what the rules read ----

// Micro-batches per step: the global batch over dp x micro_batch (0 when they are not positive).
long long microbatches_of(const Scenario& scenario, const Layout& layout) {
    const long long per_step = 1LL * layout.dp * layout.micro_batch;
    return per_step > 0 ? scenario.train.global_batch / per_step : 0;
}

// `whole` over `part` when it divides it; 0 otherwise (no value divides it: Allowed's "none").
long long quotient_if_whole(long long whole, long long part) { return part > 0 && whole % part == 0 ? whole / part : 0; }

std::optional<Allowed> divisor_of(long long whole) { return Allowed{whole > 0 ? whole : 0}; }
std::optional<Allowed> at_most(long long most) { return Allowed{-1, 0, most}; }

// ---- the bounds: the values of a layout integer each rule allows ----

template <LayoutValue Value>
std::optional<Allowed> at_least_one(const Scenario&, const Layout&, LayoutValue which) {
    return which == Value ? std::optional<Allowed>(Allowed{-1, 1}) : std::nullopt;
}

template <LayoutValue Value>
std::string below_one(const Scenario&, const Layout& layout) { return must_be_at_least_one(layout_integer(layout, Value)); }

// A dense model has no experts: EP and ETP stay 1. For a model with experts, no bound here.
template <LayoutValue Value>
std::optional<Allowed> one_without_experts(const Scenario& scenario, const Layout&, LayoutValue which) {
    if (which != Value) return std::nullopt;
    return scenario.model.is_moe() ? Allowed{} : Allowed{1};
}

std::string no_experts_to_split(const Scenario&, const Layout&) { return "the model has no experts to split"; }

// The product tp x pp x cp divides the GPU count: each factor divides it over the other two.
std::optional<Allowed> replica_divides_gpus(const Scenario& scenario, const Layout& layout, LayoutValue which) {
    if (which != V::tp && which != V::pp && which != V::cp) return std::nullopt;
    const long long others = gpus_per_replica(layout) / std::max(1, layout_integer(layout, which));
    return divisor_of(quotient_if_whole(scenario.cluster.gpus, others));
}

// A stage holds a layer at least: pp x v at most the split's places (the embedding and the loss take one each once the
// pipeline has two stages, so pp = 1 counts the layers alone).
std::optional<Allowed> chunks_fit_places(const Scenario& scenario, const Layout& layout, LayoutValue which) {
    if (which == V::virtual_stages) return at_most(pipeline_split(scenario, layout.pp).places() / std::max(1, layout.pp));
    if (which != V::pp) return std::nullopt;
    const long long chunks = std::max(1, layout.virtual_stages);
    const long long most = pipeline_split(scenario, 2).places() / chunks;
    return at_most(most >= 2 ? most : (chunks <= scenario.model.layers ? 1 : 0));
}

// DP is what the GPU count leaves over tp x pp x cp.
std::optional<Allowed> dp_from_gpus(const Scenario& scenario, const Layout& layout, LayoutValue which) {
    if (which != V::dp) return std::nullopt;
    const long long dp = quotient_if_whole(scenario.cluster.gpus, gpus_per_replica(layout));
    return Allowed{dp, dp};
}

// EP x ETP divides the tp x cp x dp GPUs of a pipeline stage.
std::optional<Allowed> experts_fold_over_stage(const Scenario&, const Layout& layout, LayoutValue which) {
    if (which == V::ep) return divisor_of(quotient_if_whole(layout.stage_gpus(), layout.etp));
    if (which == V::etp) return divisor_of(quotient_if_whole(layout.stage_gpus(), layout.ep));
    return std::nullopt;
}

// dp x micro_batch divides the global batch.
std::optional<Allowed> batch_divides(const Scenario& scenario, const Layout& layout, LayoutValue which) {
    if (which == V::micro_batch) return divisor_of(quotient_if_whole(scenario.train.global_batch, layout.dp));
    if (which == V::dp) return divisor_of(quotient_if_whole(scenario.train.global_batch, layout.micro_batch));
    return std::nullopt;
}

std::string schedule_fit_reason(const Scenario& scenario, const Layout& layout) {
    const auto fit = schedule_fit_problem(layout.schedule, layout.pp, microbatches_of(scenario, layout), scenario.model.layers);
    return fit ? fit->reason : std::string();
}

// ---- the repairs: what settle moves so that a rule holds ----

int& scenario_integer(Scenario& scenario, LayoutValue value) {
    switch (value) {
        case LayoutValue::tp: return scenario.parallel.tp;
        case LayoutValue::pp: return scenario.parallel.pp;
        case LayoutValue::cp: return scenario.parallel.cp;
        case LayoutValue::micro_batch: return scenario.train.micro_batch;
        case LayoutValue::virtual_stages: return scenario.parallel.virtual_stages;
        case LayoutValue::ep: return scenario.parallel.ep;
        case LayoutValue::etp: return scenario.parallel.etp;
        default: throw std::logic_error("scenario_integer: not a value settle lowers");
    }
}

// What settle moves after the model's shape, after the batch, and after the expert degrees: a value settled earlier is
// lowered with these left open.
constexpr LayoutValues kAfterExperts = value_set(V::virtual_stages, V::schedule);
constexpr LayoutValues kAfterBatch = kAfterExperts | value_set(V::sequence_parallel, V::ep, V::etp);
constexpr LayoutValues kAfterShape = kAfterBatch | value_set(V::dp, V::global_batch, V::micro_batch);

// Moves a layout integer down to the largest value at most its own that the rules allow (1 when none does), with a
// note "<label> 8 -> 4: <because>" when it moved.
void lower(Settling& settling, LayoutValue value, LayoutValues open, const char* label, const std::string& because) {
    const Layout layout = layout_of(settling.scenario);
    const int current = layout_integer(layout, value);
    const std::vector<int> allowed = allowed_values(settling.scenario, layout, value, open, current, settling.rules);
    if (!allowed.empty() && allowed.back() == current) return;
    const int lowered = allowed.empty() ? 1 : allowed.back();
    if (lowered == current) return;
    settling.notes.push_back(change_note(label, current, lowered, because));
    scenario_integer(settling.scenario, value) = lowered;
}

void lower_tp(Settling& s) {
    lower(s, V::tp, kAfterShape, "TP", "it must divide the " + std::to_string(s.scenario.model.heads) + " attention heads");
}

void lower_virtual_stages(Settling& s) {
    const Scenario& scenario = s.scenario;
    lower(s, V::virtual_stages, kAfterShape, "Virtual stages",
          "each chunk holds the same whole layers (" + std::to_string(pipeline_split(scenario, scenario.parallel.pp).busiest_places()) +
              (scenario.train.embedding_and_loss_as_layers ? " places" : "") + " per stage)");
}

// Fewer chunks first; PP moves down only when a layer per stage is already too many.
void lower_pp_then_chunks(Settling& s) {
    const int layers = s.scenario.model.layers;
    lower(s, V::pp, kAfterShape | value_bit(V::virtual_stages), "PP", "each stage needs a layer (" + format_counted(layers, "layer", "layers") + ")");
    lower_virtual_stages(s);
}

void lower_cp(Settling& s) {
    lower(s, V::cp, kAfterShape, "CP", "it must divide the sequence length " + std::to_string(s.scenario.train.seq_len));
}

// The batch rises to the next multiple of DP (unless it is what the user set: then the edit is refused), then the
// micro-batch falls to what divides a DP rank's share.
void divide_batch_over_dp(Settling& s) {
    TrainSpec& train = s.scenario.train;
    const int dp = data_parallel_degree(s.scenario);
    if (train.global_batch % dp != 0) {
        const long long batch = (1LL * train.global_batch + dp - 1) / dp * dp;
        if (batch > 100000000) {
            s.problem = LayoutProblem{"train.global_batch", "would exceed 100,000,000 sequences"};
            return;
        }
        s.notes.push_back(change_note("Global batch", train.global_batch, batch, "it must divide over DP " + std::to_string(dp)));
        train.global_batch = static_cast<int>(batch);
    }
    const int per_rank = train.global_batch / dp;
    lower(s, V::micro_batch, kAfterBatch, "Micro-batch", "it must divide the " + format_counted(per_rank, "sequence", "sequences") + " per DP rank");
}

template <LayoutValue Value>
void no_expert_split(Settling& s) {
    int& degree = scenario_integer(s.scenario, Value);
    s.notes.push_back(change_note(Value == V::ep ? "EP" : "ETP", degree, 1, "the model has no experts"));
    degree = 1;
}

void sequence_parallel_on(Settling& s) {
    s.notes.push_back("Sequence parallel off -> on: a model with experts needs it with TP > 1 (Megatron-Core)");
    s.scenario.train.sequence_parallel = true;
}

// ETP first, to the largest that divides the expert width and the stage (EP left open), then EP with it.
void fold_experts(Settling& s) {
    const ModelSpec& model = s.scenario.model;
    const std::string stage = std::to_string(layout_of(s.scenario).stage_gpus());
    lower(s, V::etp, kAfterExperts | value_bit(V::ep), "ETP",
          "it must divide the expert width " + std::to_string(model.expert_ffn_hidden) + " and the stage's " + stage + " GPUs");
    lower(s, V::ep, kAfterExperts, "EP",
          "it must divide the " + std::to_string(model.experts) + " experts, and EP x ETP the stage's " + stage + " GPUs (TP x CP x DP)");
}

void one_chunk(Settling& s) { s.scenario.parallel.virtual_stages = 1; }

void interleaved_to_one_f_one_b(Settling& s) {
    const Layout layout = layout_of(s.scenario);
    s.notes.push_back("Schedule interleaved -> 1f1b: the " + std::to_string(microbatches_of(s.scenario, layout)) +
                      " micro-batches are not a multiple of PP " + std::to_string(layout.pp));
    s.scenario.parallel.schedule = ScheduleKind::one_f_one_b;
    s.scenario.parallel.virtual_stages = 1;
}

void schedule_to_one_f_one_b(Settling& s) {
    s.notes.push_back(std::string("Schedule ") + schedule_name(s.scenario.parallel.schedule) + " -> 1f1b: " +
                      schedule_fit_reason(s.scenario, layout_of(s.scenario)));
    s.scenario.parallel.schedule = ScheduleKind::one_f_one_b;
}

// ---- the table ----
// Each row: name, field, guards, reads, relaxes, allows (the candidates), test, reason, settle step, repair. In the order
// the check names a broken rule: the counts' ranges, what experts allow, the model's shape, the GPUs, the batch, the schedule.

constexpr LayoutValues kMicrobatchInputs = value_set(V::dp, V::micro_batch, V::global_batch);

const LayoutRule kLayoutRules[] = {
    {"TP is at least 1", "parallel.tp", V::tp, value_bit(V::tp), 0, at_least_one<V::tp>, nullptr, below_one<V::tp>, SettleStep::check, nullptr},
    {"PP is at least 1", "parallel.pp", V::pp, value_bit(V::pp), 0, at_least_one<V::pp>, nullptr, below_one<V::pp>, SettleStep::check, nullptr},
    {"CP is at least 1", "parallel.cp", V::cp, value_bit(V::cp), 0, at_least_one<V::cp>, nullptr, below_one<V::cp>, SettleStep::check, nullptr},
    {"the micro-batch is at least 1", "train.micro_batch", V::micro_batch, value_bit(V::micro_batch), 0, at_least_one<V::micro_batch>,
     nullptr, below_one<V::micro_batch>, SettleStep::check, nullptr},
    {"the chunks per device are at least 1", "parallel.virtual_stages", V::virtual_stages, value_bit(V::virtual_stages), 0,
     at_least_one<V::virtual_stages>, nullptr, below_one<V::virtual_stages>, SettleStep::check, nullptr},
    {"ZeRO has stages 0 to 3", "parallel.zero", V::zero, value_bit(V::zero), 0,
     [](const Scenario&, const Layout&, LayoutValue which) { return which == V::zero ? std::optional<Allowed>(Allowed{-1, 0, 3}) : std::nullopt; },
     nullptr, [](const Scenario&, const Layout& l) { return "must be 0 to 3, got " + std::to_string(l.zero); }, SettleStep::check, nullptr},
    {"EP is at least 1", "parallel.ep", V::ep, value_bit(V::ep), 0, at_least_one<V::ep>, nullptr, below_one<V::ep>, SettleStep::check, nullptr},
    {"ETP is at least 1", "parallel.etp", V::etp, value_bit(V::etp), 0, at_least_one<V::etp>, nullptr, below_one<V::etp>, SettleStep::check, nullptr},
    {"a dense model has no EP", "parallel.ep", V::ep, value_bit(V::ep), 0, one_without_experts<V::ep>, nullptr, no_experts_to_split,
     SettleStep::switches, no_expert_split<V::ep>},
    {"a dense model has no ETP", "parallel.etp", V::etp, value_bit(V::etp), 0, one_without_experts<V::etp>, nullptr, no_experts_to_split,
     SettleStep::switches, no_expert_split<V::etp>},
    {"EP divides the experts", "parallel.ep", V::ep, value_bit(V::ep), 0,
     [](const Scenario& s, const Layout&, LayoutValue which) {
         return which == V::ep ? (s.model.is_moe() ? divisor_of(s.model.experts) : Allowed{}) : std::optional<Allowed>();
     },
     nullptr,
     [](const Scenario& s, const Layout& l) {
         return std::to_string(l.ep) + " does not divide the " + std::to_string(s.model.experts) + " experts";
     },
     SettleStep::experts, fold_experts},
    {"ETP divides the expert width", "parallel.etp", V::etp, value_bit(V::etp), 0,
     [](const Scenario& s, const Layout&, LayoutValue which) {
         return which == V::etp ? (s.model.is_moe() ? divisor_of(s.model.expert_ffn_hidden) : Allowed{}) : std::optional<Allowed>();
     },
     nullptr,
     [](const Scenario& s, const Layout& l) {
         return std::to_string(l.etp) + " does not divide the expert width " + std::to_string(s.model.expert_ffn_hidden);
     },
     SettleStep::experts, fold_experts},
    // Megatron-Core refuses MoE with TP but without SP: the router and the dispatch work on each TP rank's share of the tokens.
    {"experts with TP need sequence parallelism", "train.sequence_parallel", V::sequence_parallel, value_set(V::tp, V::sequence_parallel), 0,
     nullptr, [](const Scenario& s, const Layout& l) { return !(s.model.is_moe() && l.tp > 1 && !l.sequence_parallel); },
     [](const Scenario&, const Layout&) { return std::string("a model with experts and TP > 1 needs sequence parallelism (Megatron-Core)"); },
     SettleStep::switches, sequence_parallel_on},
    {"TP divides the attention heads", "parallel.tp", V::tp, value_bit(V::tp), 0,
     [](const Scenario& s, const Layout&, LayoutValue which) { return which == V::tp ? divisor_of(s.model.heads) : std::nullopt; }, nullptr,
     [](const Scenario& s, const Layout& l) {
         return std::to_string(l.tp) + " does not divide the " + std::to_string(s.model.heads) + " attention heads";
     },
     SettleStep::shape, lower_tp},
    // Each model chunk holds a layer at least (with the embedding and the loss as layers, the edge chunks may hold them alone).
    {"each chunk holds a layer", "parallel.pp", V::virtual_stages, value_set(V::pp, V::virtual_stages, V::edges),
     value_set(V::pp, V::virtual_stages), chunks_fit_places, nullptr,
     [](const Scenario& s, const Layout& l) {
         return "pp x virtual_stages = " + std::to_string(1LL * l.pp * l.virtual_stages) + " is more than the " + std::to_string(s.model.layers) +
                " layers" + (pipeline_split(s, l.pp).edges_count() ? " and the embedding and the loss" : "");
     },
     SettleStep::shape, lower_pp_then_chunks},
    {"only interleaving has chunks", "parallel.virtual_stages", V::virtual_stages, value_set(V::virtual_stages, V::schedule), 0,
     [](const Scenario&, const Layout& l, LayoutValue which) {
         return which == V::virtual_stages ? at_most(l.schedule == ScheduleKind::interleaved ? std::numeric_limits<long long>::max() : 1)
                                           : std::nullopt;
     },
     nullptr, [](const Scenario&, const Layout&) { return std::string("only the interleaved schedule has virtual stages"); }, SettleStep::schedule,
     one_chunk},
    // Megatron gives every model chunk the same layers: the busiest stage's ceil(L / pp) must split into v equal chunks
    // (with the embedding and the loss as layers, its places: the first chunk holds the embedding and a layer fewer).
    {"the chunks split a stage evenly", "parallel.virtual_stages", V::virtual_stages, value_set(V::pp, V::virtual_stages, V::edges), 0,
     [](const Scenario& s, const Layout& l, LayoutValue which) {
         return which == V::virtual_stages ? divisor_of(pipeline_split(s, l.pp).busiest_places()) : std::nullopt;
     },
     nullptr,
     [](const Scenario& s, const Layout& l) {
         const PipelineSplit split = pipeline_split(s, l.pp);
         return std::to_string(l.virtual_stages) + " chunks do not split the " +
                (split.edges_count() ? format_counted(split.busiest_places(), "layer place", "layer places") + " (the embedding and the loss take one each)"
                                     : format_counted(split.busiest_places(), "layer", "layers")) +
                " of a pipeline stage evenly";
     },
     SettleStep::shape, lower_virtual_stages},
    // DualPipe and DualPipeV put the model's two ends on the same devices: their stages stay whole.
    {"DualPipe keeps its stages whole", "train.embedding_and_loss_as_layers", V::edges, value_set(V::edges, V::pp, V::schedule), 0, nullptr,
     [](const Scenario& s, const Layout& l) { return !(pipeline_split(s, l.pp).edges_count() && is_dualpipe(l.schedule)); },
     [](const Scenario&, const Layout& l) {
         return "trims the first and last of a one-way pipeline; " + std::string(l.schedule == ScheduleKind::dualpipe ? "DualPipe" : "DualPipeV") +
                " holds both ends on one device";
     },
     SettleStep::check, nullptr},
    {"CP divides the sequence", "parallel.cp", V::cp, value_bit(V::cp), 0,
     [](const Scenario& s, const Layout&, LayoutValue which) { return which == V::cp ? divisor_of(s.train.seq_len) : std::nullopt; }, nullptr,
     [](const Scenario& s, const Layout& l) { return std::to_string(l.cp) + " does not divide seq_len " + std::to_string(s.train.seq_len); },
     SettleStep::shape, lower_cp},
    {"the GPUs hold whole replicas", "cluster.gpus", V::tp, value_set(V::tp, V::pp, V::cp, V::gpus), value_set(V::tp, V::pp, V::cp),
     replica_divides_gpus, nullptr,
     [](const Scenario& s, const Layout& l) {
         return std::to_string(s.cluster.gpus) + " GPUs are not divisible by tp x pp x cp = " + std::to_string(gpus_per_replica(l));
     },
     SettleStep::gpus, nullptr},
    {"DP is at least 1", "parallel.dp", V::dp, value_bit(V::dp), 0, at_least_one<V::dp>, nullptr, below_one<V::dp>, SettleStep::gpus, nullptr},
    {"DP is the GPUs over a replica", "parallel.dp", V::dp, value_set(V::tp, V::pp, V::cp, V::dp, V::gpus), 0, dp_from_gpus, nullptr,
     [](const Scenario& s, const Layout& l) {
         return "dp x tp x pp x cp = " + std::to_string(gpus_per_replica(l) * l.dp) + " contradicts cluster.gpus = " + std::to_string(s.cluster.gpus);
     },
     SettleStep::batch, nullptr},  // settle derives DP from the GPU count before this step
    {"EP x ETP fold over a stage", "parallel.ep", V::ep, value_set(V::ep, V::etp, V::tp, V::cp, V::dp), value_set(V::ep, V::etp),
     experts_fold_over_stage, nullptr,
     [](const Scenario&, const Layout& l) {
         return "ep x etp = " + std::to_string(1LL * l.ep * l.etp) + " must divide the tp x cp x dp = " + std::to_string(l.stage_gpus()) +
                " GPUs of a pipeline stage";
     },
     SettleStep::experts, fold_experts},
    {"dp x micro_batch divides the batch", "train.global_batch", V::micro_batch, kMicrobatchInputs, value_set(V::dp, V::micro_batch),
     batch_divides, nullptr,
     [](const Scenario& s, const Layout& l) {
         return std::to_string(s.train.global_batch) + " is not divisible by dp x micro_batch = " + std::to_string(1LL * l.dp * l.micro_batch);
     },
     SettleStep::batch, divide_batch_over_dp},
    {"interleaving needs p | m", "parallel.schedule", V::schedule, kMicrobatchInputs | value_set(V::schedule, V::pp), 0, nullptr,
     [](const Scenario& s, const Layout& l) { return l.schedule != ScheduleKind::interleaved || microbatches_of(s, l) % l.pp == 0; },
     [](const Scenario& s, const Layout& l) {
         return "interleaved needs micro-batches (" + std::to_string(microbatches_of(s, l)) + ") to be a multiple of pp (" + std::to_string(l.pp) + ")";
     },
     SettleStep::schedule, interleaved_to_one_f_one_b},
    {"the schedule fits the pipeline", "parallel.schedule", V::schedule, kMicrobatchInputs | value_set(V::schedule, V::pp), 0, nullptr,
     [](const Scenario& s, const Layout& l) { return !schedule_fit_problem(l.schedule, l.pp, microbatches_of(s, l), s.model.layers); },
     schedule_fit_reason, SettleStep::schedule, schedule_to_one_f_one_b},
    {"at most 100,000 micro-batches", "train.global_batch", V::global_batch, kMicrobatchInputs, 0, nullptr,
     [](const Scenario& s, const Layout& l) { return microbatches_of(s, l) <= kMaxMicrobatches; },
     [](const Scenario&, const Layout&) { return std::string("more than 100,000 micro-batches per step"); }, SettleStep::check, nullptr},
};

// The divisors of `whole` in [low, high], ascending, appended to `values`.
void append_divisors(long long whole, long long low, long long high, std::vector<int>& values) {
    long long root = 1;
    for (long long d = 1; d * d <= whole; ++d) {
        root = d;
        if (whole % d == 0 && d >= low && d <= high) values.push_back(static_cast<int>(d));
    }
    for (long long d = root; d >= 1; --d) {
        const long long pair = whole / d;
        if (whole % d == 0 && pair != d && pair >= low && pair <= high) values.push_back(static_cast<int>(pair));
    }
}

// A rule reading `value` that a candidate search can use: none of its other inputs is open, but those it relaxes (read at 1).
bool usable(const LayoutRule& rule, LayoutValue value, LayoutValues open) {
    return (rule.reads & value_bit(value)) && !(rule.reads & open & ~value_bit(value) & ~rule.relaxes);
}

// The open values a rule relaxes: it reads them at 1.
LayoutValues relaxed_values(const LayoutRule& rule, LayoutValue value, LayoutValues open) { return rule.relaxes & open & ~value_bit(value); }

Layout relaxed(Layout layout, LayoutValues ones) {
    for (LayoutValue integer : {V::tp, V::pp, V::cp, V::dp, V::micro_batch, V::virtual_stages, V::zero, V::ep, V::etp}) {
        if (ones & value_bit(integer)) layout_integer(layout, integer) = 1;
    }
    return layout;
}

}  // namespace

LayoutRules layout_rules() { return kLayoutRules; }

bool rule_holds(const LayoutRule& rule, const Scenario& scenario, const Layout& layout) {
    if (rule.test) return rule.test(scenario, layout);
    return rule.allows(scenario, layout, rule.guards)->admits(layout_integer(layout, rule.guards));
}

std::optional<LayoutProblem> check_layout(const Scenario& scenario, const Layout& layout, LayoutRules rules) {
    for (const LayoutRule& rule : rules) {
        if (!rule_holds(rule, scenario, layout)) return LayoutProblem{rule.field, rule.reason(scenario, layout)};
    }
    return std::nullopt;
}

std::optional<LayoutProblem> check_layout_value(const Scenario& scenario, const Layout& layout, LayoutValue value, LayoutRules rules) {
    for (const LayoutRule& rule : rules) {
        if (rule.guards == value && !rule_holds(rule, scenario, layout)) return LayoutProblem{rule.field, rule.reason(scenario, layout)};
    }
    return std::nullopt;
}

void allowed_values(const Scenario& scenario, const Layout& layout, LayoutValue value, LayoutValues open, long long limit,
                    std::vector<int>& values, LayoutRules rules) {
    values.clear();
    Allowed bound{-1, value == V::zero ? 0 : 1, limit};
    // Rules with no bound on `value` decide each candidate by their test.
    std::array<const LayoutRule*, 32> tests;
    std::size_t test_count = 0;
    for (const LayoutRule& rule : rules) {
        if (!usable(rule, value, open)) continue;
        const LayoutValues ones = relaxed_values(rule, value, open);
        const std::optional<Allowed> allowed = !rule.allows ? std::nullopt
                                               : ones ? rule.allows(scenario, relaxed(layout, ones), value)
                                                      : rule.allows(scenario, layout, value);
        if (!allowed) {
            if (test_count == tests.size()) throw std::logic_error("allowed_values: more than 32 rules without a bound");
            tests[test_count++] = &rule;
            continue;
        }
        bound.at_least = std::max(bound.at_least, allowed->at_least);
        bound.at_most = std::min(bound.at_most, allowed->at_most);
        if (allowed->divides >= 0) bound.divides = bound.divides < 0 ? allowed->divides : std::gcd(bound.divides, allowed->divides);
    }
    if (bound.divides == 0 || bound.at_least > bound.at_most) return;
    if (bound.divides > 0) {
        append_divisors(bound.divides, bound.at_least, bound.at_most, values);
    } else {
        for (long long v = bound.at_least; v <= bound.at_most; ++v) values.push_back(static_cast<int>(v));
    }
    for (std::size_t i = 0; i < test_count; ++i) {
        Layout read = relaxed(layout, relaxed_values(*tests[i], value, open));
        std::erase_if(values, [&](int candidate) {
            layout_integer(read, value) = candidate;
            return !rule_holds(*tests[i], scenario, read);
        });
    }
}

std::vector<int> allowed_values(const Scenario& scenario, const Layout& layout, LayoutValue value, LayoutValues open, long long limit,
                                LayoutRules rules) {
    std::vector<int> values;
    allowed_values(scenario, layout, value, open, limit, values, rules);
    return values;
}

bool value_allowed(const Scenario& scenario, const Layout& layout, LayoutValue value, LayoutValues open, LayoutRules rules) {
    for (const LayoutRule& rule : rules) {
        if (!usable(rule, value, open)) continue;
        const LayoutValues ones = relaxed_values(rule, value, open);
        if (ones == 0 ? !rule_holds(rule, scenario, layout) : !rule_holds(rule, scenario, relaxed(layout, ones))) return false;
    }
    return true;
}

std::string layout_label(const Layout& layout) {
    std::string label = "TP " + std::to_string(layout.tp) + " PP " + std::to_string(layout.pp);
    if (layout.cp > 1) label += " CP " + std::to_string(layout.cp);
    label += " DP " + std::to_string(layout.dp);
    if (layout.ep > 1) label += " EP " + std::to_string(layout.ep);
    if (layout.etp > 1) label += " ETP " + std::to_string(layout.etp);
    return label + " ZeRO " + std::to_string(layout.zero);
}

bool within_node(int span_gpus, int gpus_per_node) { return span_gpus <= gpus_per_node && gpus_per_node % span_gpus == 0; }

RankCoordinates rank_coordinates(const Layout& layout, int gpus_per_node, long long rank) {
    RankCoordinates where;
    where.tp = static_cast<int>(rank % layout.tp);
    where.cp = static_cast<int>(rank / layout.tp % layout.cp);
    where.pp = static_cast<int>(rank / (1LL * layout.tp * layout.cp) % layout.pp);
    where.dp = static_cast<int>(rank / gpus_per_replica(layout));
    where.node = rank / gpus_per_node;
    where.slot = static_cast<int>(rank % gpus_per_node);
    const long long index = stage_rank_index(where, layout);
    where.etp = static_cast<int>(index % std::max(1, layout.etp));
    where.ep = static_cast<int>(index / std::max(1, layout.etp) % std::max(1, layout.ep));
    where.edp = static_cast<int>(index / (1LL * std::max(1, layout.etp) * std::max(1, layout.ep)));
    return where;
}

long long stage_rank_index(const RankCoordinates& where, const Layout& layout) {
    return where.tp + 1LL * layout.tp * (where.cp + 1LL * layout.cp * where.dp);
}

long long rank_of_stage_index(const Layout& layout, int pp, long long index) {
    const long long tp_cp = 1LL * layout.tp * layout.cp;
    return index % tp_cp + tp_cp * pp + tp_cp * layout.pp * (index / tp_cp);
}

}  // namespace core
