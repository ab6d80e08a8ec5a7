// Scenario files, corrupted input and lessons, as the window handles them.
#include "tests/render/headless_imgui.h"
#include "app/app_state.h"
#include "app/export.h"
#include "app/files.h"
#include "app/lesson.h"
#include "app/presentation.h"
#include "app/scenario_file.h"
#include "app/scenario_io.h"
#include "app/settings.h"
#include "app/ui.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/report_json.h"
#include "widgets/fonts.h"

#include <catch2/catch.hpp>
#include <imgui.h>
#include <stb/stb_image.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace {

std::string scratch(const char* name) {
    const auto directory = std::filesystem::temp_directory_path() / ("shardscope-classroom-" + std::string(name));
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    return directory.string();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::vector<std::string> panel_names() {
    std::vector<std::string> names;
    for (const widgets::PanelDef& panel : widgets::make_all_panels()) names.push_back(panel.name);
    return names;
}

}  // namespace

TEST_CASE("A scenario saved from the app and read back by eval gives the report on screen", "[classroom]") {
    app::AppState state = app::make_app_state(core::default_scenario());
    // Edit as the sidebar would: another model, a 3D layout, recompute.
    state.scenario.model = *core::find_model("llama3-8b");
    state.scenario.parallel.tp = 4;
    state.scenario.parallel.pp = 2;
    state.scenario.parallel.zero = 1;
    state.scenario.parallel.dp = 0;
    state.scenario.train.recompute = core::Recompute::selective;
    app::apply_scenario_edits(state);
    REQUIRE(state.sidebar.error.empty());
    const std::string on_screen = core::report_to_json(state.applied, state.report);

    const std::string path = scratch("roundtrip") + "/saved.json";
    REQUIRE(app::save_scenario(state, path).empty());
    const std::string from_file = core::report_to_json(app::load_scenario_file(path), core::evaluate(app::load_scenario_file(path)));
    CHECK(from_file == on_screen);
}

TEST_CASE("An invalid edit in the UI is rolled back and named", "[classroom]") {
    app::AppState state = app::make_app_state(core::default_scenario());
    const core::Scenario before = state.applied;
    state.scenario.parallel.tp = 3;  // does not divide Llama 3 70B's 64 heads
    app::apply_scenario_edits(state);
    CHECK(state.applied == before);
    CHECK(state.scenario.parallel.tp == 1);
    CHECK(state.sidebar.error.find("parallel.tp") == 0);
}

TEST_CASE("A corrupted scenario file leaves the app on the previous scenario and shows the error, naming the file", "[classroom]") {
    const std::string directory = scratch("corrupt");
    struct Case {
        const char* file;
        const char* text;
        const char* field;
    };
    const Case cases[] = {
        {"truncated.json", "{\"model\": {\"preset\": \"llama3-8b\"}, \"train\": {\"seq_len\": 40", "malformed JSON"},
        {"types.json", "{\"train\": {\"seq_len\": \"long\"}}", "train.seq_len"},
        {"unknown.json", "{\"parallel\": {\"tpp\": 2}}", "parallel.tpp"},
        {"negative.json", "{\"cluster\": {\"gpus\": -4}}", "cluster.gpus"},
        {"empty.json", "", "malformed JSON"},
    };
    app::AppState state = app::make_app_state(core::default_scenario());
    const core::Scenario before = state.applied;
    const std::string report_before = core::report_to_json(state.applied, state.report);
    for (const Case& c : cases) {
        INFO(c.file);
        write(directory + "/" + c.file, c.text);
        const std::string error = app::open_scenario(state, directory + "/" + c.file);
        CHECK(error.find(c.field) != std::string::npos);
        CHECK(error.rfind(directory + "/" + c.file + ": ", 0) == 0);  // the dialog names the file first
        CHECK(state.applied == before);
        CHECK(core::report_to_json(state.applied, state.report) == report_before);
        state.file_error = error;
    }
    CHECK(app::open_scenario(state, directory + "/missing.json").find("no such file") != std::string::npos);

    // The UI shows the error in a dialog: run a frame of the real UI without a GPU.
    const test_support::HeadlessImGui imgui{ImVec2(1600, 900)};
    app::UiSession session;
    app::UiRequests requests;
    ImGui::NewFrame();
    app::draw_main_ui(state, session, requests, true);
    CHECK(ImGui::IsPopupOpen("File error"));
    ImGui::Render();
    CHECK(state.applied == before);
}

TEST_CASE("A Hugging Face config.json opens as the model", "[classroom]") {
    const std::string path = scratch("hf") + "/config.json";
    write(path, R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                   "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                   "max_position_embeddings": 8192, "tie_word_embeddings": false})");
    app::AppState state = app::make_app_state(core::default_scenario());
    REQUIRE(app::open_scenario(state, path).empty());
    // The same shape as the Llama 3 8B preset: the same parameter count.
    const double preset_params = core::count_params(*core::find_model("llama3-8b"), 8192).total;
    CHECK(state.report.memory.params == Approx(preset_params).epsilon(1e-12));
}

