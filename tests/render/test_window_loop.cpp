// The window's own loop (app::WindowLoop) driven by synthetic input, as a user would drive it: Save never
// writes over a file ShardScope did not write, presentation gives the user's scenario back, dialog errors stay until
// dismissed, a press and release inside one frame are never lost, and an idle window sleeps.
#include "app/gui.h"
#include "app/scenario_io.h"
#include "app/window.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "widgets/clip_check.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>
#include <imgui_internal.h>

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;

std::string scratch(const char* name) {
    const fs::path directory = fs::temp_directory_path() / ("shardscope-window-" + std::string(name));
    fs::remove_all(directory);
    fs::create_directories(directory);
    return directory.string();
}

std::string read(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

constexpr const char* kHfConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "vocab_size": 128256, "max_position_embeddings": 8192, "tie_word_embeddings": false})";

// A user at the keyboard of a hidden window: every event goes through the window's own input queue.
struct User {
    app::WindowLoop& loop;

    void frames(int count = 3) {
        for (int i = 0; i < count; ++i) loop.frame(false);
    }
    void tap(int key) {
        loop.input().key(key, GLFW_PRESS);
        loop.input().key(key, GLFW_RELEASE);
        frames();
    }
    void chord(int modifier, int key) {
        loop.input().key(modifier, GLFW_PRESS);
        loop.input().key(key, GLFW_PRESS);
        loop.input().key(key, GLFW_RELEASE);
        loop.input().key(modifier, GLFW_RELEASE);
        frames();
    }
    // Replaces what the focused text field holds: select all, then type.
    void type_over(const std::string& text) {
        chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_A);
        for (unsigned char c : text) loop.input().character(c);
        frames();
    }
    void click(float x, float y) {
        loop.input().mouse_move(x, y);
        loop.input().mouse_button(0, true);
        loop.input().mouse_button(0, false);
        frames();
    }
};

// The texts one frame draws (the clip checker records them).
std::vector<widgets::DrawnText> frame_texts(app::WindowLoop& loop) {
    widgets::start_text_record();
    loop.frame(false);
    return widgets::stop_text_record();
}

const widgets::DrawnText* find_text(const std::vector<widgets::DrawnText>& texts, const std::string& start) {
    for (const widgets::DrawnText& text : texts) {
        if (text.text.rfind(start, 0) == 0) return &text;
    }
    return nullptr;
}

// The modal dialog on top, if any ("Open", "Save scenario as", "Unsaved changes", "File error").
std::string top_dialog() {
    ImGuiWindow* modal = ImGui::GetTopMostPopupModal();
    return modal ? std::string(modal->Name) : std::string();
}

app::WindowOptions hidden_window(int width = 1280, int height = 720) {
    app::WindowOptions options;
    options.scenario = core::default_scenario();
    options.visible = false;
    options.persist_settings = false;
    options.first_launch = 0;
    options.width = width;
    options.height = height;
    return options;
}

// Another layout, as a slider would set it: TP 8 and ZeRO-1.
void edit_layout(app::WindowLoop& loop) {
    core::Edit edit = core::with_axis(loop.state().scenario, core::LayoutAxis::tp, 8);
    REQUIRE(edit.ok());
    edit = core::with_zero(edit.scenario, 1);
    REQUIRE(edit.ok());
    loop.state().scenario = edit.scenario;
    loop.frame(false);
}

}  // namespace

TEST_CASE("Ctrl+S after opening a Hugging Face config.json never writes over it: the import is untitled, Save asks for a file", "[window]") {
    const std::string directory = scratch("hf");
    const std::string config = directory + "/config.json";
    write(config, kHfConfig);
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();

    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_O);
    REQUIRE(top_dialog() == "Open");
    user.type_over(config);
    user.tap(GLFW_KEY_ENTER);
    CHECK(top_dialog().empty());
    CHECK(loop.state().imported_from == config);
    CHECK(loop.state().scenario_path.empty());
    CHECK(loop.title() == "Untitled (from config.json) - ShardScope");

    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_S);
    CHECK(top_dialog() == "Save scenario as");
    CHECK(read(config) == kHfConfig);  // untouched

    // Saving onto the config itself asks first; "Keep it" keeps it.
    user.type_over(config);
    user.tap(GLFW_KEY_ENTER);
    CHECK(loop.session().confirm_replace.find("is not a scenario ShardScope wrote") != std::string::npos);
    user.tap(GLFW_KEY_ESCAPE);
    CHECK(loop.session().confirm_replace.empty());
    CHECK(top_dialog() == "Save scenario as");
    CHECK(read(config) == kHfConfig);

    const std::string saved = directory + "/llama3-8b.json";
    user.type_over(saved);
    user.tap(GLFW_KEY_ENTER);
    CHECK(top_dialog().empty());
    CHECK(loop.state().status == "Saved " + saved);
    CHECK(loop.title() == "llama3-8b.json - ShardScope");
    CHECK(app::written_by_shardscope(saved));
    CHECK(core::parse_scenario(read(saved)) == loop.state().applied);
    CHECK(read(config) == kHfConfig);
}

