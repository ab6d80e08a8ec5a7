#pragma once
// The expert-parallel all-to-all as a lesson. Every token picks its top-k experts; its activation is copied to the GPUs
// holding them (dispatch) and the experts' outputs come back (combine). Here the routing is made from plain inputs, its
// volumes are counted by where they travel (same GPU, NVLink inside a node, InfiniBand between nodes), and the exchange
// is laid out as the pairwise all-to-all's steps (Thakur, Rabenseifner, Gropp 2005: in step s rank r sends to r+s),
// whose state at any time t the widget draws. Node-limited routing as DeepSeek-V3 (arXiv 2412.19437 sec 2.1.2).
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/scenario.h"

namespace core {

inline constexpr int alltoall_max_ranks = 256;
inline constexpr int alltoall_max_experts = 1024;
inline constexpr double alltoall_max_routing_decisions = 1e8;  // ranks x tokens x experts scored, one by one

enum class ExpertRouting {
    balanced,  // token g takes experts g, g + E/k, g + 2E/k, ...: every expert and every GPU equally loaded
    random,    // independent uniform affinities per token and expert (seeded): balanced on average
    skewed,    // Zipf-like popularity, expert e weighted 1/(e+1)^skew (seeded): hot experts, as a router without balancing
};
const char* expert_routing_name(ExpertRouting routing);  // "balanced", "random", "skewed"

struct AllToAllInputs {
    int ep_ranks = 16;                      // GPUs in the expert-parallel group; experts spread evenly over them
    int gpus_per_node = 8;                  // G: ranks r and q share a node when r / G == q / G
    int experts = 64;                       // routed experts E, a multiple of ep_ranks
    int top_k = 2;                          // experts per token
    int tokens_per_rank = 4096;             // T: one micro-batch's tokens on each GPU
    int hidden = 4096;                      // h: the elements of one token's activation
    double dispatch_bytes_per_element = 2;  // BF16; DeepSeek-V3 dispatches in FP8, 1 B (sec 3.2.2)
    double combine_bytes_per_element = 2;   // BF16, DeepSeek-V3's combine too
    int max_nodes_per_token = 0;            // node-limited routing M: a token's experts on at most M nodes; 0: no limit
    ExpertRouting routing = ExpertRouting::balanced;
    double skew = 1.0;                      // skewed routing's Zipf exponent
    std::uint64_t seed = 1;                 // random and skewed routing

