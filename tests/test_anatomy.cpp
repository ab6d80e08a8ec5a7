// The anatomy of a step: the stacked bar the panel draws, MFU as a ratio of lengths (Korthikanti et al. 2022,
// Appendix A), the waits of one layer's timeline against the step model, and the scenario's kernels on the roofline
// (Williams et al. 2009) as GEMM intensity 2 m n k / (2 (m k + k n + m n)) moves with TP.
#include "core/cost/report/anatomy.h"
#include "core/cost/report/explain.h"
#include "core/model/format.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

core::Report evaluate_json(const std::string& json) { return core::evaluate(core::parse_scenario(json)); }

// Layouts that exercise every part of the bar: TP and SP, a pipeline with its bubble, CP, ZeRO-3, 405B in 3D.
const char* const kLayouts[] = {
    "{}",
    R"({"parallel": {"tp": 8}})",
    R"({"parallel": {"tp": 8, "pp": 4}, "train": {"sequence_parallel": true, "recompute": "selective"}})",
    R"({"parallel": {"tp": 8, "cp": 2}})",
    R"({"parallel": {"zero": 3}, "overlap": {"zero3_prefetch": false}})",
    R"({"parallel": {"tp": 4, "pp": 2}, "overlap": {"tp_comm": true, "dp_grad_reduce": false}})",
    R"({"model": {"preset": "llama3-405b"}, "cluster": {"gpus": 16384}, "parallel": {"tp": 8, "pp": 16, "zero": 2},
        "train": {"seq_len": 8192, "global_batch": 2048, "sequence_parallel": true}})",
};

double sum_of_segments(const core::StepBar& bar) {
    double total = 0;
    for (const core::StepSegment& segment : bar.segments) total += segment.seconds;
    return total;
}

double stall_seconds(const std::vector<core::ComputeStall>& stalls, core::Stream stream) {
    double total = 0;
    for (const core::ComputeStall& stall : stalls) total += stall.waiting_for == stream ? stall.seconds : 0.0;
    return total;
}

}  // namespace

TEST_CASE("Anatomy bar: the segments the panel draws sum to compute.step_seconds, end to end", "[anatomy]") {
    for (const char* layout : kLayouts) {
        INFO(layout);
        const core::Report report = evaluate_json(layout);
        const core::StepBar bar = core::step_bar(report);
        REQUIRE(bar.segments.size() == core::kStepPartCount);
        CHECK(sum_of_segments(bar) == Approx(report.compute.step_seconds).epsilon(1e-12));
        CHECK(bar.total_seconds == Approx(report.compute.step_seconds).epsilon(1e-12));
        double at = 0;
        for (const core::StepSegment& segment : bar.segments) {
            CHECK(segment.start_seconds == Approx(at).margin(1e-12));
            CHECK(segment.seconds >= 0);
            at += segment.seconds;
        }
        // Each part is the breakdown's own figure.
        const core::StepBreakdown& parts = report.compute.breakdown_seconds;
        CHECK(bar.segments[0].seconds == parts.gemm_seconds);
        CHECK(bar.segments[static_cast<int>(core::StepPart::exposed_dp)].seconds ==
              parts.exposed_comm_seconds[static_cast<int>(core::CommAxis::dp)]);
        CHECK(bar.segments[static_cast<int>(core::StepPart::bubble)].seconds == parts.bubble_seconds);
        CHECK(bar.segments[static_cast<int>(core::StepPart::beyond_model)].seconds == 0);
    }
}

