// Collectives and per-axis traffic: nccl-tests' busbw, the alpha-beta ring, Narayanan 2021 sec 3.2, ZeRO sec 7
// (published.md sec 1, 3, 5).
#include "core/cost/kernels/collectives.h"
#include "core/cost/kernels/comm.h"
#include "core/model/layout.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>

using core::Collective;
using core_tests::bare_params;
using core_tests::megatron_a100;

namespace {

const core::AxisComm& axis(const core::Report& report, const std::string& name) {
    const auto found = std::find_if(report.comm.axes.begin(), report.comm.axes.end(),
                                    [&](const core::AxisComm& candidate) { return core::comm_axis_name(candidate.axis) == name; });
    INFO("axis " << name);
    REQUIRE(found != report.comm.axes.end());
    return *found;
}

core::LinkSpec test_link() {
    core::LinkSpec link;
    link.bytes_per_s = 100e9;
    link.latency_seconds = 5e-6;
    return link;
}

}  // namespace

TEST_CASE("nccl-tests PERFORMANCE.md: busbw = algbw x factor", "[collectives]") {
    for (int n : {2, 8, 64}) {
        const double ranks = n;
        INFO(n << " ranks");
        REQUIRE(core::busbw_factor(Collective::all_reduce, n) == Approx(2 * (ranks - 1) / ranks));
        REQUIRE(core::busbw_factor(Collective::reduce_scatter, n) == Approx((ranks - 1) / ranks));
        REQUIRE(core::busbw_factor(Collective::all_gather, n) == Approx((ranks - 1) / ranks));
        REQUIRE(core::busbw_factor(Collective::all_to_all, n) == Approx((ranks - 1) / ranks));
        REQUIRE(core::busbw_factor(Collective::broadcast, n) == 1);
        REQUIRE(core::busbw_factor(Collective::reduce, n) == 1);
    }
    SECTION("8 ranks, all-reduce of 1 GB in 10 ms: algbw 100 GB/s, busbw 175 GB/s") {
        const core::BandwidthFigures figures = core::nccl_bandwidth(Collective::all_reduce, 8, 1e9, 10e-3);
        REQUIRE(figures.algbw_bytes_per_s == Approx(100e9));
        REQUIRE(figures.busbw_bytes_per_s == Approx(175e9));
    }
    SECTION("a ring all-reduce's busbw equals the link bandwidth once alpha is negligible") {
        const core::LinkSpec link = test_link();
        const double seconds = core::ring_seconds(Collective::all_reduce, 8, 10e9, link);
        REQUIRE(core::nccl_bandwidth(Collective::all_reduce, 8, 10e9, seconds).busbw_bytes_per_s == Approx(link.bytes_per_s).epsilon(1e-3));
    }
}

TEST_CASE("Ring all-reduce in the alpha-beta model: 2(n-1) a + 2((n-1)/n) S b", "[collectives]") {
    const core::LinkSpec link = test_link();
    const double alpha = link.latency_seconds, beta = 1 / link.bytes_per_s;
    for (int n : {2, 4, 8, 1024}) {
        const double ranks = n, buffer = 2.8e9;
        INFO(n << " ranks");
        REQUIRE(core::ring_seconds(Collective::all_reduce, n, buffer, link) ==
                Approx(2 * (ranks - 1) * alpha + 2 * ((ranks - 1) / ranks) * buffer * beta));
        // Reduce-scatter then all-gather, each (n-1) a + ((n-1)/n) S b.
        REQUIRE(core::ring_seconds(Collective::reduce_scatter, n, buffer, link) +
                    core::ring_seconds(Collective::all_gather, n, buffer, link) ==
                Approx(core::ring_seconds(Collective::all_reduce, n, buffer, link)));
        // Each GPU sends 2(n-1)/n S bytes: 2(n-1) steps of S/n.
        REQUIRE(core::ring_bytes_sent_per_rank(Collective::all_reduce, n, buffer) == Approx(2 * (ranks - 1) * buffer / ranks));
    }
    REQUIRE(core::ring_seconds(Collective::all_reduce, 1, 1e9, link) == 0);
    REQUIRE(core::ring_seconds(Collective::send_recv, 2, 1e9, link) == Approx(alpha + 1e9 * beta));
}

