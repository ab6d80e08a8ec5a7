// No way back (issue B), driven through the window as a user drives it: the sidebar's GPU count at 4,096 GPUs with PP 8,
// "+" then "-" leaves the scenario as it was (the batch 512, not 1,024); 100,000,000 GPUs typed and then 64 comes back;
// Ctrl+Z, Ctrl+Shift+Z and the Edit menu undo and redo, Reset goes back to the file, and opening a file starts afresh.
// Every comparison is byte for byte: the scenario as a file would hold it, and every field besides.
#include "app/scenario_io.h"
#include "app/window.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "widgets/clip_check.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

void require_same(const core::Scenario& a, const core::Scenario& b) {
    REQUIRE(core::scenario_to_json(a) == core::scenario_to_json(b));
    REQUIRE(a == b);
}

core::Scenario applied(const core::Edit& edit) {
    REQUIRE(edit.ok());
    return edit.scenario;
}

// Llama 3 70B on 4,096 H100s, PP 8: DP 512, global batch 512.
core::Scenario pp8_on_4096() {
    return applied(core::with_gpus(applied(core::with_axis(core::default_scenario(), core::LayoutAxis::pp, 8)), 4096));
}

app::WindowOptions hidden_window(const core::Scenario& scenario, int width = 1280, int height = 720) {
    app::WindowOptions options;
    options.scenario = scenario;
    options.visible = false;
    options.persist_settings = false;
    options.first_launch = 0;
    options.width = width;
    options.height = height;
    return options;
}

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
    void chord(int key, bool shift = false) {
        loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
        if (shift) loop.input().key(GLFW_KEY_LEFT_SHIFT, GLFW_PRESS);
        loop.input().key(key, GLFW_PRESS);
        loop.input().key(key, GLFW_RELEASE);
        if (shift) loop.input().key(GLFW_KEY_LEFT_SHIFT, GLFW_RELEASE);
        loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
        frames();
    }
    void click(ImVec2 at) {
        loop.input().mouse_move(at.x, at.y);
        loop.input().mouse_button(0, true);
        loop.input().mouse_button(0, false);
        frames();
    }
    void type(const std::string& text) {
        for (unsigned char c : text) loop.input().character(c);
        frames();
    }
};

std::vector<widgets::DrawnText> frame_texts(app::WindowLoop& loop) {
    widgets::start_text_record();
    loop.frame(false);
    return widgets::stop_text_record();
}

const widgets::DrawnText* find_exact(const std::vector<widgets::DrawnText>& texts, const std::string& text, const char* window = nullptr) {
    for (const widgets::DrawnText& drawn : texts) {
        if (drawn.text == text && (!window || drawn.window == window)) return &drawn;
    }
    return nullptr;
}

ImVec2 center(const widgets::DrawnText& text) { return ImVec2((text.min.x + text.max.x) * 0.5f, (text.min.y + text.max.y) * 0.5f); }

// The sidebar's stepped field labelled `label` (GPUs, Global batch): where its "-", "+" and text field are.
struct SteppedField {
    ImVec2 minus, plus, field;
};
SteppedField stepped_field(app::WindowLoop& loop, const std::string& label) {
    const std::vector<widgets::DrawnText> texts = frame_texts(loop);
    const widgets::DrawnText* name = find_exact(texts, label, "Scenario");
    REQUIRE(name);
    const float row = center(*name).y;
    const widgets::DrawnText* minus = nullptr;
    const widgets::DrawnText* plus = nullptr;
    for (const widgets::DrawnText& text : texts) {  // the buttons on the label's row, left of it
        if (text.window != "Scenario" || std::fabs(center(text).y - row) > 2.0f || text.max.x > name->min.x) continue;
        if (text.text == "-") minus = &text;
        if (text.text == "+") plus = &text;
    }
    REQUIRE(minus);
    REQUIRE(plus);
    const float frame = ImGui::GetFrameHeight();
    return {center(*minus), center(*plus), ImVec2(center(*minus).x - frame * 2.0f, row)};
}

}  // namespace

