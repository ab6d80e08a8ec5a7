// Comparing two scenarios (core/cost/report/diff_report.h): a scenario against itself changes nothing; a one-field
// edit names that field first, with the figures it moved paired from the two reports' JSON; the changes are the reports'
// own figures, each written in its unit.
#include "core/cost/report/diff_report.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/report_json.h"
#include "core/model/format.h"
#include "core/model/hardware.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

core::DiffReport diff(const core::Scenario& baseline, const core::Scenario& scenario) {
    return core::diff_reports(baseline, core::report_to_json(baseline, core::evaluate(baseline)), scenario,
                              core::report_to_json(scenario, core::evaluate(scenario)));
}

const core::FigureChange* find_figure(const core::DiffReport& report, const std::string& path) {
    for (const core::FigureChange& figure : report.figures) {
        if (figure.path == path) return &figure;
    }
    return nullptr;
}

// Every numeric leaf of a report's JSON, counted as the diff walks it.
std::size_t numeric_leaves(const nlohmann::json& json) {
    if (json.is_number()) return 1;
    std::size_t count = 0;
    if (json.is_object() || json.is_array()) {
        for (const nlohmann::json& child : json) count += numeric_leaves(child);
    }
    return count;
}

const char* kShipped[] = {"default.json", "llama3-405b-16k.json", "gpt3-175b-megatron.json", "deepseek-v3.json",
                          "gpt2-124m-2x-rtx4090-spot.json", "llama2-7b-140b-tokens-14-days.json", "minigpt-rtx4090.json"};

// The default Llama 3 70B under ZeRO-1 and under ZeRO-3: the two scenarios the ZeRO comparisons diff.
std::pair<core::Edit, core::Edit> zero_one_and_three() {
    const core::Scenario shipped = core_tests::shipped("default.json");
    std::pair<core::Edit, core::Edit> edits{core::with_zero(shipped, 1), core::with_zero(shipped, 3)};
    REQUIRE(edits.first.ok());
    REQUIRE(edits.second.ok());
    return edits;
}

}  // namespace

TEST_CASE("Diff: every shipped scenario against itself reports no input and no figure changed", "[diff]") {
    for (const char* name : kShipped) {
        INFO(name);
        const core::Scenario scenario = core_tests::shipped(name);
        const std::string json = core::report_to_json(scenario, core::evaluate(scenario));
        const core::DiffReport report = core::diff_reports(scenario, json, scenario, json);
        CHECK(report.no_change());
        CHECK(report.inputs.empty());
        CHECK(report.changed_figures == 0);
        // Every numeric figure of the report is paired, with itself.
        CHECK(report.figures.size() == numeric_leaves(nlohmann::json::parse(json)));
        for (const core::FigureChange& figure : report.figures) CHECK(figure.text == "no change");
    }
}

TEST_CASE("Diff: each one-field edit of GPT-3 175B on Megatron-LM's layout (Korthikanti et al. 2022 Table 5) names that field first",
          "[diff]") {
    const core::Scenario baseline = core_tests::shipped("gpt3-175b-megatron.json");
    const core::GpuSpec* h100 = core::builtin_hardware().find_gpu("h100-sxm");
    REQUIRE(h100);
    struct OneEdit {
        const char* field;
        std::function<core::Edit(const core::Scenario&)> edit;
    };
    const std::vector<OneEdit> edits = {
        {"parallel.tp", [](const core::Scenario& s) { return core::with_axis(s, core::LayoutAxis::tp, 4); }},
        {"parallel.pp", [](const core::Scenario& s) { return core::with_axis(s, core::LayoutAxis::pp, 4); }},
        {"train.micro_batch", [](const core::Scenario& s) { return core::with_axis(s, core::LayoutAxis::micro_batch, 2); }},
        {"train.recompute", [](const core::Scenario& s) { return core::with_recompute(s, core::Recompute::full); }},
        {"cluster.gpu", [&](const core::Scenario& s) { return core::with_gpu(s, *h100); }},
        {"train.seq_len", [](const core::Scenario& s) { return core::with_seq_len(s, 1024); }},
        {"parallel.zero", [](const core::Scenario& s) { return core::with_zero(s, 1); }},
        {"train.attention", [](const core::Scenario& s) { return core::with_attention(s, core::AttentionImpl::sdpa); }},
        {"cluster.gpus", [](const core::Scenario& s) { return core::with_gpus(s, 128); }},
    };
    for (const OneEdit& one : edits) {
        INFO(one.field);
        const core::Edit edit = one.edit(baseline);
        REQUIRE(edit.ok());
        const core::DiffReport report = diff(baseline, edit.scenario);
        REQUIRE_FALSE(report.inputs.empty());
        CHECK(report.inputs.front().field == one.field);
        CHECK_FALSE(report.inputs.front().follows);
        CHECK(report.changed_figures > 0);
        // Whatever else moved follows from the edit (DP from the GPU count and TP, the scale-up link from the GPU) or is
        // another field the edit settles, never listed before it.
        for (std::size_t i = 1; i < report.inputs.size(); ++i) CHECK(report.inputs[i].field != one.field);
    }
}

