#pragma once
// Presentation mode: one lesson scene at a time, its panel filling the window, the caption at the bottom.
#include "app/app_state.h"
#include "app/lesson.h"

#include <optional>
#include <vector>

namespace app {

// What presentation borrows from the user and gives back on leaving: their scenario and its history, clocks, tab, View
// menu and baseline.
struct UserStash {
    core::Scenario scenario;
    core::ScenarioHistory history;
    std::vector<widgets::Playback> playbacks;
    std::vector<bool> visible;
    int current_panel = 0;
    std::optional<PinnedBaseline> baseline;  // the user's pinned baseline: a comparing scene pins its own
};

struct PresentationState {
    bool active = false;
    Lesson lesson;
    int scene = 0;
    std::optional<UserStash> user;  // set while active in the window: Esc restores it
    bool show_hints = true;         // the key hints under the caption; off for a clean exported figure
    // The panel's live controls (play, sliders, combos): off, so the scene's figure has the room on a projector at
    // 1280x720 and 1.5x zoom, where the controls above a figure pushed it out of the window; C shows them.
    bool show_controls = false;
    std::string caption;            // the scene's caption with its {figures} filled from the scene's report
};

// Loads the scene's scenario and panel time into the app, with a history of its own (undo stops at the scene's start);
// returns "" or the error (state untouched on error).
std::string enter_scene(AppState& state, PresentationState& presentation, int scene);
// Enters presentation on the lesson's current scene, keeping the user's scenario to give back; "" or the error.
std::string begin_presentation(AppState& state, PresentationState& presentation);
// Leaves presentation and gives the user's scenario, clocks and tabs back exactly as they were.
void end_presentation(AppState& state, PresentationState& presentation);
// The user's own scenario: the stashed one while a lesson plays, else the applied one.
const core::Scenario& user_scenario(const AppState& state, const PresentationState& presentation);
// Presentation's zoom over the base UI scale: up to 1.5x, text readable from the back of a room, but never so far that the
// window holds fewer than the 1280 x 720 logical pixels the panels are laid out for (at 1280 x 720 it is 1x: the controls
// and the figure would no longer fit), and never below 1x; in steps of 1/8, so a window being resized rebuilds the fonts
// only now and then.
float presentation_zoom(int framebuffer_width, int framebuffer_height, float base_scale);
// Draws the current scene filling the display: title, panel, caption band and "scene k of n".
void draw_presentation(AppState& state, const PresentationState& presentation, bool exporting);

}  // namespace app
