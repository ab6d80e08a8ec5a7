// FLOPs, MFU, HFU and time to train: Korthikanti 2022 App. A and Table 5, Narayanan 2021 eq. 3 and Table 1,
// Kaplan 2020 and PaLM App. B (published.md sec 2, 3, 6).
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include "core/cost/kernels/flops.h"
#include "core/model/scenario_json.h"

using core_tests::megatron_a100;

namespace {

constexpr double a100_peak = 312e12;
constexpr double vocab = 51200;

// Korthikanti eq. 7: model FLOPs per step.
double eq7_model_flops(double batch, double layers, double s, double h) {
    return 72 * batch * layers * s * h * h * (1 + s / (6 * h) + vocab / (12 * h * layers));
}
// Korthikanti eq. 8: hardware FLOPs with selective recompute.
double eq8_hardware_flops(double batch, double layers, double s, double h) {
    return 72 * batch * layers * s * h * h * (1 + s / (3 * h) + vocab / (12 * h * layers));
}
// Narayanan 2021 eq. 3: FLOPs with full recompute (one more forward of every layer).
double eq3_full_recompute_flops(double batch, double layers, double s, double h) {
    return 96 * batch * layers * s * h * h * (1 + s / (6 * h) + vocab / (16 * layers * h));
}

struct Table5Row {
    const char* preset;
    double heads, h, layers;
    int tp, pp, gpus, batch;
    double iteration_seconds, mfu;
};
// Korthikanti 2022 Table 5 (s = 2048, V = 51200, A100), with sequence parallelism and selective recompute.
const Table5Row table5[] = {
    {"megatron-22b", 64, 6144, 48, 8, 1, 8, 4, 1.10, 0.415},
    {"gpt3-175b", 96, 12288, 96, 8, 8, 64, 64, 13.75, 0.514},
};

core::Scenario table5_scenario(const Table5Row& row, const std::string& extra_train = R"(, "recompute": "selective", "sequence_parallel": true)") {
    return megatron_a100(row.preset, row.tp, row.pp, row.gpus, row.batch, extra_train);
}

struct Table1Row {
    const char* preset;
    double h, layers;
    int tp, pp, gpus, batch;
    double tflops_per_gpu, percent_of_peak;
};
// Narayanan 2021 Table 1 (s = 2048, V = 51200, A100, full recompute: throughput counted with eq. 3).
const Table1Row megatron_table1[] = {
    {"megatron-1.7b", 2304, 24, 1, 1, 32, 512, 137, 44},     {"megatron-3.6b", 3072, 30, 2, 1, 64, 512, 138, 44},
    {"megatron-7.5b", 4096, 36, 4, 1, 128, 512, 142, 46},    {"megatron-18.4b", 6144, 40, 8, 1, 256, 1024, 135, 43},
    {"megatron-39.1b", 8192, 48, 8, 2, 512, 1536, 138, 44},  {"megatron-76.1b", 10240, 60, 8, 4, 1024, 1792, 140, 45},
    {"megatron-145.6b", 12288, 80, 8, 8, 1536, 2304, 148, 47},
};

}  // namespace

TEST_CASE("Korthikanti 2022 eq. 7: model FLOPs per step of the Table 5 models", "[flops]") {
    for (const Table5Row& row : table5) {
        INFO(row.preset);
        const core::Report report = core::evaluate(table5_scenario(row));
        REQUIRE(report.compute.model_flops_per_step == Approx(eq7_model_flops(row.batch, row.layers, 2048, row.h)));
    }
}

