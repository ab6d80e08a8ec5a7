// The seed lessons' own worked numbers (quoted in validation/seed_lessons.md): right ones reproduced, wrong ones shown
// with the right figure.
#include "core/cost/kernels/collectives.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include "core/cost/kernels/pipeline_schedule.h"

#include <catch2/catch.hpp>

#include <algorithm>

using core_tests::bare_params;

namespace {

constexpr double day = 86400;
constexpr double year = 365.25 * day;

// One GPU "at about 1e15 bf16 FLOP/s" (seed 000's round H100), optionally at an assumed MFU.
core::Scenario one_pflops_gpu(const std::string& model_and_train, int gpus, double mfu) {
    return core::parse_scenario(R"({)" + model_and_train + R"(,
        "cluster": {"gpus": )" + std::to_string(gpus) + R"(, "gpu": {"name": "1 PFLOP/s GPU", "bf16_flops_per_s": 1e15}},
        "efficiency": {"mfu": )" + std::to_string(mfu) + "}}");
}

double dp_bytes_per_gpu(const core::Report& report) {
    const auto dp = std::find_if(report.comm.axes.begin(), report.comm.axes.end(), [](const core::AxisComm& axis) { return axis.axis == core::CommAxis::dp; });
    REQUIRE(dp != report.comm.axes.end());
    return dp->bytes_per_gpu;
}

}  // namespace

TEST_CASE("Seeds 000, 001, 002: 70B x 16 B = 1.12 TB of training state, 13.2x an H100's 85.0 GB: 14 H100s to hold it", "[seeds]") {
    const core::Report report = core::evaluate(bare_params(70e9, 64, 0, 512));
    REQUIRE(report.memory.bytes_per_param == 16);
    REQUIRE(report.memory.state_bytes == Approx(1.12e12));
    // The seeds divide by 80 GB and say 14x; the card's 80 GiB give a process 85.0e9 B, so 13.2x, and 14 GPUs still.
    REQUIRE(report.memory.state_gpus_worth == Approx(1.12e12 / core_tests::h100_hbm_bytes));
    REQUIRE(std::ceil(report.memory.state_gpus_worth) == 14);
    SECTION("seed 001's split: bf16 weights 140 GB, bf16 grads 140 GB, fp32 master + m + v 840 GB") {
        double weights = 0, grads = 0, adam = 0;
        for (const core::MemoryBlock& block : report.memory.blocks) {
            if (block.kind == core::MemoryKind::weights) weights += block.whole_bytes;
            if (block.kind == core::MemoryKind::grads) grads += block.whole_bytes;
            if (block.kind == core::MemoryKind::master || block.kind == core::MemoryKind::optimizer) adam += block.whole_bytes;
        }
        REQUIRE(weights == Approx(140e9));
        REQUIRE(grads == Approx(140e9));
        REQUIRE(adam == Approx(840e9));
    }
    SECTION("the Llama 3 70B preset itself (70.55B parameters) is 1.13 TB") {
        REQUIRE(core::evaluate(core::default_scenario()).memory.state_bytes == Approx(16 * 70553706496.0));
    }
}

TEST_CASE("Seed 003 is wrong: 405B on 15T tokens, 24,576 H100s at 40 % MFU takes 43.4 days, not ~17 (17.4 is at 100 %)", "[seeds]") {
    core::Scenario scenario = bare_params(405e9, 24576, 3, 24576);
    REQUIRE(scenario.train.tokens == 15e12);
    REQUIRE(scenario.cluster.gpu.bf16_flops_per_s == 989e12);
    scenario.efficiency.mfu = 0.4;
    const core::Report at_40 = core::evaluate(scenario);
    REQUIRE(at_40.compute.model_flops_per_step * at_40.compute.steps == Approx(6 * 405e9 * 15e12));  // 3.645e25 FLOPs
    REQUIRE(at_40.compute.train_seconds / day == Approx(43.4).margin(0.05));
    scenario.efficiency.mfu = 1.0;
    REQUIRE(core::evaluate(scenario).compute.train_seconds / day == Approx(17.4).margin(0.05));
    SECTION("its 1,170 years on one GPU is also at 100 % of peak") {
        REQUIRE(6 * 405e9 * 15e12 / 989e12 / year == Approx(1170).margin(5));
    }
}

