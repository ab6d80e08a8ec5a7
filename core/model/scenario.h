#pragma once
// The inputs: everything a user can set. A scenario file names only what differs from these defaults
// (core/model/scenario_json.h reads and writes it; core/model/scenario_edits.h changes it).
#include "core/model/failures.h"
#include "core/model/finetune.h"
#include "core/model/hardware.h"
#include "core/model/model.h"
#include "core/model/precision.h"
#include "core/model/schedule_kind.h"

#include <optional>
#include <string_view>

namespace core {

enum class Recompute { none, selective, full };
const char* recompute_name(Recompute);  // "none", "selective", "full"

// How attention runs, by Hugging Face's attn_implementation names: sdpa, F.scaled_dot_product_attention on the backend the
// recipe names; flash_attention_2, the flash-attn package's kernels; eager, the scores, mask, softmax and context as
// separate ops, each s x s tensor they save kept. A Megatron-style layer runs fused (sdpa, flash_attention_2) or unfused.
enum class AttentionImpl { sdpa, flash_attention_2, eager };
constexpr AttentionImpl kAttentionImpls[] = {AttentionImpl::sdpa, AttentionImpl::flash_attention_2, AttentionImpl::eager};
const char* attention_impl_name(AttentionImpl);  // "sdpa", "flash_attention_2", "eager"
bool attention_impl_from_name(std::string_view, AttentionImpl&);
std::string attention_impl_names();              // "sdpa, flash_attention_2, eager" (for errors)

// What runs the step: each framework implementation is a recipe file (assets/frameworks/*.json) listing the kernels it
// launches and the tensors it keeps (core/model/framework_recipe.h). megatron: Megatron-LM as the 2021-2022 papers ran it;
// megatron-core: today's, with Transformer Engine (NeMo, Megatron-Bridge); deepspeed: Megatron-DeepSpeed under ZeRO;
// pytorch-eager: this project's probe module; hf-transformers: Hugging Face models run eagerly (the Llama or the GPT-2
// family, by the model); torchtitan: FSDP2; llm-foundry: Composer's FSDP1 with MPT; torchtune: its single-device and
// FSDP2 fine-tuning recipes, torchtune's own modules; nemo-automodel: NeMo AutoModel's own Llama under FSDP2.
enum class Framework { megatron, megatron_core, deepspeed, pytorch_eager, hf_transformers, torchtitan, llm_foundry, torchtune, nemo_automodel };
const char* framework_name(Framework);  // "megatron", "megatron-core", ..., "nemo-automodel"
bool framework_from_name(std::string_view, Framework&);
inline constexpr Framework kFrameworks[] = {Framework::megatron, Framework::megatron_core, Framework::deepspeed, Framework::pytorch_eager,
                                            Framework::hf_transformers, Framework::torchtitan, Framework::llm_foundry,
                                            Framework::torchtune, Framework::nemo_automodel};
// Megatron's family keeps gradients in fp32 main-grad buffers and launches fused kernels; the others run PyTorch's autograd.
bool is_megatron_family(Framework);

struct TrainSpec {
    int seq_len = 8192;             // tokens per sequence (the seeds' B = 1, T = 8k)
    int micro_batch = 1;            // sequences per micro-batch per data-parallel rank
    int global_batch = 512;         // sequences per optimizer step, across all data-parallel ranks
    double tokens = 15e12;          // training budget (Llama 3: 15T)
    Recompute recompute = Recompute::none;
    bool sequence_parallel = false; // Korthikanti et al. 2022: shard LayerNorm/dropout activations over TP
    AttentionImpl attention = AttentionImpl::sdpa;  // fused attention stores no s x s matrix: drops the 5as/h term
    bool dropout = false;           // dropout after attention and MLP and on the attention probabilities (Megatron's GPT
                                    // recipes use 0.1 and Korthikanti's Table 2 counts its masks; Llama trains without)
    double deadline_days = 90;      // the time wall's budget
    Framework framework = Framework::megatron;
    bool compile = false;           // torch.compile: a recipe's ops marked "when": "compile" (Inductor's fused kernels) replace
                                    // those marked "!compile"; a recipe that marks none runs eagerly either way
    bool zero_grad_set_to_none = true;  // PyTorch's default zero_grad(): gradients freed after the optimizer step, not zeroed
    // Weight gradients accumulated into the fp32 main gradients by the GEMM itself (Megatron --gradient-accumulation-fusion,
    // since 2022-02; in fp16 since 2022-09, commit 07916bf); off, each micro-batch adds them in a separate pass.
    bool gradient_accumulation_fusion = true;
    // The embedding and the loss each take one layer's place when a pipeline splits the layers, so the first and the last
    // stage hold one layer fewer (Llama 3, Dubey et al. 2024 sec 3.3.2; Megatron-LM --account-for-embedding-in-pipeline-split
    // and --account-for-loss-in-pipeline-split). Off: every stage takes L / pp, the first stages the remainder.
    bool embedding_and_loss_as_layers = false;
    // Set by the scenario parser when a file leaves global_batch out and the default does not divide over its layout: the
    // batch became the smallest multiple of dp x micro_batch not below the default, as DeepSpeed derives train_batch_size
    // from micro-batch x accumulation x data-parallel size. The report carries a note saying so.
    bool global_batch_fitted = false;