TEST_CASE("Korthikanti 2022 Table 5: MFU from the published iteration time on A100s (312 TFLOP/s)", "[flops][mfu]") {
    for (const Table5Row& row : table5) {
        INFO(row.preset << ": " << row.gpus << " GPUs, batch " << row.batch << ", " << row.iteration_seconds << " s");
        core::Scenario scenario = table5_scenario(row);
        scenario.efficiency.step_seconds = row.iteration_seconds;
        const core::Report report = core::evaluate(scenario);
        REQUIRE(report.compute.peak_flops_per_s == a100_peak);
        // MFU = model FLOPs / (iteration time x GPUs x peak); the 3-digit iteration time leaves +-0.2 points.
        REQUIRE(report.compute.mfu == Approx(row.mfu).margin(0.002));
        REQUIRE(report.compute.mfu == Approx(eq7_model_flops(row.batch, row.layers, 2048, row.h) /
                                             (row.iteration_seconds * row.gpus * a100_peak)));
    }
}

TEST_CASE("Korthikanti 2022 eq. 8: hardware FLOPs with selective recompute", "[flops]") {
    for (const Table5Row& row : table5) {
        INFO(row.preset);
        const core::Report report = core::evaluate(table5_scenario(row));
        REQUIRE(report.compute.hardware_flops_per_step == Approx(eq8_hardware_flops(row.batch, row.layers, 2048, row.h)));
    }
}

TEST_CASE("Narayanan 2021 eq. 3: full recompute adds one forward, 96 B L s h^2 (1 + s/(6h) + V/(16 L h))", "[flops]") {
    for (const Table5Row& row : table5) {
        INFO(row.preset);
        const core::Report report = core::evaluate(table5_scenario(row, R"(, "recompute": "full")"));
        REQUIRE(report.compute.hardware_flops_per_step == Approx(eq3_full_recompute_flops(row.batch, row.layers, 2048, row.h)));
        REQUIRE(report.compute.model_flops_per_step == Approx(eq7_model_flops(row.batch, row.layers, 2048, row.h)));
    }
    SECTION("without recompute or flash attention, hardware FLOPs are the model FLOPs") {
        const core::Report report = core::evaluate(table5_scenario(table5[1], ""));
        REQUIRE(report.compute.hardware_flops_per_step == Approx(report.compute.model_flops_per_step));
    }
}

TEST_CASE("FlashAttention-2 (Dao 2023) sec 4.1: causal kernels run half of 4 s^2 d a forward and 2.5 times that backward; HFU "
          "counts what runs, so it stays under 100 % at 512K tokens", "[flops][mfu]") {
    const auto gpt3 = [](const std::string& recompute, int seq_len) {
        return core::parse_scenario(R"({"model": {"preset": "gpt3-175b"}, "train": {"seq_len": )" + std::to_string(seq_len) +
                                    R"(, "global_batch": 64, "flash_attention": true, "recompute": ")" + recompute + R"("},
            "parallel": {"tp": 8, "pp": 8}, "cluster": {"gpu": "a100-sxm", "gpus": 64}})");
    };
    // Eq. 7 counts the attention products 3 times per layer at 4 B s^2 h each (forward, backward); the kernels run half of
    // the forward and half of the 2.5-forward backward: 1.75 of the 3, so 1.25 x 4 B L s^2 h fewer FLOPs run.
    const double B = 64, L = 96, s = 2048, h = 12288;
    const double attention = 4 * B * L * s * s * h;
    const core::Report plain = core::evaluate(gpt3("none", 2048));
    REQUIRE(plain.compute.model_flops_per_step == Approx(eq7_model_flops(B, L, s, h)));
    REQUIRE(plain.compute.hardware_flops_per_step == Approx(eq7_model_flops(B, L, s, h) - 1.25 * attention));
    // Full recompute: eq. 3's extra forward, its attention run as a causal flash forward too (half).
    const core::Report full = core::evaluate(gpt3("full", 2048));
    REQUIRE(full.compute.hardware_flops_per_step == Approx(eq3_full_recompute_flops(B, L, s, h) - 1.75 * attention));
    // At 512K tokens attention is nearly all the work: HFU counted as eq. 7 + 3 would pass 100 %; what runs does not.
    core::Scenario long_context = core::parse_scenario(R"({"model": {"preset": "llama3-8b"},
        "train": {"seq_len": 524288, "global_batch": 8, "recompute": "full"},
        "parallel": {"tp": 1, "pp": 1, "cp": 64, "dp": 1, "zero": 3}, "cluster": {"gpu": "h100-sxm", "gpus": 64}})");
    const core::Report report = core::evaluate(long_context);
    REQUIRE(report.compute.hfu < 1.0);
    REQUIRE(report.compute.hfu < report.compute.mfu);  // MFU counts every score, causal or not
}

