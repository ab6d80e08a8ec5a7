// Lesson captions take their numbers from the report (core/lessons/captions.h), so a caption and the panel beside it
// cannot disagree: scene 1's "x the 90-day deadline" is the time wall's bar, scene 6's bubble is GPipe's (p-1)/(m+p-1).
#include "core/cost/report/diff_report.h"
#include "core/cost/report/evaluate.h"
#include "core/lessons/captions.h"
#include "core/lessons/regime.h"
#include "core/lessons/walls.h"
#include "core/cost/serving/serving_text.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <sstream>

namespace {

nlohmann::json default_lesson() {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/lessons/default.json");
    std::stringstream text;
    text << file.rdbuf();
    return nlohmann::json::parse(text.str());
}

struct FilledScene {
    core::Scenario scenario;
    core::Report report;
    std::optional<core::Scenario> baseline;  // a comparing scene's
    std::optional<core::Report> baseline_report;
    std::string caption;
};

FilledScene fill(const nlohmann::json& scene) {
    FilledScene filled;
    filled.scenario = core::parse_scenario(scene.value("scenario", nlohmann::json::object()).dump());
    filled.report = core::evaluate(filled.scenario);
    if (scene.contains("baseline")) {
        filled.baseline = core::parse_scenario(scene.at("baseline").dump());
        filled.baseline_report = core::evaluate(*filled.baseline);
    }
    filled.caption = core::fill_caption(scene.at("caption").get<std::string>(), filled.scenario, filled.report,
                                        filled.baseline ? &*filled.baseline : nullptr, filled.baseline_report ? &*filled.baseline_report : nullptr);
    return filled;
}

}  // namespace

TEST_CASE("Scene 1's caption prints each wall exactly as its bar does (seed 000's three walls)", "[captions]") {
    const nlohmann::json lesson = default_lesson();
    const FilledScene scene = fill(lesson.at("scenes").at(0));
    REQUIRE(lesson["scenes"][0]["panel"] == "walls");
    const core::WallsReport walls = core::walls_of(scene.scenario, scene.report);
    const auto& time = walls.walls[static_cast<int>(core::WallKind::time)];
    CHECK(scene.caption.find(time.fraction_text + " of the 90-day deadline") != std::string::npos);
    CHECK(scene.caption.find(walls.walls[static_cast<int>(core::WallKind::memory)].fraction_text + " of the HBM") != std::string::npos);
    CHECK(scene.caption.find(walls.walls[static_cast<int>(core::WallKind::serving)].fraction_text) != std::string::npos);
    CHECK(scene.caption.find("Llama 3 70B on 64 H100 SXM GPUs") != std::string::npos);
}

TEST_CASE("The GPipe scene's bubble is (p-1)/(m+p-1) = 3/11 = 27.3 % for p = 4, m = 8", "[captions]") {
    const nlohmann::json lesson = default_lesson();
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        if (scene.at("title") != "The pipeline bubble") continue;
        const FilledScene filled = fill(scene);
        CHECK(filled.caption.find("GPipe with 4 stages and 8 micro-batches") != std::string::npos);
        CHECK(filled.caption.find("= 27.3 %") != std::string::npos);
        return;
    }
    FAIL("no scene titled 'The pipeline bubble'");
}

TEST_CASE("Every scene's caption fills completely; a misspelt figure or an open brace is refused, naming the field", "[captions]") {
    const nlohmann::json lesson = default_lesson();  // kept: a range over a temporary's member would dangle
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        INFO(scene.at("title").get<std::string>());
        const FilledScene filled = fill(scene);
        CHECK(filled.caption.find('{') == std::string::npos);
        CHECK(filled.caption.find('}') == std::string::npos);
    }
    CHECK_THROWS_WITH(core::check_caption("{walls.tmie} of the deadline", "lesson.scenes[0].caption"),
                      Catch::Contains("lesson.scenes[0].caption") && Catch::Contains("{walls.tmie}"));
    CHECK_THROWS_AS(core::check_caption("a {model", "lesson.scenes[1].caption"), core::InputError);
    CHECK(core::fill_caption("{{braces}} stay", core::default_scenario(), core::evaluate(core::default_scenario())) == "{braces}} stay");
    CHECK_FALSE(core::caption_fields().empty());
}

namespace {

const nlohmann::json& scene_titled(const nlohmann::json& lesson, const std::string& title) {
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        if (scene.at("title") == title) return scene;
    }
    FAIL("no scene titled " << title);
    return lesson;
}

}  // namespace

