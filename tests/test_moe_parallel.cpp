// Expert parallelism, the cost side: the layout's rules, Megatron-Core's memory buckets, the all-to-all's volumes and its
// alpha-beta cost on two tiers against DeepEP's measurements, node-limited routing, load imbalance, the overlap switch,
// the eval keys, the planner's EP axis, and DeepSeek-V3's published run (arXiv 2412.19437).
#include "core/cost/kernels/comm.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/memory/memory.h"
#include "core/cost/search/planner.h"
#include "core/cost/report/report_json.h"
#include "core/cost/step/step.h"
#include "core/model/errors.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

using core_tests::shipped;

std::string refused_field(const std::string& json) {
    try {
        core::parse_scenario(json);
    } catch (const core::InputError& error) {
        return error.field();
    }
    return "";
}

// DeepEP's benchmark setting (deepseek-ai/DeepEP docs/legacy.md): DeepSeek-V3's layer, 4,096 tokens per GPU, top-8,
// FP8 dispatch and BF16 combine, on H800 nodes of 8 with one 400 Gb/s NIC per GPU; EP over all the GPUs.
core::Scenario deepep_benchmark(int gpus, int node_limit) {
    return core::parse_scenario(R"({"model": {"preset": "deepseek-v3"}, "train": {"seq_len": 4096, "global_batch": )" +
                                std::to_string(gpus) + R"(, "recompute": "full"},
        "parallel": {"ep": )" + std::to_string(gpus) + R"(}, "cluster": {"gpu": "h800-sxm", "gpus": )" + std::to_string(gpus) +
                                R"(}, "moe": {"dispatch_bytes": 1, "node_limit": )" + std::to_string(node_limit) + "}}");
}

core::Scenario mixtral_on_64(const std::string& extra = "") {
    return core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"}, "train": {"seq_len": 4096, "global_batch": 256},
        "parallel": {"pp": 4, "ep": 8, "zero": 1}, "cluster": {"gpus": 64})" + extra + "}");
}

}  // namespace

TEST_CASE("Expert parallelism in check_layout: EP divides the experts, EP x ETP the stage's TP x CP x DP GPUs", "[moe][layout]") {
    REQUIRE(refused_field(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"ep": 3}, "cluster": {"gpus": 48}, "train": {"global_batch": 48}})") ==
            "parallel.ep");
    // 16 GPUs in PP 4: a stage has 4, which EP 8 cannot fold over.
    REQUIRE(refused_field(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"pp": 4, "ep": 8}, "cluster": {"gpus": 16}})") == "parallel.ep");
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-8b"}, "parallel": {"ep": 2}})") == "parallel.ep");
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-8b"}, "parallel": {"etp": 2}})") == "parallel.etp");
    REQUIRE(refused_field(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"etp": 3}})") == "parallel.etp");
    // Megatron-Core: MoE with TP needs sequence parallelism.
    REQUIRE(refused_field(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"tp": 8}})") == "train.sequence_parallel");
    REQUIRE_NOTHROW(core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"tp": 2, "ep": 8, "etp": 2},
        "train": {"sequence_parallel": true}, "cluster": {"gpus": 64}})"));
    // A dense model's eval is unchanged by the new keys at their defaults.
    const core::Scenario dense = core::default_scenario();
    REQUIRE(core::parse_scenario(R"({"parallel": {"ep": 1, "etp": 1}})") == dense);
}

