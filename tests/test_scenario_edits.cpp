// One way to edit a scenario (core/model/scenario_edits.h): every control of the sidebar, the stack panel, the
// configurator, the lesson player and the file import goes through these edits and offers only choices_of's values.
// For the default scenario and the shipped presets, every offered value of every control must give a scenario that
// validate_scenario accepts, and the edit must set what the control asked for.
#include "core/cost/evaluate.h"
#include "core/model/errors.h"
#include "core/model/hardware.h"
#include "core/model/model.h"
#include "core/model/precision.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

core::Scenario preset(const std::string& name) {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios/" + name);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return core::parse_scenario(text.str());
}

// The default scenario, the three shipped presets, and a small model on one node where many values are refused.
std::vector<std::pair<std::string, core::Scenario>> starting_points() {
    return {
        {"default", core::default_scenario()},
        {"assets/scenarios/default.json", preset("default.json")},
        {"assets/scenarios/llama3-405b-16k.json", preset("llama3-405b-16k.json")},
        {"assets/scenarios/gpt3-175b-megatron.json", preset("gpt3-175b-megatron.json")},
        {"Llama 3 8B on 8 GPUs", core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"seq_len": 4096, "global_batch": 16},
                                                          "cluster": {"gpu": "h100-sxm", "gpus": 8}})")},
    };
}

// An edit a control offered: it succeeded, and what it produced is a scenario the app can evaluate.
void require_valid(const core::Edit& edit, const std::string& what) {
    INFO(what);
    if (!edit.ok()) FAIL(edit.problem->field << ": " << edit.problem->reason);
    REQUIRE_NOTHROW(core::validate_scenario(edit.scenario));
}

}  // namespace

TEST_CASE("Scenario edits: every offered layout value (TP, PP, CP, DP, micro-batch, v, ZeRO) gives a valid scenario that has it",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        const core::Choices choices = core::choices_of(scenario);
        CHECK_FALSE(choices.tp.empty());
        CHECK_FALSE(choices.dp.empty());
        const auto check_axis = [&](core::LayoutAxis axis, const std::vector<int>& values, int core::Layout::*field, const char* label) {
            for (int value : values) {
                const core::Edit edit = core::with_axis(scenario, axis, value);
                require_valid(edit, std::string(label) + " = " + std::to_string(value));
                CHECK(core::layout_of(edit.scenario).*field == value);
            }
        };
        check_axis(core::LayoutAxis::tp, choices.tp, &core::Layout::tp, "tp");
        check_axis(core::LayoutAxis::pp, choices.pp, &core::Layout::pp, "pp");
        check_axis(core::LayoutAxis::cp, choices.cp, &core::Layout::cp, "cp");
        check_axis(core::LayoutAxis::dp, choices.dp, &core::Layout::dp, "dp");
        check_axis(core::LayoutAxis::micro_batch, choices.micro_batch, &core::Layout::micro_batch, "micro_batch");
        check_axis(core::LayoutAxis::virtual_stages, choices.virtual_stages, &core::Layout::virtual_stages, "virtual_stages");
        for (int stage : choices.zero) {
            const core::Edit edit = core::with_zero(scenario, stage);
            require_valid(edit, "zero = " + std::to_string(stage));
            CHECK(edit.scenario.parallel.zero == stage);
        }
    }
}

TEST_CASE("Scenario edits: every offered schedule, recompute, sequence length and node size gives a valid scenario that has it",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        const core::Choices choices = core::choices_of(scenario);
        CHECK_FALSE(choices.schedules.empty());
        for (core::ScheduleKind kind : choices.schedules) {
            const core::Edit edit = core::with_schedule(scenario, kind);
            require_valid(edit, std::string("schedule ") + core::schedule_name(kind));
            CHECK(edit.scenario.parallel.schedule == kind);
        }
        for (core::Recompute recompute : choices.recomputes) {
            const core::Edit edit = core::with_recompute(scenario, recompute);
            require_valid(edit, std::string("recompute ") + core::recompute_name(recompute));
            CHECK(edit.scenario.train.recompute == recompute);
        }
        for (int seq_len : choices.seq_len) {
            const core::Edit edit = core::with_seq_len(scenario, seq_len);
            require_valid(edit, "seq_len " + std::to_string(seq_len));
            CHECK(edit.scenario.train.seq_len == seq_len);
        }
        CHECK(std::find(choices.seq_len.begin(), choices.seq_len.end(), scenario.train.seq_len) != choices.seq_len.end());
        for (int per_node : choices.gpus_per_node) {
            const core::Edit edit = core::with_gpus_per_node(scenario, per_node);
            require_valid(edit, "gpus_per_node " + std::to_string(per_node));
            CHECK(edit.scenario.cluster.gpus_per_node == per_node);
        }
        for (bool on : {false, true}) {
            require_valid(core::with_sequence_parallel(scenario, on), std::string("sequence_parallel ") + (on ? "on" : "off"));
            require_valid(core::with_flash_attention(scenario, on), std::string("flash_attention ") + (on ? "on" : "off"));
        }
    }
}