TEST_CASE("The regime cube scene's counts are the cube's own: memory, time and serving each bind some presets", "[captions][regime]") {
    const nlohmann::json lesson = default_lesson();
    const nlohmann::json& scene = scene_titled(lesson, "Where each model lives");
    REQUIRE(scene.at("panel") == "cube");
    const FilledScene filled = fill(scene);
    const core::RegimeCube cube = core::regime_cube(filled.scenario);
    int bound[core::wall_count] = {0, 0, 0};
    int within = 0;
    for (const core::RegimePoint& point : cube.points) {
        if (point.is_current) continue;
        if (point.binding_fraction > 1.0) ++bound[static_cast<int>(point.binding_wall)];
        else ++within;
    }
    const std::string counts = "Of the presets, " + std::to_string(bound[0]) + " press on memory, " + std::to_string(bound[1]) + " on time and " +
                               std::to_string(bound[2]) + " on serving; " + std::to_string(within) + " fit every budget.";
    CHECK(filled.caption.find(counts) != std::string::npos);
    // The scene is there to show the three walls: each binds at least one model.
    for (int count : bound) CHECK(count >= 1);
    CHECK(filled.caption.find("1,024 H100 SXMs with ZeRO-3 and full recompute train 4.00 T tokens by a 90-day deadline") == 0);
}

TEST_CASE("The serving scene's caption states the serving panel's answer and the load it answers", "[captions][serving]") {
    const nlohmann::json lesson = default_lesson();
    const nlohmann::json& scene = scene_titled(lesson, "Serving: batching, the KV cache and replicas");
    REQUIRE(scene.at("panel") == "serving");
    const FilledScene filled = fill(scene);
    const core::ServingText text = core::serving_text(filled.scenario, filled.report.serving);
    const core::ServingAnswer& answer = filled.report.serving.answer;
    // The header above the panel's figures states the same replicas, batch and TPOT.
    const std::string stated = core::format_whole(answer.replicas) + " x TP " + core::format_whole(answer.shape.tp) + " at batch " +
                               core::format_whole(answer.point.batch) + ", TPOT " + core::format_seconds(answer.point.tpot_seconds);
    CHECK(filled.caption.find(text.load + ": " + stated + ".") != std::string::npos);
    CHECK(text.answer.find(core::replicas_label(answer.replicas, answer.shape) + " at batch " + core::format_whole(answer.point.batch)) == 0);
    CHECK(filled.caption.find("2 x TP 4 at batch") != std::string::npos);
}

TEST_CASE("The recompute scene compares GPT-3 175B's selective recompute (Korthikanti et al. 2022 Table 5) with keeping every "
          "activation: its changes are the comparison's", "[captions][diff]") {
    const nlohmann::json lesson = default_lesson();
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        if (scene.at("title") != "Recompute: memory for time") continue;
        const FilledScene filled = fill(scene);
        REQUIRE(filled.baseline);
        const core::Comparison comparison = core::compare_scenarios(*filled.baseline, *filled.baseline_report, filled.scenario, filled.report);
        // One input differs: the recompute mode.
        REQUIRE(comparison.inputs.size() == 1);
        CHECK(comparison.inputs[0].field == "train.recompute");
        // Selective recompute stores less and runs attention's core twice.
        CHECK(comparison.activations.direction == -1);
        CHECK(comparison.peak_memory.direction == -1);
        CHECK(comparison.step_time.direction == 1);
        CHECK(comparison.activations.change.front() == '-');
        CHECK(filled.caption.find("activations per GPU fall to " + core::format_bytes(filled.report.memory.per_gpu.activations_bytes)) != std::string::npos);
        CHECK(filled.caption.find("the peak " + comparison.peak_memory.change) != std::string::npos);
        CHECK(filled.caption.find("a step " + comparison.step_time.change) != std::string::npos);
        // Without its baseline the caption is refused, naming the field.
        CHECK_THROWS_WITH(core::check_caption(scene.at("caption").get<std::string>(), "lesson.scenes[9].caption"),
                          Catch::Contains("lesson.scenes[9].caption") && Catch::Contains("baseline"));
        return;
    }
    FAIL("no scene titled 'Recompute: memory for time'");
}

// Every number a lesson's caption states is a figure of its scene's own report ({name}, filled by fill_caption) or a
// textbook formula's constant, each listed here with its source; a number typed into a caption's prose would go stale.
TEST_CASE("Every number a lesson scene's caption states comes from the scene's report or is a listed formula's constant", "[captions]") {
    const std::vector<std::string>& formulas = core::caption_constants();
    int scenes = 0;
    const nlohmann::json lesson = default_lesson();  // kept: a range over a temporary's member would dangle
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        std::string prose;  // the caption without its {fields}
        const std::string caption = scene.at("caption").get<std::string>();
        for (std::size_t i = 0; i < caption.size(); ++i) {
            if (caption[i] == '{') {
                i = caption.find('}', i);
                continue;
            }
            prose += caption[i];
        }
        for (const std::string& formula : formulas) {
            for (std::size_t at = prose.find(formula); at != std::string::npos; at = prose.find(formula)) prose.erase(at, formula.size());
        }
        INFO(scene.at("title").get<std::string>() << ": " << prose);
        CHECK(prose.find_first_of("0123456789") == std::string::npos);
        ++scenes;
    }
    REQUIRE(scenes >= 10);
}
