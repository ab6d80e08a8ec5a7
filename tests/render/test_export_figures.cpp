// Exports ready for a document: by default each panel is settled (its animation finished) and a clean figure
// (no Play, sliders or key hints); `--t` still picks a moment and `--controls` keeps the controls; and no text is cut at
// 1024x768, 1280x720, 1920x1080 or at zoom 150 %, measured on each text's extent against its clip rectangle.
#include "app/eval_command.h"
#include "app/export.h"
#include "app/lesson.h"
#include "app/presentation.h"
#include "core/lessons/captions.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/figure_text.h"
#include "core/model/scenario.h"
#include "core/model/scenario_json.h"
#include "widgets/clip_check.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace {

std::string fresh_directory(const std::string& name) {
    const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("shardscope-figures-" + name);
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    return directory.string();
}

std::vector<unsigned char> pixels_of(const std::string& path) {
    int width = 0, height = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &width, &height, &channels, 4);
    REQUIRE(data);
    std::vector<unsigned char> pixels(data, data + static_cast<std::size_t>(width) * height * 4);
    stbi_image_free(data);
    return pixels;
}

std::vector<std::string> every_panel() {
    std::string error;
    std::vector<std::string> panels = app::export_targets("all", &error);
    panels.pop_back();  // "window"
    return panels;
}

bool drew(const std::vector<widgets::DrawnText>& texts, const std::string& part) {
    for (const widgets::DrawnText& text : texts) {
        if (text.text.find(part) != std::string::npos) return true;
    }
    return false;
}

std::string describe(const widgets::DrawnText& text) {
    std::ostringstream out;
    out << '"' << text.text << "\" at x " << text.min.x << ".." << text.max.x << ", y " << text.min.y << ".." << text.max.y << " clipped to x "
        << text.clip.x << ".." << text.clip.z << ", y " << text.clip.y << ".." << text.clip.w << " in " << text.window;
    return out.str();
}

}  // namespace

TEST_CASE("Export by default shows every panel settled: the same picture as --t at the end of its animation", "[render][export]") {
    app::ExportOptions settled;
    settled.scenario = core::default_scenario();
    settled.panels = every_panel();
    settled.width = 960;
    settled.height = 540;
    settled.out_dir = fresh_directory("settled");
    std::vector<double> end_times;
    settled.settled_t_out = &end_times;
    REQUIRE(app::run_export(settled).empty());
    REQUIRE(end_times.size() == settled.panels.size());
    int animated = 0;
    for (std::size_t i = 0; i < settled.panels.size(); ++i) {
        const std::string& panel = settled.panels[i];
        INFO("panel " << panel << " settles at t = " << end_times[i] << " s");
        animated += end_times[i] > 0;
        app::ExportOptions at_end = settled;
        at_end.panels = {panel};
        at_end.t_seconds = end_times[i];
        at_end.settled_t_out = nullptr;
        at_end.out_dir = fresh_directory("at-end-" + panel);
        REQUIRE(app::run_export(at_end).empty());
        CHECK((pixels_of(settled.out_dir + "/" + panel + ".png") == pixels_of(at_end.out_dir + "/" + panel + ".png")));
        // And t = 0 of an animated panel is another picture: the default is not the start.
        if (end_times[i] > 0) {
            app::ExportOptions at_start = at_end;
            at_start.t_seconds = 0.0;
            at_start.out_dir = fresh_directory("at-start-" + panel);
            REQUIRE(app::run_export(at_start).empty());
            CHECK((pixels_of(settled.out_dir + "/" + panel + ".png") != pixels_of(at_start.out_dir + "/" + panel + ".png")));
        }
    }
    CHECK(animated >= 3);  // stack, ring and pipeline animate
}

