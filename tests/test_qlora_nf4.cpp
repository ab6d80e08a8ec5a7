// QLoRA's frozen base as bitsandbytes stores it (Dettmers et al. 2023 sec 3, "Double Quantization": one fp32 absmax per
// block of 64 weights costs 32/64 = 0.5 bits per parameter; quantized again to 8 bits in blocks of 256, 8/64 + 32/(64 x 256)
// = 0.127 bits), and the shipped example assets/scenarios/llama3-8b-qlora-rtx4090.json: Llama 3 8B on one 24 GB RTX 4090.
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/figure_text.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <cstdio>

TEST_CASE("QLoRA paper sec 3: NF4 costs 4 bits plus 0.5 bits of constants per weight, 0.127 with double quantization", "[lora][qlora]") {
    core::FinetuneSpec nf4;
    nf4.method = core::FinetuneMethod::qlora;
    nf4.base_bytes = 0.5;
    const double params = 4096.0 * 4096.0;
    nf4.double_quant = false;
    CHECK(core::frozen_linear_bytes(4096, 4096, nf4) / params == Approx((4.0 + 0.5) / 8.0).epsilon(1e-12));
    nf4.double_quant = true;
    CHECK(core::frozen_linear_bytes(4096, 4096, nf4) / params == Approx((4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0).epsilon(1e-12));
    // LLM.int8 (Linear8bitLt): one byte per weight and an fp32 scale per output row; bf16: two bytes.
    core::FinetuneSpec int8 = nf4;
    int8.base_bytes = 1;
    CHECK(core::frozen_linear_bytes(14336, 4096, int8) == 14336.0 * 4096.0 + 4.0 * 14336.0);
    core::FinetuneSpec bf16;
    bf16.method = core::FinetuneMethod::lora;
    CHECK(core::frozen_linear_bytes(14336, 4096, bf16) == 2.0 * 14336.0 * 4096.0);
}

TEST_CASE("Llama 3 8B QLoRA on one RTX 4090 (assets/scenarios/llama3-8b-qlora-rtx4090.json): fits, and full fine-tuning does not", "[lora][qlora]") {
    const core::Scenario qlora = core_tests::shipped("llama3-8b-qlora-rtx4090.json");
    REQUIRE(qlora.finetune.method == core::FinetuneMethod::qlora);
    // The base: the layers' seven linears in NF4 with double quantization, the embedding, the head and the norms in bf16.
    const double h = 4096, kv = 1024, ffn = 14336, vocab = 128256, layers = 32;
    const double linears = 2 * h * h + 2 * h * kv + 3 * h * ffn;
    const double nf4_bytes_per_weight = (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
    const double base_bytes = layers * (linears * nf4_bytes_per_weight + 2 * h * 2.0) + 2 * vocab * h * 2.0 + h * 2.0;
    const core::LoraCounts counts = core::lora_counts(qlora);
    CHECK(counts.frozen_bytes == Approx(base_bytes).epsilon(1e-9));
    // Rank 16 on every linear of the layers: r (in + out) each.
    CHECK(counts.adapter_params == layers * 16 * ((h + h) * 2 + (h + kv) * 2 + (h + ffn) * 3));

    const core::Report report = core::evaluate(qlora);
    std::printf("Llama 3 8B QLoRA on an RTX 4090: peak reserved %.2f GB of %.2f GB, step %.2f s\n", report.memory.peak_reserved_bytes / 1e9,
                qlora.cluster.gpu.hbm_bytes / 1e9, report.compute.step_seconds);
    CHECK(report.memory.fits);
    // Above the base and the adapters' state (16 B each: fp32 weights, gradients, two Adam moments): the activations.
    CHECK(report.memory.peak_allocated_bytes > base_bytes + 16.0 * counts.adapter_params);
    CHECK(report.memory.peak_reserved_bytes < qlora.cluster.gpu.hbm_bytes);

    // The same base in bf16 (LoRA) holds 2 B per weight: about 8.3 GB more, and runs no dequantization.
    core::Scenario lora = qlora;
    lora.finetune.method = core::FinetuneMethod::lora;
    lora.finetune.base_bytes = 2;
    const core::Report lora_report = core::evaluate(lora);
    CHECK(lora_report.memory.peak_allocated_bytes - report.memory.peak_allocated_bytes ==
          Approx(layers * linears * (2.0 - nf4_bytes_per_weight)).epsilon(0.05));
    CHECK(lora_report.compute.step_seconds < report.compute.step_seconds);

    // Full fine-tuning: 16 B of state per parameter, 128 GB: it does not fit.
    core::Scenario full = qlora;
    full.finetune = core::FinetuneSpec{};
    CHECK_FALSE(core::evaluate(full).memory.fits);
}

TEST_CASE("The configurator's fine-tune edits: the method brings its base precision, Megatron gives way to hf-transformers, the "
          "verdict names what fits, and a framework without module names is refused under adapters",
          "[lora][edits]") {
    const core::Scenario qlora = core_tests::shipped("llama3-8b-qlora-rtx4090.json");
    // The shipped example's verdict says what it fits with (the question students ask, answered in one sentence).
    const core::Report report = core::evaluate(qlora);
    CHECK_THAT(core::memory_verdict_text(qlora, report),
               Catch::Contains("fits in 25.4 GB on an RTX 4090 with QLoRA rank 16 (NF4 base) and checkpointing"));

    // LoRA from QLoRA: the bf16 base (PEFT over a bf16 model), rank and targets kept.
    const core::Edit lora = core::with_finetune_method(qlora, core::FinetuneMethod::lora);
    REQUIRE(lora.ok());
    CHECK(lora.scenario.finetune.base_bytes == 2);
    CHECK(lora.scenario.finetune.rank == 16);
    CHECK(lora.notes.empty());
    // Megatron runs fused blocks with no module names: LoRA switches it to hf-transformers and says so.
    const core::Scenario megatron = core_tests::shipped("llama2-7b-140b-tokens-14-days.json");
    REQUIRE(megatron.train.framework == core::Framework::megatron);
    const core::Edit adapted = core::with_finetune_method(megatron, core::FinetuneMethod::qlora);
    REQUIRE(adapted.ok());
    CHECK(adapted.scenario.train.framework == core::Framework::hf_transformers);
    CHECK(adapted.scenario.finetune.base_bytes == 0.5);
    REQUIRE(adapted.notes.size() == 1);
    CHECK_THAT(adapted.notes.front(), Catch::StartsWith("Framework megatron -> hf-transformers"));
    CHECK_NOTHROW(core::validate_scenario(adapted.scenario));
    // And back: a framework without module names cannot carry the adapters, so that edit is refused naming the method.
    const core::Edit back = core::with_framework(qlora, core::Framework::megatron);
    REQUIRE_FALSE(back.ok());
    CHECK(back.problem->field == "finetune.method");
    // The rank control's values are all accepted; a rank of 0 is refused naming the field.
    for (int rank : core::kLoraRankChoices) CHECK(core::with_lora_rank(qlora, rank).ok());
    const core::Edit zero = core::with_lora_rank(qlora, 0);
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.problem->field == "finetune.rank");
}