TEST_CASE("Korthikanti 2022 App. A: MFU = ideal step at peak / step, the ratio of the two bars' lengths", "[anatomy][mfu]") {
    for (const char* layout : kLayouts) {
        INFO(layout);
        const core::Report report = evaluate_json(layout);
        const core::StepBar bar = core::step_bar(report);
        const core::ComputeReport& compute = report.compute;
        CHECK(bar.ideal_step_seconds == Approx(compute.model_flops_per_step / (report.layout.gpus * compute.peak_flops_per_s)));
        CHECK(bar.ideal_step_seconds / bar.total_seconds == Approx(compute.mfu).epsilon(1e-12));
        REQUIRE(bar.marks.size() == 3);  // all kernels, + exposed communication, the step
        CHECK(bar.marks[0].end_seconds == Approx(compute.compute_seconds));
        CHECK(bar.marks[1].end_seconds == Approx(compute.compute_seconds + compute.exposed_comm_seconds));
        CHECK(bar.marks.back().mfu == Approx(compute.mfu));
        // MFU only falls as the bar grows, and starts from a GEMM that runs nearer its peak than the step does.
        CHECK(bar.marks[0].mfu >= bar.marks[1].mfu * (1 - 1e-12));
        CHECK(bar.marks[1].mfu >= bar.marks[2].mfu * (1 - 1e-12));
        REQUIRE(bar.best_gemm_kernel >= 0);
        CHECK(bar.best_gemm_efficiency == compute.kernels[bar.best_gemm_kernel].efficiency);
        CHECK(bar.best_gemm_efficiency > compute.mfu);
    }
}

TEST_CASE("Anatomy bar with an assumed MFU: time the model does not explain is its own segment", "[anatomy][mfu]") {
    // 20 % MFU is slower than the model's step for this layout: the rest shows as "beyond the model".
    const core::Report report = evaluate_json(R"({"parallel": {"tp": 8}, "efficiency": {"mfu": 0.2}})");
    const core::StepBar bar = core::step_bar(report);
    REQUIRE(report.compute.step_seconds > report.compute.modelled_step_seconds);
    CHECK(sum_of_segments(bar) == Approx(report.compute.step_seconds).epsilon(1e-12));
    CHECK(bar.segments.back().seconds == Approx(report.compute.step_seconds - report.compute.modelled_step_seconds));
    CHECK(bar.ideal_step_seconds / bar.step_seconds == Approx(0.2));
    CHECK(bar.marks.back().mfu == Approx(0.2));

    // 90 % is faster than the model: the bar is the model's, the assumed step a mark inside it.
    const core::StepBar faster = core::step_bar(evaluate_json(R"({"efficiency": {"mfu": 0.9}})"));
    CHECK(faster.segments.back().seconds == 0);
    CHECK(faster.total_seconds == Approx(faster.modelled_step_seconds));
    CHECK(faster.marks.back().end_seconds < faster.total_seconds);
    CHECK(faster.marks.back().mfu == Approx(0.9));
}

TEST_CASE("Roofline: each GEMM's point is 2 m n k / (2 (m k + k n + m n)) FLOP/B at FLOPs / time, per GPU after sharding", "[anatomy][roofline]") {
    const core::Report report = evaluate_json("{}");
    const std::vector<core::KernelPoint> points = core::kernel_points(report);
    int gemms = 0;
    for (const core::KernelPoint& point : points) {
        const core::Kernel& kernel = report.compute.kernels[point.kernel];
        CHECK(point.achieved_flops_per_s == Approx(kernel.flops / kernel.seconds));
        if (!kernel.is_gemm || kernel.batch > 1) continue;
        ++gemms;
        const double m = kernel.m, n = kernel.n, k = kernel.k;
        CHECK(point.intensity_flops_per_byte == Approx(2 * m * n * k / (2 * (m * k + k * n + m * n))));
    }
    CHECK(gemms >= 12);  // QKV, projection, up, down: forward, input and weight gradients
    // The embedding's lookup does no arithmetic: no place on a log axis.
    for (const core::KernelPoint& point : points) CHECK(report.compute.kernels[point.kernel].id != core::KernelId::embedding);
}