TEST_CASE("GPUs 4,096 with PP 8: the sidebar's + then - leaves the scenario as it was (batch 512, not 1,024); Ctrl+Z and "
          "Ctrl+Shift+Z walk the two steps", "[window][undo]") {
    const core::Scenario start = pp8_on_4096();
    app::WindowLoop loop(hidden_window(start, 1920, 1080));
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    const SteppedField gpus = stepped_field(loop, "GPUs");

    user.click(gpus.plus);
    const core::Scenario plus = loop.state().applied;
    CHECK(plus.cluster.gpus == 4104);
    CHECK(plus.train.global_batch == 513);  // DP 513: the batch must divide over it
    user.click(gpus.minus);
    require_same(loop.state().applied, start);  // 512, where settling again would have made it 1,024
    CHECK(loop.state().feedback.notes.size() == 1);
    CHECK(loop.state().feedback.notes.front() == "undone with it, Global batch 512 -> 513 (it must divide over DP 513)");

    // Two steps in the history, "+" and "-".
    REQUIRE(loop.state().history.undo_steps() == 2);
    CHECK(loop.state().history.undo_name() == "GPUs");
    user.chord(GLFW_KEY_Z);
    require_same(loop.state().applied, plus);
    user.chord(GLFW_KEY_Z);
    require_same(loop.state().applied, start);
    CHECK_FALSE(loop.state().history.can_undo());
    user.chord(GLFW_KEY_Z, true);
    require_same(loop.state().applied, plus);
    user.chord(GLFW_KEY_Y);
    require_same(loop.state().applied, start);

    // The global batch's own pair: + then - is the batch it was.
    const SteppedField batch = stepped_field(loop, "Global batch");
    user.click(batch.plus);
    CHECK(loop.state().applied.train.global_batch == 1024);
    user.click(batch.minus);
    require_same(loop.state().applied, start);
}

TEST_CASE("100,000,000 GPUs typed raises the batch; 64 typed after it brings the scenario back, as do undo and Reset", "[window][undo]") {
    const core::Scenario start = pp8_on_4096();
    app::WindowLoop loop(hidden_window(start, 1920, 1080));
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    const SteppedField gpus = stepped_field(loop, "GPUs");
    const auto type_gpus = [&](const std::string& count) {
        user.click(gpus.field);
        user.chord(GLFW_KEY_A);
        user.type(count);
        user.tap(GLFW_KEY_ENTER);
    };

    type_gpus("100000000");
    CHECK(loop.state().applied.cluster.gpus == 100000000);
    CHECK(loop.state().applied.train.global_batch == 12500000);
    type_gpus("4096");
    require_same(loop.state().applied, start);

    // Without the pair: 100,000,000 then 128. 128 is refused (the batch would be 12,500,000 sequences over DP 16), and
    // undo goes back; Reset to the file too.
    type_gpus("100000000");
    type_gpus("128");
    CHECK(loop.state().applied.cluster.gpus == 100000000);
    CHECK(loop.state().feedback.error.find("micro-batches") != std::string::npos);
    user.chord(GLFW_KEY_Z);
    require_same(loop.state().applied, start);
    user.chord(GLFW_KEY_Z, true);
    CHECK(loop.state().applied.cluster.gpus == 100000000);
    CHECK(app::reset_to_file(loop.state()));
    require_same(loop.state().applied, start);
    user.chord(GLFW_KEY_Z);  // Reset is a step of its own
    CHECK(loop.state().applied.cluster.gpus == 100000000);

    // "1e30" is refused whole, naming the field, not read as 130.
    app::reset_to_file(loop.state());
    type_gpus("1e30");
    require_same(loop.state().applied, start);
    CHECK(loop.state().feedback.error == "GPUs: 1e30 is far out of range");
}

