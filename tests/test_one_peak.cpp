// One peak (the memory timeline's issue): the step's peak per GPU, memory.fits, the memory wall's text the stack panel
// shows and the planner's estimate of the same layout are one figure on every shipped scenario; the timeline walked op by
// op (core/cost/memory/timeline.h) never holds more than that peak, and an operator recipe's peak is its allocator's
// reserved peak where that is the larger.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/search/planner.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("One peak: memory.fits, the stack's peak line, the planner and the timeline agree on the per-GPU peak of every shipped scenario",
          "[memory][timeline]") {
    int checked = 0;
    for (const std::string& name : core_tests::shipped_scenarios()) {
        const core::Scenario scenario = core_tests::shipped(name);
        const core::Report report = core::evaluate(scenario);
        const core::MemoryReport& memory = report.memory;
        const double peak = memory.per_gpu.peak_bytes;
        INFO(name << ": peak " << peak << " B, HBM " << memory.hbm_bytes << " B, timeline reserved " << memory.timeline.peak_reserved_bytes
                  << " B, NCCL " << memory.per_gpu.comm_buffers_bytes << " B");
        REQUIRE(peak > 0);
        CHECK(memory.fits == (peak <= memory.hbm_bytes));
        // The stack panel's "Per GPU at the peak" line ends with the figure it stands beside.
        const core::ReportText text = core::explain(scenario, report);
        CHECK(text.memory_peak_line.find(core::format_bytes(peak)) != std::string::npos);
        // The planner prices the scenario's own layout at the same peak and the same verdict.
        const core::LayoutEstimate estimate = core::estimate_layout(scenario, core::layout_of(scenario));
        CHECK(estimate.memory_per_gpu_bytes == Approx(peak).epsilon(1e-9));
        CHECK(estimate.fits == memory.fits);
        // What the allocator holds over the step, with NCCL's buffers beside it, is at most the peak.
        const double timeline_peak = memory.timeline.peak_reserved_bytes + memory.per_gpu.comm_buffers_bytes;
        CHECK(timeline_peak <= peak * (1 + 1e-9));
        ++checked;
    }
    REQUIRE(checked >= 7);
}

TEST_CASE("One step: the planner prices every shipped scenario's own layout at eval's step and MFU (a fine-tune's MFU counts "
          "no frozen weight gradients in either)",
          "[planner][finetune]") {
    int checked = 0;
    for (const std::string& name : core_tests::shipped_scenarios()) {
        const core::Scenario scenario = core_tests::shipped(name);
        const core::Report report = core::evaluate(scenario);
        if (report.compute.step_basis == core::StepBasis::measured_step || report.compute.step_basis == core::StepBasis::assumed_mfu) continue;  // the file's figure, not the model's
        const core::LayoutEstimate estimate = core::estimate_layout(scenario, core::layout_of(scenario));
        INFO(name << ": eval " << report.compute.step_seconds << " s at MFU " << report.compute.mfu << ", planner " << estimate.step_seconds
                  << " s at MFU " << estimate.mfu);
        CHECK(estimate.step_seconds == Approx(report.compute.step_seconds).epsilon(1e-9));
        CHECK(estimate.mfu == Approx(report.compute.mfu).epsilon(1e-9));
        ++checked;
    }
    REQUIRE(checked >= 7);
}
