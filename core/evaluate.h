#pragma once
// The one entry point of the cost model: a Scenario in, every derived figure out.
#include "core/report.h"
#include "core/scenario.h"

namespace core {

// Validates (throws InputError naming the field) and computes the whole Report. Pure: same input, same output.
Report evaluate(const Scenario&);

// Korthikanti et al. 2022 Table 2, generalised to GQA and gated MLPs; exposed for the panels and tests.
ActivationReport activation_memory(const Scenario&, int layers_on_first_stage, double inflight_microbatches);

// Model FLOPs per token for forward + backward (Korthikanti eq. 7 for GPT; 6N for a bare count), and the recompute extra.
double model_flops_per_token(const ModelSpec&, int seq_len);
double recompute_flops_per_token(const ModelSpec&, int seq_len, Recompute, bool flash_attention);

// The heaviest pipeline stage's layer count: ceil(L / pp) (Llama 3 trims the first and last stages instead).
int layers_on_first_stage(int layers, int pp);

}  // namespace core