    bool fused_attention() const { return attention != AttentionImpl::eager; }

    bool operator==(const TrainSpec&) const = default;
};

// How a ZeRO-3 engine gathers and reduces, each from its own code. coalesced: one all-gather of a layer's (an FSDP unit's)
// weights, prefetched one layer ahead, and one reduce-scatter of its gradients (FSDP1/FSDP2, DeepSpeed since 0.6's
// coalesced collectives). deepspeed-0.4: DeepSpeed 0.3.13-0.4.2 (2021), as Narayanan et al. 2021 Table 2 ran it
// (core/cost/kernels/comm.cpp zero3_engine_rules).
enum class ShardingEngine { coalesced, deepspeed_0_4 };
const char* sharding_engine_name(ShardingEngine);  // "coalesced", "deepspeed-0.4"
const char* sharding_engine_label(ShardingEngine);  // what a control calls it: "FSDP / DeepSpeed >= 0.6", "DeepSpeed 0.4 (2021)"
const char* sharding_engine_help(ShardingEngine);   // how it gathers and reduces, in a sentence

struct ParallelSpec {
    int dp = 0;                     // 0: derived as gpus / (tp * pp * cp)
    int tp = 1;
    int pp = 1;
    int cp = 1;
    int zero = 0;                   // ZeRO stage 0..3 over the data-parallel group
    ScheduleKind schedule = ScheduleKind::one_f_one_b;
    int virtual_stages = 1;         // interleaved schedule: model chunks per device
    int ep = 1;                     // expert parallel: each MoE layer's routed experts split over ep GPUs (a model with experts)
    int etp = 1;                    // expert tensor parallel: each expert's MLP split over etp GPUs; ep x etp folds over the
                                    // tp x cp x dp GPUs of a pipeline stage (Megatron-Core MoE parallel folding)
    ShardingEngine zero3_engine = ShardingEngine::coalesced;  // what ZeRO-3 runs on

    bool operator==(const ParallelSpec&) const = default;
};

struct ClusterSpec {
    GpuSpec gpu;                    // default: H100 SXM from the catalog
    int gpus_per_node = 8;
    int gpus = 64;                  // seed 001's cluster: eight nodes of eight H100s
    LinkSpec scale_up;              // inside a node (NVLink), from the GPU's catalog entry
    LinkSpec scale_out;             // between nodes: the GPU's own (InfiniBand NDR for most) unless a file names one
    FabricSpec fabric;              // how the scale-out network is built: rails, oversubscription, pods
    // A synchronous step waits for its slowest machine: MegaScale (Jiang et al. 2024, arXiv 2402.15627) found about
    // 0.5 % of hosts (sec 5.1) taking about 10 % longer for the same forward computation (sec 6.3).
    double straggler_share = 0.005;    // the share of machines that run slow
    double straggler_slowdown = 0.10;  // how much longer such a machine takes over the same compute
    static constexpr double kMaxStragglerSlowdown = 10;  // a file or control may ask at most 10x longer

    bool operator==(const ClusterSpec&) const = default;
};

struct EfficiencySpec {
    std::optional<double> mfu;            // assume this MFU: step = model FLOPs / (GPUs x peak x mfu)
    std::optional<double> step_seconds;   // a measured iteration time: MFU follows from it

