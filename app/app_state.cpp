#include "app/app_state.h"

#include "app/files.h"
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/model/scenario_json.h"

#include <algorithm>

namespace app {

AppState make_app_state(const core::Scenario& scenario) {
    AppState state;
    state.report = core::evaluate(scenario);
    state.text = core::explain(scenario, state.report);
    state.scenario = scenario;
    state.applied = scenario;
    state.saved_scenario = scenario;
    state.panels = widgets::make_all_panels();
    state.playbacks.resize(state.panels.size());
    state.visible.assign(state.panels.size(), true);
    try {
        state.assets.measured_roofline_csv = read_text_file(asset_directory() + "/h100_measured_roofline.csv", "assets");
    } catch (const core::InputError&) {
        state.status = "measured roofline points not found in " + asset_directory();
    }
    return state;
}

void apply_scenario_edits(AppState& state) {
    if (state.scenario == state.applied) {  // a struct comparison: no per-frame serialisation
        widgets::expire_feedback(state.feedback, state.applied);
        return;
    }
    try {
        core::Report report = core::evaluate(state.scenario);
        state.report = std::move(report);
        state.text = core::explain(state.scenario, state.report);
        state.applied = state.scenario;
        ++state.scenario_revision;
        state.sidebar.error.clear();
    } catch (const core::InputError& error) {
        // An invalid edit leaves the app as it was; the refusal shows under the control that made it, if one did.
        const bool from_control = state.feedback.after && *state.feedback.after == state.scenario;
        state.scenario = state.applied;
        if (from_control) {
            state.feedback.notes.clear();
            state.feedback.error = error.what();
            state.feedback.after = state.applied;
        } else {
            state.sidebar.error = error.what();
        }
    }
    widgets::expire_feedback(state.feedback, state.applied);
}

std::string replace_scenario(AppState& state, const core::Scenario& scenario) {
    try {
        state.report = core::evaluate(scenario);
    } catch (const core::InputError& error) {
        return error.what();
    }
    state.text = core::explain(scenario, state.report);
    state.scenario = scenario;
    state.applied = scenario;
    ++state.scenario_revision;
    state.sidebar.error.clear();
    widgets::expire_feedback(state.feedback, state.applied);
    return {};
}

void advance_playbacks(AppState& state, double dt_seconds) {
    for (widgets::Playback& playback : state.playbacks) {
        if (!playback.playing) continue;
        playback.t_seconds += dt_seconds * playback.speed;
        if (playback.t_seconds > playback.duration_seconds) {
            if (playback.loop && playback.duration_seconds > 0) playback.t_seconds = 0;
            else {
                playback.t_seconds = playback.duration_seconds;
                playback.playing = false;
            }
        }
    }
}

int panel_index(const AppState& state, const std::string& name) {
    for (std::size_t i = 0; i < state.panels.size(); ++i) if (name == state.panels[i].name) return static_cast<int>(i);
    return -1;
}

std::string panel_names(const AppState& state) {
    std::string names;
    for (const widgets::PanelDef& panel : state.panels) names += (names.empty() ? "" : ", ") + std::string(panel.name);
    return names;
}

}  // namespace app