TEST_CASE("Beside the sidebar on a wide window, an animated panel still settles at its end", "[render][export]") {
    // At 1600x900 the tabs fit one row: the tab asked for is drawn only in the second frame, which must tell its length.
    app::ExportOptions options;
    options.scenario = core_tests::shipped("llama3-405b-16k.json");
    options.panels = {"ring", "run"};
    options.width = 1600;
    options.height = 900;
    options.sidebar = app::SidebarMode::shown;
    options.out_dir = fresh_directory("wide-sidebar");
    std::vector<double> end_times;
    options.settled_t_out = &end_times;
    REQUIRE(app::run_export(options).empty());
    REQUIRE(end_times.size() == 2);
    CHECK(end_times[0] > 0);
    CHECK(end_times[1] == Approx(54 * 0.25));  // the run panel: 54 days at a quarter second each
}

TEST_CASE("A panel export is a clean figure: no Play, speed or sliders; --controls keeps them", "[render][export]") {
    for (const bool controls : {false, true}) {
        app::ExportOptions options;
        options.scenario = core::default_scenario();
        options.panels = {"stack", "ring", "pipeline"};
        options.width = 1280;
        options.height = 720;
        options.controls = controls;
        options.out_dir = fresh_directory(controls ? "controls" : "clean");
        std::vector<std::vector<widgets::DrawnText>> texts;
        options.texts_out = &texts;
        REQUIRE(app::run_export(options).empty());
        REQUIRE(texts.size() == 3);
        for (std::size_t i = 0; i < texts.size(); ++i) {
            INFO(options.panels[i] << (controls ? " with --controls" : " as a figure"));
            CHECK(drew(texts[i], "Play") == controls);
            CHECK(drew(texts[i], "speed") == controls);
        }
        CHECK(drew(texts[0], "Whole model"));  // the figure itself is there
    }
}

TEST_CASE("A lesson exported scene by scene carries its caption but no key hints", "[render][export]") {
    std::vector<std::string> names;
    for (const std::string& name : every_panel()) names.push_back(name);
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.lesson = app::load_lesson_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/lessons/default.json", names);
    options.lesson->scenes.resize(1);
    options.width = 1280;
    options.height = 720;
    options.out_dir = fresh_directory("lesson");
    widgets::start_text_record();
    REQUIRE(app::run_export(options).empty());
    const std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
    CHECK(drew(texts, "Scene 1 of 1"));
    CHECK_FALSE(drew(texts, "Esc"));
    CHECK(drew(texts, "of the 90-day deadline"));
}

// A caption's numbers are figures of its scene's report (test_captions.cpp); here each is also found on the slide beside
// it, drawn by the panel, so a caption cannot state what its figure does not show ("75.5 GB per GPU" beside "82.3 GB").
TEST_CASE("Every figure a lesson scene's caption states is drawn by the panel on its slide", "[render][export][captions]") {
    const std::vector<std::string> names = every_panel();
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.lesson = app::load_lesson_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/lessons/default.json", names);
    options.width = 1280;
    options.height = 720;
    options.settle_frames = 2;
    options.out_dir = fresh_directory("lesson-figures");
    std::vector<std::vector<widgets::DrawnText>> texts;
    options.texts_out = &texts;
    REQUIRE(app::run_export(options).empty());
    const std::size_t scenes = options.lesson->scenes.size();
    REQUIRE(texts.size() >= scenes);
    app::AppState state = app::make_app_state(options.scenario);
    app::PresentationState presentation;
    presentation.lesson = *options.lesson;
    // A number with what it counts: "82.3 GB", "27.3 %", "64", "$1.2 M", "3.42 B".
    const std::regex figure(R"(\$?[0-9]{1,3}(,[0-9]{3})*(\.[0-9]+)?( (%|GB|MB|TB|kB|B|T|M|ms|s|h|days|pp|x)(?![A-Za-z0-9]))?)");
    int checked = 0;
    for (std::size_t scene = 0; scene < scenes; ++scene) {
        REQUIRE(app::enter_scene(state, presentation, static_cast<int>(scene)).empty());
        std::string caption = presentation.caption;
        for (const std::string& constant : core::caption_constants()) {
            for (std::size_t at = caption.find(constant); at != std::string::npos; at = caption.find(constant)) caption.replace(at, constant.size(), " ");
        }
        std::string drawn;  // every text the panel drew on the slide, not the caption band under it
        for (const widgets::DrawnText& text : texts[texts.size() - scenes + scene]) {
            if (text.window.find("scene_panel") != std::string::npos) drawn += text.text + "\n";
        }
        INFO("scene " << scene + 1 << ": " << presentation.caption);
        INFO("the panel drew:\n" << drawn);
        for (auto match = std::sregex_iterator(caption.begin(), caption.end(), figure); match != std::sregex_iterator(); ++match) {
            const std::string number = match->str();
            const std::size_t at = static_cast<std::size_t>(match->position());
            const char next = at + number.size() < caption.size() ? caption[at + number.size()] : ' ';
            if ((at > 0 && std::isalnum(static_cast<unsigned char>(caption[at - 1]))) || std::isalpha(static_cast<unsigned char>(next))) continue;  // a name: "Llama 3 70B", "A100 SXM 80GB"
            INFO("figure \"" << number << "\"");
            CHECK(drawn.find(number) != std::string::npos);
            ++checked;
        }
    }
    CHECK(checked > 40);
}

