// Playback as one object (widgets/playback.h): the transport bar's buttons, the arrow keys and the window's loop move a
// panel's clock through the same operations. The case: from t = 2.5 s with 1 s steps the back button went to
// 2.0 s and the left-arrow key to 1.0 s; both must go to 2.0 s, and forward to 3.0 s.
#include "app/window.h"
#include "widgets/clip_check.h"
#include "widgets/playback.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>
#include <imgui_internal.h>

#include <string>
#include <vector>

namespace {

widgets::Playback playback_at(double t_seconds, double step_seconds, double duration_seconds) {
    widgets::Playback playback;
    playback.set_timeline({duration_seconds, step_seconds});
    playback.scrub(t_seconds);
    return playback;
}

}  // namespace

TEST_CASE("A step from t = 2.5 s with 1 s steps: back 2.0 s, forward 3.0 s; from a boundary, the next one; within [0, end]", "[playback]") {
    widgets::Playback back = playback_at(2.5, 1.0, 10.0);
    back.step(-1);
    CHECK(back.t_seconds == 2.0);
    back.step(-1);
    CHECK(back.t_seconds == 1.0);
    widgets::Playback forward = playback_at(2.5, 1.0, 10.0);
    forward.step(+1);
    CHECK(forward.t_seconds == 3.0);
    // 0.3 = 3 x 0.1 s in floating point is a boundary: forward goes to 0.4, back to 0.2.
    widgets::Playback tenths = playback_at(0.1 * 3, 0.1, 1.0);
    tenths.step(+1);
    CHECK(tenths.t_seconds == Approx(0.4));
    tenths = playback_at(0.1 * 3, 0.1, 1.0);
    tenths.step(-1);
    CHECK(tenths.t_seconds == Approx(0.2));
    widgets::Playback edges = playback_at(0.0, 1.0, 2.5);
    edges.step(-1);
    CHECK(edges.t_seconds == 0.0);
    edges.scrub(2.5);
    edges.step(+1);
    CHECK(edges.t_seconds == 2.5);
    CHECK_FALSE(edges.playing);
}

TEST_CASE("Play, advance, loop and the end: a looping clock starts again, a stack's stops and stays at the end of a new timeline", "[playback]") {
    widgets::Playback ring = playback_at(0.0, 1.0, 4.0);
    ring.toggle();
    REQUIRE(ring.playing);
    ring.advance(1.5);
    CHECK(ring.t_seconds == 1.5);
    ring.speed = 2.0;
    ring.advance(1.5);
    CHECK(ring.t_seconds == 0.0);  // 1.5 + 2 x 1.5 = 4.5 is past the end: it loops to 0
    CHECK(ring.playing);

    widgets::Playback stack;
    widgets::Timeline timeline{6.0, 0.5, false, true};
    stack.set_timeline(timeline);
    CHECK(stack.t_seconds == 6.0);  // the stack opens on its finished state
    stack.toggle();                 // play on a finished animation replays it
    CHECK(stack.t_seconds == 0.0);
    stack.advance(7.0);
    CHECK(stack.t_seconds == 6.0);
    CHECK_FALSE(stack.playing);
    timeline.duration_seconds = 8.0;  // an edit that lengthens the animation: the finished stack stays finished
    stack.set_timeline(timeline);
    CHECK(stack.t_seconds == 8.0);
    stack.scrub(3.0);
    timeline.duration_seconds = 5.0;
    stack.set_timeline(timeline);
    CHECK(stack.t_seconds == 3.0);  // paused mid-way: it stays where it was
    // A lesson scene cues a time before its panel has drawn the scene's scenario: not clamped to the old timeline.
    stack.cue(7.0);
    CHECK(stack.t_seconds == 7.0);
}