TEST_CASE("The Edit menu undoes and redoes by name and resets to the file; opening a file starts a new history", "[window][undo]") {
    const fs::path directory = fs::temp_directory_path() / "shardscope-undo-menu";
    fs::remove_all(directory);
    fs::create_directories(directory);
    const std::string path = (directory / "llama.json").string();
    std::ofstream(path) << core::scenario_to_json(pp8_on_4096());

    app::WindowLoop loop(hidden_window(core::default_scenario(), 1920, 1080));
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    REQUIRE(app::open_scenario(loop.state(), path).empty());
    user.frames();
    const core::Scenario opened = loop.state().applied;
    const SteppedField gpus = stepped_field(loop, "GPUs");
    user.click(gpus.plus);
    user.click(gpus.plus);
    const core::Scenario twice = loop.state().applied;
    CHECK(twice.cluster.gpus == 4112);

    const auto open_edit_menu = [&] {
        const std::vector<widgets::DrawnText> bar = frame_texts(loop);
        const widgets::DrawnText* edit = find_exact(bar, "Edit");
        REQUIRE(edit);
        user.click(center(*edit));
        return frame_texts(loop);
    };
    std::vector<widgets::DrawnText> menu = open_edit_menu();
    const widgets::DrawnText* undo = find_exact(menu, "Undo GPUs");
    REQUIRE(undo);
    CHECK(find_exact(menu, "Ctrl+Z"));
    CHECK(find_exact(menu, "2 steps to undo, 0 steps to redo (at most 200 kept)"));
    user.click(center(*undo));
    CHECK(loop.state().applied.cluster.gpus == 4104);
    menu = open_edit_menu();
    const widgets::DrawnText* redo = find_exact(menu, "Redo GPUs");
    REQUIRE(redo);
    user.click(center(*redo));
    require_same(loop.state().applied, twice);
    menu = open_edit_menu();
    const widgets::DrawnText* reset = find_exact(menu, "Reset to the file (llama.json)");
    REQUIRE(reset);
    user.click(center(*reset));
    require_same(loop.state().applied, opened);
    CHECK(loop.title() == "llama.json - ShardScope");  // no unsaved mark: it is the file

    // Opening the file again is where undo stops.
    REQUIRE(app::open_scenario(loop.state(), path).empty());
    CHECK_FALSE(loop.state().history.can_undo());
    CHECK_FALSE(loop.state().history.can_redo());
}

TEST_CASE("A lesson's scenes have their own history; leaving presentation gives the user's back", "[window][undo]") {
    app::WindowLoop loop(hidden_window(core::default_scenario(), 1920, 1080));
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    const SteppedField gpus = stepped_field(loop, "GPUs");
    user.click(gpus.plus);
    REQUIRE(loop.state().history.undo_steps() == 1);
    const core::Scenario mine = loop.state().applied;
    user.tap(GLFW_KEY_F5);
    REQUIRE(loop.session().presentation.active);
    CHECK_FALSE(loop.state().history.can_undo());  // a scene starts afresh
    user.tap(GLFW_KEY_ESCAPE);
    REQUIRE_FALSE(loop.session().presentation.active);
    require_same(loop.state().applied, mine);
    REQUIRE(loop.state().history.undo_steps() == 1);
    user.chord(GLFW_KEY_Z);
    require_same(loop.state().applied, core::default_scenario());
}

TEST_CASE("Ctrl+Z as xdotool types it (Ctrl let go in the same instant Z goes down, no 40 ms between) still undoes", "[window][undo][input]") {
    app::WindowLoop loop(hidden_window(core::default_scenario(), 1920, 1080));
    REQUIRE(loop.error().empty());
    User user{loop};
    user.frames();
    const SteppedField gpus = stepped_field(loop, "GPUs");
    user.click(gpus.plus);
    REQUIRE(loop.state().history.can_undo());
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    user.frames(1);
    loop.input().key(GLFW_KEY_Z, GLFW_PRESS);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_Z, GLFW_RELEASE);
    user.frames();
    require_same(loop.state().applied, core::default_scenario());
    // The other way round: Z down, then Ctrl, in one instant, is not Ctrl+Z.
    user.click(gpus.plus);
    const core::Scenario plus = loop.state().applied;
    loop.input().key(GLFW_KEY_Z, GLFW_PRESS);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    loop.input().key(GLFW_KEY_Z, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    user.frames();
    require_same(loop.state().applied, plus);
}
