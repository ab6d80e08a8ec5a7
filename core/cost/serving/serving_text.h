#pragma once
// The serving figures' sentences, written once: the walls, `eval`, `serve` and the serving panel print these.
#include "core/cost/serving/serving.h"
#include "core/model/scenario.h"

#include <string>

namespace core {

// "TP 4", "TP 8 x PP 2".
std::string replica_shape_label(ReplicaShape);
// "2 x TP 4 = 8 GPUs", "1 x TP 8 x PP 2 = 16 GPUs".
std::string replicas_label(int replicas, ReplicaShape);

struct ServingText {
    std::string load;       // "10.0 QPS x (1024 prompt + 256 output tokens), TTFT <= 2.00 s, TPOT <= 200 ms"
    std::string answer;     // "2 x TP 4 = 8 GPUs at batch 35: TTFT 107 ms, TPOT 26.9 ms, 1283 tokens/s per GPU, $2.56 per M tokens"
    std::string shortfall;  // where no shape meets the targets: what misses by how much, and what would meet them; else ""
    std::string precision;  // "bf16 weights, bf16 KV cache, engine kernels, CUDA graphs"
    std::string budget;     // "8 GPUs for serving", "64 GPUs (the cluster's)"
    std::string verdict;    // against the budget: "meets it within 8 GPUs", "over budget: needs 3 GPUs, has 1 GPU", ...
};
ServingText serving_text(const Scenario&, const ServingReport&);

}  // namespace core
