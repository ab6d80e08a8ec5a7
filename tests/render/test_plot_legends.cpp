// Figures whose legend or labels hide their data (classroom issue, item 5): the Pareto plot's legend over a third of its
// clusters, the roofline's over "ReLU" and "decode". Checked on the exporter's own layout, not by eye: the log plot
// records each plot's legend, points and labels (widgets/clip_check.h), and no legend may cover a point or a label, in any
// panel of any shipped scenario, as a figure and in the window beside the sidebar at 1280x720.
#include "app/export.h"
#include "core/model/scenario_json.h"
#include "widgets/clip_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool intersect(const ImVec4& a, const ImVec4& b) { return a.x < b.z && b.x < a.z && a.y < b.w && b.y < a.w; }

std::string rect(const ImVec4& r) {
    std::ostringstream out;
    out << "x " << r.x << ".." << r.z << ", y " << r.y << ".." << r.w;
    return out.str();
}

std::vector<std::filesystem::path> shipped_scenarios() {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios"))
        if (entry.path().extension() == ".json") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    return paths;
}

core::Scenario read_scenario(const std::filesystem::path& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return core::parse_scenario(text.str());
}

}  // namespace

TEST_CASE("No legend covers a data point or a label, in any panel of any shipped scenario", "[render][legend]") {
    const std::vector<std::filesystem::path> scenarios = shipped_scenarios();
    REQUIRE(scenarios.size() >= 7);
    std::string error;
    std::vector<std::string> panels = app::export_targets("all", &error);
    panels.pop_back();  // "window": each panel is drawn in it below
    int legends = 0, points = 0;
    for (const std::filesystem::path& path : scenarios) {
        struct Look {
            int width, height;
            app::SidebarMode sidebar;
        };
        for (const Look look : {Look{1600, 900, app::SidebarMode::automatic}, Look{1280, 720, app::SidebarMode::shown}}) {
            app::ExportOptions options;
            options.scenario = read_scenario(path);
            options.panels = panels;
            options.width = look.width;
            options.height = look.height;
            options.sidebar = look.sidebar;
            options.settle_frames = 3;
            options.out_dir = (std::filesystem::temp_directory_path() / "shardscope-legends").string();
            std::vector<std::vector<widgets::PlotLayout>> plots;
            options.plots_out = &plots;
            REQUIRE(app::run_export(options).empty());
            REQUIRE(plots.size() == panels.size());
            for (std::size_t i = 0; i < panels.size(); ++i) {
                for (const widgets::PlotLayout& plot : plots[i]) {
                    INFO(path.filename().string() << ", " << panels[i] << " at " << look.width << "x" << look.height
                                                  << (look.sidebar == app::SidebarMode::shown ? " beside the sidebar" : " as a figure")
                                                  << ", legend at " << rect(plot.legend));
                    points += static_cast<int>(plot.points.size());
                    if (plot.legend.z <= plot.legend.x) continue;  // no legend
                    ++legends;
                    for (const ImVec4& point : plot.points)
                        if (intersect(plot.legend, point)) FAIL_CHECK("the legend covers a point at " << rect(point));
                    for (const ImVec4& label : plot.labels)
                        if (intersect(plot.legend, label)) FAIL_CHECK("the legend covers a label at " << rect(label));
                }
            }
        }
    }
    CHECK(legends >= static_cast<int>(scenarios.size()) * 2 * 4);  // the roofline's two, the walls' and the Pareto plot's at least
    CHECK(points > 0);
}
