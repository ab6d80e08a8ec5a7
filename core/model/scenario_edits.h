#pragma once
// One way to change a scenario. Every control (sidebar, panels, lesson player, file import) goes through these: each
// sets one field, then settles the fields that must follow it and says what it changed, rather than refusing. What
// follows, and what is refused, comes from the layout rules (core/model/layout.h): a rule the edited value breaks
// refuses the edit; the others are repaired in their settle order. The choice lists offer only the values whose edit
// gives a scenario validate_scenario accepts. `rules` is the shipped table unless a test passes another.
#include "core/model/layout.h"
#include "core/model/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace core {

struct Edit {
    Scenario scenario;                     // the edited scenario, settled
    std::vector<std::string> notes;        // what else changed and why: "TP 8 -> 4: it must divide the 20 heads"
    std::optional<LayoutProblem> problem;  // set when no valid scenario follows; scenario is then the unsettled edit

    bool ok() const { return !problem.has_value(); }
};

// The axes a layout control moves. TP, PP and CP keep the GPU count (DP follows); DP keeps TP, PP and CP (GPUs follow).
// EP and ETP (models with experts) fold over TP x CP x DP: they keep the GPU count and DP.
enum class LayoutAxis { tp, pp, cp, dp, micro_batch, virtual_stages, ep, etp };

Edit with_model(const Scenario&, const ModelSpec&);       // the model's default sequence length; a measured step is dropped
// A model read from a Hugging Face config: the scenario keeps its sequence length (the config's max_position_embeddings,
// the model's default_seq_len here, is the context window, a limit and not the length trained at), cut to that window
// when longer; a measured step is dropped.
Edit with_imported_model(const Scenario&, const ModelSpec&);
Edit with_params(const Scenario&, double params);         // a bare parameter count, its shape fitted to the current layout
// The scenario's own model grown or shrunk to about `params`: its head size, attention groups (GQA), MLP ratio, vocabulary
// and architecture kept, width and depth scaled together (hidden / layers as in the model) in whole heads and layers the
// layout holds. At the model's own size it is the model itself; a bare count scales as with_params. Refused below the
// family's smallest member (one layer of the narrowest width) or more than 10 % from params.
Edit with_model_scaled(const Scenario&, double params);
Edit with_gpu(const Scenario&, const GpuSpec&);           // with its NVLink generation and network (set_gpu); a measured step is dropped
Edit with_gpus(const Scenario&, int gpus);                // DP follows
// The network between nodes: a link and how the nodes are joined (a NIC faster than the link is refused). Switching
// GPU afterwards keeps a network chosen here (set_gpu).
Edit with_scale_out_link(const Scenario&, const LinkSpec&);
Edit with_fabric(const Scenario&, const FabricSpec&);
// The catalog's links that join nodes: every link no GPU names as its scale-up (NVLink, PCIe), catalog order.
const std::vector<LinkSpec>& scale_out_link_choices();
Edit with_zero3_engine(const Scenario&, ShardingEngine);   // parallel.zero3_engine: how ZeRO-3 gathers and reduces
// cluster.straggler_share (0 to 1) and straggler_slowdown (0 to kMaxStragglerSlowdown): the slow machines a step waits for.
Edit with_stragglers(const Scenario&, double share, double slowdown);
// What the straggler controls say, with the source of their defaults.
struct ControlHelp {
    const char* text;
    const char* source;
};
extern const ControlHelp kStragglerShareHelp;
extern const ControlHelp kStragglerSlowdownHelp;
// What a network control says of each choice: "InfiniBand NDR: 50.0 GB/s a NIC each way"; "Meta 24K RoCE (Llama 3): 8
// NICs a machine, pods of 3,072 GPUs, 1:7 between pods".
std::string scale_out_link_help(const LinkSpec&);
std::string fabric_help(const FabricSpec&);
Edit with_gpus_per_node(const Scenario&, int gpus_per_node, LayoutRules = layout_rules());
Edit with_axis(const Scenario&, LayoutAxis, int value, LayoutRules = layout_rules());
Edit with_zero(const Scenario&, int stage, LayoutRules = layout_rules());
Edit with_schedule(const Scenario&, ScheduleKind, LayoutRules = layout_rules());        // interleaved starts at the fewest chunks (>= 2) that split a stage evenly
Edit with_recompute(const Scenario&, Recompute, LayoutRules = layout_rules());
Edit with_precision(const Scenario&, const PrecisionRecipe&);
Edit with_seq_len(const Scenario&, int seq_len, LayoutRules = layout_rules());
Edit with_global_batch(const Scenario&, int global_batch);
Edit with_sequence_parallel(const Scenario&, bool on, LayoutRules = layout_rules());
Edit with_attention(const Scenario&, AttentionImpl);  // train.attention: sdpa, flash_attention_2 or eager
Edit with_compile(const Scenario&, bool on);  // torch.compile: the recipe's fused kernels where it describes them
// The embedding and the loss each take a layer's place in the pipeline split (refused under DualPipe and DualPipeV).
Edit with_embedding_and_loss_as_layers(const Scenario&, bool on, LayoutRules = layout_rules());
Edit with_layout(const Scenario&, const Layout&);         // a planner row, applied whole
Edit with_load_imbalance(const Scenario&, double max_over_mean);  // moe.load_imbalance, 1 to 16
Edit with_capacity_factor(const Scenario&, double factor);        // moe.capacity_factor: 0 (none) or 1 to 16
Edit with_node_limit(const Scenario&, int nodes);                 // moe.node_limit: 0 (any) or a node count
Edit with_ep_overlap(const Scenario&, bool on);                   // overlap.ep_all_to_all
Edit with_framework(const Scenario&, Framework);          // what runs the step: Megatron's fused kernels or eager PyTorch
Edit with_fragmentation(const Scenario&, double fraction); // memory.fragmentation, 0 to 1
// Full fine-tune, LoRA or QLoRA, with the method's base precision (LoRA bf16, QLoRA NF4); a framework whose recipe runs
// fused blocks (Megatron) becomes hf-transformers, where PEFT attaches its adapters.
Edit with_finetune_method(const Scenario&, FinetuneMethod);
Edit with_lora_rank(const Scenario&, int rank);           // finetune.rank, 1 to 65536
// The LoRA ranks a control offers: PEFT's default 8 and the powers of two around it that papers and recipes use.
inline constexpr int kLoraRankChoices[] = {4, 8, 16, 32, 64, 128, 256};
Edit with_price_basis(const Scenario&, PriceBasis);       // on-demand or spot: the GPU's catalog price; custom keeps the figure
Edit with_dollars_per_gpu_hour(const Scenario&, double);  // the user's own price: the basis becomes custom
Edit with_setup_hours(const Scenario&, double hours);     // billed time besides training (provisioning, download, compile)
Edit with_budget_dollars(const Scenario&, std::optional<double> dollars);  // the ceiling; nullopt removes it
// A long run's failures and checkpoints (operations): each refused naming its field outside the file's range.
Edit with_failure_table(const Scenario&, std::optional<FailureTable> table);  // nullopt: every GPU at gpu_mtbf_hours
Edit with_checkpoint_mode(const Scenario&, CheckpointMode);
Edit with_checkpoint_interval(const Scenario&, double seconds);  // 0: Daly's optimum; up to 1e9 s
Edit with_restart_seconds(const Scenario&, double seconds);      // detection, rescheduling, initialisation: 0 to 1e9 s
Edit with_spare_nodes(const Scenario&, std::optional<int> nodes);  // nullopt: the building's free pool; 0 to 100,000
Edit with_node_repair_hours(const Scenario&, double hours);      // 0 to 1e6 h
Edit with_elastic(const Scenario&, bool on);
Edit with_window_days(const Scenario&, double days);            // 0: the whole run; up to 100,000 days
Edit with_run_seed(const Scenario&, long long seed);             // 1 to 1e9

