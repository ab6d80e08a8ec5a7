#include "app/ui.h"

#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

namespace app {
namespace {

constexpr ImGuiWindowFlags kFixedWindow = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                          ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

void draw_panel_body(AppState& state, int index, bool exporting) {
    widgets::PanelContext context{state.scenario, state.report, state.playbacks[index], state.assets, exporting};
    state.panels[index].draw(context);
}

void menu_bar(AppState& state, UiRequests& requests) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) requests.quit = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (std::size_t i = 0; i < state.panels.size(); ++i) {
            bool shown = state.visible[i];
            if (ImGui::MenuItem(state.panels[i].title, nullptr, &shown)) {
                state.visible[i] = shown;
                if (shown) state.select_panel_request = static_cast<int>(i);
            }
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Zoom in", "Ctrl+=")) requests.zoom_factor *= 1.1f;
        if (ImGui::MenuItem("Zoom out", "Ctrl+-")) requests.zoom_factor /= 1.1f;
        if (ImGui::MenuItem("Reset zoom", "Ctrl+0")) requests.zoom_reset = true;
        if (ImGui::MenuItem("Light theme", nullptr, widgets::current_theme() == widgets::Theme::light)) requests.theme_toggle = true;
        bool explain = widgets::explain_mode();
        if (ImGui::MenuItem("Explain figures on hover", nullptr, &explain)) widgets::set_explain_mode(explain);
        ImGui::EndMenu();
    }
    ImGui::EndMainMenuBar();
}

void keyboard_shortcuts(UiRequests& requests) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.KeyCtrl) return;
    // ImGui 1.86 indexes keys by the backend's codes: GLFW's here.
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) requests.zoom_factor *= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) requests.zoom_factor /= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_0) || ImGui::IsKeyPressed(GLFW_KEY_KP_0)) requests.zoom_reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_Q)) requests.quit = true;
}

}  // namespace

void draw_main_ui(AppState& state, UiRequests& requests, bool exporting) {
    if (!exporting) keyboard_shortcuts(requests);
    menu_bar(state, requests);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float font = ImGui::GetFontSize();
    const float sidebar_width = font * 23.0f;
    const ImVec2 origin = viewport->WorkPos;
    const ImVec2 size = viewport->WorkSize;

    ImGui::SetNextWindowPos(origin);
    ImGui::SetNextWindowSize(ImVec2(sidebar_width, size.y));
    if (ImGui::Begin("Scenario", nullptr, kFixedWindow)) widgets::draw_sidebar(state.sidebar, state.scenario, state.report);
    ImGui::End();

    ImGui::SetNextWindowPos(ImVec2(origin.x + sidebar_width, origin.y));
    ImGui::SetNextWindowSize(ImVec2(size.x - sidebar_width, size.y));
    if (ImGui::Begin("Panels", nullptr, kFixedWindow | ImGuiWindowFlags_NoTitleBar)) {
        if (ImGui::BeginTabBar("panels", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
            for (std::size_t i = 0; i < state.panels.size(); ++i) {
                if (!state.visible[i]) continue;
                bool open = true;
                const ImGuiTabItemFlags flags = state.select_panel_request == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
                if (ImGui::BeginTabItem(state.panels[i].title, &open, flags)) {
                    state.current_panel = static_cast<int>(i);
                    ImGui::BeginChild("panel_body", ImVec2(0, 0), false);
                    draw_panel_body(state, static_cast<int>(i), exporting);
                    ImGui::EndChild();
                    ImGui::EndTabItem();
                }
                if (!open) state.visible[i] = false;
            }
            ImGui::EndTabBar();
        }
        state.select_panel_request = -1;
    }
    ImGui::End();
}

void draw_single_panel(AppState& state, int panel, bool exporting) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->Pos);
    ImGui::SetNextWindowSize(viewport->Size);
    if (ImGui::Begin(state.panels[panel].title, nullptr, kFixedWindow)) {
        draw_panel_body(state, panel, exporting);
    }
    ImGui::End();
}

}  // namespace app
