#include "core/lessons/alltoall_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "core/model/errors.h"
#include "core/model/format.h"

namespace core {

namespace {

std::string format_double(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

void require_range(long long value, long long low, long long high, const char* field) {
    if (value < low || value > high)
        throw InputError(field, must_be_in(low, high, value));
}

void require_bytes_per_element(double bytes, const char* field) {
    if (!std::isfinite(bytes) || bytes <= 0 || bytes > 8)
        throw InputError(field, "must be a number of bytes in (0, 8], got " + format_double(bytes));
}

// GPUs of one node that the group uses: all G of each node, or the whole group when it fits in less than a node.
int ranks_per_node(const AllToAllInputs& inputs) { return std::min(inputs.gpus_per_node, inputs.ep_ranks); }

// SplitMix64 (Steele, Lea, Flood 2014): a counter-based generator, so a token's affinities depend on nothing else.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

double uniform(std::uint64_t seed, long long token, int expert) {
    const std::uint64_t bits = mix(mix(seed ^ mix(static_cast<std::uint64_t>(token))) + static_cast<std::uint64_t>(expert));
    return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
}

// A token's affinity to each expert; the router takes the k highest.
class Affinities {
public:
    explicit Affinities(const AllToAllInputs& inputs) : inputs_(inputs), stride_(std::max(1, inputs.experts / inputs.top_k)) {
        if (inputs.routing == ExpertRouting::skewed) {
            weights_.resize(inputs.experts);
            for (int e = 0; e < inputs.experts; ++e) weights_[e] = std::pow(e + 1.0, -inputs.skew);
        }
    }

    void fill(long long token, std::vector<double>& scores) const {
        const int experts = inputs_.experts;
        for (int e = 0; e < experts; ++e) {
            switch (inputs_.routing) {
                case ExpertRouting::balanced: {
                    // Preference order g, g + E/k, ..., g + (k-1)E/k, then the same one further on: the first k spread
                    // over the experts evenly, so over the tokens every expert and GPU gets the same share.
                    const int distance = static_cast<int>(((e - token) % experts + experts) % experts);
                    const int round = distance / stride_;
                    const int step = distance % stride_;
                    const double position = round < inputs_.top_k ? step * inputs_.top_k + round : 1e9 + distance;
                    scores[e] = -position;
                    break;
                }
                case ExpertRouting::random: scores[e] = uniform(inputs_.seed, token, e); break;
                case ExpertRouting::skewed:
                    // Efraimidis and Spirakis 2006: the k largest u^(1/w) sample k experts without replacement, by weight.
                    scores[e] = std::log(uniform(inputs_.seed, token, e)) / weights_[e];
                    break;
            }
        }
    }

private:
    const AllToAllInputs& inputs_;
    int stride_;
    std::vector<double> weights_;
};

// The router for one token: its top-k experts, first narrowed to the M nodes whose best k/M affinities sum highest
// when routing is node-limited (DeepSeek-V3 sec 2.1.2; k/M rounded up).
class Router {
public:
    Router(const AllToAllInputs& inputs, int nodes, int experts_per_node)
        : inputs_(inputs), nodes_(nodes), experts_per_node_(experts_per_node), order_(inputs.experts), node_scores_(nodes), node_order_(nodes) {}

    void choose(const std::vector<double>& scores, std::vector<int>& chosen) {
        std::iota(order_.begin(), order_.end(), 0);
        const int limit = inputs_.max_nodes_per_token;
        auto candidates_end = order_.end();
        if (limit > 0 && limit < nodes_) {
            const int per_node = (inputs_.top_k + limit - 1) / limit;
            for (int node = 0; node < nodes_; ++node) {
                const auto begin = order_.begin() + static_cast<std::ptrdiff_t>(node) * experts_per_node_;
                const auto end = begin + experts_per_node_;
                std::partial_sort(begin, begin + per_node, end, [&](int a, int b) { return higher(scores, a, b); });
                double sum = 0;
                for (auto it = begin; it != begin + per_node; ++it) sum += scores[*it];
                node_scores_[node] = sum;
            }
            std::iota(node_order_.begin(), node_order_.end(), 0);
            std::partial_sort(node_order_.begin(), node_order_.begin() + limit, node_order_.end(), [&](int a, int b) {
                return node_scores_[a] > node_scores_[b] || (node_scores_[a] == node_scores_[b] && a < b);
            });
            // Only the chosen nodes' experts stay candidates.
            auto out = order_.begin();
            std::sort(node_order_.begin(), node_order_.begin() + limit);
            for (int i = 0; i < limit; ++i)
                for (int e = 0; e < experts_per_node_; ++e) *out++ = node_order_[i] * experts_per_node_ + e;
            candidates_end = out;
        }
        std::partial_sort(order_.begin(), order_.begin() + inputs_.top_k, candidates_end, [&](int a, int b) { return higher(scores, a, b); });
        chosen.assign(order_.begin(), order_.begin() + inputs_.top_k);
    }

private:
    static bool higher(const std::vector<double>& scores, int a, int b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); }

    const AllToAllInputs& inputs_;
    int nodes_, experts_per_node_;
    std::vector<int> order_;
    std::vector<double> node_scores_;
    std::vector<int> node_order_;
};

LinkTier tier_between(int from_rank, int to_rank, int per_node) {
    if (from_rank == to_rank) return LinkTier::same_gpu;
    return from_rank / per_node == to_rank / per_node ? LinkTier::nvlink : LinkTier::infiniband;
}

double max_over_mean(const std::vector<long long>& counts) {
    if (counts.empty()) return 1;
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    if (total <= 0) return 1;
    return *std::max_element(counts.begin(), counts.end()) / (total / counts.size());
}

}  // namespace

const char* expert_routing_name(ExpertRouting routing) {
    switch (routing) {
        case ExpertRouting::balanced: return "balanced";
        case ExpertRouting::random: return "random";
        case ExpertRouting::skewed: return "skewed";
    }
    return "balanced";
}

const char* link_tier_name(LinkTier tier) {
    switch (tier) {
        case LinkTier::same_gpu: return "same GPU";
        case LinkTier::nvlink: return "NVLink";
        case LinkTier::infiniband: return "InfiniBand";
    }
    return "NVLink";
}

const char* alltoall_phase_name(AllToAllPhase phase) {
    switch (phase) {
        case AllToAllPhase::dispatch: return "dispatch";
        case AllToAllPhase::experts: return "experts compute";
        case AllToAllPhase::combine: return "combine";
        case AllToAllPhase::done: return "done";
    }
    return "done";
}

void validate_alltoall_inputs(const AllToAllInputs& inputs) {
    require_range(inputs.ep_ranks, 1, alltoall_max_ranks, "alltoall.ep_ranks");
    require_range(inputs.gpus_per_node, 1, 1024, "alltoall.gpus_per_node");
    if (inputs.ep_ranks > inputs.gpus_per_node && inputs.ep_ranks % inputs.gpus_per_node != 0)
        throw InputError("alltoall.gpus_per_node", "the " + std::to_string(inputs.ep_ranks) + " EP ranks do not fill whole nodes of " +
                                                       std::to_string(inputs.gpus_per_node) + " GPUs");
    require_range(inputs.experts, 1, alltoall_max_experts, "alltoall.experts");
    if (inputs.experts % inputs.ep_ranks != 0)
        throw InputError("alltoall.experts", std::to_string(inputs.experts) + " experts do not spread evenly over " +
                                                 std::to_string(inputs.ep_ranks) + " EP ranks");
    require_range(inputs.top_k, 1, inputs.experts, "alltoall.top_k");
    require_range(inputs.tokens_per_rank, 1, 10'000'000, "alltoall.tokens_per_rank");
    require_range(inputs.hidden, 1, 1'000'000, "alltoall.hidden");
    require_bytes_per_element(inputs.dispatch_bytes_per_element, "alltoall.dispatch_bytes_per_element");
    require_bytes_per_element(inputs.combine_bytes_per_element, "alltoall.combine_bytes_per_element");
    const int nodes = std::max(1, inputs.ep_ranks / inputs.gpus_per_node);
    require_range(inputs.max_nodes_per_token, 0, nodes, "alltoall.max_nodes_per_token");
    const long long experts_per_node = 1LL * inputs.experts / inputs.ep_ranks * ranks_per_node(inputs);
    if (inputs.max_nodes_per_token > 0 && inputs.max_nodes_per_token * experts_per_node < inputs.top_k)
        throw InputError("alltoall.max_nodes_per_token", format_counted(inputs.max_nodes_per_token, "node holds", "nodes hold") + " " +
                                                             std::to_string(inputs.max_nodes_per_token * experts_per_node) +
                                                             " experts, fewer than top-k " + std::to_string(inputs.top_k));
    if (!std::isfinite(inputs.skew) || inputs.skew < 0 || inputs.skew > 4)
        throw InputError("alltoall.skew", "must be in 0..4, got " + format_double(inputs.skew));
    const double decisions = 1.0 * inputs.ep_ranks * inputs.tokens_per_rank * inputs.experts;
    if (decisions > alltoall_max_routing_decisions)
        throw InputError("alltoall.tokens_per_rank", "ranks x tokens x experts = " + format_double(decisions) +
                                                         " affinities to score, more than " + format_double(alltoall_max_routing_decisions));
}

int alltoall_max_tokens_per_rank(int ep_ranks, int experts, double decisions) {
    const double per_token = std::max(1.0, 1.0 * ep_ranks * experts);
    return static_cast<int>(std::clamp(std::floor(decisions / per_token), 1.0, 10'000'000.0));
}

AllToAllInputs alltoall_inputs_for(const Scenario& scenario, int ep_ranks, int experts, int top_k) {
    AllToAllInputs inputs;
    inputs.ep_ranks = ep_ranks;
    inputs.experts = experts;
    inputs.top_k = top_k;
    inputs.gpus_per_node = scenario.cluster.gpus_per_node;
    inputs.hidden = scenario.model.hidden;
    const int cp = std::max(1, scenario.parallel.cp);
    const int tp_share = scenario.train.sequence_parallel ? std::max(1, scenario.parallel.tp) : 1;
    inputs.tokens_per_rank = std::max(1, static_cast<int>(1LL * scenario.train.seq_len * scenario.train.micro_batch / (1LL * cp * tp_share)));
    return inputs;
}

bool alltoall_follows_scenario(const Scenario& scenario) { return scenario.model.is_moe() && scenario.parallel.ep > 1; }

AllToAllInputs alltoall_inputs_of_scenario(const Scenario& scenario) {
    const ModelSpec& model = scenario.model;
    AllToAllInputs inputs = alltoall_inputs_for(scenario, scenario.parallel.ep, model.experts, model.experts_per_token);
    inputs.max_nodes_per_token = scenario.moe.node_limit;
    inputs.dispatch_bytes_per_element = scenario.moe.dispatch_bytes;
    return inputs;
}

long long AllToAllRouting::received_copies(int rank) const {
    const int ranks = inputs.ep_ranks;
    long long received = 0;
    for (int from = 0; from < ranks; ++from)
        if (from != rank) received += copies[static_cast<std::size_t>(from) * ranks + rank];
    return received;
}

AllToAllRouting route_tokens(const AllToAllInputs& inputs) {
    validate_alltoall_inputs(inputs);
    AllToAllRouting routing;
    routing.inputs = inputs;
    const int ranks = inputs.ep_ranks;
    const int per_node = ranks_per_node(inputs);
    routing.nodes = ranks / per_node;
    routing.experts_per_rank = inputs.experts / ranks;
    routing.copies.assign(static_cast<std::size_t>(ranks) * ranks, 0);
    routing.expert_load.assign(inputs.experts, 0);

    const Affinities affinities(inputs);
    Router router(inputs, routing.nodes, routing.experts_per_rank * per_node);
    std::vector<double> scores(inputs.experts);
    std::vector<int> chosen;
    std::vector<long long> node_seen_by(routing.nodes, -1);  // the last token with an expert on the node
    // Per source rank, the (token, remote node) pairs: one InfiniBand copy each when copies are merged per node.
    long long one_per_node_copies = 0;
    for (int rank = 0; rank < ranks; ++rank) {
        for (int i = 0; i < inputs.tokens_per_rank; ++i) {
            const long long token = 1LL * rank * inputs.tokens_per_rank + i;
            affinities.fill(token, scores);
            router.choose(scores, chosen);
            int nodes_touched = 0;
            for (int expert : chosen) {
                const int to = expert / routing.experts_per_rank;
                ++routing.copies[static_cast<std::size_t>(rank) * ranks + to];
                ++routing.expert_load[expert];
                const int node = to / per_node;
                if (node_seen_by[node] != token) {
                    node_seen_by[node] = token;
                    ++nodes_touched;
                    if (node != rank / per_node) ++one_per_node_copies;
                }
            }
            routing.max_nodes_touched = std::max(routing.max_nodes_touched, nodes_touched);
            if (token == 0) {
                routing.example_experts = chosen;
                std::sort(routing.example_experts.begin(), routing.example_experts.end());
            }
        }
    }

    const double dispatch_copy_bytes = 1.0 * inputs.hidden * inputs.dispatch_bytes_per_element;
    const double combine_copy_bytes = 1.0 * inputs.hidden * inputs.combine_bytes_per_element;
    long long by_tier[3] = {0, 0, 0};
    for (int from = 0; from < ranks; ++from)
        for (int to = 0; to < ranks; ++to)
            by_tier[static_cast<int>(tier_between(from, to, per_node))] += routing.copies[static_cast<std::size_t>(from) * ranks + to];
    const double all_copies = 1.0 * ranks * inputs.tokens_per_rank * inputs.top_k;
    const auto volumes = [&](double copy_bytes) {
        AllToAllVolumes v;
        v.total_bytes = all_copies * copy_bytes;
        v.same_gpu_bytes = by_tier[0] * copy_bytes;
        v.nvlink_bytes = by_tier[1] * copy_bytes;
        v.infiniband_bytes = by_tier[2] * copy_bytes;
        v.infiniband_one_per_node_bytes = one_per_node_copies * copy_bytes;
        return v;
    };
    routing.dispatch = volumes(dispatch_copy_bytes);
    routing.combine = volumes(combine_copy_bytes);
    routing.dispatch_bytes_per_rank = 1.0 * inputs.tokens_per_rank * inputs.top_k * dispatch_copy_bytes;
    routing.leaving_gpu_share = (by_tier[1] + by_tier[2]) / all_copies;
    routing.crossing_node_share = by_tier[2] / all_copies;
    routing.expert_load_imbalance = max_over_mean(routing.expert_load);
    std::vector<long long> received(ranks, 0);
    for (int rank = 0; rank < ranks; ++rank)
        for (int from = 0; from < ranks; ++from) received[rank] += routing.copies[static_cast<std::size_t>(from) * ranks + rank];
    routing.rank_load_imbalance = max_over_mean(received);
    routing.busiest_rank = static_cast<int>(std::max_element(received.begin(), received.end()) - received.begin());
    for (int rank = 0; rank < ranks; ++rank) routing.max_received_copies = std::max(routing.max_received_copies, routing.received_copies(rank));
    return routing;
}

double uniform_leaving_gpu_share(int ep_ranks) { return (ep_ranks - 1.0) / ep_ranks; }

double uniform_crossing_node_share(int ep_ranks, int gpus_per_node) {
    return (ep_ranks - std::min(gpus_per_node, ep_ranks)) / static_cast<double>(ep_ranks);
}

std::vector<AllToAllStep> alltoall_steps(const AllToAllRouting& routing) {
    const AllToAllInputs& inputs = routing.inputs;
    const int ranks = inputs.ep_ranks;
    const int per_node = ranks_per_node(inputs);
    std::vector<AllToAllStep> steps;
    steps.reserve(2 * (ranks - 1) + 1);
    const auto exchange = [&](AllToAllPhase phase, int offset) {
        AllToAllStep step;
        step.phase = phase;
        step.step_in_phase = offset;
        step.offset = offset;
        const double copy_bytes = inputs.hidden * (phase == AllToAllPhase::dispatch ? inputs.dispatch_bytes_per_element : inputs.combine_bytes_per_element);
        step.transfers.reserve(ranks);
        for (int rank = 0; rank < ranks; ++rank) {
            AllToAllTransfer transfer;
            transfer.from_rank = rank;
            // Dispatch: r sends r + s its tokens for r + s's experts. Combine: r returns to r - s what r - s sent it.
            transfer.to_rank = phase == AllToAllPhase::dispatch ? (rank + offset) % ranks : (rank - offset + ranks) % ranks;
            const int token_owner = phase == AllToAllPhase::dispatch ? rank : transfer.to_rank;
            const int expert_holder = phase == AllToAllPhase::dispatch ? transfer.to_rank : rank;
            transfer.copies = routing.copies[static_cast<std::size_t>(token_owner) * ranks + expert_holder];
            transfer.bytes = transfer.copies * copy_bytes;
            transfer.tier = tier_between(transfer.from_rank, transfer.to_rank, per_node);
            (transfer.tier == LinkTier::infiniband ? step.infiniband_bytes : step.nvlink_bytes) += transfer.bytes;
            step.transfers.push_back(transfer);
        }
        steps.push_back(std::move(step));
    };
    for (int offset = 1; offset < ranks; ++offset) exchange(AllToAllPhase::dispatch, offset);
    AllToAllStep experts;
    experts.phase = AllToAllPhase::experts;
    experts.offset = 0;
    steps.push_back(experts);
    for (int offset = 1; offset < ranks; ++offset) exchange(AllToAllPhase::combine, offset);
    return steps;
}

double alltoall_animation_seconds(const std::vector<AllToAllStep>& steps, double step_seconds) {
    return static_cast<double>(steps.size()) * step_seconds;
}

double alltoall_figure_seconds(const std::vector<AllToAllStep>& steps, double step_seconds) {
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].phase == AllToAllPhase::experts) return (static_cast<double>(i) + 0.5) * step_seconds;
    return alltoall_animation_seconds(steps, step_seconds);
}