// A model-size slider's lower end: the seeds' 100M, or the decade of a smaller scenario's model (MiniGPT's 478 k: 100 k),
// so the slider can sit at the scenario's own size.
double size_slider_min(double scenario_params);

// The values each control may offer for the scenario as it is: every one gives a valid scenario through its edit.
struct Choices {
    std::vector<int> tp, pp, cp, dp, micro_batch, virtual_stages, zero;
    std::vector<int> ep, etp;                   // {1} for a dense model
    std::vector<int> seq_len;                   // powers of two from 128 to 1M that CP divides, and the current one
    std::vector<int> gpus_per_node;             // the node sizes built: 1 to 8 (HGX, DGX), 16, 32, 64, 72 (NVL72)
    std::vector<ScheduleKind> schedules;
    std::vector<Recompute> recomputes;
    bool sequence_parallel_off = true;          // false where it must stay on (a model with experts under TP)
    bool embedding_and_loss_as_layers_on = true;  // false under DualPipe and DualPipeV, whose stages stay whole
};
Choices choices_of(const Scenario&, LayoutRules = layout_rules());

// The next GPU count (direction +1) or the previous (-1): the next data-parallel degree the DP slider offers (choices_of)
// times TP x PP x CP, so the global batch stays as it is; past the last, one replica more or less (the batch follows);
// the current count if there is none.
int next_gpus(const Scenario&, int direction);
// The next global batch (direction +1) or the previous (-1) that with_global_batch accepts, or the current one.
int next_global_batch(const Scenario&, int direction);

// The value in a sorted choice list nearest to value (for a slider that shows the current value among the offered ones).
int nearest_choice_index(const std::vector<int>& choices, int value);

}  // namespace core
