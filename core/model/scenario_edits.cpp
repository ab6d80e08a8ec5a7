#include "core/model/scenario_edits.h"

#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/framework_recipe.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace core {
namespace {

using V = LayoutValue;

// The layout values that differ between two scenarios.
LayoutValues changed_values(const Scenario& before, const Scenario& after) {
    const Layout a = layout_of(before), b = layout_of(after);
    LayoutValues changed = 0;
    for (LayoutValue integer : {V::tp, V::pp, V::cp, V::dp, V::micro_batch, V::virtual_stages, V::zero, V::ep, V::etp}) {
        if (layout_integer(a, integer) != layout_integer(b, integer)) changed |= value_bit(integer);
    }
    if (a.schedule != b.schedule) changed |= value_bit(V::schedule);
    if (a.sequence_parallel != b.sequence_parallel) changed |= value_bit(V::sequence_parallel);
    if (before.cluster.gpus != after.cluster.gpus) changed |= value_bit(V::gpus);
    if (before.train.global_batch != after.train.global_batch) changed |= value_bit(V::global_batch);
    if (before.train.embedding_and_loss_as_layers != after.train.embedding_and_loss_as_layers) changed |= value_bit(V::edges);
    return changed;
}

// The layout value a control moves.
LayoutValue value_of(LayoutAxis axis) {
    switch (axis) {
        case LayoutAxis::tp: return V::tp;
        case LayoutAxis::pp: return V::pp;
        case LayoutAxis::cp: return V::cp;
        case LayoutAxis::dp: return V::dp;
        case LayoutAxis::micro_batch: return V::micro_batch;
        case LayoutAxis::virtual_stages: return V::virtual_stages;
        case LayoutAxis::ep: return V::ep;
        case LayoutAxis::etp: return V::etp;
    }
    return V::tp;
}

// The fields that must follow an edit: each rule the settled scenario breaks is repaired in the rules' settle order
// (SettleStep), DP derived from the GPU count before the batch is divided over it. A repair that would move what the
// edit set (`edited`) refuses the edit with that rule's reason instead; a rule with no repair refuses it too.
// What the framework runs and the fine-tune's rules hold after every edit, as validate_scenario holds a file to them.
std::optional<LayoutProblem> framework_fit_problem(const Scenario& scenario) {
    try {
        validate_framework_fit(scenario);
    } catch (const InputError& error) {
        return LayoutProblem{error.field(), error.reason()};
    }
    return std::nullopt;
}

Edit settle(Scenario scenario, LayoutValues edited, LayoutRules rules, std::vector<std::string> notes = {}) {
    Settling settling{std::move(scenario), rules, std::move(notes), std::nullopt};
    for (SettleStep step : {SettleStep::shape, SettleStep::gpus, SettleStep::batch, SettleStep::switches, SettleStep::experts, SettleStep::schedule}) {
        if (step == SettleStep::batch) settling.scenario.parallel.dp = 0;  // derived from the GPU count from here on, so the two never contradict
        for (const LayoutRule& rule : rules) {
            if (rule.step != step) continue;
            const Layout layout = layout_of(settling.scenario);
            if (rule_holds(rule, settling.scenario, layout)) continue;
            LayoutProblem problem{rule.field, rule.reason(settling.scenario, layout)};
            if (!rule.repair) return {settling.scenario, settling.notes, std::move(problem)};
            const Scenario unrepaired = settling.scenario;
            rule.repair(settling);
            if (settling.problem) return {unrepaired, settling.notes, settling.problem};
            if (changed_values(unrepaired, settling.scenario) & edited) return {unrepaired, {}, std::move(problem)};
        }
    }
    // A batch the parser fitted stays marked only while it is still the fitted one; a chosen batch is the user's.
    TrainSpec& train = settling.scenario.train;
    if (train.global_batch_fitted && ((edited & value_bit(V::global_batch)) || train.global_batch != fitted_global_batch(settling.scenario) ||
                                      train.global_batch == TrainSpec{}.global_batch)) {
        train.global_batch_fitted = false;
    }
    auto problem = check_layout(settling.scenario, layout_of(settling.scenario), rules);
    if (!problem) problem = framework_fit_problem(settling.scenario);
    return {std::move(settling.scenario), std::move(settling.notes), problem};
}

Edit refused(const Scenario& scenario, const char* field, std::string reason) { return {scenario, {}, LayoutProblem{field, std::move(reason)}}; }

// A layout value set by an edit: refused when a rule about it refuses it (settling would only move it back), else settled.
Edit with_layout_value(const Scenario& scenario, Scenario edited_scenario, LayoutValue value, LayoutValues edited, LayoutRules rules) {
    if (auto problem = check_layout_value(edited_scenario, layout_of(edited_scenario), value, rules)) return {scenario, {}, std::move(problem)};
    return settle(std::move(edited_scenario), edited | value_bit(value), rules);
}

// Offers each candidate whose edit is valid.
template <typename Value, typename EditFn>
std::vector<Value> offered(const std::vector<Value>& candidates, EditFn edit) {
    std::vector<Value> result;
    for (const Value& value : candidates) if (edit(value).ok()) result.push_back(value);
    return result;
}

}  // namespace