    bool operator==(const EfficiencySpec&) const = default;
};

// What communication hides behind compute. Overlapped communication still costs: it holds SMs and memory bandwidth
// (each link's compute_slowdown). Defaults: what Megatron-Core does out of the box with its overlap flags on.
struct OverlapSpec {
    bool dp_grad_reduce = true;    // DP gradients reduced in buckets behind the backward, all but the last bucket
                                   // (PyTorch DDP; Megatron --overlap-grad-reduce)
    bool dp_param_gather = true;   // ZeRO-1/2 and the distributed optimizer: updated weights gathered behind the next
                                   // forward (Megatron --overlap-param-gather)
    bool zero3_prefetch = true;    // ZeRO-3: the next layer's weights gathered while this one computes
    bool tp_comm = false;          // TP collectives behind the GEMMs (Transformer Engine userbuffers, --tp-comm-overlap)
    bool cp_ring = true;           // CP: each ring step's K and V travel while the previous chunk's attention runs
    bool pp_p2p = true;            // PP: sends and receives behind the next micro-batch's compute, but for fill and drain
    bool ep_all_to_all = false;    // EP: each MoE layer's dispatch and combine behind another micro-batch's compute (DeepSeek-V3
                                   // sec 3.2.1, DualPipe; Megatron-Core --overlap-moe-expert-parallel-comm); off, the layer waits

    bool operator==(const OverlapSpec&) const = default;
};

// How a service runs its decode step: a serving engine's fused kernels (vLLM, TensorRT-LLM, SGLang: a fused add + RMSNorm,
// one RoPE kernel, one KV-cache write, split-KV attention, a fused SwiGLU) or a plain PyTorch decoder, op by op (RoPE as
// seven elementwise kernels per tensor, SDPA reading each KV head in one thread block).
enum class ServingRuntime { engine, pytorch };
const char* serving_runtime_name(ServingRuntime);  // "engine", "pytorch"

// The service the model answers (seed 000's third wall): its load, its latency targets, and what it runs on.
struct ServingSpec {
    bool asked = false;             // the scenario asks about a service (its file has a serving section, or a serving control
                                    // moved): only then is the serving wall part of its verdict; the figures exist either way
    double target_qps = 10;         // queries per second the service must answer
    int prompt_tokens = 1024;       // tokens in each query's prompt (vLLM benchmark_serving's --random-input-len default)
    int output_tokens = 256;        // tokens generated per query
    double ttft_ms = 2000;          // time to first token (MLPerf Inference loadgen mlperf.conf: llama2-70b Server ttft_latency 2000)
    double tpot_ms = 200;           // time per output token (the same file: tpot_latency 200)
    double weight_bytes_per_param = 2;  // bf16 2, fp8 1, int4 0.5 (weight-only: W4A16), fp32 4
    double kv_bytes_per_element = 2;    // bf16 2, fp8 1, fp32 4
    ServingRuntime runtime = ServingRuntime::engine;
    bool cuda_graphs = true;        // decode steps replayed from CUDA graphs, as vLLM, TensorRT-LLM and SGLang do by default
    int max_batch = 256;            // the most sequences one replica runs at once (vLLM EngineArgs.max_num_seqs default 256)
    int prefill_chunk_tokens = 8192;  // the most prompt tokens one step prefills beside its decode tokens (TensorRT-LLM
                                      // max_num_tokens default 8192; vLLM's max_num_batched_tokens)
    bool reserve_output_kv = false; // admit a sequence only with KV room for its whole prompt and output (TensorRT-LLM's
                                    // default GUARANTEED_NO_EVICT scheduler); false: pages as tokens come (vLLM's PagedAttention)
    double memory_utilization = 0.9;  // share of HBM the engine takes for weights, activations and KV cache (vLLM
                                      // gpu_memory_utilization default 0.9)
    int gpus = 0;                   // GPUs the service may use (the serving wall's budget); 0: the cluster's
    // One decode step quoted on its own (eval's decode_step_seconds and replica_tokens_per_s), and the prompt length
    // eval's prefill_tokens_per_s reads.
    int batch = 1;                  // sequences in that step
    int context_tokens = 8192;      // tokens of context each of them attends to

