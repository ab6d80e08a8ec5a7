// NeMo AutoModel's own Llama (assets/frameworks/nemo-automodel-llama.json, commit 507bfb751): one QKV and one gate-up
// projection split into views, LoRA through its Triton kernels with dropout on the adapter's output; and how autograd
// sums the gradients of a tensor several ops read, which the split changes. Its published LoRA runs are checked in
// tests/test_validation_set.cpp.
#include "core/cost/kernels/lora_ops.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

namespace {

// AutoModel's Llama 3.1 8B LoRA benchmark (examples/llm_finetune/llama3_1/llama3_1_8b_peft_benchmark.yaml at 507bfb751):
// match_all_linear (lm_head excluded by its ModuleMatcher), dim 16, alpha 32, dropout 0.1, 2 x 4,096 tokens.
core::Scenario benchmark(const std::string& framework) {
    return core::parse_scenario(R"({"model": {"preset": "llama3-8b"},
        "train": {"seq_len": 4096, "micro_batch": 2, "global_batch": 2, "framework": ")" + framework + R"(", "recompute": "none", "dropout": false},
        "precision": {"recipe": "pytorch-fsdp2-mixed"}, "parallel": {"zero": 3}, "cluster": {"gpu": "h100-sxm", "gpus": 1, "gpus_per_node": 8},
        "finetune": {"method": "lora", "rank": 16, "alpha": 32, "dropout": 0.1, "targets": "all-linear"}})");
}

int kernels_labelled(const core::BlockProgram& program, const char* label) {
    int count = 0;
    for (const core::Kernel& kernel : program.backward) count += kernel.label && std::strcmp(kernel.label, label) == 0;
    return count;
}

}  // namespace

TEST_CASE("NeMo AutoModel's Llama: one adapter on the fused QKV and one on gate-up, four a layer where PEFT has seven", "[automodel][finetune]") {
    // Per layer at rank 16: qkv_proj 16 x (4,096 + 6,144), o_proj 16 x (4,096 + 4,096), gate_up_proj 16 x (4,096 + 28,672),
    // down_proj 16 x (14,336 + 4,096); over 32 layers.
    CHECK(core::lora_counts(benchmark("nemo-automodel")).adapter_params == 32.0 * 16 * (10240 + 8192 + 32768 + 18432));
    // Hugging Face's separate projections under PEFT: q, k, v, o, gate, up, down.
    CHECK(core::lora_counts(benchmark("hf-transformers")).adapter_params ==
          32.0 * 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 2 * (4096 + 14336) + (14336 + 4096)));
}

TEST_CASE("Gradient sums: a tensor read by three ops gets two adds, a split's parts their own, and the split one concatenation", "[automodel][finetune]") {
    const core::LayerSplit split{.micro_batch = 2};
    // Hugging Face's RoPE reads q three times (q * cos and the two halves rotate_half slices), k likewise: two adds each.
    // The halves are read once each (by neg and cat): no add for them, though they are views of q.
    const auto hf = core::block_program(benchmark("hf-transformers"), split, core::BlockRole::layer);
    CHECK(kernels_labelled(*hf, "autograd.split_backward") == 0);
    // AutoModel: q and k as views of one QKV output, each read by the same three RoPE ops: two adds each, and one
    // concatenation of q, k and v's gradients into qkv's (SplitBackward); gate and up: one concatenation, no add.
    const auto automodel = core::block_program(benchmark("nemo-automodel"), split, core::BlockRole::layer);
    CHECK(kernels_labelled(*automodel, "autograd.split_backward") == 2);
    // The residual stream (x read by the norm and the residual add), the normed input of each projection (its base GEMM
    // and its adapter), q and k: PEFT's seven adapters give more sums than AutoModel's four.
    CHECK(kernels_labelled(*automodel, "autograd.accumulate_grad") < kernels_labelled(*hf, "autograd.accumulate_grad"));
}