Edit with_model(const Scenario& scenario, const ModelSpec& model) {
    Scenario result = scenario;
    result.model = model;
    result.train.seq_len = model.default_seq_len;
    if (!(model == scenario.model)) result.efficiency.step_seconds.reset();  // it was measured on the other model
    return settle(result, 0, layout_rules());
}

Edit with_imported_model(const Scenario& scenario, const ModelSpec& model) {
    Scenario result = scenario;
    result.model = model;
    std::vector<std::string> notes;
    if (result.train.seq_len > model.default_seq_len) {
        notes.push_back(change_note("Sequence length", result.train.seq_len, model.default_seq_len, "the model's context window (max_position_embeddings)"));
        result.train.seq_len = model.default_seq_len;
    }
    if (!(model == scenario.model)) result.efficiency.step_seconds.reset();  // it was measured on the other model
    return settle(result, 0, layout_rules(), std::move(notes));
}

Edit with_params(const Scenario& scenario, double params) {
    if (!(params >= kMinBareParams && params <= kMaxBareParams)) {
        return refused(scenario, "model.params", must_be_between(format_number(kMinBareParams), format_number(kMaxBareParams), format_number(params)));
    }
    // The shape adapts to the layout rather than the layout to the shape: the slider only moves the size.
    ModelSpec model = synthesize_shape(params);
    const int tp = std::max(1, scenario.parallel.tp);
    if (model.heads % tp != 0) {
        model.heads = (model.heads / tp + 1) * tp;
        model.kv_heads = model.heads;
        model.hidden = model.heads * 128;
        model.ffn_hidden = 4 * model.hidden;
    }
    model.layers = std::max(model.layers, scenario.parallel.pp * scenario.parallel.virtual_stages);
    Scenario result = scenario;
    result.model = model;
    result.efficiency.step_seconds.reset();
    return settle(result, 0, layout_rules());
}