    bool operator==(const ServingSpec&) const = default;
};

// How a checkpoint leaves the GPUs: the step stalls for all of it, for a copy to host memory (PyTorch DCP async_save,
// Megatron's and DeepSpeed's async checkpoints), or for that copy and a peer's CPU memory holds it (Gemini, SOSP 2023).
enum class CheckpointMode { sync, async, in_memory };
const char* checkpoint_mode_name(CheckpointMode);  // "sync", "async", "in-memory"

struct OperationsSpec {
    double gpu_mtbf_hours = 50000;          // per GPU; Llama 3: 419 interruptions in 54 days on 16,384 GPUs ~ 50k h
    std::optional<FailureTable> failures;   // what fails and how the job recovers; none: every GPU at gpu_mtbf_hours
    double checkpoint_bytes_per_s = 100e9;  // aggregate write (and read) bandwidth to storage
    double restart_seconds = 600;           // detect, reschedule and initialise NCCL after a failure; loading is added
    CheckpointMode checkpoint_mode = CheckpointMode::sync;
    double checkpoint_interval_seconds = 0; // work between checkpoints; 0: Daly's optimum
    double host_copy_bytes_per_s = 50e9;    // async and in-memory: one GPU's copy to pinned host memory (PCIe 5.0 x16:
                                            // 64 GB/s a direction; a planning figure below it)
    std::optional<int> spare_nodes;         // hot spares beside the job; none: the building's free pool swaps a node at once
    double node_repair_hours = 24;          // a replaced node's return to the spares (a planning guess the user edits)
    bool elastic = false;                   // without a spare, continue with one replica fewer instead of waiting
    int run_seed = 1;                       // the simulated run's draws: the same seed, the same run
    double window_days = 0;                 // the stretch of wall time the run panel and `shardscope run` show (Llama 3
                                            // reports a 54-day snapshot); 0: the whole run
    double dollars_per_gpu_hour = 2.0;     // the price paid: the GPU's catalog price for budget.price, or the scenario's own

    bool operator==(const OperationsSpec&) const = default;
};

// What a step holds beside the model's tensors: library and communication buffers and the caching allocator's
// fragmentation. Editable defaults, each with its source; core/cost/memory/memory.cpp adds them to the peak.
struct MemorySpec {
    // cuBLAS workspaces: 32 MiB each on Hopper (cuBLAS docs, cublasSetWorkspace), one per handle and stream in PyTorch;
    // a fresh process's first step on our H100 allocated 70 MB beside the state (h100_kernel_probe.json: 16.32 B/param
    // against 16.00 in the runs after it).
    double workspace_bytes = 2 * 33554432.0;
    // One NCCL communicator's buffers, per parallel group a GPU belongs to (TP, CP, PP, DP of degree > 1): 688 MB measured
    // for a group of more than two A100s on NVLink (NVIDIA/nccl#964); ring channels keep it from growing with the group
    // (sjeaugey, NVIDIA/nccl#986). Outside PyTorch's allocator.
    double nccl_bytes_per_group = 688e6;
    // The caching allocator reserves more than it hands out: max_memory_reserved / max_memory_allocated - 1 at the peak,
    // median of 12 H100 training runs (measurements/h100_kernel_probe.json training_memory: 1.1 % to 12.4 %). Near 0 with
    // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.
    double fragmentation = 0.059;

    bool operator==(const MemorySpec&) const = default;
};

// What a run is allowed to cost, and what it pays besides training (seed 004: "run for ~3 hours including setup tax").
struct BudgetSpec {
    PriceBasis price = PriceBasis::on_demand;  // which catalog price sets operations.dollars_per_gpu_hour; custom: the
                                               // scenario's own figure, kept when the GPU changes
    double setup_hours = 0.5;                  // billed but not training: provisioning, data download, compile, warm-up
                                               // (a planning guess the user edits, not a measurement)
    std::optional<double> budget_dollars;      // the ceiling the estimate is held to (seed 004's budget guard); none: no guard

