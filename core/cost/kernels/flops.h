#pragma once
// FLOPs of a training step: model FLOPs (what MFU counts) and the recompute extra (what HFU adds).
#include "core/model/scenario.h"

namespace core {

// Model FLOPs per token for forward + backward (Korthikanti eq. 7 for GPT; 6N for a bare count).
double model_flops_per_token(const ModelSpec&, int seq_len);
// The FLOPs per token the GPUs execute (what HFU counts): the model FLOPs plus recompute (Korthikanti eq. 8, Narayanan
// eq. 3). Unfused attention computes every score and then masks; causal flash kernels skip the masked half of each
// attention product, forward, backward (2.5 forwards: dQ, dK, dV and the recomputed scores) and recomputed.
double hardware_flops_per_token(const ModelSpec&, int seq_len, Recompute, bool flash_attention);

}  // namespace core