Edit with_model_scaled(const Scenario& scenario, double params) {
    const ModelSpec& own = scenario.model;
    if (own.is_bare_count()) return with_params(scenario, params);
    if (!(params >= 1e6 && params <= 1e15)) return refused(scenario, "model.params", "must be between 1e6 and 1e15, got " + format_number(params));
    const int seq_len = scenario.train.seq_len;
    const double own_total = count_params(own, seq_len).total;
    if (std::fabs(params / own_total - 1.0) < 1e-9) return settle(scenario, 0, layout_rules());
    const int head_dim = own.head_dim();
    const int group = std::max(1, own.heads / std::max(1, own.kv_heads));
    const int tp = std::max(1, scenario.parallel.tp);
    const int heads_step = std::lcm(group, tp);  // whole KV groups that TP divides
    const double ffn_ratio = static_cast<double>(own.ffn_hidden) / own.hidden;
    const double expert_ratio = static_cast<double>(own.expert_ffn_hidden) / own.hidden;
    const double shared_ratio = static_cast<double>(own.shared_ffn_hidden) / own.hidden;
    const double aspect = static_cast<double>(own.hidden) / own.layers;
    const int min_layers = std::max(1, scenario.parallel.pp * scenario.parallel.virtual_stages);
    // For each width in whole steps of heads, the depth that comes closest to params; keep the one whose hidden / layers
    // is nearest the model's own.
    std::optional<ModelSpec> best;
    double best_aspect_error = 0;
    for (long long heads = heads_step; heads <= 1LL << 16; heads += heads_step) {
        ModelSpec model = own;
        model.heads = static_cast<int>(heads);
        model.kv_heads = static_cast<int>(heads / group);
        model.hidden = model.heads * head_dim;
        model.ffn_hidden = std::max(1, static_cast<int>(std::lround(model.hidden * ffn_ratio / 64.0)) * 64);
        // Experts keep their count and their width's ratio to the model's, as the dense MLP does.
        if (own.expert_ffn_hidden > 0) model.expert_ffn_hidden = std::max(64, static_cast<int>(std::lround(model.hidden * expert_ratio / 64.0)) * 64);
        if (own.shared_ffn_hidden > 0) model.shared_ffn_hidden = std::max(64, static_cast<int>(std::lround(model.hidden * shared_ratio / 64.0)) * 64);
        const auto total_at = [&](long long layers) {
            model.layers = static_cast<int>(layers);
            return count_params(model, seq_len).total;
        };
        if (total_at(min_layers) > params * 1.1) break;  // wider only grows: no more candidates
        constexpr long long kMaxLayers = 100000;
        if (total_at(kMaxLayers) < params * 0.9) continue;
        // The depth closest to params, searched: the count grows with depth, but not by one fixed amount per layer when
        // the layers differ (a mixture of experts' dense first layers, then expert layers every moe_layer_step).
        long long low = min_layers, high = kMaxLayers;
        while (low < high) {
            const long long middle = low + (high - low) / 2;
            if (total_at(middle) < params) low = middle + 1;
            else high = middle;
        }
        if (low > min_layers && std::fabs(total_at(low - 1) - params) < std::fabs(total_at(low) - params)) --low;
        const double total = total_at(low);
        if (std::fabs(total / params - 1.0) > 0.1) continue;
        const double aspect_error = std::fabs(std::log(model.hidden / (aspect * model.layers)));
        if (!best || aspect_error < best_aspect_error) {
            best = model;
            best_aspect_error = aspect_error;
        }
    }
    if (!best) {
        return refused(scenario, "model.params", own.name + " cannot be scaled to " + format_count(params) + " parameters (" +
                                                     "its smallest is one layer of " + std::to_string(heads_step * head_dim) + " wide with a " +
                                                     std::to_string(own.vocab) + "-token vocabulary)");
    }
    best->id = "custom";
    best->name = own.name + " scaled to " + format_count(count_params(*best, seq_len).total);
    Scenario result = scenario;
    result.model = *best;
    result.efficiency.step_seconds.reset();  // it was measured on the model's own size
    return settle(result, 0, layout_rules());
}

Edit with_gpu(const Scenario& scenario, const GpuSpec& gpu) {
    Scenario result = scenario;
    set_gpu(result.cluster, gpu);
    if (!(gpu == scenario.cluster.gpu)) result.efficiency.step_seconds.reset();  // it was measured on the other GPU
    apply_price_basis(result);  // a catalog price follows the GPU; a custom one stays
    return settle(result, 0, layout_rules());
}

namespace {

// A network edit stands or is refused as a file naming it would be (validate_fabric's rules).
Edit with_network(const Scenario& scenario, Scenario result) {
    try {
        validate_fabric(result.cluster);
    } catch (const InputError& error) {
        return {scenario, {}, LayoutProblem{error.field(), error.reason()}};
    }
    return settle(result, 0, layout_rules());
}

}  // namespace

Edit with_scale_out_link(const Scenario& scenario, const LinkSpec& link) {
    Scenario result = scenario;
    result.cluster.scale_out = link;
    return with_network(scenario, result);
}

Edit with_fabric(const Scenario& scenario, const FabricSpec& fabric) {
    Scenario result = scenario;
    result.cluster.fabric = fabric;
    return with_network(scenario, result);
}

Edit with_zero3_engine(const Scenario& scenario, ShardingEngine engine) {
    Scenario result = scenario;
    result.parallel.zero3_engine = engine;
    return settle(result, 0, layout_rules());
}

Edit with_stragglers(const Scenario& scenario, double share, double slowdown) {
    if (!(share >= 0 && share <= 1)) return refused(scenario, "cluster.straggler_share", must_be_between("0", "1", format_number(share)));
    if (!(slowdown >= 0 && slowdown <= ClusterSpec::kMaxStragglerSlowdown)) {
        return refused(scenario, "cluster.straggler_slowdown",
                       must_be_between("0", format_grouped(ClusterSpec::kMaxStragglerSlowdown), format_number(slowdown)));
    }
    Scenario result = scenario;
    result.cluster.straggler_share = share;
    result.cluster.straggler_slowdown = slowdown;
    return settle(result, 0, layout_rules());
}

