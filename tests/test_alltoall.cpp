// The expert-parallel all-to-all lesson: routing, volumes by link and the pairwise steps, against moe.md's formulas
// (dispatch and combine T k h bytes, uniform routing's (EP-1)/EP and (EP-G)/EP) and DeepSeek-V3's node-limited routing.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

#include "core/lessons/alltoall_steps.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

namespace {

using core::AllToAllInputs;
using core::AllToAllPhase;
using core::ExpertRouting;

AllToAllInputs inputs_for(int ep_ranks, int gpus_per_node, int experts, int top_k, int tokens_per_rank, int hidden,
                          ExpertRouting routing = ExpertRouting::balanced) {
    AllToAllInputs inputs;
    inputs.ep_ranks = ep_ranks;
    inputs.gpus_per_node = gpus_per_node;
    inputs.experts = experts;
    inputs.top_k = top_k;
    inputs.tokens_per_rank = tokens_per_rank;
    inputs.hidden = hidden;
    inputs.routing = routing;
    return inputs;
}

// DeepSeek-V3 (arXiv 2412.19437 sec 3.2, 4.2): EP 64 over 8 nodes of 8, 256 routed experts, top-8, h = 7168,
// each token to at most 4 nodes, FP8 dispatch and BF16 combine. Fewer tokens than a 4K sequence keep the test fast.
AllToAllInputs deepseek_v3(int tokens_per_rank, int max_nodes, ExpertRouting routing) {
    AllToAllInputs inputs = inputs_for(64, 8, 256, 8, tokens_per_rank, 7168, routing);
    inputs.dispatch_bytes_per_element = 1;
    inputs.combine_bytes_per_element = 2;
    inputs.max_nodes_per_token = max_nodes;
    return inputs;
}

}  // namespace

TEST_CASE("moe.md all-to-all: dispatch and combine move T x k x h x bytes per rank, split by where they travel", "[alltoall]") {
    for (ExpertRouting routing : {ExpertRouting::balanced, ExpertRouting::random, ExpertRouting::skewed}) {
        for (int ep : {1, 2, 8, 16, 32}) {
            AllToAllInputs inputs = inputs_for(ep, 8, 64, 2, 128, 4096, routing);
            inputs.dispatch_bytes_per_element = 1;  // FP8 dispatch
            inputs.combine_bytes_per_element = 2;   // BF16 combine
            INFO(core::expert_routing_name(routing) << " EP " << ep);
            const core::AllToAllRouting result = core::route_tokens(inputs);
            REQUIRE(result.dispatch_bytes_per_rank == 128.0 * 2 * 4096 * 1);
            REQUIRE(result.dispatch.total_bytes == ep * 128.0 * 2 * 4096 * 1);
            REQUIRE(result.combine.total_bytes == ep * 128.0 * 2 * 4096 * 2);
            for (const core::AllToAllVolumes* v : {&result.dispatch, &result.combine}) {
                REQUIRE(v->same_gpu_bytes + v->nvlink_bytes + v->infiniband_bytes == Approx(v->total_bytes));
                REQUIRE(v->infiniband_one_per_node_bytes <= v->infiniband_bytes);
            }
            // Combine retraces dispatch: the same copies, at the combine's bytes per element.
            REQUIRE(result.combine.infiniband_bytes == Approx(2 * result.dispatch.infiniband_bytes));
            REQUIRE(std::accumulate(result.copies.begin(), result.copies.end(), 0LL) == ep * 128LL * 2);
            REQUIRE(std::accumulate(result.expert_load.begin(), result.expert_load.end(), 0LL) == ep * 128LL * 2);
            if (ep <= 8) REQUIRE(result.dispatch.infiniband_bytes == 0);  // one node: everything on NVLink
        }
    }
}