TEST_CASE("The transport's back and forward buttons and the Left and Right keys step the same way", "[playback][window]") {
    app::WindowOptions options;
    options.scenario = core::default_scenario();
    options.visible = false;
    options.persist_settings = false;
    options.first_launch = 0;
    options.width = 1280;
    options.height = 720;
    app::WindowLoop loop(options);
    REQUIRE(loop.error().empty());
    for (int i = 0; i < 3; ++i) loop.frame(false);
    app::AppState& state = loop.state();
    widgets::Playback& playback = state.playbacks[state.current_panel];
    REQUIRE(playback.timeline_known);
    const double step = playback.step_seconds;
    REQUIRE(playback.duration_seconds > 4 * step);

    // Where the transport's arrows are: right of the Play button (4 em wide, its label centred), a frame high and square.
    widgets::start_text_record();
    loop.frame(false);
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    const widgets::DrawnText* play = nullptr;
    for (const widgets::DrawnText& text : texts) if (text.text == "Play") play = &text;
    REQUIRE(play);
    const float font = ImGui::GetFontSize();
    const float frame = ImGui::GetFrameHeight();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float y = (play->min.y + play->max.y) * 0.5f;
    const float back_x = (play->min.x + play->max.x) * 0.5f + font * 2.0f + spacing + frame * 0.5f;
    const float forward_x = back_x + frame + spacing;
    const auto click = [&](float x) {
        loop.input().mouse_move(x, y);
        loop.input().mouse_button(0, true);
        loop.input().mouse_button(0, false);
        loop.input().mouse_move(1270, 710);
        for (int i = 0; i < 3; ++i) loop.frame(false);
    };
    const auto tap = [&](int key) {
        loop.input().key(key, GLFW_PRESS);
        loop.input().key(key, GLFW_RELEASE);
        for (int i = 0; i < 3; ++i) loop.frame(false);
    };

    for (const auto& [direction, key, x] : {std::tuple{-1, GLFW_KEY_LEFT, back_x}, std::tuple{+1, GLFW_KEY_RIGHT, forward_x}}) {
        INFO("direction " << direction);
        state.playbacks[state.current_panel].scrub(2.5 * step);
        tap(key);
        const double by_key = state.playbacks[state.current_panel].t_seconds;
        state.playbacks[state.current_panel].scrub(2.5 * step);
        click(x);
        const double by_button = state.playbacks[state.current_panel].t_seconds;
        CHECK(by_key == Approx((direction < 0 ? 2.0 : 3.0) * step));
        CHECK(by_button == by_key);
    }
    // Space and the Play button both play, and both pause.
    tap(GLFW_KEY_SPACE);
    CHECK(state.playbacks[state.current_panel].playing);
    click((play->min.x + play->max.x) * 0.5f);
    CHECK_FALSE(state.playbacks[state.current_panel].playing);
}

TEST_CASE("After Esc from presentation no keyboard-focus frame or tooltip sits over Play (the arrow keys moved scenes, not focus)",
          "[playback][window]") {
    app::WindowOptions options;
    options.scenario = core::default_scenario();
    options.visible = false;
    options.persist_settings = false;
    options.first_launch = 0;
    options.width = 1280;
    options.height = 720;
    app::WindowLoop loop(options);
    REQUIRE(loop.error().empty());
    const auto tap = [&](int key) {
        loop.input().key(key, GLFW_PRESS);
        loop.input().key(key, GLFW_RELEASE);
        for (int i = 0; i < 3; ++i) loop.frame(false);
    };
    loop.input().mouse_move(1270, 710);  // the mouse away from every item: only keyboard focus could call a tooltip
    for (int i = 0; i < 3; ++i) loop.frame(false);
    tap(GLFW_KEY_F5);
    REQUIRE(loop.session().presentation.active);
    for (int key : {GLFW_KEY_RIGHT, GLFW_KEY_RIGHT, GLFW_KEY_LEFT}) tap(key);
    tap(GLFW_KEY_ESCAPE);
    REQUIRE_FALSE(loop.session().presentation.active);
    widgets::start_text_record();
    loop.frame(false);
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    for (const widgets::DrawnText& text : texts) {
        INFO(text.window << ": " << text.text);
        CHECK(text.window.rfind("##Tooltip", 0) != 0);
    }
    CHECK(ImGui::GetCurrentContext()->NavDisableHighlight);
    // Stepping with the arrows in the main view leaves no focus frame either.
    tap(GLFW_KEY_LEFT);
    CHECK(ImGui::GetCurrentContext()->NavDisableHighlight);
}