const ControlHelp kStragglerShareHelp{"The share of machines that run slow: a synchronous step waits for the slowest of them.",
                                      "MegaScale (Jiang et al. 2024, arXiv 2402.15627) sec 5.1: about 0.5 % of hosts"};
const ControlHelp kStragglerSlowdownHelp{"How much longer a slow machine takes over the same compute.",
                                         "MegaScale (Jiang et al. 2024, arXiv 2402.15627) sec 6.3: about 10 % longer for the same forward computation"};

const std::vector<LinkSpec>& scale_out_link_choices() {
    static const std::vector<LinkSpec> choices = [] {
        const HardwareCatalog& catalog = builtin_hardware();
        std::vector<LinkSpec> links;
        for (const LinkSpec& link : catalog.links) {
            const bool scale_up = std::any_of(catalog.gpus.begin(), catalog.gpus.end(), [&](const GpuSpec& gpu) { return gpu.scale_up_link == link.id; });
            if (!scale_up) links.push_back(link);
        }
        return links;
    }();
    return choices;
}

std::string scale_out_link_help(const LinkSpec& link) { return link.name + ": " + format_bandwidth(link.bytes_per_s) + " a NIC each way"; }

std::string fabric_help(const FabricSpec& fabric) {
    std::string help = fabric.name + ": " + (fabric.rails == 0   ? std::string("one NIC per GPU")
                                             : fabric.rails == 1 ? std::string("one NIC a machine, shared by its GPUs")
                                                                 : std::to_string(fabric.rails) + " NICs a machine");
    const auto ratio = [](double value) { return value == std::floor(value) ? format_grouped(value) : format_number(value); };
    if (fabric.nic_bytes_per_s > 0) help += " of " + format_bandwidth(fabric.nic_bytes_per_s);
    if (fabric.oversubscription > 1) help += ", leaves of " + format_grouped(fabric.leaf_gpus) + " GPUs at 1:" + ratio(fabric.oversubscription);
    if (fabric.pod_gpus > 0) help += ", pods of " + format_grouped(fabric.pod_gpus) + " GPUs";
    if (fabric.cross_pod_oversubscription > 1) help += ", 1:" + ratio(fabric.cross_pod_oversubscription) + " between pods";
    return help;
}

Edit with_gpus(const Scenario& scenario, int gpus) {
    if (gpus < 1 || gpus > 100000000) return refused(scenario, "cluster.gpus", must_be_between("1", "100,000,000", std::to_string(gpus)));
    Scenario result = scenario;
    result.cluster.gpus = gpus;
    result.parallel.dp = 0;
    return settle(result, value_bit(V::gpus), layout_rules());
}

Edit with_gpus_per_node(const Scenario& scenario, int gpus_per_node, LayoutRules rules) {
    if (gpus_per_node < 1 || gpus_per_node > 1024) {
        return refused(scenario, "cluster.gpus_per_node", "must be between 1 and 1024, got " + std::to_string(gpus_per_node));
    }
    Scenario result = scenario;
    result.cluster.gpus_per_node = gpus_per_node;
    return settle(result, 0, rules);
}

Edit with_axis(const Scenario& scenario, LayoutAxis axis, int value, LayoutRules rules) {
    Scenario result = scenario;
    ParallelSpec& parallel = result.parallel;
    LayoutValues follows_edit = 0;  // what the edit sets besides the axis
    switch (axis) {
        case LayoutAxis::tp: parallel.tp = value; break;
        case LayoutAxis::pp: parallel.pp = value; break;
        case LayoutAxis::cp: parallel.cp = value; break;
        case LayoutAxis::dp: {
            const long long gpus = value * gpus_per_replica(parallel);
            if (gpus > 100000000) return refused(scenario, "parallel.dp", "dp x tp x pp x cp would exceed 100,000,000 GPUs");
            result.cluster.gpus = static_cast<int>(gpus);
            parallel.dp = 0;  // derived: the GPU count holds the value
            follows_edit = value_bit(V::gpus);
            break;
        }
        case LayoutAxis::micro_batch: result.train.micro_batch = value; break;
        case LayoutAxis::virtual_stages:
            parallel.virtual_stages = value;
            if (value > 1) parallel.schedule = ScheduleKind::interleaved;
            follows_edit = value > 1 ? value_bit(V::schedule) : 0;
            break;
        case LayoutAxis::ep: parallel.ep = value; break;
        case LayoutAxis::etp: parallel.etp = value; break;
    }
    return with_layout_value(scenario, std::move(result), value_of(axis), follows_edit, rules);
}