TEST_CASE("moe.md uniform routing: (EP-1)/EP of the copies leave the GPU, (EP-G)/EP leave the node", "[alltoall]") {
    struct Layout {
        int ep, gpus_per_node, experts, top_k;
    };
    for (Layout l : {Layout{64, 8, 256, 8}, Layout{16, 8, 64, 2}, Layout{8, 8, 8, 2}, Layout{32, 4, 128, 6}, Layout{4, 8, 16, 4}}) {
        INFO("EP " << l.ep << " G " << l.gpus_per_node << " E " << l.experts << " k " << l.top_k);
        // Balanced routing over a whole number of expert rounds sends every rank's copies evenly to all ranks: exact.
        const core::AllToAllRouting balanced = core::route_tokens(inputs_for(l.ep, l.gpus_per_node, l.experts, l.top_k, l.experts, 1024));
        REQUIRE(balanced.leaving_gpu_share == Approx(core::uniform_leaving_gpu_share(l.ep)));
        REQUIRE(balanced.crossing_node_share == Approx(core::uniform_crossing_node_share(l.ep, l.gpus_per_node)).margin(1e-12));
        REQUIRE(balanced.expert_load_imbalance == Approx(1.0));
        REQUIRE(balanced.rank_load_imbalance == Approx(1.0));
        // Random routing: the same on average (here within 2 points over a few thousand tokens).
        AllToAllInputs random = inputs_for(l.ep, l.gpus_per_node, l.experts, l.top_k, 4096 / l.ep * 4, 1024, ExpertRouting::random);
        const core::AllToAllRouting sampled = core::route_tokens(random);
        REQUIRE(sampled.leaving_gpu_share == Approx(core::uniform_leaving_gpu_share(l.ep)).margin(0.02));
        REQUIRE(sampled.crossing_node_share == Approx(core::uniform_crossing_node_share(l.ep, l.gpus_per_node)).margin(0.02));
    }
    REQUIRE(core::uniform_crossing_node_share(64, 8) == Approx(56.0 / 64));
    REQUIRE(core::uniform_crossing_node_share(4, 8) == 0.0);  // the group fits in a node
}

TEST_CASE("DeepSeek-V3 sec 2.1.2: node-limited routing sends each token to at most M = 4 of the 8 nodes", "[alltoall]") {
    for (ExpertRouting routing : {ExpertRouting::random, ExpertRouting::balanced}) {
        INFO(core::expert_routing_name(routing));
        const core::AllToAllRouting unlimited = core::route_tokens(deepseek_v3(32, 0, routing));
        const core::AllToAllRouting limited = core::route_tokens(deepseek_v3(32, 4, routing));
        REQUIRE(unlimited.max_nodes_touched > 4);
        REQUIRE(limited.max_nodes_touched <= 4);
        // One InfiniBand copy per remote node: at most M per token (M - 1 when its own node is among them).
        const double token_bytes = 7168.0 * 1;
        REQUIRE(limited.dispatch.infiniband_one_per_node_bytes <= 64.0 * 32 * 4 * token_bytes);
        REQUIRE(limited.dispatch.infiniband_one_per_node_bytes < unlimited.dispatch.infiniband_one_per_node_bytes);
        // Still k experts per token: the same dispatch volume, fewer bytes crossing nodes once merged per node.
        REQUIRE(limited.dispatch.total_bytes == unlimited.dispatch.total_bytes);
        REQUIRE(limited.dispatch_bytes_per_rank == 32.0 * 8 * 7168 * 1);
        for (int expert : limited.example_experts) REQUIRE(expert >= 0);
        std::set<int> example_nodes;
        for (int expert : limited.example_experts) example_nodes.insert(expert / 4 / 8);  // 4 experts per GPU, 8 GPUs per node
        REQUIRE(limited.example_experts.size() == 8);
        REQUIRE(example_nodes.size() <= 4);
    }
    // With every token's k experts already spread one per node, merging per node saves nothing without the limit.
    const core::AllToAllRouting balanced = core::route_tokens(deepseek_v3(256, 0, ExpertRouting::balanced));
    REQUIRE(balanced.dispatch.infiniband_one_per_node_bytes == Approx(balanced.dispatch.infiniband_bytes));
    REQUIRE(balanced.max_nodes_touched == 8);
}

