#include "app/window.h"

#include "app/export.h"
#include "app/files.h"
#include "app/gui.h"
#include "app/scenario_io.h"
#include "app/settings.h"
#include "app/trace_command.h"
#include "widgets/palette.h"
#include "widgets/redraw.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace app {
namespace {

constexpr int kSettleFrames = 3;            // frames drawn after input before sleeping: hover, popups and layout settle
constexpr double kIdleWakeSeconds = 1.0;    // asleep, the loop wakes this often to look, and draws only if something moved
constexpr double kTypingWakeSeconds = 0.5;  // while a text field has the keys: its caret blinks
constexpr double kFrameSeconds = 1.0 / 60;  // animating without vsync (Xvfb), frames are paced to 60 per second
constexpr double kMaxStepSeconds = 0.1;     // an animation never jumps by more than this between two frames

float content_scale(GLFWwindow* window) {
    float x = 1.0f, y = 1.0f;
    glfwGetWindowContentScale(window, &x, &y);
    return std::clamp(std::max(x, y), 0.5f, 4.0f);
}

WindowLoop* loop_of(GLFWwindow* window) { return static_cast<WindowLoop*>(glfwGetWindowUserPointer(window)); }

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

bool any_playing(const AppState& state) {
    return std::any_of(state.playbacks.begin(), state.playbacks.end(), [](const widgets::Playback& playback) { return playback.playing; });
}

}  // namespace

WindowLoop::WindowLoop(const WindowOptions& options) : options_(options) {
    const char* error = nullptr;
    window_ = create_gl_window(options.width, options.height, options.visible, "ShardScope", &error);
    if (!window_) {
        error_ = error ? error : "cannot open a window";
        closed_ = true;
        return;
    }
    glfwSwapInterval(1);
    config_dir_ = options.persist_settings ? config_directory() : std::string();
    ini_path_ = config_dir_.empty() ? std::string() : config_dir_ + "/imgui.ini";
    const bool settings_saved = !config_dir_.empty() && std::filesystem::exists(config_dir_ + "/settings.json");
    init_imgui(window_, true, ini_path_.empty() ? nullptr : ini_path_.c_str());
    const WindowSettings settings = options.persist_settings ? load_settings(config_dir_) : WindowSettings{};
    widgets::set_theme(options.light_theme || settings.light_theme ? widgets::Theme::light : widgets::Theme::dark);
    zoom_ = settings.zoom;
    monitor_scale_ = content_scale(window_);
    applied_scale_ = monitor_scale_ * zoom_;
    apply_ui_scale(applied_scale_);

    state_ = std::make_unique<AppState>(make_app_state(options.scenario));
    state_->scenario_path = options.scenario_path;
    state_->read_only = !options.scenario_path.empty() && is_shipped_path(options.scenario_path);
    apply_settings(*state_, settings);
    session_.welcome = options.first_launch >= 0 ? options.first_launch == 1 : options.persist_settings && !settings_saved;
    glfwSetWindowUserPointer(window_, this);
    install_callbacks();
    busy_frames_ = kSettleFrames;
}

WindowLoop::~WindowLoop() {
    if (!window_) return;
    if (options_.persist_settings) {
        save_settings(config_dir_, capture_settings(*state_, zoom_, widgets::current_theme() == widgets::Theme::light));
    }
    state_.reset();  // panels hold GL objects: release them while the context lives
    shutdown_imgui(true);
    glfwDestroyWindow(window_);
    glfwTerminate();
}

void WindowLoop::install_callbacks() {
    // Our own input callbacks, not the ImGui backend's: events queue here and reach ImGui one transition per frame.
    glfwSetKeyCallback(window_, [](GLFWwindow* window, int key, int, int action, int) { loop_of(window)->input().key(key, action); });
    glfwSetCharCallback(window_, [](GLFWwindow* window, unsigned int code_point) { loop_of(window)->input().character(code_point); });
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* window, int button, int action, int) {
        loop_of(window)->input().mouse_button(button, action == GLFW_PRESS);
    });
    glfwSetCursorPosCallback(window_, [](GLFWwindow* window, double x, double y) {
        loop_of(window)->input().mouse_move(static_cast<float>(x), static_cast<float>(y));
    });
    glfwSetCursorEnterCallback(window_, [](GLFWwindow* window, int entered) {
        if (!entered) loop_of(window)->input().mouse_leave();
    });
    glfwSetScrollCallback(window_, [](GLFWwindow* window, double x, double y) {
        loop_of(window)->input().scroll(static_cast<float>(x), static_cast<float>(y));
    });
    glfwSetDropCallback(window_, [](GLFWwindow* window, int count, const char** paths) {
        for (int i = 0; i < count; ++i) loop_of(window)->session().dropped_paths.emplace_back(paths[i]);
    });
    glfwSetWindowCloseCallback(window_, [](GLFWwindow* window) {
        glfwSetWindowShouldClose(window, GLFW_FALSE);  // the UI decides: unsaved changes ask first
        loop_of(window)->request_close();
    });
}