TEST_CASE("Save writes in place over ShardScope's own file, marks unsaved changes in the title, and asks before replacing another", "[window]") {
    const std::string directory = scratch("save");
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    CHECK(loop.title() == "Untitled - ShardScope");
    edit_layout(loop);
    user.frames();
    CHECK(loop.title() == "*Untitled - ShardScope");

    const std::string path = directory + "/mine.json";
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_S);
    REQUIRE(top_dialog() == "Save scenario as");
    user.type_over(path);
    user.tap(GLFW_KEY_ENTER);
    CHECK(loop.title() == "mine.json - ShardScope");
    const std::string first = read(path);

    // Another edit, then Ctrl+S: in place, no question.
    core::Edit edit = core::with_zero(loop.state().scenario, 2);
    REQUIRE(edit.ok());
    loop.state().scenario = edit.scenario;
    user.frames();
    CHECK(loop.title() == "*mine.json - ShardScope");
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_S);
    CHECK(top_dialog().empty());
    CHECK(loop.state().status == "Saved " + path);
    CHECK(read(path) != first);
    CHECK(core::parse_scenario(read(path)).parallel.zero == 2);
    CHECK(loop.title() == "mine.json - ShardScope");

    // Save As onto an existing file asks; Enter answers yes.
    const std::string other = directory + "/other.json";
    write(other, "{\"train\": {\"seq_len\": 4096}}");
    // Ctrl+Shift+S: Save As.
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    loop.input().key(GLFW_KEY_LEFT_SHIFT, GLFW_PRESS);
    loop.input().key(GLFW_KEY_S, GLFW_PRESS);
    loop.input().key(GLFW_KEY_S, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_SHIFT, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    user.frames();
    REQUIRE(top_dialog() == "Save scenario as");
    user.type_over(other);
    user.tap(GLFW_KEY_ENTER);
    CHECK(loop.session().confirm_replace == other + " exists and is not a scenario ShardScope wrote. Replace it?");
    CHECK(read(other) == "{\"train\": {\"seq_len\": 4096}}");
    user.tap(GLFW_KEY_ENTER);
    CHECK(top_dialog().empty());
    CHECK(app::written_by_shardscope(other));
}

TEST_CASE("A shipped scenario opens read-only: Save becomes Save As, and nothing under the assets is written", "[window]") {
    const std::string shipped = app::shipped_files("scenarios").front();
    const std::string before = read(shipped);
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_O);
    user.type_over(shipped);
    user.tap(GLFW_KEY_ENTER);
    REQUIRE(loop.state().scenario_path == shipped);
    CHECK(loop.state().read_only);
    CHECK(loop.title() == fs::path(shipped).filename().string() + " (read-only) - ShardScope");
    edit_layout(loop);
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_S);
    CHECK(top_dialog() == "Save scenario as");
    CHECK(loop.session().save_reason.find("shipped scenario") != std::string::npos);
    // Typing the shipped path itself is refused in the dialog, which stays open.
    user.type_over(shipped);
    user.tap(GLFW_KEY_ENTER);
    CHECK(top_dialog() == "Save scenario as");
    CHECK(loop.session().dialog_error.find("read-only") != std::string::npos);
    CHECK(read(shipped) == before);
}

TEST_CASE("Enter on a missing path keeps the Open dialog and its error until the path changes or the dialog closes", "[window]") {
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    const core::Scenario before = loop.state().applied;
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_O);
    const std::string missing = scratch("missing") + "/no-such-scenario.json";
    user.type_over(missing);
    user.tap(GLFW_KEY_ENTER);
    user.frames(10);
    CHECK(top_dialog() == "Open");
    CHECK(loop.session().dialog_error.find("no such file") != std::string::npos);
    CHECK(loop.state().file_error.empty());  // not a second dialog that the same Enter would dismiss
    CHECK(loop.state().applied == before);
    // The field has the keys again: typing edits the path and the stale message goes.
    loop.input().character('x');
    user.frames();
    CHECK(loop.session().path_input == missing + "x");
    CHECK(loop.session().dialog_error.empty());
    user.tap(GLFW_KEY_ESCAPE);
    user.tap(GLFW_KEY_ESCAPE);
    CHECK(top_dialog().empty());
}

