#pragma once
// The ImGui + OpenGL setup shared by the window and the headless export.
struct GLFWwindow;

namespace app {

// A visible window's first size: what was asked for, or, when that is larger than the monitor's work area (a 1280x720
// projector), the work area, maximized. Sizes are in the units GLFW asks for, which it multiplies by the content scale.
struct WindowFit {
    int width = 0, height = 0;
    bool maximized = false;
};
WindowFit fit_window(int width, int height, int area_width, int area_height, float x_scale, float y_scale);

// Creates a GLFW window with an OpenGL 3.3 core context (hidden for export). Returns nullptr with a message on failure.
GLFWwindow* create_gl_window(int width, int height, bool visible, const char* title, const char** error);
// Creates the ImGui context and the OpenGL3 backend, and GLFW's platform backend without its input callbacks (the window
// queues input itself); ini_path nullptr keeps no settings file.
void init_imgui(GLFWwindow* window, bool glfw_backend, const char* ini_path);
// Loads the fonts and scales the style for a UI scale (1 = 16 px text); call between frames.
void apply_ui_scale(float scale);
void shutdown_imgui(bool glfw_backend);

inline constexpr float kBaseFontPixels = 16.0f;

}  // namespace app