TEST_CASE("Megatron-Core moe/README: expert ranks fold over a stage's GPUs, ETP fastest, then EP, then EDP", "[moe][layout][mesh]") {
    core::Layout layout;
    layout.tp = 2;
    layout.pp = 2;
    layout.dp = 8;
    layout.ep = 4;
    layout.etp = 1;
    // A stage holds tp x dp = 16 GPUs, 2 apart in PP blocks of 4 ranks (ranks run TP, CP, PP, DP).
    const core::RankCoordinates rank0 = core::rank_coordinates(layout, 8, 0);
    const core::RankCoordinates rank1 = core::rank_coordinates(layout, 8, 1);
    const core::RankCoordinates rank4 = core::rank_coordinates(layout, 8, 4);
    REQUIRE(rank0.ep == 0);
    REQUIRE(rank1.ep == 1);  // the TP partner: the next stage index
    REQUIRE(rank4.pp == 0);
    REQUIRE(rank4.dp == 1);
    REQUIRE(rank4.ep == 2);  // stage index tp + tp dp = 2
    REQUIRE(core::rank_coordinates(layout, 8, 8).edp == 1);  // stage index 4: the second EP group
    // The EP group of rank 0 (stage indices 0..3, ranks 0, 1, 4, 5) sits in one node of 8; EDP = 16 / 4 = 4.
    REQUIRE(core::axis_placement(core::CommAxis::ep, layout, 8).ranks_per_node == 4);
    REQUIRE(layout.expert_data_parallel() == 4);
    REQUIRE(core::expert_dp_placement(layout, 8).ranks == 4);
}

TEST_CASE("Megatron-Core memory buckets: dense weights split by TP and sharded by DP, routed experts by EP x ETP and EDP", "[moe][memory]") {
    const core::Scenario scenario = shipped("deepseek-v3.json");
    const core::Report report = core::evaluate(scenario);
    const core::MemoryReport& memory = report.memory;
    // The peak GPU is DualPipe's device 0: stage 0 (layers 0-3, the first three dense) and stage 15 (layers 58-60), so
    // 4 MoE layers: 4 x 256 experts x 3 x 7168 x 2048, over EP 64.
    REQUIRE(memory.peak_stage == 0);
    const double stage_experts = 4.0 * 256 * 3 * 7168 * 2048;
    REQUIRE(memory.experts.stage_params == stage_experts);
    REQUIRE(memory.experts.params_per_gpu == stage_experts / 64);
    REQUIRE(memory.experts.expert_data_parallel == 2);  // EDP = TP x CP x DP / (EP x ETP) = 128 / 64
    // ZeRO-1 with the recipe's 14 B: bf16 weights 2 and fp32 grads 4 whole; fp32 master 4 and bf16 moments 4 over the group.
    REQUIRE(memory.experts.weights_bytes == Approx(2.0 * stage_experts / 64));
    REQUIRE(memory.experts.grads_bytes == Approx(4.0 * stage_experts / 64));
    REQUIRE(memory.experts.master_bytes == Approx(4.0 * stage_experts / 64 / 2));
    REQUIRE(memory.experts.optimizer_bytes == Approx(4.0 * stage_experts / 64 / 2));
    const double dense_per_gpu = memory.params_per_gpu - memory.experts.params_per_gpu;
    REQUIRE(memory.per_gpu.master_bytes == Approx(4.0 * dense_per_gpu / 128 + 4.0 * stage_experts / 64 / 2));
    REQUIRE(memory.per_gpu.weights_bytes == Approx(2.0 * memory.params_per_gpu));
    // Each recipe component's block carries its expert part; the whole model's state adds up as for a dense model.
    double whole = 0, expert_part = 0;
    for (const core::MemoryBlock& block : memory.blocks) {
        if (core::is_training_state(block.kind)) whole += block.whole_bytes;
        expert_part += block.expert_per_gpu_bytes;
    }
    REQUIRE(whole == Approx(memory.state_bytes));
    REQUIRE(expert_part == Approx(memory.experts.weights_bytes + memory.experts.grads_bytes + memory.experts.master_bytes +
                                  memory.experts.optimizer_bytes));
}

