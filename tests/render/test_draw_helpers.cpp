// The shared drawing helpers (widgets/draw_helpers.h): 1-2-5 tick steps and their labels, and text that fits its room.
#include "tests/render/headless_imgui.h"
#include "widgets/draw_helpers.h"
#include "widgets/fonts.h"
#include "widgets/text_wrap.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <vector>

TEST_CASE("1-2-5 ticks: the smallest of 1, 2, 5 x 10^k giving at most the intervals asked for", "[draw_helpers]") {
    CHECK(widgets::tick_step_125(100, 10) == Approx(10));
    CHECK(widgets::tick_step_125(100, 9) == Approx(20));   // 10 would give 10 intervals, one too many
    CHECK(widgets::tick_step_125(100, 4) == Approx(50));   // 20 would give 5
    CHECK(widgets::tick_step_125(100, 1) == Approx(100));
    CHECK(widgets::tick_step_125(0.3, 3) == Approx(0.1));  // 0.3 / 3 is a hair above 0.1 in binary: still 0.1
    CHECK(widgets::tick_step_125(33.0, 8) == Approx(5));
    CHECK(widgets::tick_step_125(7e-6, 7) == Approx(1e-6));
    CHECK(widgets::tick_step_125(0, 5) == 0);
    CHECK(widgets::tick_step_125(-3, 5) == 0);
}

TEST_CASE("1-2-5 ticks: placed on multiples of the step, both ends included when they fall on one", "[draw_helpers]") {
    CHECK(widgets::linear_ticks(0, 33, 8) == std::vector<double>{0, 5, 10, 15, 20, 25, 30});
    CHECK(widgets::linear_ticks(0, 1, 5) == std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
    const std::vector<double> around_zero = widgets::linear_ticks(-1, 1, 4);
    REQUIRE(around_zero.size() == 5);
    CHECK(around_zero[2] == 0.0);
    CHECK(widgets::linear_ticks(5, 5, 4).empty());
    for (double tick : widgets::linear_ticks(0.123, 9.87, 6)) CHECK((tick >= 0.123 && tick <= 9.87));
}

TEST_CASE("Tick labels carry the decimals their step needs and no more", "[draw_helpers]") {
    CHECK(widgets::tick_label(40, 20) == "40");
    CHECK(widgets::tick_label(0.25, 0.05) == "0.25");
    CHECK(widgets::tick_label(0.6000000000000001, 0.2) == "0.6");
    CHECK(widgets::tick_label(1e-17, 0.1) == "0.0");
    CHECK(widgets::tick_label(-0.0, 1) == "0");
    CHECK(widgets::tick_label(2.5, 0.5) == "2.5");
}

TEST_CASE("fit_text: whole when it fits, else cut with an ellipsis, never wider than asked; a path keeps its file name", "[draw_helpers]") {
    const test_support::HeadlessImGui imgui{};
    ImGui::NewFrame();
    const std::string text = "bf16 weight 141 GB";
    const float whole = ImGui::CalcTextSize(text.c_str()).x;
    CHECK(widgets::fit_text(text, whole) == text);
    for (float share : {0.9f, 0.6f, 0.3f}) {
        const std::string cut = widgets::fit_text(text, whole * share);
        CHECK(ImGui::CalcTextSize(cut.c_str()).x <= whole * share);
        CHECK(cut.size() >= 3);
        CHECK(cut.substr(cut.size() - 3) == "\xE2\x80\xA6");
    }
    const std::string path = "/home/someone/projects/shardscope/scenarios/llama3-405b-16k.json";
    const std::string kept = widgets::fit_text(path, ImGui::CalcTextSize(path.c_str()).x * 0.6f, true);
    CHECK(kept.find("16k.json") != std::string::npos);
    CHECK(kept.rfind("/home", 0) == 0);
    // Captions wrap at spaces only: "70.0 B" stays whole (ImGui's own wrap may break after the '.'); "parameters:", wider
    // than the line, is the one word cut where it must be.
    const std::string caption = "For 70.0 B parameters: 1.12 TB, 14.0x an H100 SXM";
    const float line_width = ImGui::CalcTextSize("For 70.").x + 1.0f;
    const std::vector<std::string> lines = widgets::wrap_at_spaces(caption, line_width);
    const auto without_spaces = [](std::string text) {
        text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
        return text;
    };
    std::string joined;
    for (const std::string& line : lines) {
        joined += line;
        CHECK(ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, line.c_str()).x <= line_width);
    }
    CHECK(without_spaces(joined) == without_spaces(caption));  // nothing lost but the spaces at the breaks
    CHECK(lines[1].rfind("70.0", 0) == 0);  // the number starts a line whole
    ImGui::EndFrame();
}

TEST_CASE("split_columns: side by side while both columns keep their minimum, else one column", "[draw_helpers]") {
    ImGui::CreateContext();
    ImGui::GetStyle().ItemSpacing.x = 8;
    const widgets::ColumnSplit wide = widgets::split_columns(1600, 0.3f, 300, 400, 600);
    CHECK(wide.side_by_side);
    CHECK(wide.first_width == 400);  // 30 % would be 480: held to its maximum
    const widgets::ColumnSplit middle = widgets::split_columns(1000, 0.3f, 300, 400, 600);
    CHECK(middle.side_by_side);
    CHECK(middle.first_width == 300);  // 30 % held to its minimum, and 1000 - 8 - 300 leaves the rest its 600
    const widgets::ColumnSplit narrow = widgets::split_columns(900, 0.3f, 300, 400, 600);
    CHECK_FALSE(narrow.side_by_side);
    CHECK(narrow.first_width == 900);
    ImGui::DestroyContext();
}

TEST_CASE("columns_that_fit: every column while they fit, else the least needed dropped first until the rest fit", "[draw_helpers]") {
    const std::vector<float> widths = {20, 100, 40, 200, 80};  // 440 in all
    CHECK(widgets::columns_that_fit(widths, {4, 3}, 440) == std::vector<bool>{true, true, true, true, true});
    CHECK(widgets::columns_that_fit(widths, {4, 3}, 439) == std::vector<bool>{true, true, true, true, false});
    CHECK(widgets::columns_that_fit(widths, {4, 3}, 300) == std::vector<bool>{true, true, true, false, false});
    // Out of columns to drop: the rest stay, however narrow the table.
    CHECK(widgets::columns_that_fit(widths, {4, 3, 9}, 10) == std::vector<bool>{true, true, true, false, false});
}
