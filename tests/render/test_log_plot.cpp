// The log plot's text layout (widgets/log_plot.h): a text that gives way is left out rather than drawn over another.
#include "tests/render/headless_imgui.h"
#include "widgets/clip_check.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

bool overlap(const widgets::DrawnText& a, const widgets::DrawnText& b) {
    return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}

// One frame of a plot holding one required text and `names` that give way, all at the same anchor; what was drawn.
std::vector<widgets::DrawnText> plot_texts(const std::vector<std::string>& names) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(800, 600));
    ImGui::Begin("plot window");
    widgets::start_text_record();
    widgets::LogPlotAxes axes;
    axes.legend = widgets::LegendCorner::none;
    if (widgets::BeginLogPlot("##plot", ImVec2(700, 500), axes)) {
        for (const std::string& name : names) widgets::PlotTextIfRoom(10, 1e13, name.c_str(), IM_COL32(200, 200, 200, 255));
        widgets::PlotText(10, 1e13, "required ridge label", IM_COL32(255, 255, 255, 255));
        widgets::EndLogPlot();
    }
    std::vector<widgets::DrawnText> drawn = widgets::stop_text_record();
    ImGui::End();
    ImGui::EndFrame();
    return drawn;
}

}  // namespace

TEST_CASE("PlotTextIfRoom: placed after every PlotText, never over another text, left out when no spot near its anchor is free",
          "[log_plot]") {
    const test_support::HeadlessImGui imgui{};

    std::vector<std::string> names;
    for (int i = 0; i < 14; ++i) names.push_back("kernel name " + std::to_string(i));
    const std::vector<widgets::DrawnText> drawn = plot_texts(names);
    std::vector<widgets::DrawnText> labels;  // the plot's own texts, not its tick labels or titles
    bool required_drawn = false;
    for (const widgets::DrawnText& text : drawn) {
        if (text.text == "required ridge label") required_drawn = true;
        if (text.text == "required ridge label" || text.text.rfind("kernel name", 0) == 0) labels.push_back(text);
    }
    CHECK(required_drawn);  // queued last, placed first: the spot it asked for
    // Ten spots near the anchor (five lines, two sides): at most nine are left to the names after the required text.
    CHECK(labels.size() > 1);
    CHECK(labels.size() < names.size() + 1);
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            INFO(labels[i].text << " / " << labels[j].text);
            CHECK_FALSE(overlap(labels[i], labels[j]));
        }
}