TEST_CASE("Narayanan 2021 sec 3.2: TP moves 8 b s h (t-1)/t ELEMENTS per layer per micro-batch, x 2 B in bf16", "[collectives][tp]") {
    // published.md says "bytes"; the paper counts elements (two all-reduces forward, two backward, each 2(t-1)/t x bsh).
    // In bf16 the bytes are twice that: 16 b s h (t-1)/t.
    const double s = 2048, h = 12288, layers = 96;
    for (int t : {2, 4, 8}) {
        for (int b : {1, 2}) {
            INFO("t = " << t << ", b = " << b);
            const int microbatches = 4;
            const core::Report report = core::evaluate(
                megatron_a100("gpt3-175b", t, 1, t, b * microbatches, R"(, "micro_batch": )" + std::to_string(b)));
            const core::AxisComm& tp = axis(report, "tp");
            const double elements = 8 * b * s * h * (t - 1.0) / t;
            const double per_layer_per_microbatch = tp.bytes_per_gpu / (layers * microbatches);
            REQUIRE(per_layer_per_microbatch == Approx(elements * 2));
            REQUIRE(per_layer_per_microbatch != Approx(elements));  // not the "bytes" of published.md
            REQUIRE(tp.message_bytes == Approx(b * s * h * 2));
            REQUIRE_FALSE(tp.crosses_nodes);
        }
    }
    SECTION("sequence parallelism swaps each all-reduce for a reduce-scatter + all-gather (the same bytes), and the backward "
            "gathers the two column-parallel inputs again for their weight gradients: 10 instead of 8 x (t-1)/t x b s h") {
        const core::Report plain = core::evaluate(megatron_a100("gpt3-175b", 8, 1, 8, 4));
        const core::Report sequence = core::evaluate(megatron_a100("gpt3-175b", 8, 1, 8, 4, R"(, "sequence_parallel": true)"));
        REQUIRE(axis(sequence, "tp").bytes_per_gpu == Approx(1.25 * axis(plain, "tp").bytes_per_gpu));
    }
    SECTION("full recompute replays the forward's two all-reduces: 1.5x") {
        const core::Report plain = core::evaluate(megatron_a100("gpt3-175b", 8, 1, 8, 4));
        const core::Report full = core::evaluate(megatron_a100("gpt3-175b", 8, 1, 8, 4, R"(, "recompute": "full")"));
        REQUIRE(axis(full, "tp").bytes_per_gpu == Approx(1.5 * axis(plain, "tp").bytes_per_gpu));
    }
}

TEST_CASE("Narayanan 2021 sec 3.2 and 4.1: PP sends b s h elements per boundary per micro-batch each way, 1/t from each TP rank",
          "[collectives][pp]") {
    const core::Report report = core::evaluate(megatron_a100("gpt3-175b", 8, 8, 64, 64));
    const core::AxisComm& pp = axis(report, "pp");
    REQUIRE(pp.message_bytes == Approx(2048.0 * 12288 * 2 / 8));  // the scatter/gather optimization
    REQUIRE(pp.bytes_per_gpu == Approx(2 * 64 * pp.message_bytes));  // activations forward, gradients backward
    REQUIRE(pp.crosses_nodes);  // TP 8 fills the node: the stages talk over InfiniBand
}

TEST_CASE("ZeRO sec 7: DP and ZeRO-1/2 move 2 Psi per step, ZeRO-3 3 Psi (1.5x), at one micro-batch", "[collectives][zero]") {
    const double psi = 7.5e9, n = 64, bf16 = 2;
    auto dp_bytes = [&](int zero) { return axis(core::evaluate(bare_params(psi, 64, zero, 64)), "dp").bytes_per_gpu; };
    REQUIRE(dp_bytes(0) == Approx(2 * ((n - 1) / n) * psi * bf16));  // ring all-reduce: reduce-scatter + all-gather
    REQUIRE(dp_bytes(1) == Approx(dp_bytes(0)));
    REQUIRE(dp_bytes(2) == Approx(dp_bytes(0)));
    REQUIRE(dp_bytes(3) == Approx(3 * ((n - 1) / n) * psi * bf16));  // gather forward, gather backward, reduce-scatter
    REQUIRE(dp_bytes(3) / dp_bytes(0) == Approx(1.5));
    SECTION("ZeRO-3 gathers the weights again and reduce-scatters the (sharded) gradients for every micro-batch") {
        const core::Report two = core::evaluate(bare_params(psi, 64, 3, 128));
        REQUIRE(axis(two, "dp").bytes_per_gpu == Approx(2 * 3 * ((n - 1) / n) * psi * bf16));
    }
}

TEST_CASE("GTC24 S62129: TP inside a node rides NVLink 4 at NCCL's 370 GB/s; DP across nodes one NDR NIC per GPU of the group", "[collectives]") {
    const core::Report report = core::evaluate(core::parse_scenario(R"({"parallel": {"tp": 8}, "cluster": {"gpus": 64}})"));
    REQUIRE_FALSE(axis(report, "tp").crosses_nodes);
    REQUIRE(axis(report, "tp").bus_bytes_per_s == Approx(370e9).epsilon(0.01));
    REQUIRE(axis(report, "dp").crosses_nodes);
    REQUIRE(axis(report, "dp").bus_bytes_per_s == Approx(48e9));  // one GPU of each node in the group: one NIC's 48 GB/s
}

