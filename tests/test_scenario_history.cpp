// Undo and redo (core/model/scenario_history.h) over the edits the sidebar makes: the issue's own sequence (4,096 GPUs
// with PP 8, "+" then "-", then 100,000,000 GPUs typed) undone step by step back to the scenario it started from, byte for
// byte as the file would be written; 150 steps, of which the last 100 at least come back; a drag as one step.
#include "core/model/scenario_edits.h"
#include "core/model/scenario_history.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

// Byte for byte: as written to a file, and every field (what the file leaves out included).
void require_same(const core::Scenario& a, const core::Scenario& b) {
    REQUIRE(core::scenario_to_json(a) == core::scenario_to_json(b));
    REQUIRE(a == b);
}

core::Scenario applied(const core::Edit& edit) {
    REQUIRE(edit.ok());
    return edit.scenario;
}

// The starting point: Llama 3 70B on 4,096 H100s with PP 8 (DP 512), global batch 512.
core::Scenario pp8_on_4096() {
    return applied(core::with_gpus(applied(core::with_axis(core::default_scenario(), core::LayoutAxis::pp, 8)), 4096));
}

}  // namespace

TEST_CASE("Undo: GPUs 4,096 -> 4,104 -> 4,096 doubled the batch (512 -> 513 -> 1,024); undoing both steps gives the 512 back", "[history]") {
    const core::Scenario start = pp8_on_4096();
    REQUIRE(start.train.global_batch == 512);
    core::ScenarioHistory history;
    // Settled one edit at a time, as the sidebar's controls did before a return to an earlier value restored its scenario.
    const core::Scenario plus = applied(core::with_gpus(start, core::next_gpus(start, +1)));
    REQUIRE(plus.cluster.gpus == 4104);
    REQUIRE(plus.train.global_batch == 513);
    history.record(start, plus, "GPUs");
    // Typed back to 4,096 ("-" now steps to the DP the batch offers, 171 x 8): the settled edit doubles the batch again.
    const core::Scenario minus = applied(core::with_gpus(plus, 4096));
    REQUIRE(minus.cluster.gpus == 4096);
    REQUIRE(minus.train.global_batch == 1024);
    history.record(plus, minus, "GPUs");
    // 100,000,000 GPUs typed: DP 12,500,000, the batch with it; after that 64 GPUs is refused.
    const core::Scenario huge = applied(core::with_gpus(minus, 100000000));
    REQUIRE(huge.train.global_batch == 12500000);
    REQUIRE_FALSE(core::with_gpus(huge, 64).ok());
    history.record(minus, huge, "GPUs");

    CHECK(history.undo_name() == "GPUs");
    require_same(history.undo(huge), minus);
    require_same(history.undo(minus), plus);
    require_same(history.undo(plus), start);
    CHECK_FALSE(history.can_undo());
    // Redo goes forward through the same scenarios.
    require_same(history.redo(start), plus);
    require_same(history.redo(plus), minus);
    require_same(history.redo(minus), huge);
    CHECK_FALSE(history.can_redo());
}

TEST_CASE("Undo reaches back at least 100 steps (200 kept): 150 GPU counts typed one after another all come back", "[history]") {
    core::ScenarioHistory history;
    std::vector<core::Scenario> seen{core::default_scenario()};
    for (int i = 1; i <= 150; ++i) {
        const core::Scenario next = applied(core::with_gpus(seen.back(), 64 + 8 * i));
        history.record(seen.back(), next, "GPUs");
        seen.push_back(next);
    }
    REQUIRE(history.undo_steps() == 150);
    core::Scenario now = seen.back();
    for (int i = 149; i >= 0; --i) {
        REQUIRE(history.can_undo());
        now = history.undo(now);
        require_same(now, seen[i]);
    }
    CHECK_FALSE(history.can_undo());
    // 250 steps: the oldest 50 are forgotten, the newest 200 kept.
    core::ScenarioHistory long_history;
    core::Scenario scenario = core::default_scenario();
    for (int i = 1; i <= 250; ++i) {
        const core::Scenario next = applied(core::with_gpus(scenario, 64 + 8 * i));
        long_history.record(scenario, next, "GPUs");
        scenario = next;
    }
    CHECK(long_history.undo_steps() == core::ScenarioHistory::kMaxSteps);
}

TEST_CASE("A drag is one step: TP 1 -> 2 -> 4 -> 8 in one gesture undoes to TP 1; a drag back to its start leaves no step", "[history]") {
    const core::Scenario start = core::default_scenario();
    core::ScenarioHistory history;
    core::Scenario now = start;
    for (int tp : {2, 4, 8}) {
        const core::Scenario next = applied(core::with_axis(now, core::LayoutAxis::tp, tp));
        history.record(now, next, "TP", 17);
        now = next;
    }
    history.end_gesture();
    REQUIRE(history.undo_steps() == 1);
    require_same(history.undo(now), start);

    core::ScenarioHistory round_trip;
    const core::Scenario tp2 = applied(core::with_axis(start, core::LayoutAxis::tp, 2));
    round_trip.record(start, tp2, "TP", 17);
    round_trip.record(tp2, applied(core::with_axis(tp2, core::LayoutAxis::tp, 1)), "TP", 17);
    round_trip.end_gesture();
    CHECK_FALSE(round_trip.can_undo());

    // Two drags of the same control are two steps; a new edit clears what could be redone.
    core::ScenarioHistory two;
    two.record(start, tp2, "TP", 17);
    two.end_gesture();
    const core::Scenario tp4 = applied(core::with_axis(tp2, core::LayoutAxis::tp, 4));
    two.record(tp2, tp4, "TP", 17);
    two.end_gesture();
    CHECK(two.undo_steps() == 2);
    require_same(two.undo(tp4), tp2);
    CHECK(two.can_redo());
    two.record(tp2, applied(core::with_zero(tp2, 1)), "ZeRO stage");
    CHECK_FALSE(two.can_redo());
}
