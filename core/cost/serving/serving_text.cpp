#include "core/cost/serving/serving_text.h"

#include "core/model/format.h"

namespace core {
namespace {

std::string bytes_name(double bytes, bool weights) {
    if (bytes >= 4) return "fp32";
    if (bytes >= 2) return "bf16";
    if (bytes >= 1) return "fp8";
    return weights ? "int4" : "?";
}

// "TPOT 10.2 ms against 5.00 ms (2.04x)".
std::string missed(const char* name, double seconds, double target_seconds) {
    return std::string(name) + " " + format_seconds(seconds) + " against " + format_seconds(target_seconds) + " (" +
           format_number(seconds / target_seconds) + "x)";
}

}  // namespace

std::string replica_shape_label(ReplicaShape shape) {
    return "TP " + format_whole(shape.tp) + (shape.pp > 1 ? " x PP " + format_whole(shape.pp) : "");
}

std::string replicas_label(int replicas, ReplicaShape shape) {
    return format_whole(replicas) + " x " + replica_shape_label(shape) + " = " + format_counted(1LL * replicas * shape.gpus(), "GPU", "GPUs");
}

ServingText serving_text(const Scenario& scenario, const ServingReport& report) {
    const ServingSpec& serving = scenario.serving;
    const ServingAnswer& answer = report.answer;
    ServingText text;
    text.load = format_number(serving.target_qps) + " QPS x (" + format_whole(serving.prompt_tokens) + " prompt + " +
                format_whole(serving.output_tokens) + " output tokens), TTFT <= " + format_seconds(serving.ttft_ms * 1e-3) +
                ", TPOT <= " + format_seconds(serving.tpot_ms * 1e-3);
    text.precision = bytes_name(serving.weight_bytes_per_param, true) + " weights, " + bytes_name(serving.kv_bytes_per_element, false) +
                     " KV cache, " + (serving.runtime == ServingRuntime::engine ? "engine kernels" : "PyTorch kernels") +
                     (serving.cuda_graphs ? ", CUDA graphs" : ", no CUDA graphs");
    const ServingPoint& point = answer.point;
    text.budget = format_counted(report.gpu_budget, "GPU", "GPUs") + (serving.gpus > 0 ? " for serving" : " (the cluster's)");
    switch (serving_outcome(report)) {
        case ServingOutcome::meets: text.verdict = "meets it within its budget of " + text.budget; break;
        case ServingOutcome::over_budget:
            text.verdict = "over budget: needs " + format_counted(answer.gpus, "GPU", "GPUs") + ", its budget is " + text.budget;
            break;
        case ServingOutcome::latency: text.verdict = "unmet: no replica meets its latency targets"; break;
        case ServingOutcome::kv_cache: text.verdict = "unmet: no replica holds the KV cache"; break;
    }
    if (answer.verdict == ServingVerdict::meets) {
        text.answer = replicas_label(answer.replicas, answer.shape) + " at batch " + format_whole(point.batch) + ": TTFT " +
                      format_seconds(point.ttft_seconds) + ", TPOT " + format_seconds(point.tpot_seconds) + ", " +
                      format_number(point.tokens_per_s_per_gpu) + " tokens/s per GPU, " +
                      format_dollars(answer.dollars_per_million_tokens) + " per million output tokens";
        return text;
    }
    const std::string gpu = scenario.cluster.gpu.name;
    if (answer.verdict == ServingVerdict::kv_cache) {
        text.answer = "no replica of " + gpu + "s holds the weights and one sequence's KV cache";
        text.shortfall = "Even " + replica_shape_label(report.quoted_shape) + " leaves " + format_bytes(report.memory.kv_capacity_bytes) +
                         " per GPU for the KV cache, and one sequence of " +
                         format_whole(static_cast<double>(serving.prompt_tokens) + serving.output_tokens) + " tokens needs " +
                         format_bytes(report.memory.kv_bytes_per_token * (static_cast<double>(serving.prompt_tokens) + serving.output_tokens)) + ".";
    } else {
        std::string what;
        if (answer.ttft_missed) what = missed("TTFT", answer.best_ttft_seconds, serving.ttft_ms * 1e-3);
        if (answer.tpot_missed) what += (what.empty() ? "" : " and ") + missed("TPOT", answer.best_tpot_seconds, serving.tpot_ms * 1e-3);
        text.answer = "no replica meets the targets: the fastest, " + replica_shape_label(answer.best_shape) + " at batch 1, misses " + what;
        text.shortfall = "The fastest " + gpu + " replica, " + replica_shape_label(answer.best_shape) + " at batch 1, reaches TTFT " +
                         format_seconds(answer.best_ttft_seconds) + " and TPOT " + format_seconds(answer.best_tpot_seconds) + ": " + what +
                         ". A wider TP would need more GPUs than a node's " + format_whole(scenario.cluster.gpus_per_node) + ".";
    }
    if (!answer.alternative_gpu.empty()) {
        text.shortfall += " " + answer.alternative_gpu + " meets it: " + replicas_label(answer.alternative_gpus / answer.alternative_shape.gpus(), answer.alternative_shape) +
                          ", TTFT " + format_seconds(answer.alternative_ttft_seconds) + ", TPOT " + format_seconds(answer.alternative_tpot_seconds) + ".";
    } else {
        text.shortfall += " No GPU in the catalog meets it at this precision; fp8 or int4 weights, or shorter prompts and outputs, change the question.";
    }
    return text;
}

}  // namespace core