TEST_CASE("GTC24 S62129: a DP ring over whole DGX nodes uses every NIC at once: 8 x 24 = 192 GB/s (A100), 8 x 48 = 384 (H100)", "[collectives]") {
    const core::Scenario a100 = core_tests::megatron_a100("gpt3-175b", 1, 1, 32, 32);
    REQUIRE(axis(core::evaluate(a100), "dp").bus_bytes_per_s == Approx(192e9).epsilon(0.01));
    const core::Report h100 = core::evaluate(core::parse_scenario(R"({"parallel": {"tp": 1, "pp": 1}, "cluster": {"gpus": 64}})"));
    REQUIRE(axis(h100, "dp").bus_bytes_per_s == Approx(370e9).epsilon(0.01));  // NVLink's 370 bounds the node's 384 of NICs
}

// The device mesh (ranks TP fastest, then CP, PP, DP; gpus_per_node consecutive ranks per node): the closed form
// that places each axis's group must count the same node-mates as walking the ranks one by one.
TEST_CASE("Rank order TP, CP, PP, DP: each axis's members in rank 0's node match a walk over rank_coordinates", "[collectives][mesh]") {
    const int gpus_per_node = 8;
    for (int tp : {1, 2, 4, 8, 16}) for (int cp : {1, 2, 3, 4}) for (int pp : {1, 2, 3, 5, 8}) for (int dp : {1, 2, 3, 16}) {
        core::Layout layout;
        layout.tp = tp;
        layout.cp = cp;
        layout.pp = pp;
        layout.dp = dp;
        const long long span = 1LL * tp * cp * pp * dp;
        const long long node_ranks = std::min<long long>(gpus_per_node, span);
        int walked[4] = {0, 0, 0, 0};
        for (long long rank = 0; rank < node_ranks; ++rank) {
            const core::RankCoordinates at = core::rank_coordinates(layout, gpus_per_node, rank);
            walked[static_cast<int>(core::CommAxis::tp)] += at.cp == 0 && at.pp == 0 && at.dp == 0;
            walked[static_cast<int>(core::CommAxis::cp)] += at.tp == 0 && at.pp == 0 && at.dp == 0;
            walked[static_cast<int>(core::CommAxis::pp)] += at.tp == 0 && at.cp == 0 && at.dp == 0;
            walked[static_cast<int>(core::CommAxis::dp)] += at.tp == 0 && at.pp == 0;
        }
        for (core::CommAxis axis : {core::CommAxis::tp, core::CommAxis::cp, core::CommAxis::pp, core::CommAxis::dp}) {
            INFO("tp " << tp << " cp " << cp << " pp " << pp << " dp " << dp << " axis " << core::comm_axis_name(axis));
            const core::GroupPlacement group = core::axis_placement(axis, layout, gpus_per_node);
            CHECK(group.ranks_per_node == std::min(group.ranks, std::max(1, walked[static_cast<int>(axis)])));
        }
    }
}

// PyTorch's experimental context parallelism, which torchtitan's CP runs (torch/distributed/tensor/experimental/_attention.py:
// rotate_method ALL_GATHER, convert_to_f32 True; the backward's dkv_rotater ALL_TO_ALL), on torchtitan's Llama 3.1 405B
// at 256k tokens (its benchmarks' Table 6: TP 8, PP 8, CP 8 on 512 H100s): K and V with all 16 query heads of a TP rank
// (model.py's repeat_kv before SDPA), gathered once a pass, dK and dV passed on in fp32. Megatron-Core's ring (Transformer
// Engine's p2p) sends the one KV head a TP rank holds.
TEST_CASE("torchtitan's CP gathers K and V with every query head, once a pass; Megatron-Core's ring sends the KV heads", "[collectives][cp]") {
    core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-405b"},
        "train": {"seq_len": 262144, "micro_batch": 1, "global_batch": 8, "recompute": "full", "framework": "torchtitan", "sequence_parallel": true},
        "parallel": {"tp": 8, "pp": 8, "cp": 8, "zero": 3}, "cluster": {"gpu": "h100-sxm", "gpus": 512, "gpus_per_node": 8}})");
    const core::Layout layout = core::layout_of(scenario);
    const double chunk_tokens = 262144.0 / 8;
    const core::CpComm gathered = core::cp_layer_comm(scenario, layout);
    CHECK(gathered.rotation == core::CpRotation::all_gather);
    CHECK(gathered.message_bytes == 2.0 * chunk_tokens * (128 / 8) * 128 * 2);  // 268 MB: K and V, 16 heads of 128, bf16
    CHECK(gathered.grad_message_bytes == 2.0 * gathered.message_bytes);         // dK, dV in fp32
    const core::GroupPlacement group = core::axis_placement(core::CommAxis::cp, layout, scenario.cluster);
    CHECK(group.crosses_nodes());  // TP fills the node: the 8 CP ranks sit on 8 nodes
    CHECK(gathered.gather_seconds == core::collective_seconds(Collective::all_gather, group, 8 * gathered.message_bytes, scenario.cluster.scale_up,
                                                              scenario.cluster.scale_out));
    // Forward, recompute and backward each gather once; backward passes dK, dV on after each of the 8 chunks.
    CHECK(gathered.seconds(core::Recompute::full) == Approx(3 * gathered.gather_seconds + 8 * gathered.step_backward_seconds));
    CHECK(gathered.bytes_per_gpu == Approx(3 * 7 * gathered.message_bytes + 8 * gathered.grad_message_bytes));

    scenario.train.framework = core::Framework::megatron_core;
    const core::CpComm ring = core::cp_layer_comm(scenario, layout);
    CHECK(ring.rotation == core::CpRotation::ring);
    CHECK(ring.message_bytes == 2.0 * chunk_tokens * 1 * 128 * 2);  // 16.8 MB: the one KV head of 8 on each TP rank
    CHECK(ring.seconds(core::Recompute::full) == Approx(7 * (2 * ring.step_forward_seconds + ring.step_backward_seconds)));
}