TEST_CASE("Diff: TP 8 -> 4 on 64 GPUs lists DP 8 -> 16 after it, as following from the GPU count", "[diff]") {
    const core::Scenario baseline = core_tests::shipped("gpt3-175b-megatron.json");
    const core::Edit edit = core::with_axis(baseline, core::LayoutAxis::tp, 4);
    REQUIRE(edit.ok());
    const std::vector<core::InputChange> inputs = core::input_changes(baseline, edit.scenario);
    REQUIRE(inputs.size() == 2);
    CHECK(inputs[0].field == "parallel.tp");
    CHECK(inputs[0].baseline == "8");
    CHECK(inputs[0].scenario == "4");
    CHECK(inputs[1].field == "parallel.dp");
    CHECK(inputs[1].baseline == "1");
    CHECK(inputs[1].scenario == "2");
    CHECK(inputs[1].follows);
}

TEST_CASE("Diff: selective to full recompute on GPT-3 175B pairs the report's figures, largest relative change first", "[diff]") {
    const core::Scenario baseline = core_tests::shipped("gpt3-175b-megatron.json");
    const core::Edit edit = core::with_recompute(baseline, core::Recompute::full);
    REQUIRE(edit.ok());
    const core::Report old_report = core::evaluate(baseline), new_report = core::evaluate(edit.scenario);
    const core::DiffReport report = diff(baseline, edit.scenario);
    REQUIRE(report.inputs.size() == 1);
    CHECK(report.inputs[0].field == "train.recompute");
    CHECK(report.inputs[0].baseline == "\"selective\"");
    CHECK(report.inputs[0].scenario == "\"full\"");

    // The step and the activations move by what the two reports say, each in its unit.
    const core::FigureChange* step = find_figure(report, "compute.step_seconds");
    REQUIRE(step);
    CHECK(step->unit == core::FigureUnit::seconds);
    CHECK(step->baseline == old_report.compute.step_seconds);
    CHECK(step->scenario == new_report.compute.step_seconds);
    CHECK(step->change == Approx(new_report.compute.step_seconds - old_report.compute.step_seconds));
    CHECK(step->relative_change == Approx(new_report.compute.step_seconds / old_report.compute.step_seconds - 1.0));
    CHECK(step->text == core::format_change_both(old_report.compute.step_seconds, new_report.compute.step_seconds, core::FigureUnit::seconds));
    CHECK(step->text.front() == '+');  // full recompute runs the forward again
    const core::FigureChange* activations = find_figure(report, "memory.activations.bytes_per_layer");
    REQUIRE(activations);
    CHECK(activations->unit == core::FigureUnit::bytes);
    CHECK(activations->scenario < activations->baseline);
    CHECK(activations->text.front() == '-');
    // A figure named by its key inside an object whose key carries the unit: the bubble's share of the step's breakdown.
    const core::FigureChange* bubble = find_figure(report, "compute.breakdown_seconds.bubble");
    const core::FigureChange* exposed_tp = find_figure(report, "compute.breakdown_seconds.exposed_comm.tp");
    REQUIRE(exposed_tp);
    CHECK(exposed_tp->unit == core::FigureUnit::seconds);
    REQUIRE(bubble);
    CHECK(bubble->unit == core::FigureUnit::seconds);
    CHECK(bubble->scenario == new_report.compute.bubble_seconds);

    // Ordered: the changed first, by the size of their relative change.
    for (int i = 1; i < report.changed_figures; ++i) {
        const double before = report.figures[i - 1].relative_change, here = report.figures[i].relative_change;
        CHECK((std::isnan(before) || std::fabs(before) >= std::fabs(here)));
    }
    for (std::size_t i = report.changed_figures; i < report.figures.size(); ++i) CHECK_FALSE(report.figures[i].changed);

    // Kernels are paired by what they are, not by index: the recompute pass's kernels exist only with full recompute's
    // whole-layer forward, and the forward's GEMMs keep their partners.
    CHECK(find_figure(report, "compute.kernels[name=qkv,pass=forward,scope=layer].seconds"));
    const bool recompute_only_in_scenario = std::any_of(report.only_in_scenario.begin(), report.only_in_scenario.end(),
                                                        [](const core::UnpairedFigure& figure) { return figure.path.find("pass=recompute") != std::string::npos; });
    const bool recompute_paired = std::any_of(report.figures.begin(), report.figures.end(),
                                              [](const core::FigureChange& figure) { return figure.path.find("pass=recompute") != std::string::npos; });
    CHECK((recompute_only_in_scenario || recompute_paired));
    // Every numeric leaf of both reports is paired or listed on its side.
    const std::size_t old_leaves = numeric_leaves(nlohmann::json::parse(core::report_to_json(baseline, old_report)));
    const std::size_t new_leaves = numeric_leaves(nlohmann::json::parse(core::report_to_json(edit.scenario, new_report)));
    CHECK(report.figures.size() + report.only_in_baseline.size() == old_leaves);
    CHECK(report.figures.size() + report.only_in_scenario.size() == new_leaves);
}