// A slide is a projector's figure: at 1280x720 and 1024x768 (and 1280x720 at zoom 150 %), both themes, no text of any
// scene is cut, drawn over another or shortened with an ellipsis, and no legend covers a point or a label of its plot.
TEST_CASE("On every lesson slide at 1280x720, 1024x768 and zoom 150 % no text is cut or over another and no legend covers data",
          "[render][export][lesson][layout]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.lesson = app::load_lesson_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/lessons/default.json", every_panel());
    const std::size_t scenes = options.lesson->scenes.size();
    struct Slide {
        int width, height;
        float scale;
        bool light;
    };
    for (const Slide slide : {Slide{1280, 720, 1.0f, false}, Slide{1024, 768, 1.0f, true}, Slide{853, 480, 1.5f, false}}) {
        options.width = slide.width;
        options.height = slide.height;
        options.scale = slide.scale;
        options.light_theme = slide.light;
        options.settle_frames = 3;
        options.out_dir = fresh_directory("lesson-slides");
        std::vector<std::vector<widgets::DrawnText>> texts;
        std::vector<std::vector<widgets::PlotLayout>> plots;
        options.texts_out = &texts;
        options.plots_out = &plots;
        REQUIRE(app::run_export(options).empty());
        REQUIRE(texts.size() == scenes);
        REQUIRE(plots.size() == scenes);
        for (std::size_t scene = 0; scene < scenes; ++scene) {
            INFO("scene " << scene + 1 << " (" << options.lesson->scenes[scene].title << ") at " << slide.width << "x" << slide.height << " x" << slide.scale);
            for (const widgets::DrawnText& cut : widgets::cut_texts(texts[scene])) FAIL_CHECK("cut: " << describe(cut));
            for (const widgets::DrawnText& text : texts[scene]) {
                const bool seen = text.clip.w > text.clip.y && text.max.y > text.clip.y && text.min.y < text.clip.w;
                if (seen && !text.combo_preview && text.text.find("\xE2\x80\xA6") != std::string::npos) FAIL_CHECK("shortened: " << describe(text));
            }
            for (const widgets::TextOverlap& overlap : widgets::overlapping_texts(texts[scene]))
                FAIL_CHECK("over each other: " << describe(overlap.first) << " and " << describe(overlap.second));
            const auto intersect = [](const ImVec4& a, const ImVec4& b) { return a.x < b.z && b.x < a.z && a.y < b.w && b.y < a.w; };
            for (const widgets::PlotLayout& plot : plots[scene]) {
                if (plot.legend.z <= plot.legend.x) continue;
                for (const ImVec4& point : plot.points)
                    if (intersect(plot.legend, point)) FAIL_CHECK("the legend covers a point at x " << point.x << ", y " << point.y);
                for (const ImVec4& label : plot.labels)
                    if (intersect(plot.legend, label)) FAIL_CHECK("the legend covers a label at x " << label.x << ", y " << label.y);
            }
        }
    }
}