TEST_CASE("Skewed routing: a few hot experts make the busiest expert and GPU wait (max/mean load > 1)", "[alltoall]") {
    AllToAllInputs inputs = inputs_for(16, 8, 64, 2, 512, 1024, ExpertRouting::skewed);
    inputs.skew = 1.0;
    const core::AllToAllRouting skewed = core::route_tokens(inputs);
    REQUIRE(skewed.expert_load_imbalance > 3.0);
    REQUIRE(skewed.rank_load_imbalance > 1.5);
    REQUIRE(skewed.expert_load[0] == *std::max_element(skewed.expert_load.begin(), skewed.expert_load.end()));
    REQUIRE(skewed.busiest_rank == 0);  // it holds experts 0..3, the hottest
    long long most_from_others = 0;
    for (int rank = 0; rank < 16; ++rank) most_from_others = std::max(most_from_others, skewed.received_copies(rank));
    REQUIRE(skewed.max_received_copies == most_from_others);
    REQUIRE(core::alltoall_max_tokens_per_rank(64, 256) == 6103);  // 1e8 / (64 x 256)
    REQUIRE(core::alltoall_max_tokens_per_rank(64, 256, 1e3) == 1);
    inputs.skew = 0;  // no skew: uniform weights, random routing again
    REQUIRE(core::route_tokens(inputs).expert_load_imbalance < 1.5);
    // The seed decides the draw, nothing else does.
    inputs.skew = 1.0;
    REQUIRE(core::route_tokens(inputs).copies == skewed.copies);
    inputs.seed = 2;
    REQUIRE(core::route_tokens(inputs).copies != skewed.copies);
}

TEST_CASE("Thakur 2005 pairwise all-to-all: p-1 steps each way, rank r sends r+s in step s, the steps carry the volumes",
          "[alltoall]") {
    AllToAllInputs inputs = inputs_for(16, 8, 64, 4, 256, 2048, ExpertRouting::random);
    inputs.combine_bytes_per_element = 4;
    const core::AllToAllRouting routing = core::route_tokens(inputs);
    const std::vector<core::AllToAllStep> steps = core::alltoall_steps(routing);
    REQUIRE(steps.size() == 2 * 15 + 1);
    double dispatch_nvlink = 0, dispatch_ib = 0, combine_nvlink = 0, combine_ib = 0;
    for (const core::AllToAllStep& step : steps) {
        if (step.phase == AllToAllPhase::experts) {
            REQUIRE(step.transfers.empty());
            continue;
        }
        REQUIRE(step.transfers.size() == 16);
        std::set<int> receivers;
        for (const core::AllToAllTransfer& transfer : step.transfers) {
            const int expected = step.phase == AllToAllPhase::dispatch ? (transfer.from_rank + step.offset) % 16
                                                                       : (transfer.from_rank - step.offset + 16) % 16;
            REQUIRE(transfer.to_rank == expected);
            receivers.insert(transfer.to_rank);
            REQUIRE(transfer.tier == (transfer.from_rank / 8 == transfer.to_rank / 8 ? core::LinkTier::nvlink : core::LinkTier::infiniband));
        }
        REQUIRE(receivers.size() == 16);  // each rank receives exactly once per step
        (step.phase == AllToAllPhase::dispatch ? dispatch_nvlink : combine_nvlink) += step.nvlink_bytes;
        (step.phase == AllToAllPhase::dispatch ? dispatch_ib : combine_ib) += step.infiniband_bytes;
    }
    REQUIRE(dispatch_nvlink == Approx(routing.dispatch.nvlink_bytes));
    REQUIRE(dispatch_ib == Approx(routing.dispatch.infiniband_bytes));
    REQUIRE(combine_nvlink == Approx(routing.combine.nvlink_bytes));
    REQUIRE(combine_ib == Approx(routing.combine.infiniband_bytes));
    REQUIRE(core::alltoall_steps(core::route_tokens(inputs_for(1, 8, 8, 2, 16, 64))).size() == 1);  // one rank: experts only
}