TEST_CASE("The default lesson follows the seeds' order and exports one PNG per scene with its caption", "[classroom]") {
    const app::Lesson lesson = app::load_lesson_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/lessons/default.json", panel_names());
    REQUIRE(lesson.scenes.size() >= 8);
    CHECK(lesson.scenes.front().panel == "walls");
    std::set<std::string> panels_used;
    for (const app::Scene& scene : lesson.scenes) {
        CHECK_FALSE(scene.caption.empty());
        panels_used.insert(scene.panel);
    }
    CHECK(panels_used.size() == panel_names().size());  // every panel appears in the lesson

    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.lesson = lesson;
    options.width = 960;
    options.height = 540;
    options.settle_frames = 2;
    options.out_dir = scratch("lesson");
    REQUIRE(app::run_export(options).empty());
    int written = 0;
    for (const auto& entry : std::filesystem::directory_iterator(options.out_dir)) {
        if (entry.path().extension() != ".png") continue;
        ++written;
        int width = 0, height = 0, channels = 0;
        unsigned char* image = stbi_load(entry.path().c_str(), &width, &height, &channels, 4);
        REQUIRE(image);
        CHECK(width == 960);
        // The caption band (the bottom sixth) holds text: more than one colour.
        std::set<std::uint32_t> colours;
        for (int y = height * 5 / 6; y < height; y += 3) {
            for (int x = 0; x < width; x += 5) colours.insert(*reinterpret_cast<std::uint32_t*>(image + 4 * (y * width + x)));
        }
        CHECK(colours.size() > 2);
        stbi_image_free(image);
    }
    CHECK(written == static_cast<int>(lesson.scenes.size()));
}

TEST_CASE("A lesson scene with an unknown panel or an invalid scenario is refused, naming the field", "[classroom]") {
    CHECK_THROWS_WITH(app::parse_lesson(R"({"scenes": [{"title": "x", "caption": "y", "panel": "stak"}]})", panel_names()),
                      Catch::Contains("lesson.scenes[0].panel"));
    CHECK_THROWS_WITH(app::parse_lesson(R"({"scenes": [{"panel": "ring", "scenario": {"parallel": {"tp": 3}}}]})", panel_names()),
                      Catch::Contains("lesson.scenes[0].scenario.parallel.tp"));
}

TEST_CASE("Window settings (zoom, theme, hidden panels, recent files) persist in the config directory", "[classroom]") {
    const std::string directory = scratch("settings");
    app::AppState state = app::make_app_state(core::default_scenario());
    state.visible[app::panel_index(state, "cube")] = false;
    state.recent_files = {"/tmp/a.json", "/tmp/b.json"};
    app::save_settings(directory, app::capture_settings(state, 1.5f, true));

    app::AppState restored = app::make_app_state(core::default_scenario());
    const app::WindowSettings settings = app::load_settings(directory);
    app::apply_settings(restored, settings);
    CHECK(settings.zoom == 1.5f);
    CHECK(settings.light_theme);
    CHECK_FALSE(restored.visible[app::panel_index(restored, "cube")]);
    CHECK(restored.visible[app::panel_index(restored, "stack")]);
    CHECK(restored.recent_files == state.recent_files);
    // A damaged settings file means defaults, never a refusal to start; the status line names the file and the key.
    write(directory + "/settings.json", "{ not json");
    const app::WindowSettings damaged = app::load_settings(directory);
    CHECK(damaged.zoom == 1.0f);
    CHECK_THAT(damaged.problem, Catch::StartsWith(directory + "/settings.json: malformed JSON") && Catch::EndsWith("(defaults used)"));
    write(directory + "/settings.json", R"({"zoom": "big"})");
    CHECK_THAT(app::load_settings(directory).problem, Catch::StartsWith(directory + "/settings.json: zoom: "));
    app::AppState told = app::make_app_state(core::default_scenario());
    app::apply_settings(told, app::load_settings(directory));
    CHECK(told.status == app::load_settings(directory).problem);
}

TEST_CASE("A lesson file with a bad scene is refused naming the file, then the key as the file spells it", "[classroom]") {
    const std::string path = scratch("lesson") + "/class.json";
    write(path, R"({"scenes": [{"title": "x", "caption": "y", "panel": "stak"}]})");
    CHECK_THROWS_WITH(app::load_lesson_file(path, panel_names()), Catch::StartsWith(path + ": scenes[0].panel: unknown panel"));
    write(path, "{\n  \"scenes\": [,]\n}");
    CHECK_THROWS_WITH(app::load_lesson_file(path, panel_names()), Catch::StartsWith(path + ": malformed JSON"));
}

TEST_CASE("Presentation zoom: up to 1.5x, never fewer than the 1280 x 720 logical pixels the panels are laid out for", "[classroom]") {
    CHECK(app::presentation_zoom(1920, 1080, 1.0f) == 1.5f);   // a 1080p projector: the full zoom
    CHECK(app::presentation_zoom(1280, 720, 1.0f) == 1.0f);    // 720p: already the smallest layout
    CHECK(app::presentation_zoom(1600, 900, 1.0f) == 1.25f);   // in between, in steps of 1/8
    CHECK(app::presentation_zoom(1700, 720, 1.0f) == 1.0f);    // the height decides in a wide, short window
    CHECK(app::presentation_zoom(3840, 2160, 2.0f) == 1.5f);   // a HiDPI 4K screen at 2x: 1920 x 1080 logical
    CHECK(app::presentation_zoom(2560, 1440, 2.0f) == 1.0f);   // at 2x that is 1280 x 720 logical
    CHECK(app::presentation_zoom(1024, 768, 1.0f) == 1.0f);    // smaller still: never below 1x
    CHECK(app::presentation_zoom(0, 0, 1.0f) == 1.0f);         // minimised
}