TEST_CASE("Seed 000 (right): 70B on 15T tokens on one GPU at 0.4 PFLOP/s takes ~500 years, ~6 months on 1024", "[seeds]") {
    const core::Report one = core::evaluate(one_pflops_gpu(R"("model": {"params": 70e9}, "train": {"global_batch": 1024})", 1, 0.4));
    REQUIRE(one.compute.model_flops_per_step * one.compute.steps == Approx(6.3e24));
    REQUIRE(one.compute.train_seconds / year == Approx(500).margin(5));
    const core::Report many = core::evaluate(one_pflops_gpu(R"("model": {"params": 70e9}, "train": {"global_batch": 1024})", 1024, 0.4));
    REQUIRE(many.compute.train_seconds / year * 12 == Approx(6).margin(0.25));
}

TEST_CASE("Seed 000's table is wrong: one 70B step (B=1, T=8k) at 1 PFLOP/s and 40 % MFU takes 8.6 s, not 8.4 ms", "[seeds]") {
    const core::Report report = core::evaluate(
        one_pflops_gpu(R"("model": {"params": 70e9}, "train": {"seq_len": 8192, "global_batch": 1})", 1, 0.4));
    REQUIRE(report.compute.model_flops_per_step == Approx(6 * 70e9 * 8192));  // 3.44e15, as the seed says
    REQUIRE(report.compute.step_seconds == Approx(8.6).margin(0.01));
    REQUIRE(report.compute.step_seconds > 1000 * 8.4e-3);
    SECTION("so its 2.8 s all-reduce is a third of the step, not '350x too slow'") {
        REQUIRE(2.8 / report.compute.step_seconds == Approx(0.33).margin(0.01));
    }
}

TEST_CASE("Seed 000 (right): the gradient all-reduce moves ~2 x 2 B x 70B = 280 GB per rank, 2.8 s at 100 GB/s", "[seeds]") {
    core::Scenario scenario = bare_params(70e9, 1024, 0, 1024);
    scenario.cluster.scale_out.bytes_per_s = 100e9;
    scenario.cluster.scale_out.latency_seconds = 0;
    const core::Report report = core::evaluate(scenario);
    REQUIRE(dp_bytes_per_gpu(report) == Approx(280e9).epsilon(0.001));  // 2 (n-1)/n x 140 GB: the "ring-asymptotic" 280 GB
    REQUIRE(core::ring_seconds(core::Collective::all_reduce, 1024, 140e9, scenario.cluster.scale_out) == Approx(2.8).epsilon(0.001));
}

TEST_CASE("Seed 000's activation rows for 70B at T=8k: the 14-byte row is 75 GB not 150, checkpointing keeps 10.7 GB not 2.6", "[seeds]") {
    const double tokens = 8192, layers = 80, d = 8192;
    REQUIRE(tokens * layers * d * 14 == Approx(75.2e9).epsilon(0.001));  // the seed prints ~150 GB for B T L d 14
    // Full recompute keeps each layer's input, 2 s b h bytes (Korthikanti Table 2): B T L d 2, not B T L 2 (1.3 MB).
    core::Scenario checkpointed = core::default_scenario();
    checkpointed.train.recompute = core::Recompute::full;
    REQUIRE(core::evaluate(checkpointed).memory.per_gpu.activations_bytes == Approx(2 * tokens * layers * d));  // 10.7 GB
    SECTION("without checkpointing the model lands inside the seed's prose range, ~130-200 GB") {
        const double bytes = core::evaluate(core::default_scenario()).memory.per_gpu.activations_bytes;
        REQUIRE(bytes >= 130e9);
        REQUIRE(bytes <= 200e9);
    }
}

TEST_CASE("Seed 003 (right): 1F1B bubble (P-1)/(M+P-1): P=4, M=8 -> 27.3 %", "[seeds][pipeline]") {
    struct Case {
        int stages, microbatches;
        double bubble;
    };
    // Seed 003 also gives P=4, M=32 -> 8.6 %; P=16, M=8 -> 65.2 %; P=16, M=64 -> 19.0 %.
    // The seed's pipeline has identical stages: the generated 1F1B timeline with one time per stage.
    for (const Case& c : {Case{4, 8, 0.273}, Case{4, 32, 0.086}, Case{16, 8, 0.652}, Case{16, 64, 0.190}}) {
        INFO("P = " << c.stages << ", M = " << c.microbatches);
        core::ScheduleParams params;
        params.kind = core::ScheduleKind::one_f_one_b;
        params.stages = c.stages;
        params.microbatches = c.microbatches;
        const core::ScheduleTimeline timeline = core::generate_schedule(params);
        REQUIRE(timeline.bubble_fraction == Approx(c.bubble).margin(0.0005));
        REQUIRE(timeline.bubble_overhead == Approx((c.stages - 1.0) / c.microbatches));
    }
    SECTION("a real model's first and last stages carry the embedding and the loss: its bubble is a little larger") {
        core::Scenario scenario = core::default_scenario();
        scenario.parallel.pp = 4;
        scenario.parallel.tp = 8;
        scenario.cluster.gpus = 32;
        scenario.train.global_batch = 8;
        const core::Report report = core::evaluate(scenario);
        REQUIRE(report.pipeline.microbatches == 8);
        REQUIRE(report.pipeline.bubble_fraction > 0.273);
        REQUIRE(report.pipeline.bubble_fraction < 0.35);
    }
}