TEST_CASE("DeepSeek-V3's published run (arXiv 2412.19437 sec 3.2, Table 1) opens, fits in 80 GB, and costs at most 15 % more "
          "GPU-hours than its 2.664M of pre-training",
          "[moe][deepseek]") {
    const core::Scenario scenario = shipped("deepseek-v3.json");
    REQUIRE(scenario.cluster.gpus == 2048);
    REQUIRE(scenario.parallel.pp == 16);
    REQUIRE(scenario.parallel.schedule == core::ScheduleKind::dualpipe);
    REQUIRE(scenario.parallel.ep == 64);
    REQUIRE(scenario.parallel.zero == 1);
    REQUIRE(scenario.train.tokens == 14.8e12);
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.memory.fits);
    REQUIRE(report.memory.per_gpu.peak_bytes < 80e9);
    REQUIRE(report.memory.params_active / 1e9 == Approx(37.55).margin(0.01));
    // The linear layers run as FP8 GEMMs, as DeepSeek ran them (the fp8 scale comes from DeepGEMM's table, not from this
    // run). ShardScope recomputes whole layers where DeepSeek recomputes RMSNorm and the MLA up-projections only: slower
    // than published, by less than that extra forward (docs/validation.md says how far and why); over 256 machines the step
    // also waits for stragglers (7 % of the compute with MegaScale's 0.5 % of hosts 10 % slow).
    const double pretraining_gpu_hours = 2.664e6;
    INFO("modelled " << report.compute.gpu_hours / 1e6 << "M GPU-hours");
    REQUIRE(report.compute.gpu_hours > pretraining_gpu_hours);
    REQUIRE(report.compute.gpu_hours < 1.15 * pretraining_gpu_hours);
    // DeepSeek-V3 sec 3.2.1: cross-node expert parallelism makes computation to communication about 1:1 (forward chunk).
    const core::MoeReport& moe = report.moe;
    INFO("all-to-all " << moe.all_to_all_forward_seconds_per_layer << " s against compute " << moe.layer_forward_seconds << " s");
    REQUIRE(moe.all_to_all_forward_seconds_per_layer / moe.layer_forward_seconds == Approx(1.0).margin(0.35));
}

TEST_CASE("All-to-all volumes (moe.md): dispatch T k h bytes and combine T k h x 2 B per MoE layer, (EP-1)/EP of it sent", "[moe][comm]") {
    // Mixtral on one node, EP 8: 4,096 tokens, top-2, h 4096; bf16 dispatch and combine.
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"}, "train": {"seq_len": 4096, "global_batch": 8},
        "parallel": {"ep": 8}, "cluster": {"gpus": 8}})");
    const core::EpComm ep = core::ep_layer_comm(scenario, core::layout_of(scenario));
    REQUIRE(ep.tokens == 4096);
    REQUIRE(ep.dispatch_bytes == Approx(4096.0 * 2 * 4096 * 2 * 7 / 8));
    REQUIRE(ep.combine_bytes == Approx(4096.0 * 2 * 4096 * 2 * 7 / 8));
    REQUIRE(ep.scale_out_copies == 0);
    REQUIRE(ep.all_to_alls == 4);  // dispatch and combine, forward and backward
    // Thakur et al. 2005 pairwise exchange: (p - 1) alpha + bytes / bandwidth, on NVLink 4 at its NCCL efficiency.
    const core::LinkSpec& nvlink = scenario.cluster.scale_up;
    REQUIRE(ep.dispatch_seconds == Approx(7 * nvlink.latency_seconds + ep.dispatch_bytes / (nvlink.bytes_per_s * nvlink.efficiency)));
    REQUIRE(ep.backward_seconds == ep.forward_seconds);
    // Over two nodes (EP 16), half of the copies leave the node: (EP - G) / EP.
    const core::Scenario two_nodes = core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"}, "train": {"seq_len": 4096, "global_batch": 16},
        "cluster": {"gpus": 16}})");
    core::Layout layout = core::layout_of(two_nodes);
    layout.ep = 8;
    REQUIRE(core::ep_layer_comm(two_nodes, layout).scale_out_copies == 0);  // EP 8 of 16 GPUs: one node each
    const core::Scenario sixteen = core::parse_scenario(R"({"model": {"preset": "deepseek-v3"}, "train": {"seq_len": 4096, "global_batch": 16},
        "parallel": {"ep": 16}, "cluster": {"gpus": 16}})");
    const core::EpComm across = core::ep_layer_comm(sixteen, core::layout_of(sixteen));
    REQUIRE(across.nodes == 2);
    REQUIRE(across.scale_out_copies == Approx(8.0 * 8 / 16));
    REQUIRE(across.scale_up_copies == Approx(8.0 * 7 / 16));
    // A full recompute repeats the forward's two.
    const core::EpComm recomputed = core::ep_layer_comm(deepep_benchmark(16, 0), core::layout_of(deepep_benchmark(16, 0)));
    REQUIRE(recomputed.all_to_alls == 6);
}

