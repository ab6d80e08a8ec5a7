#include "widgets/transport.h"

#include "widgets/controls.h"

#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace widgets {

void draw_transport(Playback& playback, const char* caption) {
    if (figure_mode()) {  // a document shows the moment, not the player
        if (caption) wrapped_text(caption);
        return;
    }
    ImGui::PushID(&playback);
    const float font = ImGui::GetFontSize();
    const double duration = std::max(0.0, playback.duration_seconds);
    if (ImGui::Button(playback.playing ? "Pause" : "Play", ImVec2(font * 4.0f, 0))) playback.toggle();
    ImGui::SameLine();
    if (ImGui::ArrowButton("back", ImGuiDir_Left)) playback.step(-1);
    ImGui::SameLine();
    if (ImGui::ArrowButton("forward", ImGuiDir_Right)) playback.step(+1);
    ImGui::SameLine();
    float t = static_cast<float>(std::clamp(playback.t_seconds, 0.0, duration));
    const float speed_width = font * 7.0f;
    const float caption_width = caption ? ImGui::CalcTextSize(caption).x + font : 0.0f;
    // In a narrow panel the speed and the caption move to the next line rather than off the edge.
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float after_buttons = ImGui::GetContentRegionAvail().x;
    const bool caption_beside = after_buttons - speed_width - caption_width - font >= font * 6.0f;
    const bool speed_beside = after_buttons - speed_width - font >= font * 6.0f;
    const float scrub_width = std::max(font * 6.0f, after_buttons - (speed_beside ? speed_width + spacing : 0.0f) -
                                                        (caption_beside ? caption_width : 0.0f) - (speed_beside ? font : 0.0f));
    ImGui::SetNextItemWidth(std::min(scrub_width, after_buttons));
    if (slider_float("##t", &t, 0.0f, static_cast<float>(std::max(duration, 1e-6)), "t = %.2f s")) playback.scrub(t);
    same_line_if_fits(speed_width, spacing);
    float speed = static_cast<float>(playback.speed);
    ImGui::SetNextItemWidth(speed_width);
    if (slider_float("##speed", &speed, 0.25f, 4.0f, "speed %.2gx", ImGuiSliderFlags_Logarithmic)) playback.speed = speed;
    if (caption) {
        same_line_if_fits(ImGui::CalcTextSize(caption).x, spacing);
        wrapped_text(caption);
    }
    ImGui::PopID();
}

}  // namespace widgets