TEST_CASE("Seed 003: 405B x 12 B (no master copy) = 4.86 TB; with the fp32 master (16 B) 6.48 TB", "[seeds]") {
    core::Scenario scenario = bare_params(405e9, 1024, 3, 1024);
    scenario.precision = *core::find_recipe("bf16-adam-no-master");
    const core::Report twelve = core::evaluate(scenario);
    REQUIRE(twelve.memory.bytes_per_param == 12);
    REQUIRE(twelve.memory.state_bytes == Approx(4.86e12));
    REQUIRE(core::evaluate(bare_params(405e9, 1024, 3, 1024)).memory.state_bytes == Approx(6.48e12));
    SECTION("its ZeRO-3 on 1,024 GPUs: 4.86 TB / 1024 = 4.75 GB per GPU") {
        REQUIRE(core_tests::state_per_gpu_bytes(twelve) == Approx(4.75e9).epsilon(0.001));
    }
    SECTION("its ZeRO-1 on 1,024 GPUs: 810 GB weights + 810 GB grads + 3.16 GB of sharded m and v") {
        scenario.parallel.zero = 1;
        const core::Report stage1 = core::evaluate(scenario);
        REQUIRE(stage1.memory.per_gpu.weights_bytes == Approx(810e9));
        REQUIRE(stage1.memory.per_gpu.grads_bytes == Approx(810e9));
        REQUIRE(stage1.memory.per_gpu.optimizer_bytes == Approx(3.16e9).margin(0.005e9));  // 3.164 GB
    }
    SECTION("its opening '3.2 TB just for training state' is Adam's m and v alone (8 B x 405B = 3.24 TB)") {
        double adam = 0;
        for (const core::MemoryBlock& block : twelve.memory.blocks) {
            if (block.kind == core::MemoryKind::optimizer) adam += block.whole_bytes;
        }
        REQUIRE(adam == Approx(3.24e12));
        REQUIRE(twelve.memory.state_bytes > 1.4 * adam);
    }
}

TEST_CASE("Seed 003 (right): the H100 ridge point is 989 TFLOP/s / 3.35 TB/s ~ 295 FLOP/byte", "[seeds]") {
    REQUIRE(core::evaluate(core::default_scenario()).roofline.ridge_flops_per_byte == Approx(295).margin(0.5));
}

TEST_CASE("Seed 003's '18x' NVLink-to-InfiniBand drop sets NVLink both ways against IB one way: per direction it is 9x", "[seeds]") {
    const core::Scenario scenario = core::default_scenario();
    REQUIRE(scenario.cluster.scale_up.bytes_per_s == 450e9);   // NVLink 4: 900 GB/s is the two directions together
    REQUIRE(scenario.cluster.scale_out.bytes_per_s == 50e9);   // InfiniBand NDR: 400 Gb/s each way
    REQUIRE(scenario.cluster.scale_up.bytes_per_s / scenario.cluster.scale_out.bytes_per_s == Approx(9));
}

TEST_CASE("Seed 004: 7B in fp32 + Adam is 16 B x 7B = 112 GB (right); 'mixed precision ~half' is wrong, it is 112 GB too", "[seeds]") {
    core::Scenario scenario = bare_params(7e9, 1, 0, 64);
    scenario.precision = *core::find_recipe("fp32-adam");
    const core::Report fp32 = core::evaluate(scenario);
    REQUIRE(fp32.memory.state_bytes == Approx(112e9));
    REQUIRE(fp32.memory.inference_weight_bytes == Approx(14e9));  // its "7B fp16 weights = 14 GB", right
    const core::Report mixed = core::evaluate(bare_params(7e9, 1, 0, 64));
    REQUIRE(mixed.memory.state_bytes == Approx(112e9));  // bf16 weight + grad, fp32 master + m + v: still 16 B
    scenario.precision = *core::find_recipe("bf16-adam-no-master");
    REQUIRE(core::evaluate(scenario).memory.state_bytes == Approx(84e9));  // even dropping the master saves a quarter, not half
}