TEST_CASE("Roofline: TP 8 moves every layer GEMM of the default scenario left (lower intensity) and down", "[anatomy][roofline]") {
    const core::Report tp1 = evaluate_json("{}");
    const core::Report tp8 = evaluate_json(R"({"parallel": {"tp": 8}})");
    const std::vector<core::KernelPoint> points1 = core::kernel_points(tp1);
    const std::vector<core::KernelPoint> points8 = core::kernel_points(tp8);
    int compared = 0;
    for (const core::KernelPoint& point : points1) {
        const core::Kernel& kernel = tp1.compute.kernels[point.kernel];
        if (kernel.category != core::KernelCategory::gemm || kernel.scope != core::KernelScope::layer) continue;
        const int index8 = core::find_kernel(tp8.compute.kernels, kernel.id, kernel.pass, kernel.scope,
                                             core::kernel_occurrence(tp1.compute.kernels, point.kernel));
        REQUIRE(index8 >= 0);
        const auto found = std::find_if(points8.begin(), points8.end(), [&](const core::KernelPoint& p) { return p.kernel == index8; });
        REQUIRE(found != points8.end());
        INFO(core::kernel_label(kernel));
        CHECK(found->intensity_flops_per_byte < point.intensity_flops_per_byte);
        CHECK(found->achieved_flops_per_s <= point.achieved_flops_per_s);
        ++compared;
    }
    CHECK(compared >= 12);
}

TEST_CASE("A kernel selection is found again by name, pass, scope and occurrence", "[anatomy]") {
    const core::Report report = evaluate_json(R"({"parallel": {"tp": 2}})");
    const std::vector<core::Kernel>& kernels = report.compute.kernels;
    for (int i = 0; i < static_cast<int>(kernels.size()); ++i) {
        CHECK(core::find_kernel(kernels, kernels[i].id, kernels[i].pass, kernels[i].scope, core::kernel_occurrence(kernels, i)) == i);
    }
    CHECK(core::find_kernel(kernels, core::KernelId::qkv, core::KernelPass::forward, core::KernelScope::layer, 5) == -1);
    CHECK(core::kernel_occurrence(kernels, -1) == -1);
}

TEST_CASE("Layer timeline: CP without the ring overlap waits steps x one exchange, as the step model's exposed CP", "[anatomy][timeline]") {
    const core::Report report = evaluate_json(R"({"parallel": {"tp": 8, "cp": 2}, "overlap": {"cp_ring": false}})");
    const std::vector<core::ComputeStall> stalls = core::compute_stalls(report.compute.layer_timeline);
    const double per_layer = stall_seconds(stalls, core::Stream::cp);
    REQUIRE(per_layer > 0);
    const double layers = report.memory.activations.layers_on_first_stage;
    CHECK(per_layer * layers * report.layout.microbatches ==
          Approx(report.compute.breakdown_seconds.exposed_comm_seconds[static_cast<int>(core::CommAxis::cp)]).epsilon(1e-9));
}

TEST_CASE("Layer timeline: TP collectives stall the compute stream unless overlapped", "[anatomy][timeline]") {
    const core::Report exposed = evaluate_json(R"({"parallel": {"tp": 8}})");
    const std::vector<core::ComputeStall> stalls = core::compute_stalls(exposed.compute.layer_timeline);
    double tp_exposed_ops = 0;
    for (const core::TimelineOp& op : exposed.compute.layer_timeline) tp_exposed_ops += op.stream == core::Stream::tp && op.exposed ? op.duration_seconds : 0;
    REQUIRE(tp_exposed_ops > 0);
    CHECK(stall_seconds(stalls, core::Stream::tp) == Approx(tp_exposed_ops));
    // The compute stream's length is its kernels plus the waits.
    double compute_seconds = 0, compute_end = 0;
    for (const core::TimelineOp& op : exposed.compute.layer_timeline) {
        if (op.stream != core::Stream::compute) continue;
        compute_seconds += op.duration_seconds;
        compute_end = std::max(compute_end, op.start_seconds + op.duration_seconds);
    }
    CHECK(compute_seconds + tp_exposed_ops == Approx(compute_end));

    const core::Report hidden = evaluate_json(R"({"parallel": {"tp": 8}, "overlap": {"tp_comm": true}})");
    CHECK(stall_seconds(core::compute_stalls(hidden.compute.layer_timeline), core::Stream::tp) == 0);
}