TEST_CASE("DeepEP normal kernels on H800 (deepseek-ai/DeepEP docs/legacy.md): EP8 dispatch 153 GB/s over NVLink, EP64 51 GB/s over RDMA",
          "[moe][comm][deepep]") {
    // Intranode EP8: the NVLink bytes one GPU sends over the modelled dispatch time.
    const core::Scenario node = deepep_benchmark(8, 4);
    const core::EpComm intranode = core::ep_layer_comm(node, core::layout_of(node));
    const double nvlink_bytes = intranode.tokens * intranode.scale_up_copies * 7168 * 1.0;
    INFO("EP8: " << nvlink_bytes / intranode.dispatch_seconds / 1e9 << " GB/s");
    REQUIRE(nvlink_bytes / intranode.dispatch_seconds == Approx(153e9).epsilon(0.05));
    // Internode EP64 over 8 nodes, node-limited to 4: one InfiniBand copy per destination node (4 x 7/8 per token).
    const core::Scenario cluster = deepep_benchmark(64, 4);
    const core::EpComm internode = core::ep_layer_comm(cluster, core::layout_of(cluster));
    REQUIRE(internode.nodes == 8);
    REQUIRE(internode.scale_out_copies == Approx(4.0 * 7 / 8));
    const double rdma_bytes = internode.tokens * internode.scale_out_copies * 7168 * 1.0;
    INFO("EP64: " << rdma_bytes / internode.dispatch_seconds / 1e9 << " GB/s");
    REQUIRE(rdma_bytes / internode.dispatch_seconds == Approx(51e9).epsilon(0.15));
}

TEST_CASE("DeepSeek-V3 sec 3.2.2: node-limited routing to 4 nodes halves the InfiniBand copies of top-8 over 8 nodes", "[moe][comm]") {
    const core::Scenario unlimited = deepep_benchmark(64, 0);
    const core::Scenario limited = deepep_benchmark(64, 4);
    const core::EpComm free_routing = core::ep_layer_comm(unlimited, core::layout_of(unlimited));
    const core::EpComm node_limited = core::ep_layer_comm(limited, core::layout_of(limited));
    REQUIRE(free_routing.scale_out_copies == Approx(8.0 * 56 / 64));
    REQUIRE(node_limited.scale_out_copies == Approx(0.5 * free_routing.scale_out_copies));
    REQUIRE(node_limited.dispatch_seconds < free_routing.dispatch_seconds);
    // The copies saved on InfiniBand are forwarded over NVLink inside the destination node: none is lost.
    REQUIRE(node_limited.scale_up_copies + node_limited.scale_out_copies == Approx(free_routing.scale_up_copies + free_routing.scale_out_copies));
}

TEST_CASE("Load imbalance (max/mean) and capacity factor: the busiest GPU's load costs time and memory", "[moe][imbalance]") {
    const core::Report balanced = core::evaluate(mixtral_on_64());
    const core::Report skewed = core::evaluate(mixtral_on_64(R"(, "moe": {"load_imbalance": 2})"));
    REQUIRE(skewed.moe.load_factor == 2);
    REQUIRE(skewed.moe.tokens_per_expert == 2 * balanced.moe.tokens_per_expert);
    REQUIRE(skewed.moe.all_to_all_forward_seconds_per_layer > 1.8 * balanced.moe.all_to_all_forward_seconds_per_layer);
    REQUIRE(skewed.compute.step_seconds > 1.2 * balanced.compute.step_seconds);
    REQUIRE(skewed.memory.per_gpu.activations_bytes > balanced.memory.per_gpu.activations_bytes);
    REQUIRE(skewed.memory.experts.activations_bytes > 1.9 * balanced.memory.experts.activations_bytes);  // all but the router's
    // A capacity factor of 1.25 pads every expert's batch to 1.25x its share and drops what is beyond: it sets the load.
    const core::Report capped = core::evaluate(mixtral_on_64(R"(, "moe": {"load_imbalance": 2, "capacity_factor": 1.25})"));
    REQUIRE(capped.moe.load_factor == 1.25);
    REQUIRE(capped.moe.dropped_share == Approx((2 - 1.25) / 2));
    REQUIRE(capped.compute.step_seconds < skewed.compute.step_seconds);
    REQUIRE(capped.compute.step_seconds > balanced.compute.step_seconds);
}