namespace {

// The window sizes a classroom meets: a projector's 1024x768, a laptop's 1280x720, a desktop's 1920x1080, and zoom 150 %
// in a 1280x720 window (a logical 853x480 at 1.5x), in both themes.
struct ClipSize {
    int width, height;
    float scale;
    bool light;
};
constexpr ClipSize kClipSizes[] = {{1024, 768, 1.0f, false}, {1280, 720, 1.0f, true}, {1920, 1080, 1.0f, false}, {853, 480, 1.5f, true}};

// Exports `options` at every clip size and fails on each text the clip checker finds cut, or wrapped by ImGui's own word
// wrap; `min_texts` guards against a panel that drew nothing (and so cut nothing).
void check_nothing_cut(app::ExportOptions options, const std::string& name, std::size_t min_texts) {
    for (const ClipSize& size : kClipSizes) {
        options.width = size.width;
        options.height = size.height;
        options.scale = size.scale;
        options.light_theme = size.light;
        options.settle_frames = 3;
        options.out_dir = fresh_directory(name + "-" + std::to_string(size.width));
        std::vector<std::vector<widgets::DrawnText>> texts;
        options.texts_out = &texts;
        REQUIRE(app::run_export(options).empty());
        REQUIRE(texts.size() == options.panels.size());
        for (std::size_t i = 0; i < texts.size(); ++i) {
            INFO(options.panels[i] << " at " << size.width << "x" << size.height << " x" << size.scale);
            CHECK(texts[i].size() >= min_texts);
            for (const widgets::DrawnText& cut : widgets::cut_texts(texts[i])) FAIL_CHECK("cut: " << describe(cut));
            // Every wrapped text breaks at spaces (widgets/text_wrap.h): none reaches ImGui's wrap, which splits "10.0" after '.'.
            for (const widgets::DrawnText& text : texts[i])
                if (text.wrap_width > 0) FAIL_CHECK("wrapped by ImGui, not at spaces: " << describe(text));
        }
    }
}

}  // namespace

TEST_CASE("No text is cut in any panel at 1024x768, 1280x720, 1920x1080 or at zoom 150 %, in either theme", "[render][layout]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = every_panel();
    options.panels.push_back("window");  // the whole window too: sidebar, tabs, the stack beside them
    check_nothing_cut(options, "clip", 6);
}