TEST_CASE("The Open dialog lists the shipped scenarios, lessons and recent files: a double-click on one opens it", "[window]") {
    app::WindowLoop loop(hidden_window(1600, 900));
    REQUIRE(loop.error().empty());
    User user{loop};
    loop.state().recent_files = {"/tmp/an-earlier-scenario.json"};
    user.frames();
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_O);
    REQUIRE(top_dialog() == "Open");
    const std::vector<widgets::DrawnText> texts = frame_texts(loop);
    const std::string wanted = "gpt3-175b-megatron.json";
    const widgets::DrawnText* row = find_text(texts, wanted);
    REQUIRE(row);
    for (const std::string& path : app::shipped_files("scenarios")) CHECK(find_text(texts, fs::path(path).filename().string()));
    for (const std::string& path : app::shipped_files("lessons")) CHECK(find_text(texts, fs::path(path).filename().string()));
    CHECK(find_text(texts, "/tmp/an-earlier-scenario.json"));
    const ImVec2 at((row->min.x + row->max.x) * 0.5f, (row->min.y + row->max.y) * 0.5f);
    ImGui::GetIO().MouseDoubleClickTime = 10.0f;  // two clicks four frames apart are a double-click however slow the frames
    user.click(at.x, at.y);
    CHECK(top_dialog() == "Open");  // one click picks the file, the dialog stays
    CHECK(fs::path(loop.session().path_input).filename() == wanted);
    loop.input().mouse_move(at.x, at.y);
    for (int i = 0; i < 2; ++i) {
        loop.input().mouse_button(0, true);
        loop.input().mouse_button(0, false);
    }
    user.frames(6);
    CHECK(top_dialog().empty());
    CHECK(fs::path(loop.state().scenario_path).filename() == wanted);
    CHECK(loop.state().read_only);
    CHECK(loop.state().applied.model.id == "gpt3-175b");
}

TEST_CASE("Presentation keeps the user's scenario: F5, scenes, Esc gives it back exactly, unsaved mark included", "[window]") {
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    edit_layout(loop);
    const core::Scenario mine = loop.state().applied;
    const int tab = loop.state().current_panel;
    user.tap(GLFW_KEY_F5);
    REQUIRE(loop.session().presentation.active);
    CHECK(loop.title().find("presentation") != std::string::npos);
    user.tap(GLFW_KEY_RIGHT);
    user.tap(GLFW_KEY_RIGHT);
    CHECK_FALSE(loop.state().applied == mine);  // a scene's scenario is on screen
    // Ctrl+S in presentation saves nothing: the scenes are not the user's.
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_S);
    CHECK(top_dialog().empty());
    user.tap(GLFW_KEY_ESCAPE);
    CHECK_FALSE(loop.session().presentation.active);
    CHECK(loop.state().applied == mine);
    CHECK(loop.state().scenario == mine);
    CHECK(loop.state().current_panel == tab);
    CHECK(loop.title() == "*Untitled - ShardScope");
}

TEST_CASE("Presentation shows each scene's figure without its controls; C shows them, and C again hides them", "[window]") {
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    user.tap(GLFW_KEY_F5);
    REQUIRE(loop.session().presentation.active);
    user.tap(GLFW_KEY_RIGHT);  // scene 2: the 16-byte stack, whose transport has a Play button
    REQUIRE(loop.session().presentation.scene == 1);
    CHECK_FALSE(find_text(frame_texts(loop), "Play"));
    CHECK(find_text(frame_texts(loop), "Whole model"));  // the figure's heading is there
    user.tap(GLFW_KEY_C);
    CHECK(loop.session().presentation.show_controls);
    CHECK(find_text(frame_texts(loop), "Play"));
    user.tap(GLFW_KEY_C);
    CHECK_FALSE(find_text(frame_texts(loop), "Play"));
}

TEST_CASE("Quitting with unsaved changes asks first; Cancel keeps the window, Discard closes it", "[window]") {
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    edit_layout(loop);
    loop.request_close();  // the window manager's close button
    user.frames();
    CHECK(top_dialog() == "Unsaved changes");
    CHECK_FALSE(loop.closed());
    user.tap(GLFW_KEY_ESCAPE);
    CHECK(top_dialog().empty());
    CHECK_FALSE(loop.closed());
    user.chord(GLFW_KEY_LEFT_CONTROL, GLFW_KEY_Q);
    CHECK(top_dialog() == "Unsaved changes");
    const std::vector<widgets::DrawnText> texts = frame_texts(loop);
    const widgets::DrawnText* discard = find_text(texts, "Discard");
    REQUIRE(discard);
    user.click((discard->min.x + discard->max.x) * 0.5f, (discard->min.y + discard->max.y) * 0.5f);
    CHECK(loop.closed());
}