Edit with_zero(const Scenario& scenario, int stage, LayoutRules rules) {
    Scenario result = scenario;
    result.parallel.zero = stage;
    return with_layout_value(scenario, std::move(result), V::zero, 0, rules);
}

Edit with_schedule(const Scenario& scenario, ScheduleKind kind, LayoutRules rules) {
    Scenario result = scenario;
    ParallelSpec& parallel = result.parallel;
    parallel.schedule = kind;
    if (kind != ScheduleKind::interleaved) {
        parallel.virtual_stages = 1;
    } else if (parallel.virtual_stages == 1) {  // the fewest chunks (>= 2) that split a stage evenly
        const std::vector<int> chunks = allowed_values(result, layout_of(result), V::virtual_stages, 0, result.model.layers, rules);
        const auto fewest = std::find_if(chunks.begin(), chunks.end(), [](int v) { return v >= 2; });
        if (fewest != chunks.end()) parallel.virtual_stages = *fewest;
    }
    return with_layout_value(scenario, std::move(result), V::schedule, 0, rules);
}

Edit with_recompute(const Scenario& scenario, Recompute recompute, LayoutRules rules) {
    Scenario result = scenario;
    result.train.recompute = recompute;
    return settle(result, 0, rules);
}

Edit with_precision(const Scenario& scenario, const PrecisionRecipe& recipe) {
    Scenario result = scenario;
    result.precision = recipe;
    return settle(result, 0, layout_rules());
}

Edit with_seq_len(const Scenario& scenario, int seq_len, LayoutRules rules) {
    if (seq_len < 1 || seq_len > 10000000) return refused(scenario, "train.seq_len", "must be between 1 and 10,000,000, got " + std::to_string(seq_len));
    Scenario result = scenario;
    result.train.seq_len = seq_len;
    return settle(result, 0, rules);
}

Edit with_global_batch(const Scenario& scenario, int global_batch) {
    if (global_batch < 1 || global_batch > 100000000) {
        return refused(scenario, "train.global_batch", must_be_between("1", "100,000,000", std::to_string(global_batch)));
    }
    Scenario result = scenario;
    result.train.global_batch = global_batch;
    return with_layout_value(scenario, std::move(result), V::global_batch, 0, layout_rules());
}

Edit with_sequence_parallel(const Scenario& scenario, bool on, LayoutRules rules) {
    Scenario result = scenario;
    result.train.sequence_parallel = on;
    return with_layout_value(scenario, std::move(result), V::sequence_parallel, 0, rules);
}

Edit with_embedding_and_loss_as_layers(const Scenario& scenario, bool on, LayoutRules rules) {
    Scenario result = scenario;
    result.train.embedding_and_loss_as_layers = on;
    return with_layout_value(scenario, std::move(result), V::edges, 0, rules);  // the interleaved chunks follow the stage's places
}

Edit with_attention(const Scenario& scenario, AttentionImpl attention) {
    Scenario result = scenario;
    result.train.attention = attention;
    return settle(result, 0, layout_rules());
}

Edit with_compile(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.train.compile = on;
    return settle(result, 0, layout_rules());
}

Edit with_layout(const Scenario& scenario, const Layout& layout) {
    Scenario result = apply_layout(scenario, layout);  // an assumed MFU stays assumed, as with every layout control
    if (const auto problem = check_layout(result, layout_of(result))) return {result, {}, problem};
    return settle(result, 0, layout_rules());
}

Edit with_load_imbalance(const Scenario& scenario, double max_over_mean) {
    if (!(max_over_mean >= 1.0 && max_over_mean <= MoeSpec::max_load_factor)) {
        return refused(scenario, "moe.load_imbalance",
                       "must be between 1 and " + format_number(MoeSpec::max_load_factor) + " (max / mean), got " + format_number(max_over_mean));
    }
    Scenario result = scenario;
    result.moe.load_imbalance = max_over_mean;
    return settle(result, 0, layout_rules());
}