    bool operator==(const AllToAllInputs&) const = default;
};

// Throws InputError naming the field ("alltoall.ep_ranks", "alltoall.gpus_per_node", "alltoall.experts",
// "alltoall.top_k", "alltoall.tokens_per_rank", "alltoall.hidden", "alltoall.dispatch_bytes_per_element",
// "alltoall.combine_bytes_per_element", "alltoall.max_nodes_per_token", "alltoall.skew").
void validate_alltoall_inputs(const AllToAllInputs& inputs);

// The most tokens per rank that route_tokens scores within `decisions` affinities (ranks x tokens x experts), >= 1.
int alltoall_max_tokens_per_rank(int ep_ranks, int experts, double decisions = alltoall_max_routing_decisions);

// The panel's inputs from plain values; a scenario's EP axis, once it has one, is passed in here too.
// T = seq_len x micro_batch / CP, divided by TP under sequence parallelism (each TP rank holds its share of the tokens).
AllToAllInputs alltoall_inputs_for(const Scenario& scenario, int ep_ranks, int experts, int top_k);
// Whether the scenario has an all-to-all of its own to show: a model with routed experts split over EP > 1 GPUs.
bool alltoall_follows_scenario(const Scenario& scenario);
// That all-to-all: the scenario's EP, experts, top-k, node-limited routing (moe.node_limit) and dispatch precision
// (moe.dispatch_bytes), with alltoall_inputs_for's node size, hidden size and tokens per GPU.
AllToAllInputs alltoall_inputs_of_scenario(const Scenario& scenario);

enum class LinkTier { same_gpu, nvlink, infiniband };
const char* link_tier_name(LinkTier tier);  // "same GPU", "NVLink", "InfiniBand"

// Bytes of one direction (dispatch or combine), all ranks together, by where they travel.
struct AllToAllVolumes {
    double total_bytes = 0;       // every copy: ranks x T x k x h x bytes per element
    double same_gpu_bytes = 0;    // the expert is on the token's own GPU: nothing moves
    double nvlink_bytes = 0;      // another GPU of the same node
    double infiniband_bytes = 0;  // another node, one copy per token and destination GPU (a plain all-to-all)
    // One copy per token and destination node, fanned out over NVLink there (DeepSeek-V3 sec 3.2.2, DeepEP).
    double infiniband_one_per_node_bytes = 0;
};

struct AllToAllRouting {
    AllToAllInputs inputs;
    int nodes = 1;                     // ranks / G, at least 1
    int experts_per_rank = 1;
    std::vector<long long> copies;     // ranks x ranks: copies[from * ranks + to], token copies `from` dispatches to `to`
    std::vector<long long> expert_load;  // token copies each expert receives
    std::vector<int> example_experts;  // the experts token 0 of rank 0 picks, ascending: the token the panel follows
    int max_nodes_touched = 0;         // the most nodes one token's experts sit on (at most M when node-limited)
    double expert_load_imbalance = 1;  // max / mean copies per expert: the busiest expert sets the layer's time
    double rank_load_imbalance = 1;    // max / mean copies a GPU receives
    int busiest_rank = 0;              // the GPU whose experts get the most copies, its own included (lowest of equals)
    long long max_received_copies = 0; // the most copies one GPU receives from the other GPUs
    double dispatch_bytes_per_rank = 0;  // T x k x h x bytes: what one GPU's tokens send, its own GPU included
    double leaving_gpu_share = 0;      // of the copies, those whose expert is on another GPU
    double crossing_node_share = 0;    // those whose expert is on another node
    AllToAllVolumes dispatch, combine;
    long long received_copies(int rank) const;  // copies a rank receives from the others in dispatch
};

// Routes every token of every rank (validated inputs; throws as validate_alltoall_inputs).
AllToAllRouting route_tokens(const AllToAllInputs& inputs);

// Uniform routing's shares (moe.md): (EP-1)/EP of the copies leave the GPU, (EP-G)/EP leave the node (G <= EP).
double uniform_leaving_gpu_share(int ep_ranks);
double uniform_crossing_node_share(int ep_ranks, int gpus_per_node);

// ---- The exchange, step by step ----

enum class AllToAllPhase { dispatch, experts, combine, done };
const char* alltoall_phase_name(AllToAllPhase phase);  // "dispatch", "experts compute", "combine", "done"

struct AllToAllTransfer {
    int from_rank = 0;
    int to_rank = 0;
    long long copies = 0;
    double bytes = 0;
    LinkTier tier = LinkTier::nvlink;
};

struct AllToAllStep {
    AllToAllPhase phase = AllToAllPhase::dispatch;
    int step_in_phase = 1;                  // 1-based
    int offset = 1;                         // dispatch: r sends to r + offset; combine: r returns to r - offset
    std::vector<AllToAllTransfer> transfers;  // one per rank (experts step: none)
    double nvlink_bytes = 0, infiniband_bytes = 0;
};

// ranks-1 dispatch steps, one step for the experts, ranks-1 combine steps (one rank: the experts step alone).
std::vector<AllToAllStep> alltoall_steps(const AllToAllRouting& routing);

// What the widget draws at time t: steps_done steps are over, the next is transfer_fraction of the way.
struct AllToAllFrame {
    int steps_done = 0;
    int step_count = 0;
    AllToAllPhase phase = AllToAllPhase::dispatch;
    int step_in_phase = 1;              // 0 when done
    int steps_in_phase = 1;
    double transfer_fraction = 0;       // 0..1 of the current step; 0 when done
    bool done = false;
    double nvlink_bytes_moved = 0;      // by all steps so far, the current one pro rata
    double infiniband_bytes_moved = 0;  // what has crossed a node boundary so far
    std::vector<double> foreign_copies_held;  // per rank: other GPUs' token copies it holds at t
    std::string caption;                // "dispatch, step 3 of 15: GPU i sends GPU i+3 its tokens for the experts there"
};

// Each step takes step_seconds; past the end the final state holds. Throws InputError("alltoall.t_seconds", ...) for a
// negative or non-finite t and ("alltoall.step_seconds", ...) unless > 0.
AllToAllFrame alltoall_frame_at(const AllToAllRouting& routing, const std::vector<AllToAllStep>& steps, double t_seconds,
                                double step_seconds);
double alltoall_animation_seconds(const std::vector<AllToAllStep>& steps, double step_seconds);
// The moment a still picture shows: halfway through the experts' step, every token copy at its experts (the end shows
// them all home again, which tells nothing).
double alltoall_figure_seconds(const std::vector<AllToAllStep>& steps, double step_seconds);

}  // namespace core
