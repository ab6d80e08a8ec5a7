// The step trace against the Trace Event Format (Chrome's "Trace Event Format" document: a "traceEvents" list;
// complete events "ph": "X" with "ts" and "dur" in microseconds; "M" metadata naming processes and threads) and
// against the step model it draws: each stage's compute is the report's, each stream's communication the report's,
// and no stream does two things at once.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/trace.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

namespace {

using core_tests::shipped;

// A complete event as read back from the JSON text.
struct Event {
    int pid = 0, tid = 0;
    double ts = 0, dur = 0;
};

struct Traced {
    core::Scenario scenario;
    core::Report report;
    core::StepTrace trace;
    nlohmann::json json;        // the whole document, when asked for
    std::vector<Event> events;  // its "ph": "X" events, read back from the text
};

Traced traced(const core::Scenario& scenario, bool keep_document = false) {
    Traced result{scenario, core::evaluate(scenario), {}, {}, {}};
    result.trace = core::step_trace(result.scenario, result.report);
    nlohmann::json document = nlohmann::json::parse(core::trace_to_json(result.scenario, result.report, result.trace));
    for (const auto& event : document["traceEvents"])
        if (event["ph"] == "X") result.events.push_back({event["pid"].get<int>(), event["tid"].get<int>(), event["ts"].get<double>(), event["dur"].get<double>()});
    if (keep_document) result.json = std::move(document);
    return result;
}

// The scenarios the checks run on: every schedule, ZeRO 0 to 3, TP with and without SP, CP, blocking and overlapped
// communication, unfused attention with full recompute.
std::vector<std::pair<std::string, core::Scenario>> trace_scenarios() {
    std::vector<std::pair<std::string, core::Scenario>> scenarios = {
        {"default.json", shipped("default.json")},
        {"gpt3-175b-megatron.json, 16 sequences", shipped("gpt3-175b-megatron.json")},
        {"llama3-405b-16k.json", shipped("llama3-405b-16k.json")},
    };
    scenarios[1].second.train.global_batch = 16;  // 16 micro-batches: the same ops, a quarter of the slices to check
    const auto add = [&](const std::string& name, const std::string& json) { scenarios.emplace_back(name, core::parse_scenario(json)); };
    add("zb-h1, ZeRO-3, CP 2", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 64, "seq_len": 8192},
        "parallel": {"tp": 2, "pp": 4, "cp": 2, "zero": 3, "schedule": "zb-h1"}, "cluster": {"gpus": 64}})");
    add("torchtitan, CP 4 (PyTorch's all-gather rotation), full recompute", R"({"model": {"preset": "llama3-8b"},
        "train": {"global_batch": 2, "seq_len": 65536, "recompute": "full", "framework": "torchtitan"},
        "parallel": {"cp": 4, "zero": 3}, "cluster": {"gpus": 8}})");
    add("torchtitan, PP 2, FSDP kept gathered through the step", R"({"model": {"preset": "llama3-8b"},
        "train": {"global_batch": 32, "seq_len": 4096, "recompute": "full", "framework": "torchtitan"},
        "parallel": {"pp": 2, "zero": 3}, "cluster": {"gpus": 16}})");
    add("gpipe, ZeRO-2, blocking sends, TP overlap", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 32, "sequence_parallel": true},
        "parallel": {"tp": 4, "pp": 2, "zero": 2, "schedule": "gpipe"}, "cluster": {"gpus": 32},
        "overlap": {"pp_p2p": false, "tp_comm": true, "dp_grad_reduce": false}})");
    add("naive, full recompute, unfused attention", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 8, "recompute": "full", "flash_attention": false, "seq_len": 2048},
        "parallel": {"tp": 2, "pp": 2, "schedule": "naive"}, "cluster": {"gpus": 8}})");
    add("DualPipe, F&B cells, ZeRO-1", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 16, "seq_len": 4096},
        "parallel": {"pp": 4, "zero": 1, "schedule": "dualpipe"}, "cluster": {"gpus": 8}})");
    add("DualPipeV, TP 2", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 8, "seq_len": 4096},
        "parallel": {"tp": 2, "pp": 4, "schedule": "dualpipev"}, "cluster": {"gpus": 8}})");
    add("one GPU per replica, ZeRO-1", R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 16, "seq_len": 4096},
        "parallel": {"zero": 1}, "cluster": {"gpus": 8, "gpu": "h200-sxm"}})");
    add("Mixtral, EP 8 across nodes, 1F1B, all-to-all waited for", R"({"model": {"preset": "mixtral-8x7b"}, "train": {"global_batch": 32, "seq_len": 4096, "sequence_parallel": true},
        "parallel": {"tp": 2, "pp": 4, "ep": 8}, "cluster": {"gpus": 64}, "overlap": {"ep_all_to_all": false}})");
    scenarios.emplace_back("deepseek-v3.json, 32 micro-batches", shipped("deepseek-v3.json"));
    scenarios.back().second.train.global_batch = 128 * 32;  // DualPipe's 2 x pp micro-batches per DP rank: the same ops, fewer
    return scenarios;
}

