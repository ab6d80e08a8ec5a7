// Fuzz entry "lesson": a lesson file as presentation mode and `shardscope export --lesson` read it (app::parse_lesson);
// each scene's scenario is then evaluated and its caption filled from the report, as presentation mode shows it.
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "app/lesson.h"
#include "core/cost/report/evaluate.h"
#include "core/lessons/captions.h"

namespace fuzz {

// The panels a scene may name: widgets::make_all_panels()'s names, which this entry cannot link (no ImGui under
// libFuzzer); fuzz/test_corpus.cpp checks that the two lists agree.
const std::vector<std::string>& lesson_panel_names() {
    static const std::vector<std::string> names = {"stack", "timeline", "walls", "cube", "serving", "roofline", "anatomy", "ring", "pipeline", "configurator", "alltoall", "scaling", "run"};
    return names;
}

}  // namespace fuzz

namespace {

std::optional<std::string> lesson_problem(std::string_view input) {
    return fuzz::problem_of([&]() -> std::optional<std::string> {
        const app::Lesson lesson = app::parse_lesson(std::string(input), fuzz::lesson_panel_names());
        for (std::size_t i = 0; i < lesson.scenes.size(); ++i) {
            const app::Scene& scene = lesson.scenes[i];
            const core::Report report = core::evaluate(scene.scenario);
            if (auto problem = fuzz::report_problem(scene.scenario, report)) return "scene " + std::to_string(i) + ": " + *problem;
            const std::optional<core::Report> baseline_report =
                scene.baseline ? std::optional<core::Report>(core::evaluate(*scene.baseline)) : std::nullopt;
            const std::string caption = core::fill_caption(scene.caption, scene.scenario, report, scene.baseline ? &*scene.baseline : nullptr,
                                                           baseline_report ? &*baseline_report : nullptr);
            const std::vector<std::string> names = fuzz::names_in(scene.scenario);
            // A caption whose own words say "inf" is the author's; otherwise a "nan" or "inf" came from a figure.
            if (!fuzz::spells_non_finite(scene.caption, names) && fuzz::spells_non_finite(caption, names)) return "scene " + std::to_string(i) + " caption spells NaN or infinity: " + caption;
        }
        return std::nullopt;
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(lesson, lesson_problem);
