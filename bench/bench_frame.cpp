// BM_FrameAllPanels (and BM_FrameAllPanelsWithBaseline, a baseline pinned): one UI frame with every panel open and animating at 1920x1080, NewFrame to Render, main-thread CPU
// time, once the configurator's background searches have finished. ImGui's draw data is not rendered; the cube's own
// offscreen GL pass runs inside the frame, as in the app, and on llvmpipe its rasterising shows in the wall time only.
// Target: under 2 ms median. Needs an X display (xvfb-run).
#include <benchmark/benchmark.h>

#if defined(SHARDSCOPE_ASSET_DIR)  // defined by shardscope_app: the GUI is built and linked
#include "app/app_state.h"
#include "app/gui.h"
#include "app/ui.h"
#include "bench/bench_scenarios.h"
#include "bench/display_retry.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

namespace {

constexpr int kFrameWidth = 1920;
constexpr int kFrameHeight = 1080;

// The main window (sidebar + selected tab) and then every panel alone, so each panel's draw runs every frame. Drawn as
// for an export, the configurator waits for its planner and cluster sizing to finish.
void build_frame(app::AppState& state, app::UiSession& session, bool exporting = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(kFrameWidth, kFrameHeight);
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    app::UiRequests requests;
    app::draw_main_ui(state, session, requests, false);
    for (int panel = 0; panel < static_cast<int>(state.panels.size()); ++panel) app::draw_single_panel(state, panel, exporting);
    ImGui::Render();
}

// What the app does between frames; outside the measured span.
void finish_frame(app::AppState& state) {
    app::apply_scenario_edits(state);
    app::advance_playbacks(state, 1.0 / 60.0);
}

// The frame with or without a pinned baseline: the scenario against itself with full recompute, so every panel draws its
// ghosts, trails and changes (under 2 ms too).
void frame_all_panels(benchmark::State& state, bool pinned) {
    const char* error = nullptr;
    GLFWwindow* window = nullptr;
    for (int attempt = 0; attempt < bench::kDisplayAttempts && !window; ++attempt) {
        if (attempt > 0) bench::wait_for_display_reset();
        window = app::create_gl_window(kFrameWidth, kFrameHeight, false, "ShardScope bench", &error);
    }
    if (!window) {
        state.SkipWithError(error);
        return;
    }
    app::init_imgui(window, false, nullptr);
    app::apply_ui_scale(1.0f);
    {
        app::AppState app_state = app::make_app_state(bench::llama3_405b_scenario());
        app::UiSession session;
        if (pinned) {
            core::Scenario baseline = bench::llama3_405b_scenario();
            baseline.train.recompute = core::Recompute::full;
            const std::string problem = app::set_baseline(app_state, baseline, "full recompute");
            if (!problem.empty()) state.SkipWithError(problem.c_str());
        }
        for (widgets::Playback& playback : app_state.playbacks) playback.playing = true;
        // The layout settles and every panel's caches fill before timing; the first frame waits for the configurator's
        // background searches, so the timed frames share the CPU with nothing (in the app they run once per scenario).
        for (int frame = 0; frame < 4; ++frame) {
            build_frame(app_state, session, frame == 0);
            finish_frame(app_state);
        }
        for (auto _ : state) {
            build_frame(app_state, session);
            state.PauseTiming();
            finish_frame(app_state);
            state.ResumeTiming();
        }
        state.counters["panels"] = static_cast<double>(app_state.panels.size());
    }
    app::shutdown_imgui(false);
    glfwDestroyWindow(window);
    glfwTerminate();
}
void BM_FrameAllPanels(benchmark::State& state) { frame_all_panels(state, false); }
BENCHMARK(BM_FrameAllPanels)->Unit(benchmark::kMillisecond);
void BM_FrameAllPanelsWithBaseline(benchmark::State& state) { frame_all_panels(state, true); }
BENCHMARK(BM_FrameAllPanelsWithBaseline)->Unit(benchmark::kMillisecond);

}  // namespace
#endif