TEST_CASE("A press and release inside one frame are never lost: Ctrl+S tapped between two frames still saves", "[window][input]") {
    const std::string directory = scratch("tap");
    app::WindowLoop loop(hidden_window());
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    // All four transitions arrive before the next frame, as from a fast typist or a key macro.
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    loop.input().key(GLFW_KEY_S, GLFW_PRESS);
    loop.input().key(GLFW_KEY_S, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    loop.frame(false);
    CHECK_FALSE(loop.input().empty());  // the release waits for the next frame, so the press was seen
    user.frames();
    CHECK(top_dialog() == "Save scenario as");
    // Typed characters and Enter in one burst: the path is whole when Enter applies it.
    const std::string path = directory + "/burst.json";
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    loop.input().key(GLFW_KEY_A, GLFW_PRESS);
    loop.input().key(GLFW_KEY_A, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    for (unsigned char c : path) loop.input().character(c);
    loop.input().key(GLFW_KEY_ENTER, GLFW_PRESS);
    loop.input().key(GLFW_KEY_ENTER, GLFW_RELEASE);
    user.frames(6);
    CHECK(fs::exists(path));
    CHECK(top_dialog().empty());
}

TEST_CASE("A newcomer's first window says in one line how to start the lesson (F5) and where the scenarios are", "[window]") {
    app::WindowOptions options = hidden_window();
    options.first_launch = 1;
    app::WindowLoop loop(options);
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    CHECK(loop.session().welcome);
    user.tap(GLFW_KEY_F5);
    CHECK_FALSE(loop.session().welcome);  // started: the line has done its job
    user.tap(GLFW_KEY_ESCAPE);
}

TEST_CASE("A projector's 1280x720 work area shows the whole window: the 1600x900 default opens maximized to it", "[window]") {
    // A 1280x720 projector (its whole area free) and a 1920x1080 monitor, at content scale 1.
    const app::WindowFit projector = app::fit_window(1600, 900, 1280, 720, 1.0f, 1.0f);
    REQUIRE((projector.width == 1280 && projector.height == 720 && projector.maximized));
    const app::WindowFit monitor = app::fit_window(1600, 900, 1920, 1080, 1.0f, 1.0f);
    REQUIRE((monitor.width == 1600 && monitor.height == 900 && !monitor.maximized));
    // At content scale 2 GLFW doubles the size asked for: a 2560x1440 screen holds 1280x720 of it.
    const app::WindowFit hidpi = app::fit_window(1600, 900, 2560, 1440, 2.0f, 2.0f);
    REQUIRE((hidpi.width == 1280 && hidpi.height == 720 && hidpi.maximized));
    // A panel taking 40 px of a 1366x768 laptop screen: only the height is cut.
    const app::WindowFit laptop = app::fit_window(1600, 900, 1366, 728, 1.0f, 1.0f);
    REQUIRE((laptop.width == 1366 && laptop.height == 728 && laptop.maximized));
    // No work area reported (no monitor): the size asked for.
    const app::WindowFit none = app::fit_window(1600, 900, 0, 0, 1.0f, 1.0f);
    REQUIRE((none.width == 1600 && none.height == 900 && !none.maximized));
}

// Counted in frames, not CPU time: llvmpipe draws one frame of the cube in tens of milliseconds on a loaded 2-core runner.
TEST_CASE("Idle, the window sleeps: about one frame a second over 3 s with nothing moving", "[window][idle]") {
    app::WindowLoop loop(hidden_window(1600, 900));
    REQUIRE(loop.error().empty());
    // Show the regime cube, the panel with an offscreen 3D render.
    const int cube = app::panel_index(loop.state(), "cube");
    REQUIRE(cube >= 0);
    loop.state().select_panel_request = cube;
    for (int i = 0; i < 10; ++i) loop.frame(false);
    const auto cpu_seconds = [] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    };
    // Let the last input settle, then measure.
    const auto settle_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (std::chrono::steady_clock::now() < settle_until) loop.frame(true);
    CHECK(loop.idle());
    const double cpu_before = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    int frames = 0;
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
        loop.frame(true);
        ++frames;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double share = (cpu_seconds() - cpu_before) / wall;
    INFO("frames " << frames << ", CPU " << share * 100 << " % of a core");
    CHECK(frames <= 8);  // about one wake a second, where a busy loop would draw hundreds
}
