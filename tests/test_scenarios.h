#pragma once
// Scenarios the core tests share: built through parse_scenario, the same path a scenario file takes.
#include "core/cost/report/evaluate.h"
#include "core/cost/kernels/kernels.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace core_tests {

// The file names of assets/scenarios/*.json, sorted.
inline std::vector<std::string> shipped_scenarios() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios")) {
        if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// What CUDA gives a process on an H100 SXM 80GB, the catalog's hbm_bytes: torch total_memory, measured on our H100
// (measurements/h100_kernel_probe.json "hbm_bytes"). The datasheet's "80 GB" are 80 GiB (85.9e9 B), less the driver's share.
inline constexpr double h100_hbm_bytes = 85017493504.0;

// One training run measured on one H100: the probes' GPT (LayerNorm, biases, GeLU MLP 4h, learned positions) or
// Llama-style block (RMSNorm, no biases, SwiGLU of ceil(8h/3 / 256) x 256), multi-head attention, untied head, no dropout.
struct ProbeRun {
    int layers, hidden, heads, vocab, seq, batch;
    bool fused_attention, checkpointing, llama, pure_bf16;
    double params, state_bytes, peak_bytes;
};

// What the probes ran, as a scenario: PyTorch eager; autocast over fp32 weights (the PyTorch AMP recipe) or a bf16 model.
// The measured peaks are max_memory_allocated above what was allocated before the model: no fragmentation, and the
// cuBLAS workspace in the state only in a process's first run, so both are left out here.
inline core::Scenario probe_scenario(const ProbeRun& run, core::Recompute recompute) {
    const int ffn = run.llama ? static_cast<int>(std::ceil(8.0 * run.hidden / 3.0 / 256.0)) * 256 : 4 * run.hidden;
    const std::string json = R"({"model": {"name": "probe", "layers": )" + std::to_string(run.layers) + R"(, "hidden": )" +
                             std::to_string(run.hidden) + R"(, "heads": )" + std::to_string(run.heads) + R"(, "kv_heads": )" +
                             std::to_string(run.heads) + R"(, "ffn_hidden": )" + std::to_string(ffn) + R"(, "vocab": )" +
                             std::to_string(run.vocab) + R"(, "gated_mlp": )" + (run.llama ? "true" : "false") +
                             R"(, "tied_embeddings": false, "learned_positions": )" + (run.llama ? "false" : "true") +
                             R"(, "positions": 0, "bias": )" + (run.llama ? "false" : "true") + R"(},
        "train": {"seq_len": )" + std::to_string(run.seq) + R"(, "micro_batch": )" + std::to_string(run.batch) + R"(, "global_batch": )" +
                             std::to_string(run.batch) + R"(, "flash_attention": )" + (run.fused_attention ? "true" : "false") +
                             R"(, "recompute": ")" + core::recompute_name(recompute) + R"(", "framework": "pytorch-eager"},
        "precision": {"recipe": ")" + (run.pure_bf16 ? "bf16-pure-adamw" : "pytorch-amp-adam") + R"("},
        "cluster": {"gpu": "h100-sxm", "gpus": 1}, "memory": {"fragmentation": 0, "workspace_bytes": 0}})";
    return core::parse_scenario(json);
}

// One GEMM as the kernel builder makes it (tokens are m, or k in a weight gradient), untimed.
inline core::Kernel gemm_kernel(core::KernelPass pass, double m, double n, double k, double element_bytes = 2.0) {
    core::Kernel kernel;
    kernel.is_gemm = true;
    kernel.pass = pass;
    kernel.m = m;
    kernel.n = n;
    kernel.k = k;
    kernel.flops = 2.0 * m * n * k;
    kernel.bytes = element_bytes * (m * k + k * n + m * n);
    return kernel;
}

// A scenario shipped under assets/scenarios/, read as the app reads it.
inline core::Scenario shipped(const std::string& name) {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios/" + name);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return core::parse_scenario(text.str());
}

// Sum of the training state on one GPU: what ZeRO Table 1 counts (activations excluded).
inline double state_per_gpu_bytes(const core::Report& report) {
    const core::PerGpuMemory& per_gpu = report.memory.per_gpu;
    return per_gpu.weights_bytes + per_gpu.grads_bytes + per_gpu.master_bytes + per_gpu.optimizer_bytes;
}

// Megatron-LM's setting (Narayanan 2021, Korthikanti 2022): A100 SXM, s = 2048, no flash attention, dropout 0.1.
inline core::Scenario megatron_a100(const std::string& preset, int tp, int pp, int gpus, int global_batch,
                                    const std::string& extra_train = "") {
    const std::string json = R"({"model": {"preset": ")" + preset + R"("},
        "train": {"seq_len": 2048, "global_batch": )" + std::to_string(global_batch) +
                             R"(, "flash_attention": false, "dropout": true)" + extra_train + R"(},
        "parallel": {"tp": )" + std::to_string(tp) + R"(, "pp": )" + std::to_string(pp) + R"(},
        "cluster": {"gpu": "a100-sxm", "gpus": )" + std::to_string(gpus) + R"(, "scale_up_link": "nvlink3", "scale_out_link": "ib-hdr"}})";
    return core::parse_scenario(json);
}

// A bare parameter count on N_d data-parallel GPUs, one sequence per GPU per micro-batch.
inline core::Scenario bare_params(double params, int dp, int zero, int global_batch) {
    const std::string json = R"({"model": {"params": )" + std::to_string(params) + R"(},
        "train": {"global_batch": )" + std::to_string(global_batch) + R"(},
        "parallel": {"dp": )" + std::to_string(dp) + R"(, "zero": )" + std::to_string(zero) + "}}";
    return core::parse_scenario(json);
}

}  // namespace core_tests
