#pragma once
// Presentation mode: one lesson scene at a time, its panel filling the window, the caption at the bottom.
#include "app/app_state.h"
#include "app/lesson.h"

namespace app {

struct PresentationState {
    bool active = false;
    Lesson lesson;
    int scene = 0;
};

// Loads the scene's scenario and panel time into the app; returns "" or the error (state untouched on error).
std::string enter_scene(AppState& state, PresentationState& presentation, int scene);
// Draws the current scene filling the display: title, panel, caption band and "scene k of n".
void draw_presentation(AppState& state, const PresentationState& presentation, bool exporting);

}  // namespace app