TEST_CASE("Scenario edits: every model, GPU and recipe of the catalogs can be chosen from any starting point, the rest follows",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        for (const core::ModelSpec& model : core::builtin_models()) {
            const core::Edit edit = core::with_model(scenario, model);
            require_valid(edit, "model " + model.id);
            CHECK(edit.scenario.model.id == model.id);
        }
        for (const core::GpuSpec& gpu : core::builtin_hardware().gpus) {
            const core::Edit edit = core::with_gpu(scenario, gpu);
            require_valid(edit, "gpu " + gpu.id);
            CHECK(edit.scenario.cluster.gpu.id == gpu.id);
        }
        for (const core::PrecisionRecipe& recipe : core::builtin_recipes()) {
            const core::Edit edit = core::with_precision(scenario, recipe);
            require_valid(edit, "recipe " + recipe.id);
            CHECK(edit.scenario.precision.id == recipe.id);
        }
        // The stack panel's size slider: a bare parameter count from 100M to 2T, its shape fitted to the layout.
        for (double params : {1e8, 1.3e9, 7e9, 70e9, 405e9, 2e12}) {
            const core::Edit edit = core::with_params(scenario, params);
            require_valid(edit, "params " + std::to_string(params));
            CHECK(core::evaluate(edit.scenario).memory.params == Approx(params).epsilon(0.02));
        }
    }
}

TEST_CASE("Scenario edits: the GPU and batch '+' and '-' step to the next value the edit accepts, never to a refused one",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        for (int direction : {+1, -1}) {
            const int gpus = core::next_gpus(scenario, direction);
            if (gpus != scenario.cluster.gpus) {
                require_valid(core::with_gpus(scenario, gpus), "gpus " + std::to_string(gpus));
                CHECK((direction > 0 ? gpus > scenario.cluster.gpus : gpus < scenario.cluster.gpus));
            }
            const int batch = core::next_global_batch(scenario, direction);
            if (batch != scenario.train.global_batch) {
                require_valid(core::with_global_batch(scenario, batch), "global_batch " + std::to_string(batch));
                CHECK((direction > 0 ? batch > scenario.train.global_batch : batch < scenario.train.global_batch));
            }
        }
        CHECK(core::next_gpus(scenario, +1) > scenario.cluster.gpus);  // there is always a bigger cluster
    }
    // The first version's bug: "+" stepped by 8 and every press was refused when TP x PP = 32. Now it steps by a replica.
    core::Scenario wide = core::default_scenario();
    wide = core::with_axis(wide, core::LayoutAxis::tp, 8).scenario;
    wide = core::with_axis(wide, core::LayoutAxis::pp, 4).scenario;
    REQUIRE(wide.parallel.tp * wide.parallel.pp == 32);
    const int next = core::next_gpus(wide, +1);
    CHECK(next % 32 == 0);
    require_valid(core::with_gpus(wide, next), "gpus after tp 8 pp 4");
}

TEST_CASE("Scenario edits: an edit no control offers is refused with the field named, and the scenario is unchanged",
          "[scenario_edits]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Edit three = core::with_axis(scenario, core::LayoutAxis::tp, 3);  // 3 does not divide Llama 3 70B's 64 heads
    REQUIRE_FALSE(three.ok());
    CHECK(three.problem->field == "parallel.tp");
    const core::Choices choices = core::choices_of(scenario);
    CHECK(std::find(choices.tp.begin(), choices.tp.end(), 3) == choices.tp.end());
    const core::Edit zero_gpus = core::with_gpus(scenario, 0);
    REQUIRE_FALSE(zero_gpus.ok());
    CHECK(zero_gpus.problem->field == "cluster.gpus");
    CHECK_FALSE(core::with_zero(scenario, 4).ok());
}
