#include "app/presentation.h"

#include "core/lessons/captions.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace app {

std::string enter_scene(AppState& state, PresentationState& presentation, int scene) {
    if (presentation.lesson.scenes.empty()) return "lesson: no scenes";
    scene = std::clamp(scene, 0, static_cast<int>(presentation.lesson.scenes.size()) - 1);
    const Scene& next = presentation.lesson.scenes[scene];
    const int panel = panel_index(state, next.panel);
    if (panel < 0) return "lesson: unknown panel \"" + next.panel + "\"";
    const std::string error = replace_scenario(state, next.scenario);
    if (!error.empty()) return error;
    // A scene that compares pins its baseline; the others show one scenario (the user's baseline waits in the stash).
    if (next.baseline) {
        const std::string baseline_error = set_baseline(state, *next.baseline, "the scene's own");
        if (!baseline_error.empty()) return baseline_error;
    } else {
        state.baseline.reset();
    }
    state.history.clear();
    presentation.scene = scene;
    presentation.caption = core::fill_caption(next.caption, state.applied, state.report, state.baseline ? &state.baseline->scenario : nullptr,
                                              state.baseline ? &state.baseline->report : nullptr);
    state.current_panel = panel;
    state.select_panel_request = panel;
    state.visible[panel] = true;
    state.playbacks[panel].cue(next.t_seconds);
    return {};
}

std::string begin_presentation(AppState& state, PresentationState& presentation) {
    if (presentation.active) return enter_scene(state, presentation, presentation.scene);
    UserStash stash{state.applied, state.history, state.playbacks, state.visible, state.current_panel, state.baseline};
    const std::string error = enter_scene(state, presentation, presentation.scene);
    if (!error.empty()) return error;
    presentation.user = std::move(stash);
    presentation.active = true;
    return {};
}

void end_presentation(AppState& state, PresentationState& presentation) {
    presentation.active = false;
    if (!presentation.user) return;
    UserStash& stash = *presentation.user;
    if (!(stash.scenario == state.applied)) replace_scenario(state, stash.scenario);  // it evaluated before: it still does
    state.scenario = state.applied;
    state.history = std::move(stash.history);
    state.playbacks = std::move(stash.playbacks);
    state.visible = std::move(stash.visible);
    state.current_panel = stash.current_panel;
    state.select_panel_request = stash.current_panel;
    state.baseline = std::move(stash.baseline);
    presentation.user.reset();
}

const core::Scenario& user_scenario(const AppState& state, const PresentationState& presentation) {
    return presentation.user ? presentation.user->scenario : state.applied;
}

float presentation_zoom(int framebuffer_width, int framebuffer_height, float base_scale) {
    constexpr float kMostZoom = 1.5f;
    constexpr float kLayoutWidth = 1280.0f, kLayoutHeight = 720.0f;  // the smallest logical window the panels are laid out for
    constexpr float kStep = 0.125f;
    if (framebuffer_width <= 0 || framebuffer_height <= 0 || !(base_scale > 0)) return 1.0f;
    const float room = std::min(framebuffer_width / (kLayoutWidth * base_scale), framebuffer_height / (kLayoutHeight * base_scale));
    return std::clamp(std::floor(room / kStep) * kStep, 1.0f, kMostZoom);
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
        // The caption band: the caption wrapped (at spaces) in the large font, plus the scene counter, however long it is.
        const ImGuiStyle& style = ImGui::GetStyle();
        ImGui::PushFont(widgets::fonts().large);
        const std::vector<std::string> caption_lines = widgets::wrap_at_spaces(presentation.caption, ImGui::GetContentRegionAvail().x);
        const float caption_text = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(caption_lines.size());
        ImGui::PopFont();
        const float caption_height = caption_text + ImGui::GetTextLineHeight() + 4.0f * style.ItemSpacing.y + font * 0.25f;
        ImGui::BeginChild("scene_panel", ImVec2(0, -caption_height), false);
        if (panel >= 0) {
            widgets::PanelContext context{state.scenario, state.report, state.text, state.scenario_revision, state.playbacks[panel], state.assets, state.feedback, exporting,
                                            &state.kernel_selection};
            const std::optional<widgets::BaselineView> baseline = baseline_view(state);
            if (baseline) {
                widgets::draw_baseline_banner(*baseline, false);
                context.baseline = &*baseline;
            }
            const bool was_figure = widgets::figure_mode();
            widgets::set_figure_mode(!presentation.show_controls);  // the scene's figure, its controls only when asked for
            state.panels[panel].draw(context);
            widgets::set_figure_mode(was_figure);
        }
        ImGui::EndChild();
        ImGui::Separator();
        ImGui::PushFont(widgets::fonts().large);
        for (const std::string& caption_line : caption_lines) ImGui::TextUnformatted(caption_line.c_str());
        ImGui::PopFont();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(widgets::palette().text_dim));
        // The counter and the keys first; the lesson's title last, where a narrow window shortens it.
        const std::string counter = "Scene " + std::to_string(presentation.scene + 1) + " of " + std::to_string(presentation.lesson.scenes.size());
        const bool hints = presentation.show_hints;  // export turns them off for a clean figure
        const std::string line = counter + (hints ? std::string("  -  Left / Right: scenes, Space: play, C: ") + (presentation.show_controls ? "hide" : "show") +
                                                        " controls, Esc: leave"
                                                      : std::string()) + "  -  " + presentation.lesson.title;
        ImGui::TextUnformatted(widgets::fit_text(line, ImGui::GetContentRegionAvail().x).c_str());
        ImGui::PopStyleColor();
    }
    ImGui::End();
}

}  // namespace app
