#pragma once
// FLOPs of a training step: model FLOPs (what MFU counts) and the recompute extra (what HFU adds).
#include "core/model/scenario.h"

namespace core {

// Model FLOPs per token for forward + backward (Korthikanti eq. 7 for GPT; 6N for a bare count).
double model_flops_per_token(const ModelSpec&, int seq_len);
// The extra FLOPs per token that recompute (or flash attention's backward) adds: eq. 8 minus eq. 7, Narayanan eq. 3.
double recompute_flops_per_token(const ModelSpec&, int seq_len, Recompute, bool flash_attention);

}  // namespace core
