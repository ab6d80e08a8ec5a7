#pragma once
// The interactive window: a GLFW window, its input queue, and the loop that draws the UI, waiting for input when idle.
#include "app/app_state.h"
#include "app/input_queue.h"
#include "app/ui.h"
#include "core/model/scenario.h"

#include <memory>
#include <string>

struct GLFWwindow;

namespace app {

struct WindowOptions {
    core::Scenario scenario;
    std::string scenario_path;   // the file it came from; empty for the default scenario
    bool light_theme = false;
    bool persist_settings = true; // read and write the XDG config directory
    bool visible = true;          // tests drive the same loop in a hidden window
    int width = 1600, height = 900;
    int first_launch = -1;        // the one-line welcome: 1 shows it, 0 not, -1 when no settings were saved yet
};

// The window's loop, one frame at a time, so tests can drive it with synthetic input.
class WindowLoop {
public:
    explicit WindowLoop(const WindowOptions& options);
    ~WindowLoop();
    WindowLoop(const WindowLoop&) = delete;
    WindowLoop& operator=(const WindowLoop&) = delete;

    // Empty when the window opened; else why not (no display, no OpenGL 3.3).
    const std::string& error() const { return error_; }
    // One turn: waits for input when nothing moves (if allowed), feeds the queued input, draws a frame and acts on what it
    // asked. Returns false once the window has closed.
    bool frame(bool allow_wait = true);
    bool closed() const;
    // Whether the next frame would wait for input: no input queued, nothing animating, the last input has settled.
    bool idle() const;

    InputQueue& input() { return input_; }
    AppState& state() { return *state_; }
    UiSession& session() { return session_; }
    const std::string& title() const { return title_; }
    float zoom() const { return zoom_; }
    // As the window manager's close button: asks first when there are unsaved changes.
    void request_close();

private:
    void install_callbacks();

    WindowOptions options_;
    std::string error_;
    GLFWwindow* window_ = nullptr;
    std::string config_dir_;
    std::string ini_path_;
    std::unique_ptr<AppState> state_;
    UiSession session_;
    InputQueue input_;
    float zoom_ = 1.0f;
    float monitor_scale_ = 1.0f;
    float applied_scale_ = 1.0f;  // the UI scale the fonts and style were last built at
    int windowed_rect_[4] = {100, 100, 1600, 900};
    int busy_frames_ = 0;         // frames still to draw before waiting: ImGui settles hover, popups and layout in a few
    double last_frame_seconds_ = 0;
    std::string title_;
    bool closed_ = false;
};

// Runs until the window closes; returns the process exit status.
int run_window(const WindowOptions& options);

}  // namespace app