// Traced once for the test cases below, which check different things of the same traces.
const std::vector<std::pair<std::string, Traced>>& traced_scenarios() {
    static const std::vector<std::pair<std::string, Traced>> all = [] {
        std::vector<std::pair<std::string, Traced>> result;
        for (const auto& [name, scenario] : trace_scenarios()) result.emplace_back(name, traced(scenario));
        return result;
    }();
    return all;
}

double sum_compute_seconds(const std::vector<Event>& events, int pid) {
    double us = 0;
    for (const Event& event : events)
        if (event.pid == pid && event.tid == static_cast<int>(core::TraceThread::compute) + 1) us += event.dur;
    return us / 1e6;
}

// What the model says a stage computes: m micro-batches through its layers and its own edge kernels, and the optimizer.
double modelled_stage_compute_seconds(const core::Report& report, int stage, int stage_layers) {
    double layer = 0, first = 0, last = 0, optimizer = 0;
    for (const core::Kernel& kernel : report.compute.kernels) {
        switch (kernel.scope) {
            case core::KernelScope::layer: layer += kernel.total_seconds(); break;
            case core::KernelScope::first_stage: first += kernel.total_seconds(); break;
            case core::KernelScope::last_stage: last += kernel.total_seconds(); break;
            case core::KernelScope::step: optimizer += kernel.total_seconds(); break;
        }
    }
    const int pp = report.pipeline.stages;
    // Which device runs the edges: the first and the last one-way; DualPipe's end devices each half of both (one per
    // direction); DualPipeV's device 0 both (stage 0 and stage 2p-1 sit there).
    double edges = (stage == 0 ? first : 0.0) + (stage == pp - 1 ? last : 0.0);
    if (report.pipeline.schedule == core::ScheduleKind::dualpipe) edges = stage == 0 || stage == pp - 1 ? 0.5 * (first + last) : 0.0;
    if (report.pipeline.schedule == core::ScheduleKind::dualpipe_v) edges = stage == 0 ? first + last : 0.0;
    return report.pipeline.microbatches * (stage_layers * layer + edges) + optimizer;
}

// The layers a stage's device runs in the trace: the edge stages their own (one-way schedules), the others the heaviest's.
int traced_stage_layers(const core::StepTrace& trace, int stage, int pp) {
    if (stage == 0) return trace.first_stage_layers;
    if (stage == pp - 1) return trace.last_stage_layers;
    return trace.stage_layers;
}

}  // namespace

TEST_CASE("Trace Event Format: a traceEvents list of complete events, ts and dur in microseconds", "[trace]") {
    const Traced t = traced(shipped("default.json"), true);
    REQUIRE(t.json.contains("traceEvents"));
    REQUIRE(t.json["traceEvents"].is_array());
    int complete = 0, metadata = 0;
    double schedule_end_us = 0, last_end_us = 0;
    std::map<int, std::string> process_names;
    for (const auto& event : t.json["traceEvents"]) {
        REQUIRE(event["pid"].is_number_integer());
        if (event["ph"] == "M") {
            ++metadata;
            if (event["name"] == "process_name") process_names[event["pid"].get<int>()] = event["args"]["name"].get<std::string>();
            continue;
        }
        REQUIRE(event["ph"] == "X");
        ++complete;
        REQUIRE(event["tid"].is_number_integer());
        REQUIRE(event["name"].is_string());
        const double ts = event["ts"].get<double>(), dur = event["dur"].get<double>();
        REQUIRE(ts >= 0);
        REQUIRE(dur >= 0);
        if (event["tid"] == static_cast<int>(core::TraceThread::schedule) + 1) schedule_end_us = std::max(schedule_end_us, ts + dur);
        if (event["tid"] == static_cast<int>(core::TraceThread::compute) + 1) last_end_us = std::max(last_end_us, ts + dur);
    }
    CHECK(complete == static_cast<int>(t.trace.slices.size()));
    CHECK(metadata > 0);
    CHECK(process_names.size() == static_cast<std::size_t>(t.report.layout.pp));
    // Microseconds: the pipeline ops end at the report's makespan, the compute stream's last kernel by the step's end.
    CHECK(schedule_end_us == Approx(t.report.pipeline.makespan_seconds * 1e6).epsilon(1e-9));
    CHECK(last_end_us <= t.report.compute.modelled_step_seconds * 1e6 * (1 + 1e-9));
    CHECK(t.trace.detail == core::TraceDetail::kernels);
    // A kernel slice carries its figures.
    for (const auto& event : t.json["traceEvents"]) {
        if (event["ph"] != "X" || event["name"] != "qkv") continue;
        CHECK(event["args"]["flops"].get<double>() > 0);
        CHECK(event["args"]["bytes"].get<double>() > 0);
        CHECK(event["args"].contains("bound"));
        break;
    }
}

