// Right at scale: the fabric (rails, oversubscription, pods), NCCL's tree all-reduce, the straggler wait, DeepSpeed's 2021
// ZeRO-3 engine against Narayanan et al. 2021 Table 2, and the scaling curve (core/cost/report/scaling.h).
#include "core/cost/kernels/collectives.h"
#include "core/cost/kernels/comm.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/scaling.h"
#include "core/cost/step/step.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

namespace {

// Narayanan et al. 2021 Table 2: GPT-3 175B, ZeRO-3 without model parallelism, global batch 1536, on Selene.
core::Scenario zero3_175b(int gpus, int micro_batch) {
    return core::parse_scenario(R"({"model": {"preset": "gpt3-175b"},
        "train": {"seq_len": 2048, "micro_batch": )" + std::to_string(micro_batch) + R"(, "global_batch": 1536, "recompute": "full",
                  "flash_attention": false, "dropout": true, "framework": "deepspeed"},
        "precision": {"recipe": "deepspeed-zero-bf16"},
        "parallel": {"tp": 1, "pp": 1, "dp": )" + std::to_string(gpus) + R"(, "zero": 3, "zero3_engine": "deepspeed-0.4"},
        "cluster": {"gpu": "a100-sxm", "gpus_per_node": 8, "gpus": )" + std::to_string(gpus) + R"(, "scale_out_link": "ib-hdr",
                    "fabric": "selene-hdr"}})");
}

// Narayanan eq. 3 at the table's TFLOP/s per GPU: the published step.
double table2_step_seconds(int gpus, double tflops_per_gpu) {
    const double flops = 96.0 * 1536 * 2048 * 96 * 12288.0 * 12288.0 * (1 + 2048.0 / (6 * 12288) + 51200.0 / (16 * 96 * 12288.0));
    return flops / (gpus * tflops_per_gpu * 1e12);
}

std::string field_of(const std::string& json) {
    try {
        core::parse_scenario(json);
    } catch (const core::InputError& error) {
        return error.field();
    }
    return "";
}

}  // namespace

TEST_CASE("Narayanan 2021 Table 2: ZeRO-3 on DeepSpeed's 2021 engine loses throughput per GPU as the GPUs double (144, 88, 44 TFLOP/s)",
          "[scale][zero3]") {
    const double published[] = {table2_step_seconds(384, 144), table2_step_seconds(768, 88), table2_step_seconds(1536, 44)};
    const int gpus[] = {384, 768, 1536}, micro[] = {4, 2, 1};
    double modelled[3];
    for (int i = 0; i < 3; ++i) {
        modelled[i] = core::evaluate(zero3_175b(gpus[i], micro[i])).compute.step_seconds;
        INFO(gpus[i] << " GPUs: published " << published[i] << " s, modelled " << modelled[i] << " s");
        CHECK(std::fabs(modelled[i] / published[i] - 1.0) < 0.20);
    }
    // The published step stops falling at 768 GPUs (66.7 s at both 768 and 1,536): the model's falls by less than a tenth.
    CHECK(modelled[2] > 0.9 * modelled[1]);
    // The coalesced engine (FSDP, DeepSpeed since 0.6) on the same runs keeps scaling: the 2021 engine is what loses it.
    core::Scenario coalesced = zero3_175b(1536, 1);
    coalesced.parallel.zero3_engine = core::ShardingEngine::coalesced;
    CHECK(core::evaluate(coalesced).compute.step_seconds < 0.6 * modelled[2]);
}

TEST_CASE("NCCL's tree (tuning.cc) prices a small all-reduce across 16 nodes below the ring; a large one stays on the ring", "[scale][nccl]") {
    const core::Scenario scenario = core::default_scenario();
    const core::GroupPlacement group{128, 8};
    const core::LinkSpec& up = scenario.cluster.scale_up;
    const core::LinkSpec& out = scenario.cluster.scale_out;
    const double ring_latency = (254.0 - 30.0) * up.latency_seconds + 30.0 * out.latency_seconds;
    CHECK(core::collective_seconds(core::Collective::all_reduce, group, 1e6, up, out) < ring_latency);
    const double bus = core::group_bus_bytes_per_s(group, up, out);
    CHECK(core::collective_seconds(core::Collective::all_reduce, group, 10e9, up, out) ==
          Approx(ring_latency + 2.0 * 127.0 / 128.0 * 10e9 / bus));
}