TEST_CASE("All-to-all animation: a pure function of t, bytes crossing nodes counted as the steps run", "[alltoall]") {
    const core::AllToAllRouting routing = core::route_tokens(inputs_for(16, 8, 64, 2, 128, 1024, ExpertRouting::random));
    const std::vector<core::AllToAllStep> steps = core::alltoall_steps(routing);
    const double step_seconds = 0.5;
    REQUIRE(core::alltoall_animation_seconds(steps, step_seconds) == Approx(31 * 0.5));
    // A still picture stands halfway through the experts' step: the 15 dispatch steps done, every copy at its experts.
    REQUIRE(core::alltoall_figure_seconds(steps, step_seconds) == Approx(15.5 * 0.5));
    REQUIRE(core::alltoall_frame_at(routing, steps, core::alltoall_figure_seconds(steps, step_seconds), step_seconds).phase == AllToAllPhase::experts);

    const core::AllToAllFrame start = core::alltoall_frame_at(routing, steps, 0, step_seconds);
    REQUIRE(start.phase == AllToAllPhase::dispatch);
    REQUIRE(start.step_in_phase == 1);
    REQUIRE(start.steps_in_phase == 15);
    REQUIRE(start.infiniband_bytes_moved == 0);
    REQUIRE(start.caption.find("dispatch, step 1 of 15") == 0);

    // Half way through step 3: two steps and half the third have moved.
    const core::AllToAllFrame middle = core::alltoall_frame_at(routing, steps, 2.5 * step_seconds, step_seconds);
    REQUIRE(middle.steps_done == 2);
    REQUIRE(middle.transfer_fraction == Approx(0.5));
    REQUIRE(middle.infiniband_bytes_moved == Approx(steps[0].infiniband_bytes + steps[1].infiniband_bytes + 0.5 * steps[2].infiniband_bytes));

    // After dispatch every GPU holds what it was sent; the experts step moves nothing; combine returns it all.
    const core::AllToAllFrame experts = core::alltoall_frame_at(routing, steps, 15.5 * step_seconds, step_seconds);
    REQUIRE(experts.phase == AllToAllPhase::experts);
    REQUIRE(experts.infiniband_bytes_moved == Approx(routing.dispatch.infiniband_bytes));
    REQUIRE(experts.nvlink_bytes_moved == Approx(routing.dispatch.nvlink_bytes));
    for (int rank = 0; rank < 16; ++rank) REQUIRE(experts.foreign_copies_held[rank] == Approx(routing.received_copies(rank)));

    const core::AllToAllFrame end = core::alltoall_frame_at(routing, steps, 1e6, step_seconds);
    REQUIRE(end.done);
    REQUIRE(end.phase == AllToAllPhase::done);
    REQUIRE(end.infiniband_bytes_moved == Approx(routing.dispatch.infiniband_bytes + routing.combine.infiniband_bytes));
    for (double held : end.foreign_copies_held) REQUIRE(held == Approx(0).margin(1e-9));

    // Monotone: the counter never runs backwards.
    double previous = -1;
    for (double t = 0; t < 17; t += 0.37) {
        const core::AllToAllFrame frame = core::alltoall_frame_at(routing, steps, t, step_seconds);
        REQUIRE(frame.infiniband_bytes_moved + frame.nvlink_bytes_moved >= previous);
        previous = frame.infiniband_bytes_moved + frame.nvlink_bytes_moved;
    }
}

