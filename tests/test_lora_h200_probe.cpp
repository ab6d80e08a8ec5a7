// PEFT LoRA on Hugging Face Llama models, measured on an H200 (measurements/h200_hf_probe.json, section "lora", written by
// measurements/hf_training_probe.py): rank 16, alpha 32, PEFT's default targets (q_proj, v_proj) or "all-linear", fp32
// adapters over a bf16 base under autocast bf16, fused AdamW over the adapters, with and without checkpointing. Each run's
// scenario is the probe's setup and the finetune section; its step, peak allocated and peak reserved set against the
// measured ones, the signed error printed. Nothing is fitted to these rows.
#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/lora_ops.h"
#include "core/model/layout.h"
#include "core/cost/report/evaluate.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

nlohmann::json lora_runs() {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/measurements/h200_hf_probe.json");
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return nlohmann::json::parse(text.str())["sections"]["lora"];
}

// The probe's Llama 3.1 8B is the catalog's Llama 3 8B (the same shape).
std::string preset_of(const std::string& probe_model) { return probe_model == "llama3.1-8b" ? "llama3-8b" : "llama3.2-1b"; }

core::Scenario run_scenario(const nlohmann::json& run) {
    const int batch = run["batch"];
    const std::string targets = run["lora"] == "default" ? "" : R"(, "targets": "all-linear")";
    return core::parse_scenario(R"({"model": {"preset": ")" + preset_of(run["model"]) + R"("},
        "train": {"seq_len": )" + std::to_string(run["seq"].get<int>()) + R"(, "micro_batch": )" + std::to_string(batch) +
                                R"(, "global_batch": )" + std::to_string(batch) + R"(, "framework": "hf-transformers",
                  "recompute": ")" + (run["checkpointing"].get<bool>() ? "full" : "none") + R"(", "dropout": false},
        "precision": {"recipe": "pytorch-amp-adam"},
        "cluster": {"gpu": "h200-sxm", "gpus": 1, "gpus_per_node": 1},
        "finetune": {"method": "lora", "rank": 16, "alpha": 32)" + targets + "}}");
}

std::string run_name(const nlohmann::json& run) {
    return run["model"].get<std::string>() + " " + run["lora"].get<std::string>() + (run["checkpointing"].get<bool>() ? " ckpt" : " no-ckpt") + " b" +
           std::to_string(run["batch"].get<int>()) + " s" + std::to_string(run["seq"].get<int>());
}

}  // namespace

TEST_CASE("H200 PEFT LoRA probe: trainable parameters as PEFT counts them", "[lora][validation]") {
    for (const nlohmann::json& run : lora_runs()) {
        INFO(run_name(run));
        const core::LoraCounts counts = core::lora_counts(run_scenario(run));
        // print_trainable_parameters' count: the adapters exactly (their shapes are the model's).
        CHECK(counts.adapter_params == run["trainable_params"].get<double>());
        // Every parameter PEFT's model holds, less the adapters: the frozen base (a tied head counted once).
        CHECK(counts.frozen_params + counts.adapter_params == Approx(run["params"].get<double>()).epsilon(1e-9));
    }
}

TEST_CASE("H200 PEFT LoRA probe: step and peak memory", "[lora][validation]") {
    for (const nlohmann::json& run : lora_runs()) {
        const core::Report report = core::evaluate(run_scenario(run));
        const double step_error = report.compute.step_seconds / run["step_seconds"].get<double>() - 1.0;
        const double allocated_error = report.memory.peak_allocated_bytes / run["peak_allocated"].get<double>() - 1.0;
        const double reserved_error = report.memory.peak_reserved_bytes / run["peak_reserved"].get<double>() - 1.0;
        std::printf("%-40s step %+6.1f %%  peak allocated %+6.1f %%  peak reserved %+6.1f %%\n", run_name(run).c_str(), 100 * step_error,
                    100 * allocated_error, 100 * reserved_error);
        INFO(run_name(run));
        CHECK(std::fabs(step_error) < 0.20);
        CHECK(std::fabs(allocated_error) < 0.10);
        CHECK(std::fabs(reserved_error) < 0.10);
    }
}

TEST_CASE("LoRA under data parallelism: DDP all-reduces the adapters' gradients alone", "[lora]") {
    nlohmann::json run = lora_runs()[3];  // Llama 3.1 8B, all-linear
    core::Scenario scenario = run_scenario(run);
    scenario.cluster.gpus = 8;
    scenario.cluster.gpus_per_node = 8;
    scenario.train.global_batch = 8 * scenario.train.micro_batch;
    const core::Layout layout = core::layout_of(scenario);
    REQUIRE(layout.dp == 8);
    const core::LoraCounts counts = core::lora_counts(scenario);
    const double params = counts.adapter_params + counts.frozen_params;
    const core::DpComm comm = core::dp_comm(scenario, layout, params, scenario.model.layers, 1);
    // PEFT's 41.9 M fp32 adapters: 168 MB, not the 8.07 B parameters' 32 GB.
    CHECK(comm.grad_bytes == Approx(run["trainable_params"].get<double>() * 4.0));
}
