#include "app/eval_command.h"

#include "core/model/layout.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report_json.h"
#include "core/cost/serving/serving_text.h"
#include "core/lessons/walls.h"
#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <cstdio>

namespace app {
namespace {

using core::format_bytes;
using core::format_number;
using core::format_percent;
using core::format_seconds;
using core::format_whole;

const char* wall_key(core::WallKind kind) {
    switch (kind) {
        case core::WallKind::memory: return "memory";
        case core::WallKind::time: return "time";
        case core::WallKind::serving: return "serving";
    }
    return "?";
}

// A wall's used and budget under names that carry their unit.
void put_wall(nlohmann::ordered_json& json, const core::Wall& wall) {
    const char* used = wall.kind == core::WallKind::memory ? "used_bytes_per_gpu" : wall.kind == core::WallKind::time ? "train_seconds" : "gpus_needed";
    const char* budget = wall.kind == core::WallKind::memory ? "hbm_bytes" : wall.kind == core::WallKind::time ? "deadline_seconds" : "gpus";
    nlohmann::ordered_json entry;
    // A budget of zero makes an infinite fraction; JSON has no infinity, so the key is left out rather than null.
    if (std::isfinite(wall.used)) entry[used] = wall.used;
    if (std::isfinite(wall.budget)) entry[budget] = wall.budget;
    if (std::isfinite(wall.fraction)) entry["fraction"] = wall.fraction;
    entry["over"] = wall.over;
    entry["asked"] = wall.asked;
    json[wall_key(wall.kind)] = entry;
}

}  // namespace

void serving_rows(const core::Scenario& scenario, const core::Report& report, const std::function<void(const std::string&, const std::string&)>& row) {
    const core::ServingSpec& serving = scenario.serving;
    const core::ServingReport& figures = report.serving;
    const core::ServingAnswer& answer = figures.answer;
    const core::ServingText text = core::serving_text(scenario, figures);
    const core::ReplicaMemory& memory = figures.memory;
    row("asked", text.load);
    row("runs", text.precision);
    row("answer", text.answer);
    if (!text.shortfall.empty()) row("shortfall", text.shortfall);
    row("verdict", text.verdict);
    row("replica", core::replica_shape_label(figures.quoted_shape) + ": " + format_bytes(memory.weight_bytes) + " of weights and " +
                       format_bytes(memory.kv_capacity_bytes) + " of KV cache per GPU, " + format_whole(memory.kv_batch) + " sequences of " +
                       format_bytes(memory.kv_bytes_per_sequence) + " (runs at most " + format_whole(answer.max_batch) + ")");
    // The service's own prompt first (what its TTFT waits for), then the quoted pass at serving.context_tokens.
    const double prompt_seconds = answer.point.prefill_seconds;
    if (prompt_seconds > 0) {
        row("prefill", "one prompt of " + format_whole(serving.prompt_tokens) + " tokens (the service's) in " + format_seconds(prompt_seconds) + ", " +
                           format_number(serving.prompt_tokens / prompt_seconds) + " tokens/s on " + core::replica_shape_label(answer.point.shape));
    }
    row("prefill at context", format_number(figures.prefill_tokens_per_s) + " tokens/s (one prompt of " + format_whole(serving.context_tokens) +
                                  " tokens of context, " + format_seconds(figures.prefill_seconds) + ")");
    row("decode step", format_seconds(figures.decode_step_seconds) + " for " + format_whole(serving.batch) + " x " + format_whole(serving.context_tokens) +
                           " tokens of context: " + format_number(figures.replica_tokens_per_s) + " tokens/s");
}

nlohmann::ordered_json serving_json(const core::Scenario& scenario, const core::Report& report) {
    const core::ServingSpec& serving = scenario.serving;
    const core::ServingReport& figures = report.serving;
    const core::ServingAnswer& answer = figures.answer;
    const core::MemoryReport& memory = report.memory;
    nlohmann::ordered_json json;
    json["target_qps"] = serving.target_qps;
    json["asked_tokens_per_s"] = serving.target_qps * serving.output_tokens;
    json["prompt_tokens"] = serving.prompt_tokens;
    json["output_tokens"] = serving.output_tokens;
    json["ttft_target_seconds"] = serving.ttft_ms * 1e-3;
    json["tpot_target_seconds"] = serving.tpot_ms * 1e-3;
    json["batch"] = serving.batch;
    json["context_tokens"] = serving.context_tokens;
    json["weight_bytes"] = memory.inference_weight_bytes;
    json["kv_cache_bytes_per_token"] = memory.kv_cache_bytes_per_token;
    json["kv_cache_bytes"] = memory.kv_cache_bytes;
    // The quoted pass, on the answer's replica shape: one prompt of context_tokens, and batch sequences at that context.
    json["tp"] = figures.quoted_shape.tp;
    json["pp"] = figures.quoted_shape.pp;
    json["prefill_tokens_per_s"] = figures.prefill_tokens_per_s;
    json["decode_step_seconds"] = figures.decode_step_seconds;
    json["replica_tokens_per_s"] = figures.replica_tokens_per_s;
    json["max_batch"] = answer.max_batch;
    json["verdict"] = core::serving_outcome_key(core::serving_outcome(figures));
    const bool meets = answer.verdict == core::ServingVerdict::meets;
    // Where no replica meets the service there is no GPU count: those keys are left out, as JSON has no infinity.
    if (meets) {
        json["replicas"] = answer.replicas;
        json["gpus"] = answer.gpus;
        json["running_batch"] = answer.point.batch;
        json["ttft_seconds"] = answer.point.ttft_seconds;
        json["tpot_seconds"] = answer.point.tpot_seconds;
        json["tokens_per_s_per_gpu"] = answer.point.tokens_per_s_per_gpu;
        json["dollars_per_million_tokens"] = answer.dollars_per_million_tokens;
    } else {
        if (answer.verdict == core::ServingVerdict::latency) {
            json["best_ttft_seconds"] = answer.best_ttft_seconds;
            json["best_tpot_seconds"] = answer.best_tpot_seconds;
        }
        json["shortfall"] = core::serving_text(scenario, figures).shortfall;
    }
    json["gpu_budget"] = figures.gpu_budget;
    return json;
}

std::string eval_json(const core::Scenario& scenario, const core::Report& report) {
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(core::report_to_json(scenario, report));
    const core::WallsReport walls = core::walls_of(scenario, report);
    nlohmann::ordered_json walls_json;
    for (const core::Wall& wall : walls.walls) put_wall(walls_json, wall);
    walls_json["binding"] = wall_key(walls.walls[walls.binding].kind);
    walls_json["any_over"] = walls.any_over;
    walls_json["summary"] = walls.summary;
    json["walls"] = walls_json;
    json["serving"] = serving_json(scenario, report);
    return json.dump(2) + "\n";
}

std::string eval_table(const core::Scenario& scenario, const core::Report& report) {
    const core::ReportText text = core::explain(scenario, report);
    const core::WallsReport walls = core::walls_of(scenario, report);
    TextTable table;
    std::string section;
    const auto row = [&](const std::string& name, const std::string& figure, const std::string& value) {
        table.rows.push_back({name == section ? "" : name, figure, value});
        section = name;
    };
    const core::LayoutReport& layout = report.layout;
    row("scenario", "model", text.model_name + ", " + core::format_count(report.memory.params) + " parameters");
    row("scenario", "GPU", text.gpu_name);
    row("scenario", "recipe", text.recipe_name);
    row("layout", "GPUs", core::format_grouped(layout.gpus) + " on " + core::format_counted(static_cast<long long>(layout.nodes), "node", "nodes") + " of " + format_whole(layout.gpus_per_node));
    row("layout", "parallelism", core::layout_label(core::layout_of(scenario)));
    row("layout", "micro-batches per step", format_whole(layout.microbatches));

    const core::MemoryReport& memory = report.memory;
    const core::FigureTexts& figures = text.figures;
    // LoRA and QLoRA: what trains and what is frozen, before the state it sizes.
    if (memory.finetune_adapters) row("memory", "fine-tune", figures.parameters.value + ": " + figures.parameters.formula);
    row("memory", "state, whole model", figures.training_state.value);
    row("memory", "state, in GPUs' worth", format_number(memory.state_gpus_worth) + " x " + format_bytes(memory.hbm_bytes));
    const core::PerGpuMemory& per_gpu = memory.per_gpu;
    row("memory", "per GPU: weights", format_bytes(per_gpu.weights_bytes));
    row("memory", "per GPU: gradients", format_bytes(per_gpu.grads_bytes));
    row("memory", "per GPU: master copy", format_bytes(per_gpu.master_bytes));
    row("memory", "per GPU: optimizer", format_bytes(per_gpu.optimizer_bytes));
    row("memory", "per GPU: activations", format_bytes(per_gpu.activations_bytes) + " (" + text.activation_configuration + ")");
    row("memory", "per GPU: state + activations", format_bytes(per_gpu.total_bytes) + " (the textbook sum)");
    row("memory", "per GPU: also live at peak", format_bytes(core::held_beside_sum_bytes(per_gpu)) +
                                                    " (weight copies, working sets, workspace, buffers, fragmentation)");
    // The verdict sits beside the peak it compares with HBM, so the caption and the figure agree.
    row("memory", "per GPU: peak", figures.peak_memory.value);

    const core::ComputeReport& compute = report.compute;
    row("step", "step time", figures.step_time.value + " (" + figures.step_time.formula + ")");
    row("step", "expected error", figures.expected_error.value + ": " + figures.expected_error.formula);
    row("step", "compute", figures.compute_time.value);
    row("step", "pipeline bubble", figures.bubble_time.value);
    row("step", "exposed communication", figures.exposed_comm_time.value);
    row("step", "waiting for stragglers", figures.straggler_time.value + " (" + figures.straggler_time.formula + ")");
    row("step", "MFU / HFU", figures.mfu.value + " / " + figures.hfu.value);
    row("step", "model FLOPs per step", core::format_flops(compute.model_flops_per_step) + " (6ND: " + core::format_flops(compute.six_n_flops_per_step) + ")");
    row("step", "tokens per step", core::format_grouped(compute.tokens_per_step));
    row("step", "kernels timed", format_whole(static_cast<double>(compute.kernels.size())) + " (each with FLOPs, bytes and bound in --json)");
    row("step", "torch.compile", figures.compile_time.value + " (" + figures.compile_time.formula + ")");

    for (std::size_t i = 0; i < report.comm.axes.size(); ++i) {
        const core::AxisComm& axis = report.comm.axes[i];
        std::string name = core::comm_axis_name(axis.axis);
        for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        row("communication", name + " x" + format_whole(axis.degree),
            text.axis_collectives[i] + " on " + text.axis_links[i] + ": " + format_seconds(axis.seconds) + " per step, " +
                (axis.hidden ? "all hidden" : format_seconds(axis.exposed_seconds) + " exposed"));
    }
    if (report.comm.axes.empty()) row("communication", "none", "one GPU per model replica and no data parallelism");

    const core::PipelineReport& pipeline = report.pipeline;
    row("pipeline", "schedule", std::string(core::schedule_name(pipeline.schedule)) + ", " + core::format_counted(pipeline.stages, "stage", "stages") +
                                    ", " + core::format_counted(pipeline.microbatches, "micro-batch", "micro-batches") +
                                    (pipeline.virtual_stages > 1 ? ", " + core::format_counted(pipeline.virtual_stages, "virtual stage", "virtual stages") : ""));
    row("pipeline", "bubble", format_percent(pipeline.bubble_fraction) + " of the pipelined time (overhead " + format_percent(pipeline.bubble_overhead) +
                                  ", closed form " + format_percent(pipeline.closed_form_bubble_overhead) + ")");
    // Interleaved schedules count (micro-batch, chunk) pairs, Megatron's unit.
    row("pipeline", "peak in flight", (pipeline.virtual_stages > 1 ? core::format_counted(pipeline.peak_inflight_microbatches, "micro-batch chunk", "micro-batch chunks")
                                                                   : core::format_counted(pipeline.peak_inflight_microbatches, "micro-batch", "micro-batches")) +
                                          " on the first stage");

    row("training", "time to train", figures.time_to_train.value + " (" + figures.time_to_train.formula + ")");
    // Training alone here; the billed total adds setup, as `cost` prints it (budget.total_dollars).
    row("training", "GPU-hours / cost", figures.gpu_hours.value + " GPU-hours, " + figures.training_cost.value + " of training; " +
                                            figures.billed_cost.value + " billed with " + format_seconds(report.budget.setup_hours * 3600.0) + " of setup");
    const core::ReliabilityReport& reliability = report.reliability;
    row("reliability", "cluster MTBF", figures.cluster_mtbf.value);
    row("reliability", "checkpoint", figures.checkpoint.value + ", every " + format_seconds(reliability.interval_seconds));
    row("reliability", "goodput", reliability.makes_progress ? figures.goodput.value + ", wall time " + figures.wall_time.value + ", " +
                                                                   figures.failures.value + " failures expected"
                                                             : figures.goodput.value + ": " + figures.goodput.formula);

    for (const core::Wall& wall : walls.walls) {
        row("walls", wall.title, wall.fraction_text + (wall.over ? " (over)" : "") + ": " + wall.used_text + " of " + wall.budget_text +
                                     (wall.asked ? "" : "; not asked, the scenario sets no service"));
    }
    row("walls", "verdict", walls.summary);
    serving_rows(scenario, report, [&](const std::string& figure, const std::string& value) { row("serving", figure, value); });
    for (const std::string& warning : text.warnings) row("warnings", "", warning);

    return table.render() + core::kUnitConvention + ". --json prints every figure for scripts.\n";
}

int run_eval(const core::Scenario& scenario, OutputFormat format) {
    const core::Report report = core::evaluate(scenario);
    const std::string text = format == OutputFormat::table ? eval_table(scenario, report) : eval_json(scenario, report);
    std::fputs(text.c_str(), stdout);
    return 0;
}

}  // namespace app