Edit with_capacity_factor(const Scenario& scenario, double factor) {
    if (!(factor == 0.0 || (factor >= 1.0 && factor <= MoeSpec::max_load_factor))) {
        return refused(scenario, "moe.capacity_factor",
                       "must be 0 (no capacity) or between 1 and " + format_number(MoeSpec::max_load_factor) + ", got " + format_number(factor));
    }
    Scenario result = scenario;
    result.moe.capacity_factor = factor;
    return settle(result, 0, layout_rules());
}

Edit with_node_limit(const Scenario& scenario, int nodes) {
    if (nodes < 0 || nodes > 1000000) return refused(scenario, "moe.node_limit", "must be 0 (any) or a node count, got " + std::to_string(nodes));
    Scenario result = scenario;
    result.moe.node_limit = nodes;
    return settle(result, 0, layout_rules());
}

Edit with_ep_overlap(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.overlap.ep_all_to_all = on;
    return settle(result, 0, layout_rules());
}

Edit with_framework(const Scenario& scenario, Framework framework) {
    Scenario result = scenario;
    result.train.framework = framework;
    return settle(result, 0, layout_rules());
}

Edit with_finetune_method(const Scenario& scenario, FinetuneMethod method) {
    Scenario result = scenario;
    result.finetune.method = method;
    result.finetune.base_bytes = default_base_bytes(method);
    std::vector<std::string> notes;
    // Adapters attach to named modules: a framework that runs its layer as fused blocks gives way to PEFT's own.
    const FrameworkRecipe& recipe = framework_recipe_of(result);
    if (trains_adapters(result.finetune) && (recipe.layer.ops.empty() || is_block_op(recipe.layer.ops.front().kind))) {
        result.train.framework = Framework::hf_transformers;
        notes.push_back(std::string("Framework ") + framework_name(scenario.train.framework) +
                        " -> hf-transformers: PEFT attaches its adapters to Hugging Face's named linear modules");
    }
    return settle(result, 0, layout_rules(), std::move(notes));
}

Edit with_lora_rank(const Scenario& scenario, int rank) {
    if (rank < 1 || rank > 65536) return refused(scenario, "finetune.rank", must_be_between("1", "65536", std::to_string(rank)));
    Scenario result = scenario;
    result.finetune.rank = rank;
    return settle(result, 0, layout_rules());
}

Edit with_fragmentation(const Scenario& scenario, double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) return refused(scenario, "memory.fragmentation", "must be between 0 and 1");
    Scenario result = scenario;
    result.memory.fragmentation = fraction;
    return settle(result, 0, layout_rules());
}

Edit with_price_basis(const Scenario& scenario, PriceBasis basis) {
    Scenario result = scenario;
    result.budget.price = basis;
    apply_price_basis(result);
    std::vector<std::string> notes;
    if (result.budget.price != basis) {
        notes.push_back(std::string("Price stays custom: the catalog has no ") + price_basis_name(basis) + " price for the " + scenario.cluster.gpu.name);
    }
    return settle(result, 0, layout_rules(), std::move(notes));
}

Edit with_dollars_per_gpu_hour(const Scenario& scenario, double dollars) {
    if (!(dollars >= 0 && dollars <= 1e6)) {
        return refused(scenario, "operations.dollars_per_gpu_hour", "must be between 0 and 1e6, got " + format_number(dollars));
    }
    Scenario result = scenario;
    result.operations.dollars_per_gpu_hour = dollars;
    result.budget.price = PriceBasis::custom;  // the user's own figure: it stays when the GPU changes
    return settle(result, 0, layout_rules());
}

Edit with_setup_hours(const Scenario& scenario, double hours) {
    if (!(hours >= 0 && hours <= 1e5)) return refused(scenario, "budget.setup_hours", "must be between 0 and 100,000, got " + format_number(hours));
    Scenario result = scenario;
    result.budget.setup_hours = hours;
    return settle(result, 0, layout_rules());
}

Edit with_failure_table(const Scenario& scenario, std::optional<FailureTable> table) {
    Scenario result = scenario;
    result.operations.failures = std::move(table);
    return settle(result, 0, layout_rules());
}

Edit with_checkpoint_mode(const Scenario& scenario, CheckpointMode mode) {
    Scenario result = scenario;
    result.operations.checkpoint_mode = mode;
    return settle(result, 0, layout_rules());
}