namespace {

// The classroom's windows (issue: students at 1024x768 with the sidebar open, a projector at 1280x720), each panel drawn
// in the window with its tab selected, beside the sidebar open and folded, at zoom 100 % and 150 % (the same pixels at
// 1.5x: a logical 683x512 and 853x480), in both themes.
struct WindowSize {
    int width, height;
    float scale;
};
constexpr WindowSize kClassroomSizes[] = {{1024, 768, 1.0f}, {1280, 720, 1.0f}, {683, 512, 1.5f}, {853, 480, 1.5f}};

// Every panel the app lists (a panel added later is checked too) and the window, in the window beside the sidebar.
void check_nothing_cut_beside_sidebar(app::ExportOptions options, const std::string& name) {
    for (const WindowSize& size : kClassroomSizes) {
        for (const app::SidebarMode sidebar : {app::SidebarMode::shown, app::SidebarMode::folded}) {
            for (const bool light : {false, true}) {
                options.width = size.width;
                options.height = size.height;
                options.scale = size.scale;
                options.light_theme = light;
                options.sidebar = sidebar;
                options.settle_frames = 3;
                const std::string where = std::to_string(size.width) + "x" + std::to_string(size.height) + " x" +
                                          std::to_string(size.scale).substr(0, 3) + (sidebar == app::SidebarMode::shown ? ", sidebar open" : ", sidebar folded") +
                                          (light ? ", light" : ", dark");
                options.out_dir = fresh_directory(name);
                std::vector<std::vector<widgets::DrawnText>> texts;
                options.texts_out = &texts;
                REQUIRE(app::run_export(options).empty());
                REQUIRE(texts.size() == options.panels.size());
                for (std::size_t i = 0; i < texts.size(); ++i) {
                    INFO(options.panels[i] << " at " << where);
                    CHECK(drew(texts[i], sidebar == app::SidebarMode::shown ? "Parallel layout" : "File"));
                    for (const widgets::DrawnText& cut : widgets::cut_texts(texts[i])) FAIL_CHECK("cut: " << describe(cut));
                    for (const widgets::DrawnText& text : texts[i])
                        if (text.wrap_width > 0) FAIL_CHECK("wrapped by ImGui, not at spaces: " << describe(text));
                    // Shortened with an ellipsis ("Regim...", "85.0 GB of HB..."): a label cut another way, unless it is a combo's
                    // preview (its list shows it whole) or scrolled out of sight.
                    for (const widgets::DrawnText& text : texts[i]) {
                        const bool seen = text.clip.w > text.clip.y && text.max.y > text.clip.y && text.min.y < text.clip.w;
                        if (seen && !text.combo_preview && text.text.find("\xE2\x80\xA6") != std::string::npos) FAIL_CHECK("shortened: " << describe(text));
                    }
                    for (const widgets::TextOverlap& overlap : widgets::overlapping_texts(texts[i]))
                        FAIL_CHECK("over each other: " << describe(overlap.first) << " and " << describe(overlap.second));
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("No text is cut in any panel beside the sidebar, open or folded, at 1024x768 and 1280x720, zoom 100 % and 150 %, both themes",
          "[render][layout][sidebar]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = app::export_targets("all", nullptr);  // every panel in the app's list, then the window
    check_nothing_cut_beside_sidebar(options, "sidebar");
}

TEST_CASE("No text is cut with a model with experts: DeepSeek-V3's all-to-all (64 ranks), anatomy (EP lane), stack and window at every size",
          "[render][layout][moe]") {
    app::ExportOptions options;
    options.scenario = core_tests::shipped("deepseek-v3.json");
    options.panels = {"alltoall", "anatomy", "stack", "window"};  // the configurator: its cluster sizing takes seconds at 671 B
    options.controls = true;  // the EP, ETP, imbalance and node-limit controls too
    check_nothing_cut(options, "clip-moe", 0);
}

TEST_CASE("At 1280x720 beside the sidebar the tabs name their panels whole and the stack's labels are whole, not cut with an ellipsis",
          "[render][layout][classroom]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = {"window"};
    options.width = 1280;
    options.height = 720;
    options.out_dir = fresh_directory("window-1280");
    std::vector<std::vector<widgets::DrawnText>> texts;
    options.texts_out = &texts;
    REQUIRE(app::run_export(options).empty());
    REQUIRE(texts.size() == 1);
    // The full titles do not fit eleven tabs in 1280 px beside the sidebar: the short ones do ("The 16-byt..." before), the
    // close button on the selected tab only.
    for (const char* tab : {"Stack", "Memory", "Walls", "Regimes", "Serving", "Roofline", "Anatomy", "Ring", "Pipeline", "Configurator", "All-to-all"}) {
        INFO(tab);
        CHECK(drew(texts[0], tab));
    }
    CHECK_FALSE(drew(texts[0], "The 16-byt"));
    // Both columns' longest rows ("fragmentat..." and "NCCL, buck..." before the columns gave way to their labels).
    for (const char* label : {"fragmentation", "NCCL, buckets", "logits + loss"}) {
        INFO(label);
        CHECK(drew(texts[0], label));
    }
    for (const widgets::DrawnText& text : texts[0]) {
        // The sidebar's and the panel's controls may shorten a combo's preview ("bf16 mixed + fp32 master + ..."): by design.
        if (text.window.find("Panels") == std::string::npos || text.window.find("controls") != std::string::npos) continue;
        const bool elided_label = text.text.find("\xE2\x80\xA6") != std::string::npos;
        if (elided_label) FAIL_CHECK("shortened: " << describe(text));
    }
}

TEST_CASE("Llama 2 7B on 140 B tokens: the sidebar, the configurator and eval print core's step time, MFU and time to train word for word",
          "[render][figures]") {
    const core::Scenario scenario = core_tests::shipped("llama2-7b-140b-tokens-14-days.json");
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.memory.fits);  // so the figures are labelled as they are, not "if it fit"
    const core::FigureTexts figures = core::figure_texts(scenario, report);
    app::ExportOptions options;
    options.scenario = scenario;
    options.panels = {"configurator", "window"};  // the window: the sidebar beside the first tab
    options.width = 1280;
    options.height = 1300;  // tall enough that the sidebar shows its figures without scrolling
    options.out_dir = fresh_directory("figures-words");
    std::vector<std::vector<widgets::DrawnText>> texts;
    options.texts_out = &texts;
    REQUIRE(app::run_export(options).empty());
    REQUIRE(texts.size() == 2);
    std::vector<widgets::DrawnText> sidebar;
    for (const widgets::DrawnText& text : texts[1])
        if (text.window.find("Scenario") == 0) sidebar.push_back(text);
    // The label, and its value beside it on the line or under it (widgets/figure.h): the figure as core words it.
    const auto drew_figure = [](const std::vector<widgets::DrawnText>& drawn, const core::FigureText& figure) {
        for (const widgets::DrawnText& label : drawn) {
            if (label.text != figure.label) continue;
            for (const widgets::DrawnText& value : drawn) {
                if (value.text != figure.value) continue;
                const bool beside = std::abs(value.min.y - label.min.y) < 1.0f && value.min.x >= label.max.x && value.min.x - label.max.x < 40.0f;
                const bool under = std::abs(value.min.x - label.min.x) < 1.0f && value.min.y >= label.max.y - 1.0f && value.min.y - label.max.y < 10.0f;
                if (beside || under) return true;
            }
        }
        return false;
    };
    for (const core::FigureText* figure : {&figures.step_time, &figures.mfu, &figures.time_to_train, &figures.gpu_hours}) {
        INFO(figure->label << ": " << figure->value);
        CHECK(drew_figure(texts[0], *figure));
        CHECK(drew_figure(sidebar, *figure));
    }
    // The peak's verdict, in the words eval prints on its row (a value this long may wrap: its first words under the label).
    CHECK(drew(texts[0], figures.peak_memory.label));
    CHECK(drew(sidebar, figures.peak_memory.label));
    const std::string table = app::eval_table(scenario, report);
    CHECK(table.find(figures.peak_memory.value) != std::string::npos);
    CHECK(table.find(figures.step_time.value + " (" + figures.step_time.formula + ")") != std::string::npos);
    CHECK(table.find(figures.mfu.value + " / " + figures.hfu.value) != std::string::npos);
    CHECK(table.find(figures.time_to_train.value + " (" + figures.time_to_train.formula + ")") != std::string::npos);
}

TEST_CASE("All-to-all mid-step: the packet labels ('1002 tok') sit between the GPUs, over no GPU's name or count, beside the "
          "sidebar at 1024x768 and as a figure at 1280x720",
          "[render][layout][alltoall]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = {"alltoall"};
    options.settle_frames = 3;
    struct Look {
        int width, height;
        app::SidebarMode sidebar;
    };
    int labelled = 0;
    for (const Look look : {Look{1024, 768, app::SidebarMode::shown}, Look{1280, 720, app::SidebarMode::automatic}}) {
        for (double t : {0.3, 1.2, 2.5, 5.0, 20.0}) {  // dispatch steps 1, 2 and 4, then later steps and combine
            options.width = look.width;
            options.height = look.height;
            options.sidebar = look.sidebar;
            options.t_seconds = t;
            options.out_dir = fresh_directory("alltoall-labels");
            std::vector<std::vector<widgets::DrawnText>> texts;
            options.texts_out = &texts;
            REQUIRE(app::run_export(options).empty());
            INFO("alltoall at " << look.width << "x" << look.height << ", t = " << t);
            labelled += drew(texts[0], " tok") ? 1 : 0;
            for (const widgets::TextOverlap& overlap : widgets::overlapping_texts(texts[0]))
                FAIL_CHECK("over each other: " << describe(overlap.first) << " and " << describe(overlap.second));
        }
    }
    CHECK(labelled >= 6);  // packets are in flight, labelled, at most of these moments
}
