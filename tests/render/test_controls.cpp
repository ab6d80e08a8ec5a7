// The shared controls under typed input: a number field applies on Enter or when it loses focus, never at
// each keystroke; Escape puts the value back; a refusal names what was typed and shows under the control that made it,
// until the scenario changes. Frames run headless (no GL) with keys fed through the window's own input queue.
#include "app/input_queue.h"
#include "tests/render/headless_imgui.h"
#include "widgets/clip_check.h"
#include "widgets/controls.h"
#include "widgets/fonts.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include <functional>

namespace {

// A headless ImGui with GLFW's key map, as the window sets it up.
struct Headless {
    test_support::HeadlessImGui imgui{ImVec2(1280, 720)};  // first: made before the rest, destroyed after
    app::InputQueue input;

    Headless() {
        ImGuiIO& io = ImGui::GetIO();
        io.DeltaTime = 1.0f / 60.0f;
        const std::pair<ImGuiKey_, int> keys[] = {
            {ImGuiKey_Tab, GLFW_KEY_TAB},         {ImGuiKey_LeftArrow, GLFW_KEY_LEFT}, {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
            {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE}, {ImGuiKey_Enter, GLFW_KEY_ENTER}, {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
            {ImGuiKey_A, GLFW_KEY_A},             {ImGuiKey_Delete, GLFW_KEY_DELETE},  {ImGuiKey_Home, GLFW_KEY_HOME},
            {ImGuiKey_End, GLFW_KEY_END}};
        for (const auto& [imgui_key, glfw_key] : keys) io.KeyMap[imgui_key] = glfw_key;
        input.mouse_move(1200, 700);  // away from the controls
    }

    // One frame drawing `body` in a window at the top left; focus_first puts the keyboard in the first field.
    void frame(const std::function<void()>& body, bool focus_first = false) {
        input.feed(ImGui::GetIO());
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(600, 400));
        ImGui::Begin("controls", nullptr, ImGuiWindowFlags_NoSavedSettings);
        if (focus_first) ImGui::SetKeyboardFocusHere();
        body();
        ImGui::End();
        ImGui::Render();
    }
    // Gives the first field the keys: it has them from the frame after the request.
    void focus(const std::function<void()>& body) {
        frame(body, true);
        frame(body);
    }
    void tap(int key) {
        input.key(key, GLFW_PRESS);
        input.key(key, GLFW_RELEASE);
    }
    void type(const std::string& text) {
        for (unsigned char c : text) input.character(c);
    }
};

bool shows(const std::vector<widgets::DrawnText>& texts, const std::string& part) {
    for (const widgets::DrawnText& text : texts) {
        if (text.text.find(part) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("Typing 2147483647 into the global batch applies nothing on the way; Enter refuses it, naming 2147483647", "[controls]") {
    Headless ui;
    core::Scenario scenario = core::default_scenario();
    widgets::EditFeedback feedback;
    const auto body = [&] { widgets::global_batch_input("Global batch", scenario, feedback); };
    ui.focus(body);
    for (char digit : std::string("2147483647")) {
        ui.type(std::string(1, digit));
        ui.frame(body);
        REQUIRE(scenario.train.global_batch == 512);  // "21474" was the step time's undoing: nothing applies mid-typing
    }
    ui.tap(GLFW_KEY_ENTER);
    ui.frame(body);
    ui.frame(body);
    INFO("feedback: " << feedback.error);
    CHECK(scenario.train.global_batch == 512);
    CHECK(feedback.error.rfind("Global batch: ", 0) == 0);  // the control moved names the refusal, not the file's key
    CHECK(feedback.error.find("got 2147483647") != std::string::npos);
    // Beyond int: what was typed is still what the message names.
    ui.focus(body);
    ui.type("99999999999");
    ui.tap(GLFW_KEY_ENTER);
    ui.frame(body);
    ui.frame(body);
    CHECK(feedback.error.find("got 99999999999") != std::string::npos);
}

TEST_CASE("A typed global batch applies on Enter, and when the field loses focus; Escape restores the value", "[controls]") {
    Headless ui;
    core::Scenario scenario = core::default_scenario();
    widgets::EditFeedback feedback;
    const auto body = [&] { widgets::global_batch_input("Global batch", scenario, feedback); };
    ui.focus(body);
    ui.type("1024");
    ui.tap(GLFW_KEY_ENTER);
    ui.frame(body);
    ui.frame(body);
    CHECK(scenario.train.global_batch == 1024);

    ui.focus(body);
    ui.type("2048");
    ui.frame(body);
    ui.tap(GLFW_KEY_ESCAPE);
    ui.frame(body);
    widgets::start_text_record();
    ui.frame(body);
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    CHECK(scenario.train.global_batch == 1024);
    CHECK(shows(texts, "1024"));
    CHECK_FALSE(shows(texts, "2048"));

    ui.focus(body);
    ui.type("4096");
    ui.frame(body);
    // A click elsewhere takes the focus away: what was typed applies.
    ui.input.mouse_move(1000, 600);
    ui.input.mouse_button(0, true);
    ui.input.mouse_button(0, false);
    for (int i = 0; i < 3; ++i) ui.frame(body);
    CHECK(scenario.train.global_batch == 4096);
}

TEST_CASE("Typing 0 GPUs is refused naming the 0 typed, under that field only, and the message goes when the scenario changes", "[controls]") {
    Headless ui;
    core::Scenario scenario = core::default_scenario();
    widgets::EditFeedback feedback;
    // The same label in two places (the sidebar and a panel): only the one typed into shows the message.
    const auto body = [&] {
        widgets::gpus_input("GPUs", scenario, feedback);
        ImGui::BeginChild("elsewhere", ImVec2(0, 100));
        ImGui::PushID("panel");
        widgets::gpus_input("GPUs", scenario, feedback);
        ImGui::PopID();
        ImGui::EndChild();
    };
    ui.focus(body);
    ui.type("0");
    ui.tap(GLFW_KEY_ENTER);
    ui.frame(body);
    widgets::start_text_record();
    ui.frame(body);
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    CHECK(scenario.cluster.gpus == 64);
    CHECK(feedback.error == "GPUs: must be between 1 and 100,000,000, got 0");
    int shown = 0;
    for (const widgets::DrawnText& text : texts) shown += text.text.find("got 0") != std::string::npos;
    CHECK(shown == 1);
    CHECK(find_if(texts.begin(), texts.end(), [](const widgets::DrawnText& text) {
              return text.text.find("got 0") != std::string::npos && text.window.find("elsewhere") != std::string::npos;
          }) == texts.end());
    // A change from elsewhere makes it stale: it goes.
    scenario.train.seq_len = 4096;
    widgets::expire_feedback(feedback, scenario);
    CHECK(feedback.error.empty());
}

TEST_CASE("Ctrl+click on the micro-batch slider types a value: 1e30 and -5 are refused in the number fields' words, 2 applies", "[controls]") {
    Headless ui;
    core::Scenario scenario = core::default_scenario();
    widgets::EditFeedback feedback;
    ImVec2 slider_min, slider_max;
    const auto body = [&] {
        widgets::axis_slider("Micro-batch", scenario, core::LayoutAxis::micro_batch, feedback, "help");
        if (slider_max.x == 0) {  // the first frame: where the slider is drawn
            slider_min = ImGui::GetItemRectMin();
            slider_max = ImGui::GetItemRectMax();
        }
    };
    ui.frame(body);
    REQUIRE(slider_max.x > slider_min.x);
    const int before = scenario.train.micro_batch;
    const auto type_into_slider = [&](const std::string& text) {
        ui.input.mouse_move((slider_min.x + slider_max.x) * 0.5f, (slider_min.y + slider_max.y) * 0.5f);
        ui.frame(body);
        ui.input.key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
        ui.frame(body);
        ui.input.mouse_button(0, true);
        ui.frame(body);
        ui.input.mouse_button(0, false);
        ui.input.key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
        ui.frame(body);
        ui.frame(body);
        ui.type(text);  // the field selects all as it takes the keys: typing replaces the value
        ui.frame(body);
        ui.tap(GLFW_KEY_ENTER);
        ui.frame(body);
        widgets::start_text_record();
        ui.frame(body);
        return widgets::stop_text_record();
    };
    const std::vector<widgets::DrawnText> huge = type_into_slider("1e30");
    CHECK(scenario.train.micro_batch == before);  // not clamped to the largest offered, not "130"
    CHECK(shows(huge, "Not applied: Micro-batch: 1e30 is far out of range"));
    const std::vector<widgets::DrawnText> negative = type_into_slider("-5");
    CHECK(scenario.train.micro_batch == before);  // not clamped to 1
    CHECK(shows(negative, "got -5"));
    type_into_slider("2");
    CHECK(scenario.train.micro_batch == 2);
}
