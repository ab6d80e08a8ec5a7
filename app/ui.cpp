#include "app/ui.h"

#include "app/lesson.h"
#include "app/scenario_io.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace app {
namespace {

constexpr ImGuiWindowFlags kFixedWindow = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                          ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

struct Shortcut {
    const char* keys;
    const char* action;
};
constexpr Shortcut kShortcuts[] = {
    {"Space", "play / pause the current panel's animation"},
    {"Left / Right", "step the animation (in presentation: previous / next scene)"},
    {"Ctrl+O", "open a scenario or a Hugging Face config.json"},
    {"Ctrl+S", "save the scenario (Ctrl+Shift+S: save as)"},
    {"Ctrl+E", "export the current panel to a PNG in the working directory"},
    {"Ctrl+= / Ctrl+- / Ctrl+0", "zoom the whole UI in / out / back to 100 %"},
    {"F5", "start or leave presentation mode (the default lesson)"},
    {"F11", "full screen"},
    {"Esc", "leave presentation mode"},
    {"Ctrl+Q", "quit"},
};

void draw_panel_body(AppState& state, int index, bool exporting, UiRequests* requests = nullptr) {
    widgets::PanelRequests panel_requests;
    widgets::PanelContext context{state.scenario, state.report, state.text, state.scenario_revision, state.playbacks[index], state.assets, state.feedback, exporting,
                                  &state.kernel_selection, requests ? &panel_requests : nullptr};
    state.panels[index].draw(context);
    if (requests && panel_requests.save_trace) requests->save_trace = true;
}

void step_current_playback(AppState& state, int direction) {
    widgets::Playback& playback = state.playbacks[state.current_panel];
    playback.playing = false;
    const double step = playback.step_seconds > 0 ? playback.step_seconds : 1.0;
    const double next = (std::floor(playback.t_seconds / step + 1e-9) + direction) * step;
    playback.t_seconds = std::clamp(next, 0.0, std::max(0.0, playback.duration_seconds));
}

void menu_bar(AppState& state, UiSession& session, UiRequests& requests) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) session.open_dialog_request = true;
        if (ImGui::MenuItem("Save", "Ctrl+S")) {
            if (state.scenario_path.empty()) session.save_dialog_request = true;
            else state.file_error = save_scenario(state, state.scenario_path);
        }
        if (ImGui::MenuItem("Save As...", "Ctrl+Shift+S")) session.save_dialog_request = true;
        if (ImGui::BeginMenu("Open Recent", !state.recent_files.empty())) {
            const std::vector<std::string> recent = state.recent_files;  // opening reorders the list
            for (const std::string& path : recent) {
                if (ImGui::MenuItem(path.c_str())) state.file_error = open_scenario(state, path);
            }
            ImGui::EndMenu();
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Export current panel to PNG", "Ctrl+E")) requests.export_current_panel = true;
        if (ImGui::MenuItem("Save step trace (Perfetto JSON)")) requests.save_trace = true;
        ImGui::Separator();
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
        if (ImGui::MenuItem("Light theme (print)", nullptr, widgets::current_theme() == widgets::Theme::light)) requests.theme_toggle = true;
        bool explain = widgets::explain_mode();
        if (ImGui::MenuItem("Explain figures on hover", nullptr, &explain)) widgets::set_explain_mode(explain);
        ImGui::Separator();
        if (ImGui::MenuItem("Presentation mode", "F5")) {
            state.file_error = start_presentation(state, session);
            requests.presentation_changed = state.file_error.empty();
        }
        if (ImGui::MenuItem("Full screen", "F11")) requests.toggle_fullscreen = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Shortcuts")) session.show_shortcuts = true;
        ImGui::EndMenu();
    }
    if (!state.status.empty()) {
        ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(state.status.c_str()).x - ImGui::GetFontSize());
        ImGui::TextDisabled("%s", state.status.c_str());
    }
    ImGui::EndMainMenuBar();
}

void keyboard(AppState& state, UiSession& session, UiRequests& requests) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;  // typing a path: keys belong to the text field
    // ImGui 1.86 indexes keys by the backend's codes: GLFW's here.
    PresentationState& presentation = session.presentation;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
        if (presentation.active) presentation.active = false;
        else state.file_error = start_presentation(state, session);
        requests.presentation_changed = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F11, false)) requests.toggle_fullscreen = true;
    if (presentation.active && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
        presentation.active = false;
        requests.presentation_changed = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false) && !io.KeyCtrl) {
        widgets::Playback& playback = state.playbacks[state.current_panel];
        if (!playback.playing && playback.t_seconds >= playback.duration_seconds) playback.t_seconds = 0;
        playback.playing = !playback.playing;
    }
    const int direction = ImGui::IsKeyPressed(GLFW_KEY_RIGHT) ? 1 : ImGui::IsKeyPressed(GLFW_KEY_LEFT) ? -1 : 0;
    if (direction != 0 && !io.KeyCtrl) {
        if (presentation.active) state.file_error = enter_scene(state, presentation, presentation.scene + direction);
        else if (!ImGui::IsAnyItemActive()) step_current_playback(state, direction);
    }
    if (!io.KeyCtrl) return;
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) requests.zoom_factor *= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) requests.zoom_factor /= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_0) || ImGui::IsKeyPressed(GLFW_KEY_KP_0)) requests.zoom_reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_Q, false)) requests.quit = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_O, false)) session.open_dialog_request = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_E, false)) requests.export_current_panel = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) {
        if (io.KeyShift || state.scenario_path.empty()) session.save_dialog_request = true;
        else state.file_error = save_scenario(state, state.scenario_path);
    }
}