// torchtitan's Table 5 layout (Llama 3.1 405B, 512 H100s, FSDP 8, TP 8, PP 8, 1F1B): under a pipeline torchtitan does
// not reshard after the forward ("For PP, do not reshard after forward to avoid per-microbatch all-gathers",
// parallelize_llama.py apply_fsdp at 9dec370), and torch.distributed.pipelining's stage keeps FSDP from resharding and
// reducing until the last backward (stage.py backward_maybe_with_nosync): the stage's weights gathered once a step and
// its gradients reduce-scattered once, whatever the micro-batch count; without a pipeline, every micro-batch.
TEST_CASE("torchtitan under PP gathers FSDP's weights once a step and reduces once; without PP every micro-batch", "[collectives][zero3]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-405b"},
        "train": {"seq_len": 8192, "micro_batch": 4, "global_batch": 256, "recompute": "full", "framework": "torchtitan", "sequence_parallel": true},
        "parallel": {"tp": 8, "pp": 8, "zero": 3}, "cluster": {"gpu": "h100-sxm", "gpus": 512, "gpus_per_node": 8},
        "precision": {"recipe": "pytorch-fsdp2-mixed"}})");
    const core::Layout layout = core::layout_of(scenario);
    const double params = 6.0e9;
    const int stage_layers = 16;
    const core::DpComm eight = core::dp_comm(scenario, layout, params, stage_layers, 8);
    const core::DpComm thirty_two = core::dp_comm(scenario, layout, params, stage_layers, 32);
    CHECK(eight.once_a_step);
    CHECK(eight.layer_gather_seconds == 0);
    CHECK(eight.param_gather_seconds > 0);
    CHECK(eight.grad_reduce_seconds > 0);
    CHECK(eight.bytes_per_gpu == thirty_two.bytes_per_gpu);  // once a step: the micro-batches do not multiply it
    // bf16 weights gathered, fp32 gradients reduce-scattered, once: (n - 1) / n of each buffer sent.
    CHECK(eight.bytes_per_gpu == Approx(7.0 / 8.0 * params * (2.0 + 4.0)));

    core::Scenario unpipelined = scenario;
    unpipelined.parallel.pp = 1;
    const core::Layout flat = core::layout_of(unpipelined);
    const core::DpComm per_microbatch = core::dp_comm(unpipelined, flat, params, stage_layers, 8);
    CHECK_FALSE(per_microbatch.once_a_step);
    CHECK(per_microbatch.layer_gather_seconds > 0);
    // 64 DP ranks now: forward and backward gathers and a reduce, each micro-batch.
    CHECK(per_microbatch.bytes_per_gpu == Approx(8 * 63.0 / 64.0 * params * (2.0 * 2.0 + 4.0)));

    // The memory: every layer of the stage stays gathered (bf16) with its whole gradients accumulated in fp32.
    const core::Report report = core::evaluate(scenario);
    const double stage_params_per_gpu = report.memory.params_per_gpu;
    INFO("gathered " << report.memory.per_gpu.gathered_weights_bytes / 1e9 << " GB of " << stage_params_per_gpu / 1e9 << " B params");
    CHECK(report.memory.per_gpu.gathered_weights_bytes >= 0.95 * 6.0 * stage_params_per_gpu);
    CHECK(report.memory.per_gpu.gathered_weights_bytes <= 6.0 * stage_params_per_gpu);
}