TEST_CASE("Overlap switch: the all-to-all behind another micro-batch's compute shows only the SMs it takes", "[moe][overlap]") {
    const core::Report waits = core::evaluate(mixtral_on_64());
    const core::Report hidden = core::evaluate(mixtral_on_64(R"(, "overlap": {"ep_all_to_all": true})"));
    const int ep = static_cast<int>(core::CommAxis::ep);
    REQUIRE(waits.compute.breakdown_seconds.exposed_comm_seconds[ep] == Approx(waits.comm.axes.back().seconds));
    // EP 8 of a 4-stage pipeline spans nodes: InfiniBand's share of compute lost while it overlaps (arXiv 2507.03114: 18.9 %).
    REQUIRE(hidden.moe.all_to_all_forward_seconds_per_layer < hidden.moe.layer_forward_seconds);
    REQUIRE(hidden.compute.breakdown_seconds.exposed_comm_seconds[ep] ==
            Approx(hidden.comm.axes.back().seconds * mixtral_on_64().cluster.scale_out.compute_slowdown));
    REQUIRE(hidden.compute.step_seconds < waits.compute.step_seconds);
}

TEST_CASE("eval keys for a mixture of experts: params_active, comm.ep.bytes_per_gpu, comm.ep.seconds, memory.experts", "[moe][eval]") {
    const core::Scenario scenario = mixtral_on_64();
    const core::Report report = core::evaluate(scenario);
    const nlohmann::json json = nlohmann::json::parse(core::report_to_json(scenario, report));
    REQUIRE(json.at("params_active").get<double>() == Approx(12.88e9).epsilon(0.001));
    REQUIRE(json.at("comm").at("ep").at("bytes_per_gpu").get<double>() > 0);
    REQUIRE(json.at("comm").at("ep").at("seconds").get<double>() == Approx(report.comm.axes.back().seconds));
    REQUIRE(json.at("memory").at("experts").at("optimizer_bytes").get<double>() == Approx(report.memory.experts.optimizer_bytes));
    REQUIRE(json.at("moe").at("all_to_all_forward_seconds_per_layer").get<double>() > 0);
    // Per step: every MoE layer of the stage, every micro-batch, all passes.
    const double microbatches = report.layout.microbatches;
    REQUIRE(json.at("comm").at("ep").at("seconds").get<double>() ==
            Approx(microbatches * 8 * (report.moe.all_to_all_forward_seconds_per_layer + report.moe.all_to_all_backward_seconds_per_layer)));
    // A dense model reports no ep axis and its active parameters are all of them.
    const core::Report dense = core::evaluate(core::default_scenario());
    REQUIRE(dense.memory.params_active == dense.memory.params);
    for (const core::AxisComm& axis : dense.comm.axes) REQUIRE(axis.axis != core::CommAxis::ep);
}