// A path dialog for Open and Save As: ImGui has no native file chooser, so the path is typed (or picked from recent files).
void path_dialog(AppState& state, UiSession& session, const char* title, bool saving) {
    if (ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        const float font = ImGui::GetFontSize();
        ImGui::TextUnformatted(saving ? "Save the scenario as (JSON, only what differs from the defaults):"
                                      : "Open a scenario JSON or a Hugging Face config.json:");
        ImGui::SetNextItemWidth(font * 36.0f);
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        const bool entered = ImGui::InputText("##path", &session.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
        for (const std::string& recent : state.recent_files) {
            if (ImGui::Selectable(recent.c_str())) session.path_input = recent;
        }
        if (ImGui::Button(saving ? "Save" : "Open", ImVec2(font * 6.0f, 0)) || entered) {
            state.file_error = saving ? save_scenario(state, session.path_input) : open_scenario(state, session.path_input);
            if (state.file_error.empty()) state.status = (saving ? "Saved " : "Opened ") + session.path_input;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel", ImVec2(font * 6.0f, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void dialogs(AppState& state, UiSession& session) {
    if (session.open_dialog_request) {
        session.path_input = state.scenario_path;
        ImGui::OpenPopup("Open scenario");
        session.open_dialog_request = false;
    }
    if (session.save_dialog_request) {
        session.path_input = state.scenario_path.empty() ? "scenario.json" : state.scenario_path;
        ImGui::OpenPopup("Save scenario");
        session.save_dialog_request = false;
    }
    path_dialog(state, session, "Open scenario", false);
    path_dialog(state, session, "Save scenario", true);
    if (!state.file_error.empty() && !ImGui::IsPopupOpen("File error")) ImGui::OpenPopup("File error");
    if (ImGui::BeginPopupModal("File error", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(widgets::palette().over_budget));
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
        ImGui::TextUnformatted(state.file_error.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
        ImGui::TextUnformatted("The current scenario is unchanged.");
        if (ImGui::Button("OK", ImVec2(ImGui::GetFontSize() * 6.0f, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ENTER, false)) {
            state.file_error.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
    if (session.show_shortcuts) {
        ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 34.0f, 0), ImGuiCond_Appearing);
        if (ImGui::Begin("Shortcuts", &session.show_shortcuts, ImGuiWindowFlags_NoSavedSettings)) {
            if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg)) {
                for (const Shortcut& shortcut : kShortcuts) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(shortcut.keys);
                    ImGui::TableNextColumn();
                    ImGui::TextWrapped("%s", shortcut.action);
                }
                ImGui::EndTable();
            }
        }
        ImGui::End();
    }
}

}  // namespace

std::string start_presentation(AppState& state, UiSession& session) {
    PresentationState& presentation = session.presentation;
    if (presentation.lesson.scenes.empty()) {
        std::vector<std::string> names;
        for (const widgets::PanelDef& panel : state.panels) names.push_back(panel.name);
        try {
            presentation.lesson = load_lesson_file(default_lesson_path(), names);
        } catch (const std::exception& error) {
            return error.what();
        }
    }
    const std::string error = enter_scene(state, presentation, presentation.scene);
    presentation.active = error.empty();
    return error;
}

void draw_main_ui(AppState& state, UiSession& session, UiRequests& requests, bool exporting) {
    if (!exporting) keyboard(state, session, requests);
    if (session.presentation.active) {
        draw_presentation(state, session.presentation, exporting);
        dialogs(state, session);
        return;
    }
    menu_bar(state, session, requests);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float font = ImGui::GetFontSize();
    const float sidebar_width = font * 23.0f;
    const ImVec2 origin = viewport->WorkPos;
    const ImVec2 size = viewport->WorkSize;

    ImGui::SetNextWindowPos(origin);
    ImGui::SetNextWindowSize(ImVec2(sidebar_width, size.y));
    if (ImGui::Begin("Scenario", nullptr, kFixedWindow)) widgets::draw_sidebar(state.sidebar, state.scenario, state.report, state.text, state.feedback);
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
                    draw_panel_body(state, static_cast<int>(i), exporting, &requests);
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
    dialogs(state, session);
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