void WindowLoop::request_close() { session_.quit_request = true; }

bool WindowLoop::closed() const { return closed_; }

bool WindowLoop::idle() const {
    return input_.empty() && busy_frames_ <= 0 && !any_playing(*state_) && session_.dropped_paths.empty() && !session_.quit_request;
}

bool WindowLoop::frame(bool allow_wait) {
    if (closed_) return false;
    if (allow_wait) {
        // Asleep until input when nothing moves (no frame drawn at all, but a text field's caret blinking); otherwise paced
        // to 60 frames a second from the start of the last frame (vsync already paces a real display; Xvfb has none).
        const double now = glfwGetTime();
        const bool asleep = idle() && !widgets::take_frame_request();
        const double wait = std::max(0.0, kFrameSeconds - (now - last_frame_seconds_));
        const bool typing = ImGui::GetIO().WantTextInput;
        if (asleep) glfwWaitEventsTimeout(typing ? kTypingWakeSeconds : kIdleWakeSeconds);
        else {
            // Input arriving mid-wait does not cut it short: an animation with the mouse moving still runs at 60 a second.
            if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
            glfwPollEvents();
        }
        // Woken with nothing to show (a timeout, no input, no caret to blink): no frame is drawn at all.
        if (asleep && !typing && idle() && !widgets::take_frame_request()) return true;
        last_frame_seconds_ = glfwGetTime();
    } else {
        glfwPollEvents();
        widgets::take_frame_request();
    }
    int framebuffer_width = 0, framebuffer_height = 0;
    glfwGetFramebufferSize(window_, &framebuffer_width, &framebuffer_height);
    if (framebuffer_width <= 0 || framebuffer_height <= 0 || glfwGetWindowAttrib(window_, GLFW_ICONIFIED)) {
        if (allow_wait) glfwWaitEventsTimeout(0.1);  // minimised or zero-sized: nothing to draw
        return true;
    }
    AppState& state = *state_;
    // The monitor's scale, the user's zoom, and presentation's own, which depends on the window's size: rebuilt on a change.
    const auto rescale_if_changed = [&] {
        const float base = monitor_scale_ * zoom_;
        const float wanted = base * (session_.presentation.active ? presentation_zoom(framebuffer_width, framebuffer_height, base) : 1.0f);
        if (wanted == applied_scale_) return;
        applied_scale_ = wanted;
        apply_ui_scale(wanted);
    };
    monitor_scale_ = content_scale(window_);
    rescale_if_changed();
    const bool had_input = !input_.empty() || !session_.dropped_paths.empty() || session_.quit_request;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    input_.feed(io);
    ImGui::NewFrame();
    UiRequests requests;
    draw_main_ui(state, session_, requests, false);
    const unsigned int dragging = dragged_item();
    ImGui::Render();
    const core::Scenario before = state.applied;
    apply_scenario_edits(state, dragging);
    advance_playbacks(state, std::min<double>(io.DeltaTime, kMaxStepSeconds));

    glViewport(0, 0, framebuffer_width, framebuffer_height);
    const ImVec4 clear = ImGui::ColorConvertU32ToFloat4(widgets::palette().panel_background);
    glClearColor(clear.x, clear.y, clear.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window_);

    if (requests.toggle_fullscreen) toggle_fullscreen(window_, windowed_rect_);
    if (requests.theme_toggle) widgets::set_theme(widgets::current_theme() == widgets::Theme::dark ? widgets::Theme::light : widgets::Theme::dark);
    if (requests.zoom_factor != 1.0f || requests.zoom_reset) {
        zoom_ = requests.zoom_reset ? 1.0f : std::clamp(zoom_ * requests.zoom_factor, kZoomMin, kZoomMax);
    }
    if (requests.theme_toggle) apply_ui_scale(applied_scale_);  // between frames: the font atlas may be rebuilt here
    rescale_if_changed();
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
    const std::string title = window_title(state, session_);
    if (title != title_) {
        title_ = title;
        glfwSetWindowTitle(window_, title_.c_str());
    }
    const bool changed = !(before == state.applied) || requests.presentation_changed || requests.zoom_factor != 1.0f ||
                         requests.zoom_reset || requests.theme_toggle || requests.toggle_fullscreen;
    busy_frames_ = had_input || changed ? kSettleFrames : busy_frames_ - 1;
    if (requests.quit) closed_ = true;
    return !closed_;
}

int run_window(const WindowOptions& options) {
    WindowLoop loop(options);
    if (!loop.error().empty()) {
        std::fprintf(stderr, "shardscope: %s\n", loop.error().c_str());
        return 1;
    }
    while (loop.frame()) {
    }
    return 0;
}

}  // namespace app