TEST_CASE("The fabric: rails share a NIC, an oversubscribed leaf caps a ring edge at nodes / ratio, pods at the cross-pod ratio",
          "[scale][fabric]") {
    core::Scenario scenario = core::default_scenario();
    scenario.cluster.gpus = 1024;
    const core::GroupPlacement ring{128, 8};
    CHECK(core::on_fabric(ring, 1024, scenario.cluster).scale_out_share == 1.0);
    scenario.cluster.fabric.rails = 4;  // four NICs for eight GPUs
    CHECK(core::on_fabric(ring, 1024, scenario.cluster).scale_out_share == Approx(0.5));
    scenario.cluster.fabric.rails = 0;
    scenario.cluster.fabric.leaf_gpus = 16;  // two nodes under a leaf, 4:1 up
    scenario.cluster.fabric.oversubscription = 4;
    CHECK(core::on_fabric(ring, 1024, scenario.cluster).scale_out_share == Approx(0.5));
    CHECK(core::on_fabric(ring, 16, scenario.cluster).scale_out_share == 1.0);  // inside the leaf
    // Llama 3's cluster: pods of 3,072 GPUs (384 nodes) joined at 1:7; a ring leaves a pod once per channel, so it keeps
    // its rate; the ring's bandwidth falls only where a pod holds fewer nodes than the ratio.
    const core::Scenario meta = core::parse_scenario(R"({"cluster": {"gpus": 24576, "fabric": "meta-24k-roce"}, "parallel": {"tp": 8, "pp": 16}})");
    CHECK(core::on_fabric(ring, 24576, meta.cluster).scale_out_share == 1.0);
    core::ClusterSpec small_pods = meta.cluster;
    small_pods.fabric.pod_gpus = 32;
    CHECK(core::on_fabric(ring, 24576, small_pods).scale_out_share == Approx(4.0 / 7.0));
}

TEST_CASE("An impossible network is refused naming the field: a NIC faster than its link, oversubscription below 1, a pod larger "
          "than the cluster", "[scale][fabric][errors]") {
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": {"nic_bytes_per_s": 100e9}}})") == "cluster.fabric.nic_bytes_per_s");
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": {"oversubscription": 0.5}}})") == "cluster.fabric.oversubscription");
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": {"pod_gpus": 128}}})") == "cluster.fabric.pod_gpus");
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": {"pod_gpus": 32, "leaf_gpus": 64}}})") == "cluster.fabric.leaf_gpus");
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": "no-such-fabric"}})") == "cluster.fabric");
    CHECK(field_of(R"({"parallel": {"zero3_engine": "fsdp9"}})") == "parallel.zero3_engine");
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": {"rails": 4, "pod_gpus": 32}}})").empty());
    // 64 GPUs of Llama 3's 24K cluster: a job on part of a catalog fabric, its pods larger than the job.
    CHECK(field_of(R"({"cluster": {"gpus": 64, "fabric": "meta-24k-roce"}})").empty());
}

TEST_CASE("Stragglers (MegaScale sec 5.1, 6.3): one machine waits for none; 1,536 machines wait for a 10 % slow one almost surely",
          "[scale][stragglers]") {
    const core::ClusterSpec cluster = core::default_scenario().cluster;
    CHECK(core::straggler_wait(cluster, 8) == 0.0);
    CHECK(core::straggler_wait(cluster, 16) == Approx(0.10 * (1.0 - 0.995 * 0.995)));
    CHECK(core::straggler_wait(cluster, 12288) == Approx(0.10).epsilon(0.001));
}

TEST_CASE("scaling_curve: 1 to 16,384 GPUs in 15 points, every infeasible point with its reason, the wall named where it takes over",
          "[scale][scaling]") {
    core::Scenario one = core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 1024, "micro_batch": 1},
        "parallel": {"tp": 1, "pp": 1, "zero": 3}, "cluster": {"gpus": 8}})");
    const core::ScalingCurve strong = core::scaling_curve(one, core::ScalingMode::strong);
    REQUIRE(strong.points.size() == 15);
    CHECK(strong.points.front().gpus == 1);
    CHECK(strong.points.back().gpus == 16384);
    for (const core::ScalingPoint& point : strong.points) {
        INFO(point.gpus << " GPUs: " << point.reason);
        CHECK(point.feasible == point.reason.empty());
    }
    // 1,024 sequences do not divide over 2,048 replicas and more.
    CHECK(strong.points[11].reason.rfind("train.global_batch", 0) == 0);
    CHECK(strong.wall_point < 0);  // an 8B model on H100s: the compute sets the step up to 1,024 GPUs
    CHECK(strong.sentence.find("the compute sets the step at every point") != std::string::npos);
    // Table 2's ZeRO-3 run: the sweep passes through its 384 GPUs and names the DP wall from 768 on, where the published
    // throughput per GPU fell from 144 to 88 TFLOP/s.
    const core::ScalingCurve zero3 = core::scaling_curve(zero3_175b(384, 4), core::ScalingMode::strong);
    REQUIRE(zero3.points.front().gpus == 3);
    REQUIRE(zero3.wall_point >= 0);
    CHECK(zero3.points[zero3.wall_point].gpus == 768);
    CHECK(zero3.wall == core::ScalingWall::dp);
    CHECK(zero3.sentence.find("from 768 GPUs on, exposed DP communication") != std::string::npos);
    // Weak scaling holds each replica's batch: its efficiency stays above strong scaling's at the largest common point.
    const core::ScalingCurve weak = core::scaling_curve(one, core::ScalingMode::weak);
    CHECK(weak.points[10].global_batch == 128 * 1024);
    CHECK(weak.points[10].scaling_efficiency > strong.points[10].scaling_efficiency);
}
