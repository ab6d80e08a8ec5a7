#pragma once
// The ImGui + OpenGL setup shared by the window and the headless export.
struct GLFWwindow;

namespace app {

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
