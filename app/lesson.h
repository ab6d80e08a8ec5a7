#pragma once
// Lessons: an ordered list of scenes (title, caption, scenario, panel, animation time) for presentation mode and export.
#include "core/model/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace app {

struct Scene {
    std::string title;
    std::string caption;          // one or two sentences shown at the bottom of the screen; {figures} come from the report
    core::Scenario scenario;      // the scene's "scenario" object read like a scenario file: only what differs from the defaults
    std::string scenario_json;    // that object's text, for saving and display
    std::optional<core::Scenario> baseline;  // "baseline", read like "scenario": the scene draws its scenario against it
    std::string panel;            // which panel fills the screen
    double t_seconds = 0;         // the panel's animation time when the scene opens
};

struct Lesson {
    std::string title;
    std::vector<Scene> scenes;
};

// Throws core::InputError naming the field ("lesson.scenes[3].panel: unknown panel ...").
Lesson parse_lesson(const std::string& json_text, const std::vector<std::string>& panel_names);
Lesson load_lesson_file(const std::string& path, const std::vector<std::string>& panel_names);
std::string default_lesson_path();

}  // namespace app