TEST_CASE("Narayanan 2021 Table 1: '% of peak' is eq. 3 FLOPs at the published TFLOP/s per GPU (HFU)", "[flops][mfu]") {
    for (const Table1Row& row : megatron_table1) {
        INFO(row.preset << " at " << row.tflops_per_gpu << " TFLOP/s per GPU");
        core::Scenario scenario = megatron_a100(row.preset, row.tp, row.pp, row.gpus, row.batch, R"(, "recompute": "full")");
        // The iteration time the paper's throughput implies, from eq. 3 computed here, not by the model.
        scenario.efficiency.step_seconds = eq3_full_recompute_flops(row.batch, row.layers, 2048, row.h) / (row.gpus * row.tflops_per_gpu * 1e12);
        const core::Report report = core::evaluate(scenario);
        REQUIRE(report.compute.hfu * a100_peak == Approx(row.tflops_per_gpu * 1e12));
        REQUIRE(report.compute.hfu * 100 == Approx(row.percent_of_peak).margin(0.6));  // the paper rounds to whole percent
        REQUIRE(report.compute.mfu == Approx(report.compute.hfu * eq7_model_flops(row.batch, row.layers, 2048, row.h) /
                                             eq3_full_recompute_flops(row.batch, row.layers, 2048, row.h)));
    }
}

TEST_CASE("Narayanan 2021 time to train: 175B on 300B tokens, 1024 GPUs at 140 TFLOP/s ~ 34 days (8 T P / (n X))", "[flops][time]") {
    const double params = 175e9, tokens = 300e9, gpus = 1024, achieved = 140e12;
    REQUIRE(8 * tokens * params / (gpus * achieved) / 86400 == Approx(34).margin(0.5));
    // Through evaluate: full recompute makes hardware FLOPs 8 N per token; 140 TFLOP/s of them is 105 TFLOP/s of model FLOPs.
    core::Scenario scenario = core::parse_scenario(R"({"model": {"params": 175e9},
        "train": {"seq_len": 2048, "global_batch": 2048, "tokens": 300e9, "recompute": "full"},
        "cluster": {"gpu": "a100-sxm", "gpus": 1024}, "efficiency": {"mfu": 0.33653846153846156}})");
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.compute.hfu * a100_peak == Approx(achieved));
    REQUIRE(report.compute.train_seconds == Approx(8 * tokens * params / (gpus * achieved)));
    REQUIRE(report.compute.train_seconds / 86400 == Approx(34).margin(0.5));
    REQUIRE(report.compute.gpu_hours == Approx(report.compute.train_seconds * 1024 / 3600));
}

TEST_CASE("Kaplan 2020 sec 2.1: 6 N FLOPs per token for a bare parameter count", "[flops]") {
    const core::Report report = core::evaluate(core::parse_scenario(R"({"model": {"params": 70e9}, "train": {"global_batch": 64}})"));
    REQUIRE(report.compute.model_flops_per_token == Approx(6 * 70e9));
    REQUIRE(report.compute.six_n_flops_per_step == Approx(6 * 70e9 * 64 * 8192));
    REQUIRE(report.compute.model_flops_per_step == Approx(report.compute.six_n_flops_per_step));
}

TEST_CASE("PaLM App. B: 6 N + 12 L H Q T per token, N the matrix weights (GPT-3 175B)", "[flops]") {
    const core::ModelSpec& gpt3 = *core::find_model("gpt3-175b");
    const double layers = 96, h = 12288, seq = 2048;
    const double matmul_weights = layers * 12 * h * h + vocab * h;  // per layer 4h^2 + 8h^2; the tied embedding as the logit matrix
    REQUIRE(core::model_flops_per_token(gpt3, 2048) == Approx(6 * matmul_weights + 12 * layers * h * seq));
}

