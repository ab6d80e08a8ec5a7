#include "app/lesson.h"

#include "app/files.h"
#include "core/lessons/captions.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"
#include "core/model/scenario_json.h"

#include <algorithm>

namespace app {

Lesson parse_lesson(const std::string& json_text, const std::vector<std::string>& panel_names) {
    const nlohmann::json root = core::parse_json_text(json_text, "lesson");
    core::JsonObjectReader reader(root, "lesson");
    Lesson lesson;
    lesson.title = reader.string("title").value_or("Lesson");
    if (!reader.has("scenes")) throw core::InputError("lesson.scenes", "is required");
    const nlohmann::json& scenes = reader.raw("scenes");
    if (!scenes.is_array() || scenes.empty()) throw core::InputError("lesson.scenes", "must be a non-empty array");
    for (std::size_t i = 0; i < scenes.size(); ++i) {
        const std::string path = "lesson.scenes[" + std::to_string(i) + "]";
        core::JsonObjectReader scene_reader(scenes[i], path);
        Scene scene;
        scene.title = scene_reader.string("title").value_or("");
        scene.caption = scene_reader.string("caption").value_or("");
        // A typo in a {figure}, or a change named without a baseline to change from, is refused before the lesson plays.
        core::check_caption(scene.caption, path + ".caption", scene_reader.has("baseline"));
        scene.panel = scene_reader.string("panel").value_or("");
        if (std::find(panel_names.begin(), panel_names.end(), scene.panel) == panel_names.end()) {
            throw core::InputError(path + ".panel", "unknown panel \"" + scene.panel + "\"");
        }
        scene.t_seconds = scene_reader.number("t", 0, 1e6).value_or(0);
        scene.scenario_json = scene_reader.has("scenario") ? scene_reader.raw("scenario").dump() : "{}";
        try {
            scene.scenario = core::parse_scenario(scene.scenario_json);
        } catch (const core::InputError& error) {
            throw core::InputError(path + ".scenario." + error.field(), error.reason());
        }
        if (scene_reader.has("baseline")) {
            try {
                scene.baseline = core::parse_scenario(scene_reader.raw("baseline").dump());
            } catch (const core::InputError& error) {
                throw core::InputError(path + ".baseline." + error.field(), error.reason());
            }
        }
        scene_reader.reject_unknown_keys();
        lesson.scenes.push_back(std::move(scene));
    }
    reader.reject_unknown_keys();
    return lesson;
}

Lesson load_lesson_file(const std::string& path, const std::vector<std::string>& panel_names) {
    const std::string text = read_text_file(path, "lesson");
    try {
        return parse_lesson(text, panel_names);
    } catch (const core::InputError& error) {
        throw in_file(path, error, "lesson");  // the presenter opened a file: its name comes first, then the key in it
    }
}

std::string default_lesson_path() { return asset_directory() + "/lessons/default.json"; }

}  // namespace app