TEST_CASE("Planner: EP is searched for a model with experts, and its estimates are evaluate()'s", "[moe][planner]") {
    const core::Scenario scenario = mixtral_on_64();
    const core::Plan plan = core::plan_layouts(scenario);
    REQUIRE_FALSE(plan.best.empty());
    std::set<int> eps;
    for (const core::PlanEntry& entry : plan.best) {
        eps.insert(entry.layout.ep);
        const core::Scenario applied = core::apply_layout(scenario, entry.layout);
        REQUIRE_NOTHROW(core::validate_scenario(applied));
        const core::Report report = core::evaluate(applied);
        REQUIRE(entry.estimate.step_seconds == Approx(report.compute.modelled_step_seconds).epsilon(1e-9));
        REQUIRE(entry.estimate.memory_per_gpu_bytes == Approx(report.memory.per_gpu.peak_bytes).epsilon(1e-9));
    }
    REQUIRE(*eps.rbegin() > 1);
    // A dense model's search never leaves EP 1.
    for (const core::PlanEntry& entry : core::plan_layouts(core::default_scenario()).best) REQUIRE(entry.layout.ep == 1);
}

TEST_CASE("Expert GEMMs at their per-expert shapes: m = tokens x top-k / E x EP (x ETP), the FLOPs per GPU the same for any EP x ETP",
          "[moe][kernels]") {
    // Mixtral on 64 GPUs with TP 2 and SP: 2,048 tokens enter each GPU's router; top-2 of 8 experts, f_e 14336, h 4096.
    const auto expert_forward_flops = [](int ep, int etp, double& tokens_per_expert, double& groups) {
        const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"},
            "train": {"seq_len": 4096, "global_batch": 256, "sequence_parallel": true},
            "parallel": {"tp": 2, "ep": )" + std::to_string(ep) + R"(, "etp": )" + std::to_string(etp) + R"(}, "cluster": {"gpus": 64}})");
        double flops = 0;
        for (const core::Kernel& kernel : core::moe_layer_kernels(scenario, core::split_of(core::layout_of(scenario)))) {
            if (kernel.pass != core::KernelPass::forward) continue;
            if (kernel.id == core::KernelId::expert_up) {
                tokens_per_expert = kernel.m;
                groups = kernel.batch;
                REQUIRE(kernel.efficiency_size == Approx(2.0 * kernel.m * kernel.n * kernel.k));  // timed at one expert's size
            }
            if (kernel.id == core::KernelId::expert_up || kernel.id == core::KernelId::expert_down) flops += kernel.flops;
        }
        return flops;
    };
    const double per_gpu = 2048.0 * 2 * 2 * 3 * 4096 * 14336;  // T k x 2 x 3 h f_e
    double tokens = 0, groups = 0;
    REQUIRE(expert_forward_flops(1, 1, tokens, groups) == Approx(per_gpu));
    REQUIRE(tokens == 2048.0 * 2 / 8);
    REQUIRE(groups == 8);
    REQUIRE(expert_forward_flops(8, 1, tokens, groups) == Approx(per_gpu));
    REQUIRE(tokens == 2048.0 * 2);  // one expert per GPU takes the EP group's share
    REQUIRE(groups == 1);
    REQUIRE(expert_forward_flops(4, 2, tokens, groups) == Approx(per_gpu));
    REQUIRE(tokens == 2048.0 * 2 * 2 * 4 / 8);
    REQUIRE(groups == 2);
}

TEST_CASE("Peak memory with experts: DeepSeek-V3's dense first layers leave stage 1 heaviest, and the planner's memory is the report's",
          "[moe][memory][planner]") {
    // 1F1B without recompute: stage 0 holds the embedding, 3 dense layers and 1 MoE layer with 16 micro-batches in flight;
    // stage 1 holds 4 MoE layers (each keeping its eight routed copies' activations) with 15. Stage 1 peaks.
    core::Scenario scenario = shipped("deepseek-v3.json");
    scenario.parallel.schedule = core::ScheduleKind::one_f_one_b;
    scenario.train.recompute = core::Recompute::none;
    const core::Report report = core::evaluate(scenario);
    const core::MemoryReport& memory = report.memory;
    REQUIRE(memory.per_stage.size() == 16);
    CHECK(memory.per_stage[0].moe_layers == 1);
    CHECK(memory.per_stage[1].moe_layers == 4);
    CHECK(memory.per_stage[0].inflight_microbatches == 16);
    CHECK(memory.per_stage[1].inflight_microbatches == 15);
    CHECK(memory.peak_stage == 1);
    // The planner decides "fits" from the first, the last and the middle stage with the most experts: the same peak.
    const core::LayoutEstimate estimate = core::estimate_layout(scenario, core::layout_of(scenario));
    CHECK(estimate.memory_per_gpu_bytes == Approx(memory.per_gpu.peak_bytes).epsilon(1e-12));
    CHECK_FALSE(estimate.fits);
}