TEST_CASE("Diff: a figure's unit comes from its key, as the report names them", "[diff]") {
    CHECK(core::figure_unit_of_key("step_seconds") == core::FigureUnit::seconds);
    CHECK(core::figure_unit_of_key("peak_bytes") == core::FigureUnit::bytes);
    CHECK(core::figure_unit_of_key("bytes_per_layer") == core::FigureUnit::bytes);
    CHECK(core::figure_unit_of_key("busbw_bytes_per_s") == core::FigureUnit::bandwidth);
    CHECK(core::figure_unit_of_key("model_flops_per_step") == core::FigureUnit::flops);
    CHECK(core::figure_unit_of_key("ridge_flops_per_byte") == core::FigureUnit::number);
    CHECK(core::figure_unit_of_key("mfu") == core::FigureUnit::fraction);
    CHECK(core::figure_unit_of_key("bubble_fraction") == core::FigureUnit::fraction);
    CHECK(core::figure_unit_of_key("cost_dollars") == core::FigureUnit::dollars);
    CHECK(core::figure_unit_of_key("tokens_per_s_per_gpu") == core::FigureUnit::number);
    CHECK(core::figure_unit_of_key("params_per_gpu") == core::FigureUnit::count);
}

TEST_CASE("Diff: a change is written signed in its unit, a fraction's in percentage points", "[diff][format]") {
    CHECK(core::format_change(13.37, 13.78, core::FigureUnit::seconds) == "+410 ms");
    CHECK(core::format_change_both(13.37, 13.78, core::FigureUnit::seconds) == "+410 ms, +3.1 %");
    CHECK(core::format_change_both(78.5e9, 60.3e9, core::FigureUnit::bytes) == "-18.2 GB, -23.2 %");
    CHECK(core::format_change_both(0.528, 0.513, core::FigureUnit::fraction) == "-1.5 pp");
    CHECK(core::format_change_both(0, 2e9, core::FigureUnit::bytes) == "+2.00 GB");
    CHECK(core::format_change_both(5, 5, core::FigureUnit::number) == "no change");
    CHECK(core::format_relative_change(0, 1).empty());
    CHECK(core::format_change_both(8, 16, core::FigureUnit::number) == "+8, +100.0 %");  // a degree, whole
    CHECK(core::format_in(1.375, core::FigureUnit::number) == "1.38");
}

TEST_CASE("Diff: the panels' comparison of GPT-3 175B, selective against no recompute, is the reports' own figures", "[diff]") {
    const core::Scenario selective = core_tests::shipped("gpt3-175b-megatron.json");
    const core::Edit none = core::with_recompute(selective, core::Recompute::none);
    REQUIRE(none.ok());
    const core::Report old_report = core::evaluate(none.scenario), new_report = core::evaluate(selective);
    const core::Comparison comparison = core::compare_scenarios(none.scenario, old_report, selective, new_report);
    REQUIRE(comparison.inputs.size() == 1);
    CHECK(comparison.inputs_text == "train.recompute \"none\" -> \"selective\"");
    CHECK(comparison.peak_memory.baseline_number == old_report.memory.per_gpu.peak_bytes);
    CHECK(comparison.peak_memory.number == new_report.memory.per_gpu.peak_bytes);
    CHECK(comparison.peak_memory.direction == -1);  // selective recompute keeps less
    CHECK(comparison.step_time.direction == 1);     // and recomputes attention's core
    CHECK(comparison.peak_memory.change == core::format_change_both(old_report.memory.per_gpu.peak_bytes, new_report.memory.per_gpu.peak_bytes,
                                                                    core::FigureUnit::bytes));
    CHECK(comparison.headline.find(comparison.peak_memory.change) != std::string::npos);
    const core::Comparison same = core::compare_scenarios(selective, new_report, selective, new_report);
    CHECK(same.inputs.empty());
    CHECK(same.inputs_text == "no input differs");
    CHECK(same.step_time.change == "no change");
    CHECK(same.step_time.direction == 0);
}

