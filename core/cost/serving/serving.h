#pragma once
// Serving (seed 000's third wall): what one replica's prefill and decode step cost, from the kernels they run; continuous
// batching up to what the KV cache holds; tensor parallelism inside the replica (and pipeline stages when its weights
// outgrow a node); as many replicas as the target rate needs. The answer is the fewest GPUs that meet the rate, the
// time to first token and the time per output token.
#include "core/cost/kernels/roofline.h"
#include "core/model/scenario.h"

#include <string>
#include <vector>

namespace core {

// A replica: tp GPUs of one node share every layer (Megatron-style, two all-reduces per layer), pp stages of them when
// the weights and one sequence's KV cache outgrow a node.
struct ReplicaShape {
    int tp = 1;
    int pp = 1;
    int gpus() const { return tp * pp; }
    bool operator==(const ReplicaShape&) const = default;
};

// One pass of a replica: a decode step (every sequence of the batch gets one token) or the prefill of prompts.
struct ServingPass {
    double seconds = 0;            // the pass, every pipeline stage in turn; without CUDA graphs each kernel takes at least
                                   // its launch (as training's eager kernels are timed)
    double gpu_seconds = 0;        // the kernels and collectives of every stage in turn
    double host_seconds = 0;       // without CUDA graphs: the host's calls, launches and views
    double weight_seconds = 0;     // the linear layers' GEMVs or GEMMs, the vocabulary head included
    double attention_seconds = 0;  // decode: reading the KV cache; prefill: causal attention over the prompt
    double other_seconds = 0;      // norms, RoPE, KV-cache writes, activations, sampling: each at least its floor
    double comm_seconds = 0;       // TP all-reduces and the sends between pipeline stages
    double flops = 0;              // one GPU of one stage
    double bytes = 0;              // one GPU of one stage, to and from HBM
    double weight_bytes = 0;       // of those, the weights
    double kv_bytes = 0;           // of those, the KV cache read (decode)
    int kernels = 0;               // one GPU of one stage launches
    bool host_bound = false;       // the host's calls take longer than the GPU's work (without CUDA graphs)
};

// What one GPU of a replica holds: weights, a prefill's activations and workspace, and the KV cache in what is left of
// the share of HBM the engine takes.
struct ReplicaMemory {
    double hbm_bytes = 0;                  // the GPU's
    double usable_bytes = 0;               // hbm x serving.memory_utilization
    double weight_bytes = 0;               // the weights' share of one GPU
    double activation_bytes = 0;           // one prompt's prefill activations, the batch's logits, cuBLAS workspaces
    double kv_capacity_bytes = 0;          // usable - weights - activations (negative: the weights do not fit)
    double kv_bytes_per_token = 0;         // one token's K and V on one GPU (its stage's layers, its KV heads)
    double kv_bytes_per_sequence = 0;      // at the mean context of a sequence in flight: prompt + half the output
    int kv_batch = 0;                      // sequences the KV cache holds at that context
    int max_batch = 0;                     // the same, held to serving.max_batch: what the replica runs at most
    bool fits = false;                     // the weights and one sequence at its longest fit
};

// A replica at a batch: what continuous batching gives when `batch` sequences are in flight and batch / output_tokens new
// prompts arrive per step, to be prefilled.
struct ServingPoint {
    ReplicaShape shape;
    int batch = 0;
    double context_tokens = 0;             // mean context in flight: prompt + half the output
    double step_seconds = 0;               // one decode step of `batch` sequences at that context, every stage in turn, with
                                           // the prompts that arrive meanwhile prefilled in the same pass (engines)
    double prefill_seconds = 0;            // one prompt alone, every stage in turn
    double tpot_seconds = 0;               // per output token: the step, and the prompts prefilled between steps (PyTorch)
    double ttft_seconds = 0;               // one prompt's prefill after the step in flight
    double replica_tokens_per_s = 0;       // output tokens the replica generates: batch / tpot
    double replica_queries_per_s = 0;
    double tokens_per_s_per_gpu = 0;
};

enum class ServingVerdict {
    meets,         // replicas x shape meet the rate and both targets
    latency,       // no shape meets TTFT or TPOT at any batch
    kv_cache,      // no shape holds the weights and one sequence's KV cache
};

// The answer: the fewest GPUs that meet the rate, TTFT and TPOT, and what they run.
struct ServingAnswer {
    ServingVerdict verdict = ServingVerdict::meets;
    ReplicaShape shape;                    // TP x PP of one replica
    int replicas = 0;
    int gpus = 0;                          // replicas x tp x pp
    ServingPoint point;                    // the batch each replica runs at the target rate
    int max_batch = 0;                     // what its KV cache holds
    double dollars_per_million_tokens = 0; // GPUs x price / output tokens served
    // Where no shape meets a target: the best any shape does (batch 1), and the cheapest catalog GPU that meets them.
    bool ttft_missed = false, tpot_missed = false;
    double best_ttft_seconds = 0, best_tpot_seconds = 0;
    ReplicaShape best_shape;               // the shape the best figures come from
    std::string alternative_gpu;           // a catalog GPU's name that meets both targets ("" when none does)
    int alternative_gpus = 0;              // and how many of it the service needs
    ReplicaShape alternative_shape;
    double alternative_tpot_seconds = 0;   // on that GPU
    double alternative_ttft_seconds = 0;
};

// Every serving figure of a scenario. The quoted pass (serving.batch sequences at serving.context_tokens, a prompt of
// serving.context_tokens tokens) runs on the answer's replica shape, or the smallest that holds the weights.
struct ServingReport {
    int gpu_budget = 0;                    // serving.gpus, or the cluster's
    ReplicaShape quoted_shape;
    double prefill_tokens_per_s = 0;       // one sequence of serving.context_tokens prompt tokens
    double prefill_seconds = 0;
    double decode_step_seconds = 0;        // serving.batch sequences at serving.context_tokens tokens of context
    double replica_tokens_per_s = 0;       // serving.batch / decode_step_seconds
    ReplicaMemory memory;                  // on the answer's (or quoted) shape
    ServingAnswer answer;
    double fraction = 0;                   // GPUs the service needs over the budget; infinite where no shape meets it
};

// The service's verdict against its GPU budget: it meets only where a shape meets the targets and the GPUs it needs fit
// the budget (the serving wall's fraction at most 1). "meets", "over_budget", "latency", "kv_cache": serve's JSON and exit.
enum class ServingOutcome { meets, over_budget, latency, kv_cache };
ServingOutcome serving_outcome(const ServingReport&);
const char* serving_outcome_key(ServingOutcome);

// The replica shapes a scenario's model can take: TP 1, 2, 4 ... up to a node, dividing the heads (and the KV heads, or
// by them); then, when none holds the weights and one sequence, pipeline stages of a whole node's TP.
std::vector<ReplicaShape> replica_shapes(const Scenario&);
ReplicaMemory replica_memory(const Scenario&, ReplicaShape);
ServingPass decode_pass(const Scenario&, ReplicaShape, int batch, double context_tokens);
ServingPass prefill_pass(const Scenario&, ReplicaShape, int sequences, int prompt_tokens);
ServingPoint serving_point(const Scenario&, ReplicaShape, int batch);
// Throws InputError naming the serving field that is out of range.
ServingReport serving_report(const Scenario&);

// The serving panel's figures, each a plain list the panel draws.
struct ServingCurvePoint {
    int batch = 0;
    double tpot_seconds = 0;
    double ttft_seconds = 0;
    double tokens_per_s_per_gpu = 0;
    bool meets = false;                    // both targets at this batch
};
struct ServingCurve {
    ReplicaShape shape;
    std::vector<ServingCurvePoint> points; // batch 1, 2, 4 ... up to the shape's KV-cache batch
    int max_batch = 0;
};
struct KvFillPoint {
    int batch = 0;
    double kv_bytes = 0;                   // per GPU, at the mean context in flight
};
struct RooflinePassPoint {
    std::string label;                     // "decode, batch 64"
    bool prefill = false;
    int batch = 0;
    double intensity_flops_per_byte = 0;
    double flops_per_s = 0;                // achieved: one GPU's FLOPs over the pass's GPU time
};
struct ServingShapeRow {
    ReplicaShape shape;
    bool fits = false;
    int max_batch = 0;
    bool meets = false;                    // some batch meets both targets
    ServingPoint point;                    // the batch it runs at the target rate (or batch 1 where it cannot meet them)
    int replicas = 0;
    int gpus = 0;
};
struct ServingCurves {
    std::vector<ServingCurve> throughput_latency;  // one per shape that holds the weights
    ReplicaMemory memory;                          // the answer's shape
    std::vector<KvFillPoint> kv_fill;              // the answer's shape, batch 1 .. past its KV-cache batch
    Ceiling roof;                                  // the GPU's bf16 roof (the weights' precision's where it has one)
    std::vector<RooflinePassPoint> roofline;       // prefill of one prompt and decode at batch 1, 2, 4 ... on the answer's shape
    std::vector<ServingShapeRow> shapes;           // replicas x shape for every shape
};
ServingCurves serving_curves(const Scenario&, const ServingReport&);

}  // namespace core
