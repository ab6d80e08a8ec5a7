// Small things a class notices (issue D): the Open dialog shows each shipped file's description whole ("Dubey et al.
// 2024 ('The Llama 3 Herd of Models') Table 4", not "Dubey..."), and a sizing table never shows the previous model's
// result under the new model's name while the new one is computed.
#include "app/scenario_io.h"
#include "app/window.h"
#include "core/model/scenario_edits.h"
#include "widgets/clip_check.h"
#include "widgets/size_job.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include <string>
#include <vector>

TEST_CASE("The Open dialog shows each shipped scenario's description whole at 1024x768: 'Dubey et al. 2024', not 'Dubey...'", "[window]") {
    app::WindowOptions options;
    options.scenario = core::default_scenario();
    options.visible = false;
    options.persist_settings = false;
    options.first_launch = 0;
    options.width = 1024;
    options.height = 768;
    app::WindowLoop loop(options);
    REQUIRE(loop.error().empty());
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
    loop.input().key(GLFW_KEY_O, GLFW_PRESS);
    loop.input().key(GLFW_KEY_O, GLFW_RELEASE);
    loop.input().key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
    for (int i = 0; i < 4; ++i) loop.frame(false);
    widgets::start_text_record();
    loop.frame(false);
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    std::string dialog;
    for (const widgets::DrawnText& text : texts) {
        if (text.window != "Open") continue;
        dialog += text.text + "\n";
        INFO(text.text);
        CHECK_FALSE(widgets::is_cut(text));
        CHECK(text.text.find("...") == std::string::npos);
    }
    INFO(dialog);
    CHECK(dialog.find("Dubey et al. 2024 ('The Llama 3 Herd of Models') Table 4") != std::string::npos);
    CHECK(dialog.find("Korthikanti et al.") != std::string::npos);
}

TEST_CASE("Sizing: while the new model's sizing is computed, the previous model's rows are not its result", "[sizing]") {
    widgets::SizeJob job;
    core::SizingOptions options;
    options.max_gpus = 64;
    const core::Scenario llama70 = core::default_scenario();
    job.request(llama70, options);
    job.wait();
    REQUIRE(job.has_result());
    const core::Scenario llama8 = core::with_model(llama70, *core::find_model("llama3-8b")).scenario;
    job.request(llama8, options);
    CHECK_FALSE(job.has_result());  // the 70B rows are there, but they are not the 8B's
    job.wait();
    CHECK(job.has_result());
}