TEST_CASE("Diff: ZeRO-1 against ZeRO-3 on the default Llama 3 70B (Rajbhandari et al. 2020 Table 1: weights 2 Psi / N_d) is the "
          "two evaluations' difference", "[diff]") {
    const auto [zero1, zero3] = zero_one_and_three();
    const core::Report one = core::evaluate(zero1.scenario), three = core::evaluate(zero3.scenario);
    const core::DiffReport report = diff(zero1.scenario, zero3.scenario);
    REQUIRE_FALSE(report.inputs.empty());
    CHECK(report.inputs.front().field == "parallel.zero");
    CHECK(report.inputs.front().baseline == "1");
    CHECK(report.inputs.front().scenario == "3");
    for (const auto& [path, before, after] : {std::tuple<const char*, double, double>{"memory.per_gpu.weights_bytes", one.memory.per_gpu.weights_bytes,
                                                                                      three.memory.per_gpu.weights_bytes},
                                              {"memory.per_gpu.grads_bytes", one.memory.per_gpu.grads_bytes, three.memory.per_gpu.grads_bytes},
                                              {"memory.per_gpu.peak_bytes", one.memory.per_gpu.peak_bytes, three.memory.per_gpu.peak_bytes}}) {
        INFO(path);
        const core::FigureChange* figure = find_figure(report, path);
        REQUIRE(figure);
        CHECK(figure->unit == core::FigureUnit::bytes);
        CHECK(figure->baseline == before);
        CHECK(figure->scenario == after);
        CHECK(figure->change == after - before);
        CHECK(figure->change < 0);  // ZeRO-3 shards what ZeRO-1 keeps whole
        CHECK(figure->text == core::format_change_both(before, after, core::FigureUnit::bytes));
    }
    // ZeRO-3 shards the bf16 weights over the DP ranks that ZeRO-1 replicates.
    CHECK(three.memory.per_gpu.weights_bytes == Approx(one.memory.per_gpu.weights_bytes / three.layout.dp).epsilon(0.01));
    // The panels' headline figure is the same pair.
    const core::Comparison comparison = core::compare_scenarios(zero1.scenario, one, zero3.scenario, three);
    CHECK(comparison.peak_memory.baseline_number == one.memory.per_gpu.peak_bytes);
    CHECK(comparison.peak_memory.number == three.memory.per_gpu.peak_bytes);
    CHECK(comparison.peak_memory.change == find_figure(report, "memory.per_gpu.peak_bytes")->text);
}

TEST_CASE("Diff's table of ZeRO-1 against ZeRO-3: the headline figures first, each timeline folded into one row, nothing "
          "listed that prints the same on both sides", "[diff]") {
    const auto [zero1, zero3] = zero_one_and_three();
    const core::DiffReport report = diff(zero1.scenario, zero3.scenario);
    const core::DiffTable table = core::diff_table(report);
    REQUIRE(table.headline.size() >= 3);
    CHECK(table.headline[0].figure == "compute.step_seconds");
    CHECK(table.headline[1].figure == "compute.mfu");
    CHECK(table.headline[2].figure == "memory.per_gpu.peak_bytes");
    // Every timeline point moves (ZeRO-3 shards the state each point holds): one row per timeline figure, not hundreds.
    int timeline_points = 0;
    for (const core::FigureChange& figure : report.figures) timeline_points += figure.path.rfind("memory.timeline[", 0) == 0 && figure.changed;
    CHECK(timeline_points > 100);
    int timeline_rows = 0;
    for (const auto* rows : {&table.headline, &table.figures, &table.folded}) {
        for (const core::DiffTableRow& row : *rows) {
            INFO(row.figure);
            timeline_rows += row.figure.rfind("memory.timeline[", 0) == 0;
            if (row.baseline != "-") CHECK(row.baseline != row.scenario);  // a change below the display precision is counted, not listed
        }
    }
    CHECK(timeline_rows == 2);  // allocated and reserved
    CHECK(table.folded.size() + table.headline.size() + table.figures.size() < 60);
    CHECK(table.listed + table.below_precision == report.changed_figures);
}
