#include "core/cost/report/figure_text.h"

#include "core/cost/kernels/framework.h"
#include "core/cost/report/explain.h"
#include "core/model/format.h"
#include "core/model/framework_recipe.h"

#include <algorithm>
#include <cmath>

namespace core {
namespace {

// torch.compile's one-off cost and what it changed: the recipe's compiled kernels (its ops marked "compile"), each saving
// its inputs for the backward while AOTAutograd's min-cut partitioner recomputes the pointwise rest.
FigureText compile_time_text(const Scenario& scenario, const ComputeReport& compute) {
    const FrameworkRecipe& recipe = framework_recipe_of(scenario);
    if (!scenario.train.compile) return {"torch.compile", "off", "eager: every op its own kernel", ""};
    if (!recipe.describes_compile) return {"torch.compile", "not in the recipe", "the recipe describes no compiled kernels: the step runs eagerly", ""};
    std::string fused;
    for (const RecipeBlock* block : {&recipe.embedding, &recipe.layer, &recipe.head}) {
        for (const RecipeOp& op : block->ops) {
            if (op.when == "compile") fused += (fused.empty() ? "" : ", ") + op.name;
        }
    }
    return {"torch.compile", format_seconds(compute.compile_seconds) + " once",
            "the first step compiles; Inductor's kernels " + fused + " replace the eager ops, each keeping its inputs for the "
            "backward (torch/_functorch/partitioners.py recomputes the pointwise rest)",
            recipe.compile_source};
}

const char* kMfuSource = "Korthikanti et al. 2022, Appendix A";

std::string step_basis_text(const Scenario& scenario, const ComputeReport& compute) {
    switch (compute.step_basis) {
        case StepBasis::assumed_mfu: return "assumed MFU " + format_percent(*scenario.efficiency.mfu);
        case StepBasis::measured_step: return "measured step " + format_seconds(compute.step_seconds);
        case StepBasis::published_ceiling:
            return "held at " + format_percent(compute.mfu_ceiling.mfu) + " MFU, the best published for " + framework_name(scenario.train.framework) +
                   " on " + scenario.cluster.gpu.name + " (" + compute.mfu_ceiling.run + "); modelled " + format_seconds(compute.modelled_step_seconds);
        case StepBasis::modelled: break;
    }
    return std::string("modelled: every kernel on the roofline at ") + scenario.cluster.gpu.name +
           "'s measured efficiency, + exposed communication + pipeline bubble (" + framework_name(scenario.train.framework) + ")";
}

// "(47.1 s x 64 x 989 TFLOP/s)": the denominator MFU, HFU and the achieved rate share.
std::string step_gpus_peak(const Report& report) {
    const ComputeReport& compute = report.compute;
    return "(" + format_seconds(compute.step_seconds) + " x " + format_grouped(report.layout.gpus) + " x " + format_flops_rate(compute.peak_flops_per_s) + ")";
}

void fill_memory(const Scenario& scenario, const Report& report, FigureTexts& figures) {
    const MemoryReport& memory = report.memory;
    figures.parameters = {"Parameters", format_count(memory.params), "", ""};
    if (memory.params_active < memory.params) {
        figures.parameters.value += " (" + format_count(memory.params_active) + " active)";
        figures.parameters.formula = "total; active per token: the routed experts a token does not visit left out";
    }
    if (memory.finetune_adapters) {
        // LoRA / QLoRA: the adapters train, the base is frozen in its stored bytes (no gradient, no optimizer state).
        const FinetuneSpec& finetune = scenario.finetune;
        figures.parameters.value += " (" + format_count(memory.trainable_params) + " trainable: " + finetune_method_name(finetune.method) +
                                    " rank " + std::to_string(finetune.rank) + ")";
        figures.parameters.formula = "frozen base " + format_count(memory.frozen_params) + " + adapters " + format_count(memory.trainable_params) +
                                     " (r x (in + out) per adapted linear)";
        figures.parameters.source = "Hu et al. 2021 (LoRA); PEFT lora.Linear";
        const double adapter_state = memory.state_bytes - memory.frozen_bytes;
        figures.training_state = {"Training state", format_bytes(memory.state_bytes) + " (frozen base " + format_bytes(memory.frozen_bytes) + ")",
                                  "frozen base " + format_bytes(memory.frozen_bytes) + " + adapters' weights, gradients and AdamW moments " +
                                      format_bytes(adapter_state) + " = " + format_bytes(memory.state_bytes),
                                  finetune.method == FinetuneMethod::qlora ? "Dettmers et al. 2023 (QLoRA), sec 3" : "Hu et al. 2021 (LoRA), sec 4.2"};
    } else {
    const std::string bytes_per_param = format_plain(memory.bytes_per_param) + " B per parameter";
    figures.training_state = {"Training state", format_bytes(memory.state_bytes) + " (" + bytes_per_param + ")",
                              bytes_per_param + " x " + format_sci(memory.params) + " parameters = " + format_bytes(memory.state_bytes) + " (" +
                                  scenario.precision.name + ")",
                              "Rajbhandari et al. 2019 (ZeRO), sec 3.1"};
    }
    const std::string verdict = memory.fits ? "fits, " + format_bytes(memory.headroom_bytes) + " to spare"
                                            : "does not fit, " + format_bytes(-memory.headroom_bytes) + " over";
    figures.peak_memory = {"Peak per GPU", format_bytes(memory.per_gpu.peak_bytes) + " of " + format_bytes(memory.hbm_bytes) + " HBM: " + verdict,
                           memory_verdict_text(scenario, report) + "\n" + memory_peak_line_text(report), "core/cost/memory/memory.h"};
}

void fill_step(const Scenario& scenario, const Report& report, FigureTexts& figures) {
    const ComputeReport& compute = report.compute;
    const PipelineReport& pipeline = report.pipeline;
    figures.step_time = {"Step time", format_seconds(compute.step_seconds), step_basis_text(scenario, compute), ""};
    figures.compute_time = {"Compute", format_seconds(compute.compute_seconds),
                            "the busiest GPU's kernels, each on the roofline at the GPU's measured efficiency = " + format_seconds(compute.compute_seconds),
                            scenario.cluster.gpu.efficiency.source};
    figures.bubble_time = {"Pipeline bubble", format_seconds(compute.bubble_seconds),
                           "the pipeline standing idle: idle / ideal " + format_number(pipeline.bubble_overhead) + " (" +
                               schedule_name(pipeline.schedule) + ", p " + std::to_string(pipeline.stages) + ", m " +
                               std::to_string(pipeline.microbatches) + ") = " + format_seconds(compute.bubble_seconds),
                           "measured from the generated schedule; Narayanan et al. 2021 sec 2.2"};
    figures.exposed_comm_time = {"Exposed communication", format_seconds(compute.exposed_comm_seconds),
                                 "the communication of every axis the compute could not hide, and the compute its overlap slowed = " +
                                     format_seconds(compute.exposed_comm_seconds),
                                 "the scenario's overlap switches"};
    const double machines = std::ceil(static_cast<double>(report.layout.gpus) / std::max(1, scenario.cluster.gpus_per_node));
    const std::string straggler_formula =
        machines < 2 ? std::string("one machine waits for none")
                     : "the slowest of " + format_counted(static_cast<long long>(machines), "machine", "machines") + ": " +
                           format_percent(scenario.cluster.straggler_slowdown) + " x (1 - (1 - " + format_percent(scenario.cluster.straggler_share) +
                           ")^" + format_grouped(machines) + ") x the compute = " + format_seconds(compute.breakdown_seconds.straggler_seconds);
    figures.straggler_time = {"Waiting for stragglers", format_seconds(compute.breakdown_seconds.straggler_seconds), straggler_formula,
                              "MegaScale (Jiang et al. 2024, arXiv 2402.15627) sec 5.1 and 6.3: about 0.5 % of hosts about 10 % slower"};
    const ExpectedError& expected = compute.expected_error;
    if (expected.validated) {
        const std::string side = expected.signed_mean_error >= 0 ? "slower" : "faster";
        figures.expected_error = {"Expected error", "+-" + format_percent(expected.mean_abs_error) + " (" + format_counted(expected.runs, "run", "runs") + ")",
                                  "mean |modelled step / published step - 1| over the validation runs of " + expected.regime + " = " +
                                      format_percent(expected.mean_abs_error) + "; on average the model is " +
                                      format_percent(std::fabs(expected.signed_mean_error)) + " " + side + " there",
                                  "docs/validation.md (validation/runs.json)"};
    } else {
        figures.expected_error = {"Expected error", "not validated",
                                  "no run of " + expected.regime + " is in the validation set: the model is unchecked here",
                                  "docs/validation.md (validation/runs.json)"};
    }
    figures.mfu = {"MFU", format_percent(compute.mfu),
                   "model FLOPs per step / (step time x GPUs x peak) = " + format_flops(compute.model_flops_per_step) + " / " + step_gpus_peak(report) +
                       " = " + format_percent(compute.mfu),
                   kMfuSource};
    figures.hfu = {"HFU", format_percent(compute.hfu),
                   "hardware FLOPs per step (recompute included, causal flash attention's half of the scores) / (step time x GPUs x peak) = " +
                       format_flops(compute.hardware_flops_per_step) + " / " + step_gpus_peak(report) + " = " + format_percent(compute.hfu),
                   kMfuSource};
    figures.achieved_flops = {"Achieved / GPU", format_flops_rate(compute.achieved_flops_per_s_per_gpu),
                              "model FLOPs per step / (step time x GPUs) = " + format_flops(compute.model_flops_per_step) + " / (" +
                                  format_seconds(compute.step_seconds) + " x " + format_grouped(report.layout.gpus) + "); peak " +
                                  format_flops_rate(compute.peak_flops_per_s),
                              kMfuSource};
}

void fill_run(const Scenario& scenario, const Report& report, FigureTexts& figures) {
    const ComputeReport& compute = report.compute;
    const BudgetReport& budget = report.budget;
    figures.compile_time = compile_time_text(scenario, compute);
    figures.time_to_train = {"Time to train", format_seconds(compute.train_seconds),
                             format_count(scenario.train.tokens) + " tokens / " + format_grouped(compute.tokens_per_step) + " tokens per step = " +
                                 format_count(compute.steps) + " steps x " + format_seconds(compute.step_seconds) + " per step" +
                                 (compute.compile_seconds > 0 ? " + " + format_seconds(compute.compile_seconds) + " compiling the first" : "") +
                                 ", no failures",
                             ""};
    figures.gpu_hours = {"GPU-hours", format_count(compute.gpu_hours),
                         "time to train x GPUs = " + format_seconds(compute.train_seconds) + " x " + format_counted(report.layout.gpus, "GPU", "GPUs"), ""};
    figures.training_cost = {"Cost (training)", format_dollars(compute.cost_dollars),
                             format_count(compute.gpu_hours) + " GPU-hours x " + format_dollars(budget.dollars_per_gpu_hour) +
                                 " per GPU-hour: training alone, without setup",
                             ""};
    figures.billed_cost = {"Cost (billed)", format_dollars(budget.total_dollars),
                           "GPUs x price per GPU-hour x (training + setup) hours = " + format_grouped(budget.gpus) + " x " +
                               format_dollars(budget.dollars_per_gpu_hour) + " x " + format_number(budget.billed_hours) + " h",
                           ""};
}

void fill_reliability(const Scenario& scenario, const Report& report, FigureTexts& figures) {
    const ReliabilityReport& r = report.reliability;
    const OperationsSpec& operations = scenario.operations;
    figures.cluster_mtbf = {"Cluster MTBF", format_seconds(r.cluster_mtbf_seconds),
                            "GPU MTBF / GPUs = " + format_number(operations.gpu_mtbf_hours) + " h / " + std::to_string(report.layout.gpus) + " = " +
                                format_seconds(r.cluster_mtbf_seconds),
                            ""};
    figures.checkpoint = {"Checkpoint", format_bytes(r.checkpoint_bytes) + " in " + format_seconds(r.checkpoint_seconds),
                          "weights, master and optimizer state / bandwidth to storage = " + format_bytes(r.checkpoint_bytes) + " / " +
                              format_bandwidth(operations.checkpoint_bytes_per_s) + " = " + format_seconds(r.checkpoint_seconds),
                          ""};
    figures.young_interval = {"Young", format_seconds(r.young_interval_seconds), "sqrt(2 delta M)", "Young 1974"};
    figures.daly_interval = {"Daly", format_seconds(r.daly_interval_seconds), "sqrt(2 delta M) [1 + 1/3 sqrt(delta/2M) + 1/9 delta/2M] - delta",
                             "Daly 2006"};
    figures.goodput = {"Goodput", r.makes_progress ? format_percent(r.goodput) : std::string("no progress"),
                       r.makes_progress ? "useful share of wall time: checkpoints " + format_percent(r.checkpoint_share) + ", rework " +
                                              format_percent(r.rework_share) + ", restarts " + format_percent(r.restart_share)
                                        : std::string("failures come faster than a checkpoint cycle"),
                       ""};
    figures.failures = {"Failures", r.makes_progress ? format_number(r.expected_failures) : std::string("n/a"),
                        "wall time / cluster MTBF, over " + format_seconds(r.wall_seconds), ""};
    figures.wall_time = {"Wall time", r.makes_progress ? format_seconds(r.wall_seconds) : std::string("n/a"),
                         "time to train / goodput = " + format_seconds(report.compute.train_seconds) + " / " + format_percent(r.goodput), ""};
}

// What a fine-tune fits with: " on an RTX 4090 with LoRA rank 16 and checkpointing"; empty for full training.
std::string fine_tune_conditions(const Scenario& scenario) {
    const std::string adapters = adapter_phrase(scenario.finetune);
    if (adapters.empty()) return "";
    const Recompute recompute = scenario.train.recompute;
    const std::string kept = recompute == Recompute::full ? " and checkpointing" : recompute == Recompute::selective ? " and selective recompute" : "";
    return " on " + with_article(scenario.cluster.gpu.name) + " with " + adapters + kept;
}

}  // namespace

std::string layout_gpus_text(const LayoutReport& layout) {
    return "TP " + std::to_string(layout.tp) + " x PP " + std::to_string(layout.pp) + " x CP " + std::to_string(layout.cp) + " x DP " +
           std::to_string(layout.dp) + " = " + format_counted(layout.gpus, "GPU", "GPUs") + " on " + format_counted(layout.nodes, "node", "nodes") +
           " of " + std::to_string(layout.gpus_per_node);
}

MeshSample mesh_sample(const Layout& layout, int gpus, int gpus_per_node, int budget, bool coloured_by_expert, const std::string& scale_up_link,
                       const std::string& scale_out_link) {
    MeshSample sample;
    const long long replica = 1LL * layout.tp * layout.cp * layout.pp;
    sample.drawn_gpus = gpus <= budget ? gpus : replica <= budget ? replica * (budget / replica) : budget;
    sample.drawn_nodes = (sample.drawn_gpus + gpus_per_node - 1) / std::max(1, gpus_per_node);
    const std::string drawn_range = "GPUs 0-" + format_grouped(static_cast<double>(sample.drawn_gpus - 1)) + " of " + format_grouped(gpus) + ": ";
    if (sample.drawn_gpus == gpus) {
        sample.caption = (gpus == 1 ? std::string("One GPU on ") : "All " + format_grouped(gpus) + " GPUs on ") +
                         format_counted(static_cast<double>(sample.drawn_nodes), "node", "nodes") + ".";
    } else if (sample.drawn_gpus % replica == 0) {
        sample.caption = drawn_range + format_grouped(static_cast<double>(sample.drawn_gpus / replica)) + " of " +
                         format_counted(layout.dp, "DP replica", "DP replicas") + " (" + format_counted(static_cast<double>(replica), "GPU", "GPUs") +
                         " each); the rest repeat them.";
    } else {
        sample.caption = drawn_range + "part of one DP replica of " + format_counted(static_cast<double>(replica), "GPU", "GPUs") + " (TP x CP x PP).";
    }
    sample.caption += " Box = node (" + scale_up_link + " inside); between boxes: " + scale_out_link + ".";
    if (coloured_by_expert) {
        sample.caption += " Same number = same experts (EP rank); one EP group holds every number once, over the " +
                          format_grouped(static_cast<double>(layout.tp) * layout.cp * layout.dp) + " GPUs of a stage.";
    }
    return sample;
}

std::string memory_verdict_text(const Scenario& scenario, const Report& report) {
    const MemoryReport& memory = report.memory;
    const PerGpuMemory& per_gpu = memory.per_gpu;
    const std::string where = " (stage " + std::to_string(memory.peak_stage + 1) + " of " + std::to_string(memory.per_stage.size()) + ", at " +
                              memory_phase_text(memory.peak_phase) + ")";
    if (memory.fits) {
        return "Peak " + format_bytes(per_gpu.peak_bytes) + " per GPU" + where + ": fits in " + format_bytes(memory.hbm_bytes) + fine_tune_conditions(scenario) +
               ", " + format_bytes(memory.headroom_bytes) + " to spare";
    }
    std::string verdict = "Peak " + format_bytes(per_gpu.peak_bytes) + " per GPU" + where + ": over " + format_bytes(memory.hbm_bytes) + " by " +
                          format_bytes(-memory.headroom_bytes);
    if (memory.tipping_block >= 0 && memory.tipping_block < static_cast<int>(memory.blocks.size())) {
        const MemoryBlock& block = memory.blocks[memory.tipping_block];
        verdict += "; stacked bottom-up, " + memory_block_label(scenario, block) + " (" + format_bytes(block.per_gpu_bytes) + ") crosses the ceiling";
    }
    return verdict;
}

std::string memory_peak_line_text(const Report& report) {
    const PerGpuMemory& per_gpu = report.memory.per_gpu;
    return "state " + format_bytes(per_gpu.total_bytes - per_gpu.activations_bytes) + " + activations " + format_bytes(per_gpu.activations_bytes) +
           " + beside them at the peak " + format_bytes(held_beside_sum_bytes(per_gpu)) + " = " + format_bytes(per_gpu.peak_bytes);
}

FigureTexts figure_texts(const Scenario& scenario, const Report& report) {
    FigureTexts figures;
    fill_memory(scenario, report, figures);
    fill_step(scenario, report, figures);
    fill_run(scenario, report, figures);
    fill_reliability(scenario, report, figures);
    return figures;
}

std::vector<FigureText> figure_list(const FigureTexts& f) {
    static_assert(sizeof(FigureTexts) == 24 * sizeof(FigureText), "a figure added to FigureTexts belongs in this list too");
    return {f.parameters, f.training_state, f.peak_memory, f.step_time, f.compute_time, f.bubble_time, f.exposed_comm_time, f.straggler_time, f.expected_error, f.mfu, f.hfu,
            f.achieved_flops, f.compile_time, f.time_to_train, f.gpu_hours, f.training_cost, f.billed_cost, f.cluster_mtbf, f.checkpoint, f.young_interval,
            f.daly_interval, f.goodput, f.failures, f.wall_time};
}

}  // namespace core
