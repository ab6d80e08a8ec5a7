// The layout rules (core/model/layout.h): one table, from which the check, the controls' choices, the edits' settling and
// the planner's search all follow. Megatron-LM's argument checks (arguments.py: TP divides the attention heads, the GPU
// count holds tp x pp x cp, dp x micro-batch divides the global batch, interleaving needs the micro-batches a multiple
// of pp) are rows of it: take one out and all four change together.
#include "core/cost/search/planner.h"
#include "core/model/layout.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

using V = core::LayoutValue;

// Llama 3 8B (32 attention heads, 32 layers) on 24 GPUs: 3 divides the GPUs but not the heads.
core::Scenario llama3_8b_on_24() {
    return core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"seq_len": 4096, "global_batch": 24},
                                    "cluster": {"gpu": "h100-sxm", "gpus": 24}})");
}

// Mixtral 8x7B (8 experts) with TP, SP and EP across a pipeline.
core::Scenario mixtral_on_64() {
    return core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"}, "train": {"seq_len": 4096, "global_batch": 256, "sequence_parallel": true},
                                    "parallel": {"tp": 2, "pp": 4, "ep": 4}, "cluster": {"gpus": 64}})");
}

// The shipped table without the rule named `name`.
std::vector<core::LayoutRule> rules_without(const char* name) {
    std::vector<core::LayoutRule> rules;
    for (const core::LayoutRule& rule : core::layout_rules()) {
        if (std::strcmp(rule.name, name) != 0) rules.push_back(rule);
    }
    REQUIRE(rules.size() + 1 == core::layout_rules().size());
    return rules;
}

bool contains(const std::vector<int>& values, int value) { return std::find(values.begin(), values.end(), value) != values.end(); }

// The planner's search space by brute force (TP at most 64, PP at most the layers, ZeRO 0-3, recompute none or full under
// flash attention, SP with TP, 1F1B, and with a pipeline ZB-H1 and interleaving with 2 or more chunks), counted by the
// check under `rules`: what plan_layouts must count as considered.
std::int64_t valid_layouts_by_brute_force(const core::Scenario& scenario, core::LayoutRules rules) {
    const int gpus = scenario.cluster.gpus;
    std::int64_t valid = 0;
    for (int tp = 1; tp <= std::min(gpus, 64); ++tp)
        for (int pp = 1; pp <= scenario.model.layers; ++pp)
            for (int cp = 1; cp <= gpus; ++cp) {
                if (gpus % (1LL * tp * pp * cp) != 0) continue;
                const int dp = gpus / (tp * pp * cp);
                for (int micro_batch = 1; micro_batch <= scenario.train.global_batch; ++micro_batch)
                    for (int zero = 0; zero <= 3; ++zero)
                        for (core::Recompute recompute : {core::Recompute::none, core::Recompute::full}) {
                            std::vector<std::pair<core::ScheduleKind, int>> schedules = {{core::ScheduleKind::one_f_one_b, 1}};
                            if (pp > 1) {
                                schedules.push_back({core::ScheduleKind::zb_h1, 1});
                                for (int v = 2; v <= scenario.model.layers; ++v) schedules.push_back({core::ScheduleKind::interleaved, v});
                            }
                            for (auto [schedule, v] : schedules) {
                                const core::Layout layout{tp, pp, cp, dp, zero, micro_batch, recompute, schedule, v, tp > 1};
                                if (!core::check_layout(scenario, layout, rules)) ++valid;
                            }
                        }
            }
    return valid;
}

}  // namespace

TEST_CASE("Layout rules: each rule's bounds on the values it reads admit exactly the values its test accepts", "[layout_rules]") {
    core::Scenario edges = llama3_8b_on_24();
    edges.train.embedding_and_loss_as_layers = true;
    const core::Scenario scenarios[] = {llama3_8b_on_24(), edges, mixtral_on_64()};
    const V integers[] = {V::tp, V::pp, V::cp, V::dp, V::micro_batch, V::virtual_stages, V::zero, V::ep, V::etp};
    int compared = 0;
    for (const core::Scenario& scenario : scenarios)
        for (const core::LayoutRule& rule : core::layout_rules())
            for (V which : integers) {
                if (!(rule.reads & core::value_bit(which)) || !rule.allows) continue;
                for (int tp : {1, 2, 4})
                    for (int pp : {1, 2, 3, 8})
                        for (int micro_batch : {1, 2, 3})
                            for (core::ScheduleKind schedule : {core::ScheduleKind::one_f_one_b, core::ScheduleKind::interleaved}) {
                                core::Layout layout{tp, pp, 2, 3, 1, micro_batch, core::Recompute::none, schedule, 2, true, 2, 1};
                                const std::optional<core::Allowed> allowed = rule.allows(scenario, layout, which);
                                if (!allowed) continue;
                                for (int value = which == V::zero ? 0 : 1; value <= 40; ++value) {
                                    core::layout_integer(layout, which) = value;
                                    INFO(rule.name << ", value " << value << " of integer " << static_cast<int>(which));
                                    CHECK(allowed->admits(value) == core::rule_holds(rule, scenario, layout));
                                    ++compared;
                                }
                            }
            }
    CHECK(compared > 10000);
}

