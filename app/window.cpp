#include "app/window.h"

#include "app/app_state.h"
#include "app/export.h"
#include "app/scenario_io.h"
#include "app/files.h"
#include "app/gui.h"
#include "app/settings.h"
#include "app/trace_command.h"
#include "app/ui.h"
#include "widgets/palette.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace app {
namespace {

float content_scale(GLFWwindow* window) {
    float x = 1.0f, y = 1.0f;
    glfwGetWindowContentScale(window, &x, &y);
    return std::clamp(std::max(x, y), 0.5f, 4.0f);
}

std::vector<std::string> g_dropped_paths;  // filled by GLFW's drop callback, consumed after the frame

void on_drop(GLFWwindow*, int count, const char** paths) {
    for (int i = 0; i < count; ++i) g_dropped_paths.emplace_back(paths[i]);
}

// A file name the user did not have: shardscope-<what>-<date>-<time>.<extension> in the working directory.
std::string fresh_export_name(const char* what, const char* extension = ".png") {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    std::string path = std::string("shardscope-") + what + "-" + stamp + extension;
    for (int n = 2; std::filesystem::exists(path); ++n) path = std::string("shardscope-") + what + "-" + stamp + "-" + std::to_string(n) + extension;
    return path;
}

void toggle_fullscreen(GLFWwindow* window, int saved[4]) {
    if (glfwGetWindowMonitor(window)) {
        glfwSetWindowMonitor(window, nullptr, saved[0], saved[1], saved[2], saved[3], 0);
        return;
    }
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) return;
    glfwGetWindowPos(window, &saved[0], &saved[1]);
    glfwGetWindowSize(window, &saved[2], &saved[3]);
    glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

}  // namespace

int run_window(const WindowOptions& options) {
    const char* error = nullptr;
    GLFWwindow* window = create_gl_window(1600, 900, true, "ShardScope", &error);
    if (!window) {
        std::fprintf(stderr, "shardscope: %s\n", error);
        return 1;
    }
    glfwSwapInterval(1);
    const std::string config_dir = options.persist_settings ? config_directory() : std::string();
    const std::string ini_path = config_dir.empty() ? std::string() : config_dir + "/imgui.ini";
    init_imgui(window, true, ini_path.empty() ? nullptr : ini_path.c_str());
    WindowSettings settings = options.persist_settings ? load_settings(config_dir) : WindowSettings{};
    const bool light = options.light_theme || settings.light_theme;
    widgets::set_theme(light ? widgets::Theme::light : widgets::Theme::dark);
    float zoom = settings.zoom;
    float monitor_scale = content_scale(window);
    apply_ui_scale(monitor_scale * zoom);

    AppState state = make_app_state(options.scenario);
    state.scenario_path = options.scenario_path;
    apply_settings(state, settings);
    glfwSetWindowTitle(window, options.scenario_path.empty() ? "ShardScope" : ("ShardScope - " + options.scenario_path).c_str());
    glfwSetDropCallback(window, on_drop);
    UiSession session;
    int windowed_rect[4] = {100, 100, 1600, 900};
    constexpr float kPresentationZoom = 1.5f;  // projector size: text readable from the back of a room
    auto ui_scale = [&] { return monitor_scale * zoom * (session.presentation.active ? kPresentationZoom : 1.0f); };

    while (!glfwWindowShouldClose(window)) {
        glfwPollEvents();
        int framebuffer_width = 0, framebuffer_height = 0;
        glfwGetFramebufferSize(window, &framebuffer_width, &framebuffer_height);
        if (framebuffer_width <= 0 || framebuffer_height <= 0 || glfwGetWindowAttrib(window, GLFW_ICONIFIED)) {
            glfwWaitEventsTimeout(0.1);  // minimised or zero-sized: nothing to draw
            continue;
        }
        const float scale_now = content_scale(window);
        if (scale_now != monitor_scale) {
            monitor_scale = scale_now;
            apply_ui_scale(ui_scale());
        }
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        UiRequests requests;
        draw_main_ui(state, session, requests, false);
        ImGui::Render();
        apply_scenario_edits(state);
        advance_playbacks(state, ImGui::GetIO().DeltaTime);

        glViewport(0, 0, framebuffer_width, framebuffer_height);
        const ImVec4 clear = ImGui::ColorConvertU32ToFloat4(widgets::palette().panel_background);
        glClearColor(clear.x, clear.y, clear.z, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        glfwSwapBuffers(window);

        if (requests.quit) glfwSetWindowShouldClose(window, GLFW_TRUE);
        if (requests.toggle_fullscreen) toggle_fullscreen(window, windowed_rect);
        if (requests.theme_toggle) widgets::set_theme(widgets::current_theme() == widgets::Theme::dark ? widgets::Theme::light : widgets::Theme::dark);
        if (requests.zoom_factor != 1.0f || requests.zoom_reset) {
            zoom = requests.zoom_reset ? 1.0f : std::clamp(zoom * requests.zoom_factor, 0.5f, 4.0f);
        }
        if (requests.theme_toggle || requests.zoom_factor != 1.0f || requests.zoom_reset || requests.presentation_changed) {
            apply_ui_scale(ui_scale());  // between frames: the font atlas may be rebuilt here
        }
        if (requests.export_current_panel) {
            const std::string path = fresh_export_name(state.panels[state.current_panel].name);
            const std::string error = export_panel_in_context(state, state.current_panel, framebuffer_width, framebuffer_height, path);
            state.status = error.empty() ? "Exported " + path : error;
        }
        if (requests.save_trace) {
            const std::string path = fresh_export_name("trace", ".json");
            const std::string error = save_trace(state.applied, state.report, path);
            state.status = error.empty() ? "Saved trace " + path + " (open it in Perfetto or chrome://tracing)" : error;
        }
        for (const std::string& path : g_dropped_paths) {
            state.file_error = open_scenario(state, path);
            if (state.file_error.empty()) state.status = "Opened " + path;
        }
        g_dropped_paths.clear();
    }
    if (options.persist_settings) save_settings(config_dir, capture_settings(state, zoom, widgets::current_theme() == widgets::Theme::light));
    shutdown_imgui(true);
    glfwDestroyWindow(window);
    glfwTerminate();
    return 0;
}

}  // namespace app