TEST_CASE("Trace: each stage's compute slices sum to the report's compute time for that stage", "[trace]") {
    for (const auto& [name, t] : traced_scenarios()) {
        INFO(name);
        const int pp = t.report.pipeline.stages;
        for (int stage = 0; stage < pp; ++stage) {
            INFO("stage " << stage);
            const double traced_seconds = sum_compute_seconds(t.events, stage + 1);
            CHECK(traced_seconds == Approx(t.trace.stage_compute_seconds[stage]).epsilon(1e-9));
            CHECK(traced_seconds == Approx(modelled_stage_compute_seconds(t.report, stage, traced_stage_layers(t.trace, stage, t.report.pipeline.stages))).epsilon(1e-9));
            // The busiest stage is the one the report's breakdown describes: its compute is compute.compute_seconds.
            if (stage == t.report.compute.busiest_stage) CHECK(traced_seconds == Approx(t.report.compute.compute_seconds).epsilon(1e-9));
        }
    }
}

TEST_CASE("Trace: no two slices of one thread overlap", "[trace]") {
    for (const auto& [name, t] : traced_scenarios()) {
        INFO(name);
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> threads;
        for (const Event& event : t.events) threads[{event.pid, event.tid}].emplace_back(event.ts, event.ts + event.dur);
        int overlaps = 0;
        for (auto& [thread, spans] : threads) {
            std::sort(spans.begin(), spans.end());
            for (std::size_t i = 1; i < spans.size(); ++i)
                if (spans[i].first < spans[i - 1].second) ++overlaps;
        }
        CHECK(overlaps == 0);
    }
}

TEST_CASE("Trace: each stream carries the report's communication per step", "[trace]") {
    // Per stage, per thread: the sum of slice durations, against CommReport's per-axis seconds (per GPU, per step).
    for (const auto& [name, t] : traced_scenarios()) {
        INFO(name);
        std::map<std::pair<int, core::TraceThread>, double> seconds;
        std::map<int, int> sends;
        for (const core::TraceSlice& slice : t.trace.slices) {
            seconds[{slice.stage, slice.thread}] += slice.duration_us / 1e6;
            if (slice.thread == core::TraceThread::pp) ++sends[slice.stage];
        }
        const int pp = t.report.pipeline.stages;
        for (const core::AxisComm& axis : t.report.comm.axes) {
            INFO(core::comm_axis_name(axis.axis));
            for (int stage = 0; stage < pp; ++stage) {
                switch (axis.axis) {
                    // The report's DP time is the busiest stage's gradients, bucket by layer: an edge stage with fewer layers sends less.
                    case core::CommAxis::dp:
                        if (traced_stage_layers(t.trace, stage, pp) == t.trace.stage_layers) CHECK(seconds[{stage, core::TraceThread::dp}] == Approx(axis.seconds).epsilon(1e-9));
                        else CHECK(seconds[{stage, core::TraceThread::dp}] < axis.seconds);
                        break;
                    case core::CommAxis::cp: CHECK(seconds[{stage, core::TraceThread::cp}] == Approx(axis.seconds).epsilon(1e-9)); break;
                    // The report counts both edges' TP collectives; one stage holds both only without a pipeline.
                    case core::CommAxis::tp:
                        if (pp == 1) CHECK(seconds[{stage, core::TraceThread::tp}] == Approx(axis.seconds).epsilon(1e-9));
                        else CHECK(seconds[{stage, core::TraceThread::tp}] <= axis.seconds * (1 + 1e-9));
                        break;
                    // An inner stage sends each micro-batch's activation forward and its gradient back, once per chunk.
                    case core::CommAxis::pp:
                        if (stage > 0 && stage < pp - 1) CHECK(seconds[{stage, core::TraceThread::pp}] == Approx(axis.seconds).epsilon(1e-9));
                        break;
                    // The report's EP time is the stage with the most MoE layers; no stage carries more.
                    case core::CommAxis::ep: CHECK(seconds[{stage, core::TraceThread::ep}] <= axis.seconds * (1 + 1e-9)); break;
                }
            }
            if (axis.axis == core::CommAxis::ep && t.report.pipeline.schedule == core::ScheduleKind::one_f_one_b) {
                double most = 0;
                for (int stage = 0; stage < pp; ++stage) most = std::max(most, seconds[{stage, core::TraceThread::ep}]);
                CHECK(most == Approx(axis.seconds).epsilon(1e-9));
            }
        }
        const core::ScheduleKind kind = t.report.pipeline.schedule;
        if (pp > 1 && kind != core::ScheduleKind::naive && kind != core::ScheduleKind::dualpipe && kind != core::ScheduleKind::dualpipe_v) {
            const int m = t.report.pipeline.microbatches, v = t.report.pipeline.virtual_stages;
            CHECK(sends[0] == m * (2 * v - 1));       // the first stage's first chunk sends nothing back
            CHECK(sends[pp - 1] == m * (2 * v - 1));  // the last stage's last chunk sends nothing forward
        }
    }
}

