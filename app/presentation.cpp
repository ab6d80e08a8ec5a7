#include "app/presentation.h"

#include "widgets/fonts.h"
#include "widgets/palette.h"

#include <imgui.h>

#include <algorithm>

namespace app {

std::string enter_scene(AppState& state, PresentationState& presentation, int scene) {
    if (presentation.lesson.scenes.empty()) return "lesson: no scenes";
    scene = std::clamp(scene, 0, static_cast<int>(presentation.lesson.scenes.size()) - 1);
    const Scene& next = presentation.lesson.scenes[scene];
    const int panel = panel_index(state, next.panel);
    if (panel < 0) return "lesson: unknown panel \"" + next.panel + "\"";
    const std::string error = replace_scenario(state, next.scenario);
    if (!error.empty()) return error;
    presentation.scene = scene;
    state.current_panel = panel;
    state.select_panel_request = panel;
    state.visible[panel] = true;
    state.playbacks[panel].t_seconds = next.t_seconds;
    state.playbacks[panel].playing = false;
    return {};
}

void draw_presentation(AppState& state, const PresentationState& presentation, bool exporting) {
    const Scene& scene = presentation.lesson.scenes.at(presentation.scene);
    const int panel = panel_index(state, scene.panel);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->Pos);
    ImGui::SetNextWindowSize(viewport->Size);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus;
    if (ImGui::Begin("Presentation", nullptr, flags)) {
        const float font = ImGui::GetFontSize();
        ImGui::PushFont(widgets::fonts().large);
        ImGui::TextUnformatted(scene.title.c_str());
        ImGui::PopFont();
        ImGui::Separator();
        // The caption band: two lines of the large font, plus the scene counter.
        const float caption_height = widgets::fonts().large->FontSize * 3.2f + font;
        ImGui::BeginChild("scene_panel", ImVec2(0, -caption_height), false);
        if (panel >= 0) {
            widgets::PanelContext context{state.scenario, state.report, state.text, state.scenario_revision, state.playbacks[panel], state.assets, state.feedback, exporting,
                                            &state.kernel_selection};
            state.panels[panel].draw(context);
        }
        ImGui::EndChild();
        ImGui::Separator();
        ImGui::PushFont(widgets::fonts().large);
        ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x);
        ImGui::TextUnformatted(scene.caption.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(widgets::palette().text_dim));
        ImGui::Text("Scene %d of %d  -  %s  -  Left / Right: scenes, Space: play, Esc: leave", presentation.scene + 1,
                    static_cast<int>(presentation.lesson.scenes.size()), presentation.lesson.title.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::End();
}

}  // namespace app