Edit with_checkpoint_interval(const Scenario& scenario, double seconds) {
    if (!(seconds >= 0 && seconds <= 1e9)) {
        return refused(scenario, "operations.checkpoint_interval_seconds", "must be between 0 (Daly's optimum) and 1e9, got " + format_number(seconds));
    }
    Scenario result = scenario;
    result.operations.checkpoint_interval_seconds = seconds;
    return settle(result, 0, layout_rules());
}

Edit with_restart_seconds(const Scenario& scenario, double seconds) {
    if (!(seconds >= 0 && seconds <= 1e9)) return refused(scenario, "operations.restart_seconds", "must be between 0 and 1e9, got " + format_number(seconds));
    Scenario result = scenario;
    result.operations.restart_seconds = seconds;
    return settle(result, 0, layout_rules());
}

Edit with_spare_nodes(const Scenario& scenario, std::optional<int> nodes) {
    if (nodes && !(*nodes >= 0 && *nodes <= 100000)) {
        return refused(scenario, "operations.spare_nodes", must_be_between("0", "100,000", std::to_string(*nodes)));
    }
    Scenario result = scenario;
    result.operations.spare_nodes = nodes;
    return settle(result, 0, layout_rules());
}

Edit with_node_repair_hours(const Scenario& scenario, double hours) {
    if (!(hours >= 0 && hours <= 1e6)) return refused(scenario, "operations.node_repair_hours", must_be_between("0", "1e6", format_number(hours)));
    Scenario result = scenario;
    result.operations.node_repair_hours = hours;
    return settle(result, 0, layout_rules());
}

Edit with_elastic(const Scenario& scenario, bool on) {
    Scenario result = scenario;
    result.operations.elastic = on;
    return settle(result, 0, layout_rules());
}

Edit with_window_days(const Scenario& scenario, double days) {
    if (!(days >= 0 && days <= 1e5)) return refused(scenario, "operations.window_days", "must be between 0 (the whole run) and 100,000, got " + format_number(days));
    Scenario result = scenario;
    result.operations.window_days = days;
    return settle(result, 0, layout_rules());
}

Edit with_run_seed(const Scenario& scenario, long long seed) {
    if (!(seed >= 1 && seed <= 1000000000)) return refused(scenario, "operations.run_seed", must_be_in(1, 1000000000, seed));
    Scenario result = scenario;
    result.operations.run_seed = static_cast<int>(seed);
    return settle(result, 0, layout_rules());
}

Edit with_budget_dollars(const Scenario& scenario, std::optional<double> dollars) {
    if (dollars && !(*dollars >= 0 && *dollars <= 1e12)) {
        return refused(scenario, "budget.dollars", "must be between 0 and 1e12, got " + format_number(*dollars));
    }
    Scenario result = scenario;
    result.budget.budget_dollars = dollars;
    return settle(result, 0, layout_rules());
}

double size_slider_min(double scenario_params) {
    if (!(scenario_params > 0)) return 1e8;
    return std::min(1e8, std::max(kMinBareParams, std::pow(10.0, std::floor(std::log10(scenario_params)))));
}

