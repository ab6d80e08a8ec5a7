// Each headline figure's words, written once in core (core/cost/report/figure_text.h): the texts carry the Report's own
// numbers as core's formatter writes them, explain() hands the panels the very same texts, and the configurator's
// memory bar reads its groups from the Report. The default scenario is the seeds' Llama 3 70B on 64 H100 SXM (bf16 peak
// 989 TFLOP/s, the H100 datasheet, SXM5, dense), 15 T tokens of 1024 x 4096-token sequences.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/figure_text.h"
#include "core/model/format.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

namespace {

using core_tests::shipped;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("Korthikanti et al. 2022 Appendix A: the default scenario's MFU text is the Report's MFU, model FLOPs / (step x GPUs x peak)",
          "[figures]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const core::ComputeReport& compute = report.compute;
    REQUIRE(report.layout.gpus == 64);
    REQUIRE(compute.peak_flops_per_s == 989e12);
    REQUIRE(compute.mfu == Approx(compute.model_flops_per_step / (compute.step_seconds * 64 * 989e12)));
    const core::FigureText mfu = core::figure_texts(scenario, report).mfu;
    CHECK(mfu.label == "MFU");
    CHECK(mfu.value == core::format_percent(compute.mfu));
    CHECK(mfu.formula == "model FLOPs per step / (step time x GPUs x peak) = " + core::format_flops(compute.model_flops_per_step) + " / (" +
                             core::format_seconds(compute.step_seconds) + " x 64 x 989 TFLOP/s) = " + core::format_percent(compute.mfu));
    CHECK(mfu.source == "Korthikanti et al. 2022, Appendix A");
    // HFU counts the FLOPs that run (recompute, causal flash attention's half of the scores) over the same denominator.
    const core::FigureText hfu = core::figure_texts(scenario, report).hfu;
    CHECK(hfu.value == core::format_percent(compute.hfu));
    CHECK(contains(hfu.formula, core::format_flops(compute.hardware_flops_per_step) + " / (" + core::format_seconds(compute.step_seconds) + " x 64 x "));
}

TEST_CASE("Time to train of the default scenario: 15 T tokens / (1024 x 4096) tokens per step = 3.58 M steps at the step time",
          "[figures]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const core::ComputeReport& compute = report.compute;
    REQUIRE(scenario.train.tokens == 15e12);
    REQUIRE(compute.tokens_per_step == 1024.0 * 4096.0);
    REQUIRE(compute.train_seconds == Approx(15e12 / (1024.0 * 4096.0) * compute.step_seconds));
    const core::FigureTexts figures = core::figure_texts(scenario, report);
    CHECK(figures.time_to_train.label == "Time to train");
    CHECK(figures.time_to_train.value == core::format_seconds(compute.train_seconds));
    CHECK(figures.time_to_train.formula == "15.0 T tokens / 4,194,304 tokens per step = 3.58 M steps x " + core::format_seconds(compute.step_seconds) +
                                               " per step, no failures");
    // What the time to train is made of, and what it costs: the same seconds in each.
    CHECK(figures.step_time.value == core::format_seconds(compute.step_seconds));
    CHECK(contains(figures.gpu_hours.formula, core::format_seconds(compute.train_seconds) + " x 64 GPUs"));
    CHECK(figures.gpu_hours.value == core::format_count(compute.train_seconds * 64 / 3600.0));
    CHECK(figures.billed_cost.value == core::format_dollars(report.budget.total_dollars));
    CHECK(contains(figures.wall_time.formula, "time to train / goodput = " + core::format_seconds(compute.train_seconds)));
}

TEST_CASE("The default scenario's peak per GPU: 16 B per parameter of Llama 3 70B on one GPU (dp 64, ZeRO 0) does not fit 85.0 GB",
          "[figures]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const core::MemoryReport& memory = report.memory;
    REQUIRE_FALSE(memory.fits);
    const core::FigureTexts figures = core::figure_texts(scenario, report);
    CHECK(figures.peak_memory.value == core::format_bytes(memory.per_gpu.peak_bytes) + " of " + core::format_bytes(core_tests::h100_hbm_bytes) +
                                           " HBM: does not fit, " + core::format_bytes(memory.per_gpu.peak_bytes - core_tests::h100_hbm_bytes) + " over");
    CHECK(contains(figures.peak_memory.formula, core::memory_verdict_text(scenario, report)));
    CHECK(contains(figures.peak_memory.formula, core::memory_peak_line_text(report)));
    // Rajbhandari et al. 2019 sec 3.1: mixed precision with Adam keeps 2 + 2 + 4 + 4 + 4 = 16 B per parameter.
    CHECK(figures.training_state.value == core::format_bytes(16 * memory.params) + " (16 B per parameter)");
    CHECK(figures.training_state.formula == "16 B per parameter x " + core::format_sci(memory.params) + " parameters = " +
                                                core::format_bytes(16 * memory.params) + " (" + scenario.precision.name + ")");
}

TEST_CASE("Every shipped scenario: explain() hands the panels figure_texts() word for word, each figure labelled, valued and finite",
          "[figures]") {
    for (const std::string& name : core_tests::shipped_scenarios()) {
        INFO(name);
        const core::Scenario scenario = shipped(name);
        const core::Report report = core::evaluate(scenario);
        const core::ReportText text = core::explain(scenario, report);
        const std::vector<core::FigureText> explained = core::figure_list(text.figures);
        const std::vector<core::FigureText> built = core::figure_list(core::figure_texts(scenario, report));
        REQUIRE(explained.size() == built.size());
        for (std::size_t i = 0; i < built.size(); ++i) {
            INFO(built[i].label);
            CHECK(explained[i].label == built[i].label);
            CHECK(explained[i].value == built[i].value);
            CHECK(explained[i].formula == built[i].formula);
            CHECK(explained[i].source == built[i].source);
            CHECK_FALSE(built[i].label.empty());
            CHECK_FALSE(built[i].value.empty());
            for (const char* bad : {"nan", "inf"}) CHECK_FALSE(contains(built[i].value + " " + built[i].formula, bad));
        }
        // The verdict the stack panel prints is the one inside the peak's formula.
        CHECK(contains(text.figures.peak_memory.formula, text.memory_verdict));
        CHECK(text.figures.mfu.value == core::format_percent(report.compute.mfu));
        CHECK(text.figures.time_to_train.value == core::format_seconds(report.compute.train_seconds));
    }
}

TEST_CASE("The configurator's memory bar: the peak per GPU in groups adds up to the peak, Adam's m and v in one optimizer group", "[figures]") {
    for (const std::string& name : core_tests::shipped_scenarios()) {
        INFO(name);
        const core::Scenario scenario = shipped(name);
        const core::Report report = core::evaluate(scenario);
        const core::ReportText text = core::explain(scenario, report);
        const core::PerGpuMemory& per_gpu = report.memory.per_gpu;
        REQUIRE(text.peak_groups.size() == report.peak_groups.size());
        double sum = 0;
        for (std::size_t i = 0; i < report.peak_groups.size(); ++i) {
            const core::PeakGroup& group = report.peak_groups[i];
            sum += group.per_gpu_bytes;
            CHECK(text.peak_groups[i].value == core::format_bytes(group.per_gpu_bytes));
            CHECK(text.peak_groups[i].label == (group.held_beside ? std::string("at the peak") : core::memory_kind_name(group.kind)));
            // Each block's own formula, in the group's tooltip.
            for (int block : group.blocks) CHECK(contains(text.peak_groups[i].formula, text.block_per_gpu[block].formula));
            if (group.held_beside) {
                CHECK(i + 1 == report.peak_groups.size());
                CHECK(group.per_gpu_bytes == Approx(core::held_beside_sum_bytes(per_gpu)));
            } else if (group.kind == core::MemoryKind::optimizer) {
                CHECK(group.per_gpu_bytes == Approx(per_gpu.optimizer_bytes));
            } else if (group.kind == core::MemoryKind::activations) {
                CHECK(group.per_gpu_bytes == Approx(per_gpu.activations_bytes));
            }
        }
        CHECK(sum == Approx(per_gpu.peak_bytes));
    }
    // The default: fp32 Adam m and v (4 + 4 B per parameter, Rajbhandari et al. 2019 sec 3.1) of every parameter on each GPU.
    const core::Report report = core::evaluate(core::default_scenario());
    int optimizer_groups = 0;
    for (const core::PeakGroup& group : report.peak_groups) {
        if (group.kind != core::MemoryKind::optimizer || group.held_beside) continue;
        ++optimizer_groups;
        CHECK(group.blocks.size() == 2);
        CHECK(group.per_gpu_bytes == Approx(8 * report.memory.params_per_gpu));
    }
    CHECK(optimizer_groups == 1);
}

TEST_CASE("The configurator's layout line: Llama 3 405B's 16384 H100s as TP 8 x PP 16 x DP 128 on 2048 nodes of 8, and one GPU in "
          "the singular",
          "[figures]") {
    const core::Report big = core::evaluate(shipped("llama3-405b-16k.json"));
    CHECK(core::layout_gpus_text(big.layout) == "TP 8 x PP 16 x CP 1 x DP 128 = 16,384 GPUs on 2,048 nodes of 8");
    const core::Report one = core::evaluate(shipped("llama3-8b-qlora-rtx4090.json"));
    CHECK(core::layout_gpus_text(one.layout) == "TP 1 x PP 1 x CP 1 x DP 1 = 1 GPU on 1 node of 1");
}

TEST_CASE("The device mesh's caption: Llama 3 405B's 16,384 GPUs drawn as 2 of its 128 DP replicas of TP 8 x PP 16, a 1-GPU "
          "fine-tune whole, and DeepSeek-V3's experts by EP rank",
          "[figures]") {
    const core::Scenario big = shipped("llama3-405b-16k.json");
    const core::Report big_report = core::evaluate(big);
    const core::MeshSample sampled = core::mesh_sample(big_report.layout, big_report.layout.gpus, 8, 256, false, "NVLink 4", "InfiniBand NDR");
    CHECK(sampled.drawn_gpus == 256);  // 2 x (TP 8 x PP 16): whole replicas up to the 256 drawn
    CHECK(sampled.drawn_nodes == 32);
    CHECK(sampled.caption == "GPUs 0-255 of 16,384: 2 of 128 DP replicas (128 GPUs each); the rest repeat them. Box = node (NVLink 4 inside); "
                             "between boxes: InfiniBand NDR.");
    const core::MeshSample part = core::mesh_sample(big_report.layout, big_report.layout.gpus, 8, 100, false, "NVLink 4", "InfiniBand NDR");
    CHECK(part.drawn_gpus == 100);  // a replica of 128 is more than 100: the first GPUs of one
    CHECK(part.caption.rfind("GPUs 0-99 of 16,384: part of one DP replica of 128 GPUs (TP x CP x PP).", 0) == 0);
    const core::Report one = core::evaluate(shipped("llama3-8b-qlora-rtx4090.json"));
    CHECK(core::mesh_sample(one.layout, 1, 1, 256, false, "PCIe", "Ethernet").caption ==
          "One GPU on 1 node. Box = node (PCIe inside); between boxes: Ethernet.");
    const core::Report moe = core::evaluate(shipped("deepseek-v3.json"));
    const core::MeshSample experts = core::mesh_sample(moe.layout, moe.layout.gpus, 8, 256, true, "NVLink 4", "InfiniBand NDR");
    INFO(experts.caption);
    // 2,048 H800s over PP 16: 128 GPUs to a stage, EP 64 twice over.
    CHECK(experts.caption.find(" Same number = same experts (EP rank); one EP group holds every number once, over the 128 GPUs of a stage.") !=
          std::string::npos);
}
