#pragma once
// Scenarios the core tests share: built through parse_scenario, the same path a scenario file takes.
#include "core/cost/evaluate.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace core_tests {

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