AllToAllFrame alltoall_frame_at(const AllToAllRouting& routing, const std::vector<AllToAllStep>& steps, double t_seconds,
                                double step_seconds) {
    require_non_negative("alltoall.t_seconds", t_seconds);
    require_positive("alltoall.step_seconds", step_seconds);
    const int ranks = routing.inputs.ep_ranks;
    AllToAllFrame frame;
    frame.step_count = static_cast<int>(steps.size());
    const double position = t_seconds / step_seconds;
    frame.steps_done = static_cast<int>(std::min<double>(std::floor(position), frame.step_count));
    frame.done = frame.steps_done >= frame.step_count;
    frame.transfer_fraction = frame.done ? 0.0 : position - frame.steps_done;
    frame.foreign_copies_held.assign(ranks, 0.0);
    for (int i = 0; i < frame.step_count; ++i) {
        const double share = i < frame.steps_done ? 1.0 : i == frame.steps_done ? frame.transfer_fraction : 0.0;
        if (share <= 0) break;
        const AllToAllStep& step = steps[i];
        frame.nvlink_bytes_moved += share * step.nvlink_bytes;
        frame.infiniband_bytes_moved += share * step.infiniband_bytes;
        // A dispatched copy lands on its expert's GPU; a combined one leaves it again.
        for (const AllToAllTransfer& transfer : step.transfers) {
            if (step.phase == AllToAllPhase::dispatch) frame.foreign_copies_held[transfer.to_rank] += share * transfer.copies;
            if (step.phase == AllToAllPhase::combine) frame.foreign_copies_held[transfer.from_rank] -= share * transfer.copies;
        }
    }
    const int dispatch_steps = ranks - 1;
    if (frame.done) {
        frame.phase = AllToAllPhase::done;
        frame.step_in_phase = 0;
        frame.steps_in_phase = 0;
        frame.caption = "done: every token has its k experts' outputs back";
        return frame;
    }
    const AllToAllStep& step = steps[frame.steps_done];
    frame.phase = step.phase;
    frame.step_in_phase = step.phase == AllToAllPhase::experts ? 1 : step.step_in_phase;
    frame.steps_in_phase = step.phase == AllToAllPhase::experts ? 1 : dispatch_steps;
    const std::string of = " " + std::to_string(frame.step_in_phase) + " of " + std::to_string(frame.steps_in_phase);
    switch (step.phase) {
        case AllToAllPhase::dispatch:
            frame.caption = "dispatch, step" + of + ": GPU i sends GPU i+" + std::to_string(step.offset) + " its tokens for the experts there";
            break;
        case AllToAllPhase::experts: frame.caption = "experts compute: each GPU runs its experts on the tokens it received"; break;
        case AllToAllPhase::combine:
            frame.caption = "combine, step" + of + ": GPU i returns to GPU i-" + std::to_string(step.offset) + " its tokens' expert outputs";
            break;
        case AllToAllPhase::done: break;
    }
    return frame;
}

}  // namespace core
