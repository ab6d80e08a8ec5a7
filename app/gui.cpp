#include "app/gui.h"

#include "widgets/fonts.h"
#include "widgets/palette.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace app {

WindowFit fit_window(int width, int height, int area_width, int area_height, float x_scale, float y_scale) {
    const int fit_width = static_cast<int>(area_width / std::max(1.0f, x_scale));
    const int fit_height = static_cast<int>(area_height / std::max(1.0f, y_scale));
    if (fit_width <= 0 || fit_height <= 0 || (width <= fit_width && height <= fit_height)) return {width, height, false};
    return {std::min(width, fit_width), std::min(height, fit_height), true};
}

GLFWwindow* create_gl_window(int width, int height, bool visible, const char* title, const char** error) {
    // Xvfb resets when its last client leaves (unless run with -noreset), and a connection made during the reset fails:
    // a window opened right after another closed tries again for up to a second.
    bool initialised = false;
    for (int attempt = 0; attempt < 10 && !(initialised = glfwInit()); ++attempt) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!initialised) {
        if (error) *error = "cannot open a display (no X server? run under xvfb-run)";
        return nullptr;
    }
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    GLFWmonitor* monitor = visible ? glfwGetPrimaryMonitor() : nullptr;  // headless exports keep their exact size
    if (monitor) {
        int x = 0, y = 0, area_width = 0, area_height = 0;
        float x_scale = 1.0f, y_scale = 1.0f;
        glfwGetMonitorWorkarea(monitor, &x, &y, &area_width, &area_height);
        glfwGetMonitorContentScale(monitor, &x_scale, &y_scale);
        const WindowFit fit = fit_window(width, height, area_width, area_height, x_scale, y_scale);
        width = fit.width;
        height = fit.height;
        if (fit.maximized) glfwWindowHint(GLFW_MAXIMIZED, GLFW_TRUE);
    }
    GLFWwindow* window = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (!window) {
        if (error) *error = "cannot create an OpenGL 3.3 core context";
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    return window;
}

void init_imgui(GLFWwindow* window, bool glfw_backend, const char* ini_path) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = ini_path;
    if (glfw_backend) {
        // Display size, time, cursor shapes and the key map; input comes through the window's own queue (input_queue.h).
        ImGui_ImplGlfw_InitForOpenGL(window, false);
        io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // needs the backend's key map
    }
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

void apply_ui_scale(float scale) {
    widgets::load_fonts(kBaseFontPixels * scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ImGuiStyle& style = ImGui::GetStyle();
    style = ImGuiStyle();
    widgets::set_theme(widgets::current_theme());
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.TabRounding = 4.0f;
    style.WindowPadding = ImVec2(12, 10);
    style.FramePadding = ImVec2(6, 4);
    style.ItemSpacing = ImVec2(8, 6);
    style.ScaleAllSizes(scale);
}

void shutdown_imgui(bool glfw_backend) {
    ImGui_ImplOpenGL3_Shutdown();
    if (glfw_backend) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
}

}  // namespace app