// NVIDIA NeMo / Megatron-Bridge performance summary (docs/performance-summary-archive.md), DGX-H100, fp8 current scaling:
// Qwen3-235B-A22B on 256 H100s, TP 2, PP 8, VP 4, EP 32, 4,096 tokens per sequence, MBS 1, forced-balanced dropless
// routing. Its H100 recipe (scripts/performance/configs/qwen: QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V1 and _V2)
// overlaps the all-to-all with another micro-batch (moe_a2a_overlap = True, the alltoall dispatcher), not TP
// (tp_comm_overlap = False), recomputes nothing and keeps bf16 gradients (grad_reduce_in_fp32 = False). Measured: 1,575
// tokens/s per GPU at GBS 2,048 (25.11 container, V1) and 1,633 at GBS 8,192 (26.02, V2). Compared after the MoE
// model was built and not tuned to it.
TEST_CASE("NeMo performance summary (DGX-H100, fp8): Qwen3-235B-A22B, EP 32 over 4 nodes, within 10 % of the measured tokens per GPU",
          "[moe][fp8][validation]") {
    const auto run = [](int global_batch) {
        return core::parse_scenario(R"({"model": {"preset": "qwen3-235b-a22b"},
            "train": {"seq_len": 4096, "micro_batch": 1, "global_batch": )" + std::to_string(global_batch) + R"(,
                      "recompute": "none", "sequence_parallel": true},
            "precision": {"recipe": "fp8-bf16-grads"},
            "parallel": {"tp": 2, "pp": 8, "dp": 16, "ep": 32, "zero": 1, "schedule": "interleaved", "virtual_stages": 4},
            "cluster": {"gpu": "h100-sxm", "gpus_per_node": 8, "gpus": 256},
            "overlap": {"tp_comm": false, "ep_all_to_all": true}})");
    };
    const auto tokens_per_gpu_second = [](const core::Scenario& scenario) {
        const core::Report report = core::evaluate(scenario);
        return report.compute.tokens_per_step / report.compute.step_seconds / scenario.cluster.gpus;
    };
    const double v1 = tokens_per_gpu_second(run(2048)), v2 = tokens_per_gpu_second(run(8192));
    INFO("modelled " << v1 << " and " << v2 << " tokens/s per GPU");
    CHECK(v1 == Approx(1575).epsilon(0.10));
    CHECK(v2 == Approx(1633).epsilon(0.10));
    // The EP group spans 4 nodes: the all-to-all crosses InfiniBand and is the largest exposed part even overlapped.
    const core::Report report = core::evaluate(run(2048));
    const core::StepBreakdown& parts = report.compute.breakdown_seconds;
    const auto ep = std::find_if(report.comm.axes.begin(), report.comm.axes.end(), [](const core::AxisComm& axis) { return axis.axis == core::CommAxis::ep; });
    REQUIRE(ep != report.comm.axes.end());
    CHECK(ep->crosses_nodes);
    CHECK(parts.exposed_comm_seconds[static_cast<int>(core::CommAxis::ep)] > parts.gemm_seconds);
    // It ran on H100s, so it fits what CUDA gives a process there (85.0 GB; the modelled peak is 82.7 GB).
    CHECK(report.memory.fits);
    // Without the overlap the layer waits for every dispatch and combine: about a fifth slower.
    core::Scenario waiting = run(2048);
    waiting.overlap.ep_all_to_all = false;
    CHECK(tokens_per_gpu_second(waiting) < 0.85 * v1);
}