Choices choices_of(const Scenario& scenario, LayoutRules rules) {
    Choices choices;
    const Layout layout = layout_of(scenario);
    // What settle moves after a layout control: an offered value may need these to follow, so rules that read them wait.
    constexpr LayoutValues follows = value_set(V::dp, V::global_batch, V::micro_batch, V::sequence_parallel, V::ep, V::etp, V::schedule,
                                               V::virtual_stages);
    constexpr long long kMaxGpus = 100000000;
    const auto offer = [&](LayoutAxis axis, LayoutValues open, long long limit) {
        const LayoutValue value = value_of(axis);
        return offered(allowed_values(scenario, layout, value, open & ~value_bit(value), limit, rules),
                       [&](int candidate) { return with_axis(scenario, axis, candidate, rules); });
    };
    choices.tp = offer(LayoutAxis::tp, follows, kMaxGpus);
    choices.pp = offer(LayoutAxis::pp, follows, kMaxGpus);
    choices.cp = offer(LayoutAxis::cp, follows, kMaxGpus);
    // DP moves the GPU count and keeps the batch: it offers what divides the batch.
    choices.dp = offer(LayoutAxis::dp, (follows & ~value_bit(V::global_batch)) | value_bit(V::gpus), kMaxGpus / std::max(1LL, gpus_per_replica(layout)));
    choices.micro_batch = offer(LayoutAxis::micro_batch, follows & ~value_set(V::dp, V::global_batch), kMaxGpus);
    choices.virtual_stages = offer(LayoutAxis::virtual_stages, follows, kMaxGpus);
    choices.ep = offer(LayoutAxis::ep, follows, kMaxGpus);
    choices.etp = offer(LayoutAxis::etp, follows, kMaxGpus);
    choices.zero = offered(allowed_values(scenario, layout, V::zero, follows, kMaxGpus, rules), [&](int stage) { return with_zero(scenario, stage, rules); });
    choices.sequence_parallel_off = with_sequence_parallel(scenario, false, rules).ok();
    choices.embedding_and_loss_as_layers_on = with_embedding_and_loss_as_layers(scenario, true, rules).ok();
    std::vector<int> seq_candidates;
    for (long long s = 128; s <= (1 << 20); s *= 2) seq_candidates.push_back(static_cast<int>(s));
    if (std::find(seq_candidates.begin(), seq_candidates.end(), scenario.train.seq_len) == seq_candidates.end()) {
        seq_candidates.insert(std::upper_bound(seq_candidates.begin(), seq_candidates.end(), scenario.train.seq_len), scenario.train.seq_len);
    }
    choices.seq_len = offered(seq_candidates, [&](int s) { return with_seq_len(scenario, s, rules); });
    choices.gpus_per_node = offered(std::vector<int>{1, 2, 4, 8, 16, 32, 64, 72}, [&](int n) { return with_gpus_per_node(scenario, n, rules); });
    choices.schedules = offered(std::vector<ScheduleKind>{ScheduleKind::one_f_one_b, ScheduleKind::interleaved, ScheduleKind::zb_h1,
                                                          ScheduleKind::dualpipe, ScheduleKind::dualpipe_v, ScheduleKind::gpipe, ScheduleKind::naive},
                                [&](ScheduleKind kind) { return with_schedule(scenario, kind, rules); });
    choices.recomputes = offered(std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full},
                                 [&](Recompute recompute) { return with_recompute(scenario, recompute, rules); });
    return choices;
}

int next_gpus(const Scenario& scenario, int direction) {
    // The DP slider's own values (what the rules offer: DP dividing the batch), so - and + never leave a partial step.
    const std::vector<int> dp = choices_of(scenario).dp;
    const long long replica = gpus_per_replica(scenario.parallel);
    const int now = data_parallel_degree(scenario);
    const auto next = direction > 0 ? std::upper_bound(dp.begin(), dp.end(), now) : std::lower_bound(dp.begin(), dp.end(), now);
    if (direction > 0 && next != dp.end()) return static_cast<int>(*next * replica);
    if (direction < 0 && next != dp.begin()) return static_cast<int>(*std::prev(next) * replica);
    // Past the batch's last divisor, one more replica at a time (the batch follows, and the edit says so).
    long long gpus = scenario.cluster.gpus;
    for (int tries = 0; tries < 4096; ++tries) {
        gpus = direction > 0 ? (gpus / replica + 1) * replica : ((gpus + replica - 1) / replica - 1) * replica;
        if (gpus < 1 || gpus > 100000000) break;
        if (with_gpus(scenario, static_cast<int>(gpus)).ok()) return static_cast<int>(gpus);
    }
    return scenario.cluster.gpus;
}

int next_global_batch(const Scenario& scenario, int direction) {
    const long long step = 1LL * data_parallel_degree(scenario) * scenario.train.micro_batch;
    long long batch = scenario.train.global_batch;
    for (int tries = 0; tries < 4096; ++tries) {
        batch = direction > 0 ? (batch / step + 1) * step : ((batch + step - 1) / step - 1) * step;
        if (batch < 1 || batch > 100000000) break;
        if (with_global_batch(scenario, static_cast<int>(batch)).ok()) return static_cast<int>(batch);
    }
    return scenario.train.global_batch;
}

int nearest_choice_index(const std::vector<int>& choices, int value) {
    int best = 0;
    for (int i = 1; i < static_cast<int>(choices.size()); ++i) {
        if (std::llabs(1LL * choices[i] - value) < std::llabs(1LL * choices[best] - value)) best = i;
    }
    return best;
}

}  // namespace core
