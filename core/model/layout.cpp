#include "core/model/layout.h"
#include "core/model/format.h"

#include <algorithm>

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
    scenario.cluster.gpus = static_cast<int>(std::clamp<long long>(1LL * layout.tp * layout.pp * layout.cp * layout.dp, 1, 100000000));
    return scenario;
}

std::optional<LayoutProblem> check_layout(const Scenario& scenario, const Layout& layout) {
    const ModelSpec& model = scenario.model;
    const TrainSpec& train = scenario.train;
    const auto problem = [](const char* field, std::string reason) { return LayoutProblem{field, std::move(reason)}; };
    if (layout.tp < 1) return problem("parallel.tp", "must be >= 1, got " + std::to_string(layout.tp));
    if (layout.pp < 1) return problem("parallel.pp", "must be >= 1, got " + std::to_string(layout.pp));
    if (layout.cp < 1) return problem("parallel.cp", "must be >= 1, got " + std::to_string(layout.cp));
    if (layout.micro_batch < 1) return problem("train.micro_batch", "must be >= 1, got " + std::to_string(layout.micro_batch));
    if (layout.virtual_stages < 1) return problem("parallel.virtual_stages", "must be >= 1, got " + std::to_string(layout.virtual_stages));
    if (layout.zero < 0 || layout.zero > 3) return problem("parallel.zero", "must be 0 to 3, got " + std::to_string(layout.zero));
    if (layout.ep < 1) return problem("parallel.ep", "must be >= 1, got " + std::to_string(layout.ep));
    if (layout.etp < 1) return problem("parallel.etp", "must be >= 1, got " + std::to_string(layout.etp));
    if (!model.is_moe() && layout.ep > 1) return problem("parallel.ep", "the model has no experts to split");
    if (!model.is_moe() && layout.etp > 1) return problem("parallel.etp", "the model has no experts to split");
    if (model.is_moe() && model.experts % layout.ep != 0) {
        return problem("parallel.ep", std::to_string(layout.ep) + " does not divide the " + std::to_string(model.experts) + " experts");
    }
    if (model.is_moe() && model.expert_ffn_hidden % layout.etp != 0) {
        return problem("parallel.etp", std::to_string(layout.etp) + " does not divide the expert width " + std::to_string(model.expert_ffn_hidden));
    }
    // Megatron-Core refuses MoE with TP but without SP: the router and the dispatch work on each TP rank's share of the tokens.
    if (model.is_moe() && layout.tp > 1 && !layout.sequence_parallel) {
        return problem("train.sequence_parallel", "a model with experts and TP > 1 needs sequence parallelism (Megatron-Core)");
    }
    if (model.heads % layout.tp != 0) {
        return problem("parallel.tp", std::to_string(layout.tp) + " does not divide the " + std::to_string(model.heads) + " attention heads");
    }
    // Each model chunk holds a layer at least (with the embedding and the loss as layers, the edge chunks may hold them alone).
    const PipelineSplit split = pipeline_split(scenario, layout.pp);
    if (1LL * layout.pp * layout.virtual_stages > split.places()) {
        return problem("parallel.pp", "pp x virtual_stages = " + std::to_string(1LL * layout.pp * layout.virtual_stages) +
                                          " is more than the " + std::to_string(model.layers) + " layers" +
                                          (split.edges_count() ? " and the embedding and the loss" : ""));
    }
    if (layout.virtual_stages > 1 && layout.schedule != ScheduleKind::interleaved) {
        return problem("parallel.virtual_stages", "only the interleaved schedule has virtual stages");
    }
    // Megatron gives every model chunk the same layers: the busiest stage's ceil(L / pp) must split into v equal chunks
    // (with the embedding and the loss as layers, its places: the first chunk holds the embedding and a layer fewer).
    if (layout.virtual_stages > 1 && split.busiest_places() % layout.virtual_stages != 0) {
        return problem("parallel.virtual_stages", std::to_string(layout.virtual_stages) + " chunks do not split the " +
                                                      (split.edges_count() ? format_counted(split.busiest_places(), "layer place", "layer places") +
                                                                                 " (the embedding and the loss take one each)"
                                                                           : format_counted(split.busiest_places(), "layer", "layers")) +
                                                      " of a pipeline stage evenly");
    }
    // DualPipe and DualPipeV put the model's two ends on the same devices: their stages stay whole.
    if (split.edges_count() && (layout.schedule == ScheduleKind::dualpipe || layout.schedule == ScheduleKind::dualpipe_v)) {
        return problem("train.embedding_and_loss_as_layers", "trims the first and last of a one-way pipeline; " +
                                                                 std::string(layout.schedule == ScheduleKind::dualpipe ? "DualPipe" : "DualPipeV") +
                                                                 " holds both ends on one device");
    }
    if (train.seq_len % layout.cp != 0) {
        return problem("parallel.cp", std::to_string(layout.cp) + " does not divide seq_len " + std::to_string(train.seq_len));
    }
    const long long model_parallel = 1LL * layout.tp * layout.pp * layout.cp;
    const int gpus = scenario.cluster.gpus;
    if (model_parallel > gpus || gpus % model_parallel != 0) {
        return problem("cluster.gpus", std::to_string(gpus) + " GPUs are not divisible by tp x pp x cp = " + std::to_string(model_parallel));
    }
    if (layout.dp < 1) return problem("parallel.dp", "must be >= 1, got " + std::to_string(layout.dp));
    if (model_parallel * layout.dp != gpus) {
        return problem("parallel.dp", "dp x tp x pp x cp = " + std::to_string(model_parallel * layout.dp) + " contradicts cluster.gpus = " +
                                          std::to_string(gpus));
    }
    const long long stage_gpus = 1LL * layout.tp * layout.cp * layout.dp;
    if (stage_gpus % (1LL * layout.ep * layout.etp) != 0) {
        return problem("parallel.ep", "ep x etp = " + std::to_string(1LL * layout.ep * layout.etp) + " must divide the tp x cp x dp = " +
                                          std::to_string(stage_gpus) + " GPUs of a pipeline stage");
    }
    const long long per_step = 1LL * layout.dp * layout.micro_batch;
    if (train.global_batch % per_step != 0) {
        return problem("train.global_batch", std::to_string(train.global_batch) + " is not divisible by dp x micro_batch = " +
                                                 std::to_string(per_step));
    }
    const long long microbatches = train.global_batch / per_step;
    if (layout.schedule == ScheduleKind::interleaved && microbatches % layout.pp != 0) {
        return problem("parallel.schedule", "interleaved needs micro-batches (" + std::to_string(microbatches) +
                                                ") to be a multiple of pp (" + std::to_string(layout.pp) + ")");
    }
    if (const auto fit = schedule_fit_problem(layout.schedule, layout.pp, microbatches, model.layers)) return problem("parallel.schedule", fit->reason);
    if (microbatches > kMaxMicrobatches) return problem("train.global_batch", "more than 100,000 micro-batches per step");
    return std::nullopt;
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
    where.dp = static_cast<int>(rank / (1LL * layout.tp * layout.cp * layout.pp));
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
