// torchtune's recipe (assets/frameworks/torchtune.json, commit 30b8519e8): its layer eager and as torch.compile runs it
// (train.compile picks Inductor's fused kernels where the recipe marks them), the compiled chunked cross-entropy of its
// README's runs, and LoRA's frozen base under FSDP2, which shards it like every other parameter. The published runs
// themselves are checked in tests/test_validation_set.cpp.
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

namespace {

// torchtune's README speed table (commit 30b8519e8): Llama 3.1 8B, batch 2 packed to 2,048 tokens, checkpointing on.
core::Scenario readme_8b(const std::string& framework, bool compile, const std::string& finetune) {
    return core::parse_scenario(R"({"model": {"preset": "llama3-8b"},
        "train": {"seq_len": 2048, "micro_batch": 2, "global_batch": 2, "framework": ")" + framework + R"(", "recompute": "full",
                  "dropout": false, "compile": )" + (compile ? "true" : "false") + R"(},
        "precision": {"recipe": "bf16-pure-adamw"}, "cluster": {"gpu": "rtx-4090", "gpus": 1, "gpus_per_node": 1},
        "finetune": )" + finetune + "}");
}

const std::string kReadmeLora = R"({"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"], "adapter_dtype": "bf16"})";

bool says_compile_changes_nothing(const core::Scenario& scenario, const core::Report& report) {
    const core::ReportText text = core::explain(scenario, report);
    return std::any_of(text.warnings.begin(), text.warnings.end(),
                       [](const std::string& warning) { return warning.rfind("Setting train.compile changes nothing for ", 0) == 0; });
}

}  // namespace

TEST_CASE("torchtune: torch.compile's fused kernels replace the eager norms, RoPE, SwiGLU and loss, with fewer kernels and no fp32 logits", "[torchtune][finetune]") {
    const core::Scenario eager = readme_8b("torchtune", false, kReadmeLora);
    const core::Scenario compiled = readme_8b("torchtune", true, kReadmeLora);
    const core::Report eager_report = core::evaluate(eager), compiled_report = core::evaluate(compiled);
    // The same GEMMs and attention either way; Inductor's kernels cut the elementwise time and the launches.
    CHECK(compiled_report.compute.breakdown_seconds.gemm_seconds == Approx(eager_report.compute.breakdown_seconds.gemm_seconds));
    CHECK(compiled_report.compute.breakdown_seconds.elementwise_seconds < 0.5 * eager_report.compute.breakdown_seconds.elementwise_seconds);
    CHECK(compiled_report.compute.step_seconds < eager_report.compute.step_seconds);
    CHECK(compiled_report.compute.kernels.size() < eager_report.compute.kernels.size());
    // The eager loss keeps every chunk's fp32 log-probabilities for the backward: 2 x 2,048 x 128,256 x 4 B = 2.1 GB; the
    // compiled one keeps the bf16 logits it read (1.05 GB) and a log-sum-exp per row.
    const double fp32_logits_bytes = 2.0 * 2048 * 128256 * 4;
    CHECK(eager_report.memory.peak_allocated_bytes - compiled_report.memory.peak_allocated_bytes > 0.4 * fp32_logits_bytes);
    // torchtune's recipe describes both, so the field is its own: no warning either way.
    CHECK_FALSE(says_compile_changes_nothing(eager, eager_report));
    CHECK_FALSE(says_compile_changes_nothing(compiled, compiled_report));
}

TEST_CASE("torch.compile on a recipe that does not describe it (eager ops, the probe's and Megatron's blocks) changes nothing, and the report says so", "[torchtune][finetune]") {
    for (const std::string framework : {"pytorch-eager", "torchtitan", "megatron-core"}) {
        INFO(framework);
        const std::string lora = framework == "torchtitan" ? R"({"method": "lora", "rank": 8, "alpha": 16, "targets": ["wq", "wv"]})" : R"({"method": "full"})";
        const core::Scenario eager = readme_8b(framework, false, lora), compiled = readme_8b(framework, true, lora);
        const core::Report eager_report = core::evaluate(eager), compiled_report = core::evaluate(compiled);
        CHECK(compiled_report.compute.step_seconds == eager_report.compute.step_seconds);
        CHECK(compiled_report.memory.peak_allocated_bytes == eager_report.memory.peak_allocated_bytes);
        CHECK(says_compile_changes_nothing(compiled, compiled_report));
        CHECK_FALSE(says_compile_changes_nothing(eager, eager_report));
    }
}

TEST_CASE("torchtune: LoRA targets name torchtune's modules, and a Hugging Face name is refused naming the field", "[torchtune][finetune]") {
    const core::LoraCounts counts = core::lora_counts(readme_8b("torchtune", true, kReadmeLora));
    // q_proj (4,096 -> 4,096) and v_proj (4,096 -> 1,024) at rank 8 over 32 layers: 8 x (4,096 + 4,096 + 4,096 + 1,024) x 32.
    CHECK(counts.adapter_params == 8.0 * (4096 + 4096 + 4096 + 1024) * 32);
    try {
        (void)readme_8b("torchtune", true, R"({"method": "lora", "targets": ["gate_proj"]})");
        FAIL("gate_proj accepted");
    } catch (const core::InputError& error) {
        CHECK(error.field() == "finetune.targets");
        CHECK(std::string(error.what()).find("mlp.w1") != std::string::npos);
    }
}

// torchtune's README: Llama 3.1 70B LoRA on 8 A100s under FSDP2 (lora_finetune_distributed, 70B_lora.yaml): each GPU
// holds an eighth of the frozen bf16 base (141 GB / 8), not all of it, and gathers one layer at a time beside the next.
TEST_CASE("LoRA under ZeRO-3: FSDP2 shards the frozen base over the data-parallel ranks and gathers it a layer at a time", "[torchtune][finetune][zero]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-70b"},
        "train": {"seq_len": 2048, "micro_batch": 2, "global_batch": 16, "framework": "torchtune", "recompute": "full", "dropout": false, "compile": true},
        "precision": {"recipe": "bf16-pure-adamw"}, "parallel": {"zero": 3}, "cluster": {"gpu": "a100-sxm", "gpus": 8, "gpus_per_node": 8},
        "finetune": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "k_proj", "v_proj"], "adapter_dtype": "bf16"}})");
    const core::Report report = core::evaluate(scenario);
    const core::LoraCounts counts = core::lora_counts(scenario);
    CHECK(report.memory.per_gpu.weights_bytes == Approx((counts.frozen_bytes + 2.0 * counts.adapter_params) / 8.0));
    // The replayed step holds the shard, the checkpoints and two gathered layers (bf16, 1.71 GB each): above the state
    // and the checkpoints by at least those, and below the whole base.
    const double layer_bytes = counts.layer_frozen_bytes;
    CHECK(layer_bytes == Approx(2.0 * (2 * 8192.0 * 8192 + 2 * 8192.0 * 1024 + 3 * 8192.0 * 28672) + 2 * 2.0 * 8192).epsilon(1e-6));
    const double checkpoints = 80.0 * 2 * 2048 * 8192 * 2;
    CHECK(report.memory.peak_allocated_bytes > report.memory.per_gpu.weights_bytes + checkpoints + 2.0 * layer_bytes);
    CHECK(report.memory.peak_allocated_bytes < counts.frozen_bytes / 4.0);
}