TEST_CASE("All-to-all inputs: bad values are refused naming the field", "[alltoall]") {
    const auto field_of = [](const AllToAllInputs& inputs) -> std::string {
        try {
            core::route_tokens(inputs);
        } catch (const core::InputError& error) {
            return error.field();
        }
        return "(no error)";
    };
    const AllToAllInputs valid = inputs_for(16, 8, 64, 2, 64, 1024);
    REQUIRE(field_of(valid) == "(no error)");
    AllToAllInputs bad = valid;
    bad.ep_ranks = 0;
    REQUIRE(field_of(bad) == "alltoall.ep_ranks");
    bad = valid;
    bad.gpus_per_node = 6;  // 16 ranks do not fill nodes of 6
    REQUIRE(field_of(bad) == "alltoall.gpus_per_node");
    bad = valid;
    bad.experts = 40;  // not a multiple of 16
    REQUIRE(field_of(bad) == "alltoall.experts");
    bad = valid;
    bad.top_k = 65;
    REQUIRE(field_of(bad) == "alltoall.top_k");
    bad = valid;
    bad.tokens_per_rank = 0;
    REQUIRE(field_of(bad) == "alltoall.tokens_per_rank");
    bad = valid;
    bad.hidden = -1;
    REQUIRE(field_of(bad) == "alltoall.hidden");
    bad = valid;
    bad.dispatch_bytes_per_element = NAN;
    REQUIRE(field_of(bad) == "alltoall.dispatch_bytes_per_element");
    bad = valid;
    bad.max_nodes_per_token = 3;  // only 2 nodes
    REQUIRE(field_of(bad) == "alltoall.max_nodes_per_token");
    bad = inputs_for(16, 8, 16, 9, 64, 1024);
    bad.max_nodes_per_token = 1;  // one node holds 8 experts, fewer than k = 9
    REQUIRE(field_of(bad) == "alltoall.max_nodes_per_token");
    bad = valid;
    bad.skew = -1;
    REQUIRE(field_of(bad) == "alltoall.skew");
    bad = inputs_for(256, 8, 1024, 8, 1'000'000, 1024);  // 2.6e11 affinities
    REQUIRE(field_of(bad) == "alltoall.tokens_per_rank");

    const core::AllToAllRouting routing = core::route_tokens(valid);
    const std::vector<core::AllToAllStep> steps = core::alltoall_steps(routing);
    REQUIRE_THROWS_AS(core::alltoall_frame_at(routing, steps, -1, 1), core::InputError);
    REQUIRE_THROWS_AS(core::alltoall_frame_at(routing, steps, 1, 0), core::InputError);
}

TEST_CASE("All-to-all inputs from a scenario: its node size, hidden size and tokens per GPU", "[alltoall]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-70b"}, "train": {"seq_len": 8192, "micro_batch": 2,
        "sequence_parallel": true}, "parallel": {"tp": 4, "cp": 2}, "cluster": {"gpus": 64, "gpus_per_node": 8}})");
    const AllToAllInputs inputs = core::alltoall_inputs_for(scenario, 16, 64, 2);
    REQUIRE(inputs.gpus_per_node == 8);
    REQUIRE(inputs.hidden == 8192);
    REQUIRE(inputs.tokens_per_rank == 8192 * 2 / (2 * 4));
    REQUIRE(inputs.ep_ranks == 16);
    REQUIRE(inputs.experts == 64);
    REQUIRE(inputs.top_k == 2);
}

TEST_CASE("All-to-all from a scenario with experts: DeepSeek-V3's EP 64, 256 experts, top-8, 4 nodes, FP8 dispatch (sec 2.1.2, 3.2.2)",
          "[alltoall][moe]") {
    const core::Scenario deepseek = core::parse_scenario(R"({"model": {"preset": "deepseek-v3"}, "train": {"seq_len": 4096, "global_batch": 15360},
        "parallel": {"pp": 16, "ep": 64}, "cluster": {"gpu": "h800-sxm", "gpus": 2048}, "moe": {"node_limit": 4, "dispatch_bytes": 1}})");
    REQUIRE(core::alltoall_follows_scenario(deepseek));
    const AllToAllInputs inputs = core::alltoall_inputs_of_scenario(deepseek);
    REQUIRE(inputs.ep_ranks == 64);
    REQUIRE(inputs.experts == 256);
    REQUIRE(inputs.top_k == 8);
    REQUIRE(inputs.max_nodes_per_token == 4);
    REQUIRE(inputs.dispatch_bytes_per_element == 1.0);
    REQUIRE(inputs.hidden == 7168);
    REQUIRE(inputs.tokens_per_rank == 4096);
    // A dense model, or experts all on one GPU: the panel keeps its own sandbox.
    REQUIRE_FALSE(core::alltoall_follows_scenario(core::parse_scenario("{}")));
    core::Scenario one_gpu = deepseek;
    one_gpu.parallel.ep = 1;
    REQUIRE_FALSE(core::alltoall_follows_scenario(one_gpu));
}