TEST_CASE("Layout rules: without 'TP divides the attention heads' (Megatron-LM's check), the check, the controls, the edits and "
          "the planner all take TP 3 for Llama 3 8B's 32 heads on 24 GPUs",
          "[layout_rules][planner][scenario_edits]") {
    const core::Scenario scenario = llama3_8b_on_24();
    const std::vector<core::LayoutRule> loose = rules_without("TP divides the attention heads");
    const core::Layout tp3{3, 1, 1, 8, 0, 1, core::Recompute::none, core::ScheduleKind::one_f_one_b, 1, true};

    // The check.
    const auto problem = core::check_layout(scenario, tp3);
    REQUIRE(problem);
    CHECK(problem->field == "parallel.tp");
    CHECK(problem->reason == "3 does not divide the 32 attention heads");
    CHECK_FALSE(core::check_layout(scenario, tp3, loose));

    // The controls' choices and the edit they make.
    CHECK(core::choices_of(scenario).tp == std::vector<int>{1, 2, 4, 8});
    CHECK(core::choices_of(scenario, loose).tp == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 24});
    const core::Edit refused = core::with_axis(scenario, core::LayoutAxis::tp, 3);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.problem->reason == problem->reason);
    const core::Edit taken = core::with_axis(scenario, core::LayoutAxis::tp, 3, loose);
    REQUIRE(taken.ok());
    CHECK(taken.scenario.parallel.tp == 3);

    // The planner: it counts as considered exactly what the check accepts, with or without the rule.
    core::PlanOptions options;
    options.top = 1;
    const core::Plan strict = core::plan_layouts(scenario, options);
    options.rules = loose;
    const core::Plan lenient = core::plan_layouts(scenario, options);
    CHECK(strict.layouts_considered == valid_layouts_by_brute_force(scenario, core::layout_rules()));
    CHECK(lenient.layouts_considered == valid_layouts_by_brute_force(scenario, loose));
    CHECK(lenient.layouts_considered > strict.layouts_considered);
}

TEST_CASE("Layout rules: without 'interleaving needs p | m', the check and the controls take an interleaved schedule with 6 "
          "micro-batches on 4 stages",
          "[layout_rules][scenario_edits]") {
    // 8 GPUs, PP 4, DP 2, 6 sequences per DP rank: m = 6 is not a multiple of p = 4.
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"seq_len": 4096, "global_batch": 12},
                                                             "parallel": {"pp": 4}, "cluster": {"gpu": "h100-sxm", "gpus": 8}})");
    const std::vector<core::LayoutRule> loose = rules_without("interleaving needs p | m");
    core::Layout interleaved = core::layout_of(scenario);
    interleaved.schedule = core::ScheduleKind::interleaved;
    interleaved.virtual_stages = 2;
    const auto problem = core::check_layout(scenario, interleaved);
    REQUIRE(problem);
    CHECK(problem->reason == "interleaved needs micro-batches (6) to be a multiple of pp (4)");
    CHECK_FALSE(core::check_layout(scenario, interleaved, loose));

    const auto offers_interleaved = [](const core::Choices& choices) {
        return std::find(choices.schedules.begin(), choices.schedules.end(), core::ScheduleKind::interleaved) != choices.schedules.end();
    };
    CHECK_FALSE(offers_interleaved(core::choices_of(scenario)));
    CHECK(offers_interleaved(core::choices_of(scenario, loose)));
    CHECK(core::choices_of(scenario).virtual_stages == std::vector<int>{1});
    CHECK(contains(core::choices_of(scenario, loose).virtual_stages, 2));
}

TEST_CASE("Layout rules: an edit that breaks a rule about the value it sets is refused with the check's own words; one that breaks "
          "a rule another value can follow is settled, with a note",
          "[layout_rules][scenario_edits]") {
    const core::Scenario mixtral = mixtral_on_64();
    // Switching SP off under TP with experts: refused with the check's reason, as validate_scenario would word it.
    const core::Edit off = core::with_sequence_parallel(mixtral, false);
    REQUIRE_FALSE(off.ok());
    core::Layout without_sp = core::layout_of(mixtral);
    without_sp.sequence_parallel = false;
    CHECK(off.problem->reason == core::check_layout(mixtral, without_sp)->reason);
    // TP 8 with PP 4 leaves DP 2: a stage is still 16 GPUs (8 x 1 x 2), and EP 4 folds over it.
    const core::Edit tp8 = core::with_axis(mixtral, core::LayoutAxis::tp, 8);
    REQUIRE(tp8.ok());
    CHECK(tp8.scenario.parallel.ep == 4);
    // A micro-batch that does not divide a DP rank's share: refused, the check's reason.
    const core::Edit micro = core::with_axis(mixtral, core::LayoutAxis::micro_batch, 3);
    REQUIRE_FALSE(micro.ok());
    CHECK(micro.problem->field == "train.global_batch");
    // PP 8 under interleaving with 32 layers: the chunks follow (4 layers per stage, at most 4 chunks), PP stays.
    core::Scenario interleaving = mixtral;
    interleaving.parallel.schedule = core::ScheduleKind::interleaved;
    interleaving.parallel.virtual_stages = 8;
    REQUIRE(core::layout_is_valid(interleaving, core::layout_of(interleaving)));
    const core::Edit deeper = core::with_axis(interleaving, core::LayoutAxis::pp, 8);
    REQUIRE(deeper.ok());
    CHECK(deeper.scenario.parallel.pp == 8);
    CHECK(deeper.scenario.parallel.virtual_stages == 4);
    CHECK(std::any_of(deeper.notes.begin(), deeper.notes.end(), [](const std::string& note) { return note.find("Virtual stages 8 -> 4") == 0; }));
}