TEST_CASE("Layer timeline: a prefetched ZeRO-3 gather is no wait, an unprefetched one is", "[anatomy][timeline]") {
    const core::Report prefetched = evaluate_json(R"({"parallel": {"zero": 3}})");
    CHECK(stall_seconds(core::compute_stalls(prefetched.compute.layer_timeline), core::Stream::dp) == 0);
    const core::Report waited = evaluate_json(R"({"parallel": {"zero": 3}, "overlap": {"zero3_prefetch": false}})");
    CHECK(stall_seconds(core::compute_stalls(waited.compute.layer_timeline), core::Stream::dp) > 0);
}

TEST_CASE("Layer timeline: the passes in order, the play cursor finds what runs", "[anatomy][timeline]") {
    const core::Report report = evaluate_json(R"({"parallel": {"tp": 8}, "train": {"recompute": "full"}})");
    const std::vector<core::TimelineOp>& ops = report.compute.layer_timeline;
    const std::vector<core::PassSpan> spans = core::pass_spans(ops);
    REQUIRE(spans.size() == 3);
    CHECK(spans[0].pass == core::KernelPass::forward);
    CHECK(spans[1].pass == core::KernelPass::recompute);
    CHECK(spans[2].pass == core::KernelPass::backward_input);
    CHECK(spans[0].end_seconds <= spans[1].start_seconds);
    CHECK(spans[1].end_seconds <= spans[2].start_seconds);
    for (const core::TimelineOp& op : ops) {
        if (op.stream != core::Stream::compute) continue;
        const std::vector<int> running = core::ops_at(ops, op.start_seconds + 0.5 * op.duration_seconds);
        REQUIRE_FALSE(running.empty());
        CHECK(ops[running.front()].kernel == op.kernel);
    }
    CHECK(core::ops_at(ops, report.compute.layer_timeline_seconds + 1).empty());
    // The cursor: t over the animation's length, scaled to the layer; clamped at both ends, a NaN t at the start.
    const double layer = report.compute.layer_timeline_seconds;
    CHECK(core::cursor_seconds_at(3.0, 12.0, layer) == Approx(0.25 * layer));
    CHECK(core::cursor_seconds_at(-1.0, 12.0, layer) == 0);
    CHECK(core::cursor_seconds_at(99.0, 12.0, layer) == Approx(layer));
    CHECK(core::cursor_seconds_at(std::nan(""), 12.0, layer) == 0);
    CHECK(core::cursor_seconds_at(3.0, 0.0, layer) == 0);
}

TEST_CASE("Anatomy texts: one per kernel, per timeline operation and per bar part, with units", "[anatomy][explain]") {
    const core::Scenario scenario = core::parse_scenario(R"({"parallel": {"tp": 8, "pp": 4}, "train": {"sequence_parallel": true}})");
    const core::Report report = core::evaluate(scenario);
    const core::ReportText text = core::explain(scenario, report);
    CHECK(text.kernel_short_labels.size() == report.compute.kernels.size());
    CHECK(text.timeline_ops.size() == report.compute.layer_timeline.size());
    REQUIRE(text.step_parts.size() == core::kStepPartCount);
    CHECK(text.step_parts[0].formula.find("GEMMs") == 0);
    CHECK(text.step_parts[0].formula.find(" s, ") != std::string::npos);
    CHECK(text.ideal_step.formula.find(core::format_percent(report.compute.mfu)) != std::string::npos);
    CHECK(text.mfu_chain.find("best GEMM") == 0);
    CHECK(text.mfu_chain.find(core::format_percent(report.compute.mfu) + " MFU") != std::string::npos);
    for (const core::Kernel& kernel : report.compute.kernels) {
        if (kernel.id == core::KernelId::mlp_up && kernel.pass == core::KernelPass::backward_weight) CHECK(core::kernel_short_label(kernel) == "up dW");
    }
}