TEST_CASE("MFU definition: an assumed MFU gives step = model FLOPs / (GPUs x peak x MFU)", "[flops][mfu]") {
    core::Scenario scenario = core::default_scenario();
    scenario.efficiency.mfu = 0.4;
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.compute.step_seconds == Approx(report.compute.model_flops_per_step / (64 * 989e12 * 0.4)));
    REQUIRE(report.compute.mfu == Approx(0.4));
    REQUIRE(report.compute.train_seconds == Approx(15e12 / (512 * 8192.0) * report.compute.step_seconds));
}

TEST_CASE("Modelled step (no efficiency given): Megatron-LM and Table 5 layouts land at a plausible 30-60 % MFU", "[flops][mfu][model]") {
    // The papers measured 33-35 % MFU (Table 1: 43-47 % HFU with full recompute) and 41.5 / 51.4 % (Table 5).
    for (const Table5Row& row : table5) {
        INFO(row.preset);
        const core::Report report = core::evaluate(table5_scenario(row));
        REQUIRE(report.compute.mfu >= 0.30);
        REQUIRE(report.compute.mfu <= 0.60);
        // Pipeline bubble and TP traffic cost something: the modelled step is longer than pure compute.
        REQUIRE(report.compute.step_seconds > report.compute.compute_seconds);
    }
}

TEST_CASE("Modelled step: Llama 3 405B on 16,384 H100s (TP 8, PP 16, DP 128) near seed 003's ~38-43 % MFU", "[flops][mfu][model]") {
    core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-405b"},
        "train": {"global_batch": 2048, "sequence_parallel": true},
        "parallel": {"tp": 8, "pp": 16, "zero": 1, "schedule": "interleaved", "virtual_stages": 2}, "cluster": {"gpus": 16384}})");
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.layout.dp == 128);
    REQUIRE(report.compute.mfu >= 0.30);
    REQUIRE(report.compute.mfu <= 0.50);
}

TEST_CASE("Modelled step of the default scenario: below the GPU's best measured GEMM efficiency, above 30 %", "[flops][mfu][model]") {
    // 64 H100s, DP only: the GEMMs at their measured efficiency, the rest memory-bound, the last bucket's reduction exposed.
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const std::vector<double>& gemm = scenario.cluster.gpu.efficiency.gemm.efficiencies;
    const double ceiling = *std::max_element(gemm.begin(), gemm.end());
    REQUIRE(report.compute.mfu >= 0.30);
    REQUIRE(report.compute.mfu < ceiling);
    REQUIRE(report.compute.exposed_comm_seconds > 0);
    REQUIRE(report.compute.bubble_seconds == Approx(0).margin(1e-9));
    // Eight machines: the step also waits for the slowest of them (MegaScale's straggler share and slowdown).
    REQUIRE(report.compute.step_seconds ==
            Approx(report.compute.compute_seconds + report.compute.exposed_comm_seconds + report.compute.breakdown_seconds.straggler_seconds));
    REQUIRE(report.compute.breakdown_seconds.straggler_seconds ==
            Approx(0.10 * (1.0 - std::pow(1.0 - 0.005, 8.0)) * report.compute.compute_seconds));
    SECTION("a layout that fits the same 64 GPUs (TP 8 + SP, ZeRO-1) stays in 30-60 %") {
        core::Scenario fitting = core::parse_scenario(R"({"train": {"sequence_parallel": true}, "parallel": {"tp": 8, "zero": 1}})");
        const core::Report fitted = core::evaluate(fitting);
        REQUIRE(fitted.memory.fits);
        REQUIRE(fitted.compute.mfu >= 0.30);
        REQUIRE(fitted.compute.mfu <= 0.60);
    }
}
