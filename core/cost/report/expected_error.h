#pragma once
// How sure the modelled step is: the error of the model on the validation set's runs of the same regime (framework x GPU
// generation x scale), and the best MFU published for that framework on that GPU, which no layout is modelled above.
// The figures are data (assets/expected_error.json), written by the validation test (tests/test_validation_set.cpp)
// from validation/runs.json, so they always describe the model as it is.
#include "core/model/scenario.h"

#include <string>
#include <string_view>

namespace core {

// The regime a scenario's step belongs to: "megatron-core / Hopper / 9-256 GPUs".
struct Regime {
    std::string framework;   // framework_name
    std::string generation;  // "Ampere", "Ada", "Hopper", "Blackwell", "CDNA 3"
    std::string scale;       // "1 GPU", "1 node", "up to 256 GPUs", "over 256 GPUs"
    std::string name() const { return framework + " / " + generation + " / " + scale; }
};
Regime regime_of(const Scenario&);
const char* gpu_generation(std::string_view gpu_id);

struct ExpectedError {
    bool validated = false;       // runs of this regime are in the validation set
    int runs = 0;
    double mean_abs_error = 0;    // mean |modelled / published - 1| of the step over them
    double signed_mean_error = 0; // its signed mean: > 0, the model is slow there; < 0, fast
    std::string regime;
};
ExpectedError expected_error(const Scenario&);

// The program a ceiling is published for: "framework / gpu", with " / fp8" for fp8 GEMMs and " / compile" where
// torch.compile changes the recipe's kernels (a compiled program is not held by eager runs' MFU, nor they by its).
std::string mfu_ceiling_key(const Scenario&, bool fp8_gemms);
// The best MFU published for the scenario's program (mfu_ceiling_key) on its GPU: 0 when none is.
struct MfuCeiling {
    double mfu = 0;
    std::string run;              // the validation run that published it
};
MfuCeiling mfu_ceiling(const Scenario&, bool fp8_gemms);

// A modelled step held to a ceiling: no faster than its model FLOPs at `ceiling_mfu` of all its GPUs' peak (0: no ceiling).
double step_within_ceiling_seconds(double modelled_step_seconds, double model_flops_per_step, double peak_flops_per_s_all_gpus,
                                   double ceiling_mfu);

}  // namespace core