    bool operator==(const BudgetSpec&) const = default;
};

// How tokens reach their experts; read only for a model with experts.
struct MoeSpec {
    double load_imbalance = 1.0;    // tokens the busiest GPU's experts receive over the mean (max / mean): the layer waits for it
    double capacity_factor = 0;     // > 0: each expert's batch is padded to CF x its mean share, and tokens beyond it are dropped
                                    // (GShard, Lepikhin et al. 2020); it then replaces the imbalance as the busiest load
    int node_limit = 0;             // node-limited routing: a token's experts lie on at most this many nodes, each reached by one
                                    // InfiniBand copy and fanned out over NVLink (DeepSeek-V3 sec 2.1.2, 3.2.2: 4); 0 = unlimited
    double dispatch_bytes = 2;      // bytes per element the dispatch sends (DeepSeek-V3: FP8 = 1); the combine returns bf16

    // The most either load figure may be (max / mean), for a scenario file and an edit alike.
    static constexpr double max_load_factor = 1000;

    double load_factor() const { return capacity_factor > 0 ? capacity_factor : load_imbalance; }
    bool operator==(const MoeSpec&) const = default;
};

struct Scenario {
    ModelSpec model;                // Llama 3 70B
    TrainSpec train;
    PrecisionRecipe precision;      // bf16 mixed + fp32 master + Adam: 16 B per parameter
    ParallelSpec parallel;
    ClusterSpec cluster;
    EfficiencySpec efficiency;
    OverlapSpec overlap;
    ServingSpec serving;
    OperationsSpec operations;
    MoeSpec moe;
    MemorySpec memory;
    BudgetSpec budget;
    FinetuneSpec finetune;          // full: every weight trained; lora / qlora: adapters on a frozen base (core/model/finetune.h)

    bool operator==(const Scenario&) const = default;
};

// The seeds' headline case: Llama 3 70B, 16 B/param, H100 SXM, 8 per node, 64 GPUs.
Scenario default_scenario();

// Checks the cross-field rules (the model's shape, then check_layout's rules); throws InputError naming the field.
// The network's own rules, given the cluster it serves: a NIC no faster than its link, a pod no larger than the cluster (a
// fabric the file describes; a catalog fabric is a building a job takes part of), a leaf no smaller than a node. Checked
// when a file is read (a GPU-count sweep may take a cluster below its pod).
void validate_fabric(const ClusterSpec&);
void validate_scenario(const Scenario&);
// The part of it a framework or fine-tune edit can break: what the framework's recipe runs (a shaped, dense model for an
// operator recipe) and the finetune section's rules (adapters only on named modules); throws InputError naming the field.
void validate_framework_fit(const Scenario&);
// The serving fields' ranges (positive lengths, rates and targets; the precisions serving kernels exist for); throws
// InputError naming the field.
void validate_serving(const ServingSpec&);

// The GPUs one model replica spans, tp x pp x cp (a ParallelSpec or a Layout): the GPU count is dp times this.
template <typename Degrees>
long long gpus_per_replica(const Degrees& degrees) { return 1LL * degrees.tp * degrees.pp * degrees.cp; }

// Derived layout figures every part of the model needs.
int data_parallel_degree(const Scenario&);       // dp, explicit or derived (0 when tp x pp x cp is not positive)
int microbatches_per_step(const Scenario&);      // global_batch / (dp * micro_batch)
// The smallest multiple of dp x micro_batch not below the default global batch (512): what a file that names no batch
// gets. 0 when the layout has no whole dp.
int fitted_global_batch(const Scenario&);

// The price the scenario's basis takes from its GPU's catalog entry, written into operations.dollars_per_gpu_hour; a
// basis the GPU has no figure for becomes custom and the current price stays. Nothing changes for a custom basis.
void apply_price_basis(Scenario&);

// The catalog's link for a GPU's scale-up (its NVLink generation); the GPU's own entry names it.
LinkSpec scale_up_link_of(const GpuSpec&);
// The network between the machines a GPU's catalog price rents: its entry's scale_out_link and fabric where it names
// them, else the catalog's default link on a non-blocking fat tree.
LinkSpec scale_out_link_of(const GpuSpec&);
FabricSpec fabric_of(const GpuSpec&);
// Puts a GPU in the cluster with its own scale-up link. The scale-out link and fabric follow it while they are the
// previous GPU's own; a network chosen for the cluster stays.
void set_gpu(ClusterSpec&, const GpuSpec&);

}  // namespace core