TEST_CASE("Trace: a step with too many kernels for one slice each is cut per layer pass, and still sums", "[trace]") {
    // 2048 micro-batches of Llama 3 8B on 8 stages: about 2048 x 32 layers x 30 kernels, over max_trace_slices.
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"global_batch": 2048, "seq_len": 2048},
        "parallel": {"pp": 8}, "cluster": {"gpus": 8}})");
    const core::Report report = core::evaluate(scenario);
    const Traced t{scenario, report, core::step_trace(scenario, report), {}, {}};  // large: checked on the slices, its JSON searched
    CHECK(t.trace.detail != core::TraceDetail::kernels);
    CHECK(t.trace.slices.size() <= core::max_trace_slices);
    std::vector<double> compute_seconds(t.report.pipeline.stages, 0.0);
    for (const core::TraceSlice& slice : t.trace.slices)
        if (slice.thread == core::TraceThread::compute) compute_seconds[slice.stage] += slice.duration_us / 1e6;
    for (int stage = 0; stage < t.report.pipeline.stages; ++stage) {
        CHECK(compute_seconds[stage] == Approx(modelled_stage_compute_seconds(t.report, stage, t.trace.stage_layers)).epsilon(1e-9));
    }
    const std::string json = core::trace_to_json(t.scenario, t.report, t.trace);
    CHECK(json.find(std::string("\"detail\":\"") + core::trace_detail_name(t.trace.detail) + "\"") != std::string::npos);
}

TEST_CASE("Trace: a model with experts has an EP thread of all-to-alls on its MoE layers; a dense model has none", "[trace][moe]") {
    for (const auto& [name, t] : traced_scenarios()) {
        INFO(name);
        int ep_slices = 0;
        for (const core::TraceSlice& slice : t.trace.slices) {
            if (slice.thread != core::TraceThread::ep) continue;
            ++ep_slices;
            CHECK(slice.category == "ep");
            CHECK(slice.ranks == t.report.layout.ep);
            // Each lies on a layer with routed experts (DeepSeek-V3's first three are dense).
            if (slice.layer >= 0) CHECK(core::is_moe_layer(t.scenario.model, slice.layer));
        }
        if (t.scenario.model.is_moe() && t.report.layout.ep > 1) CHECK(ep_slices > 0);
        else CHECK(ep_slices == 0);
    }
    // DeepSeek-V3 keeps its dense first layers: stage 0 runs layers 0 to 3, of which only layer 3 routes.
    const auto& [name, deepseek] = traced_scenarios().back();
    INFO(name);
    std::set<int> stage0_layers;
    for (const core::TraceSlice& slice : deepseek.trace.slices)
        if (slice.thread == core::TraceThread::ep && slice.stage == 0 && slice.layer >= 0 && slice.layer < 4) stage0_layers.insert(slice.layer);
    CHECK(stage0_layers == std::set<int>{3});
}
