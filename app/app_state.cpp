#include "app/app_state.h"

#include "app/files.h"
#include "app/scenario_io.h"
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

namespace {

// What an edit is called in Edit > Undo: the control that made it ("GPUs"), else "scenario edit".
std::string edit_name(const AppState& state) {
    const widgets::EditFeedback& feedback = state.feedback;
    if (feedback.control.empty() || !feedback.after || !(*feedback.after == state.scenario)) return "scenario edit";
    const std::string& label = feedback.control;
    const std::size_t hidden = label.find("##");  // ImGui's hidden part of a label is not a name
    return hidden == 0 ? std::string("scenario edit") : label.substr(0, hidden);
}

// The baseline an undo or redo brings back (pinned again, evaluated again), or none; whether it changed.
bool put_baseline(AppState& state, const core::BaselineSlot& slot) {
    if (!slot) {
        const bool had = state.baseline.has_value();
        state.baseline.reset();
        return had;
    }
    return set_baseline(state, slot->scenario, slot->name).empty();
}

// Puts a scenario from the history back: it evaluated when it was applied, so it evaluates again.
bool restore(AppState& state, const core::Scenario& scenario) {
    if (scenario == state.applied) return false;
    const std::string error = replace_scenario(state, scenario);
    if (!error.empty()) {
        state.status = error;
        return false;
    }
    state.feedback.clear();
    return true;
}

}  // namespace

void apply_scenario_edits(AppState& state, unsigned int gesture_id) {
    if (!state.feedback.error.empty()) state.sidebar.error.clear();  // a control refused something since: its message is the news
    if (state.scenario == state.applied) {  // a struct comparison: no per-frame serialisation
        if (gesture_id == 0) state.history.end_gesture();
        widgets::expire_feedback(state.feedback, state.applied);
        return;
    }
    try {
        core::Report report = core::evaluate(state.scenario);
        state.report = std::move(report);
        state.text = core::explain(state.scenario, state.report);
        state.history.record(state.applied, state.scenario, edit_name(state), gesture_id);
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
            state.sidebar.error.clear();  // one refusal on screen: the latest
        } else {
            state.sidebar.error = error.what();
            state.feedback.clear();
        }
        return;
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

bool undo_edit(AppState& state) {
    state.scenario = state.applied;  // an edit not yet applied is dropped, not undone
    if (!state.history.can_undo()) {
        state.status = "Nothing to undo";
        return false;
    }
    const std::string name = state.history.undo_name();
    const std::optional<core::BaselineSlot> baseline = state.history.undo_baseline();
    bool changed = restore(state, state.history.undo(state.applied));
    if (baseline) changed = put_baseline(state, *baseline) || changed;
    if (changed) state.status = "Undone: " + name + " (Ctrl+Shift+Z redoes it)";
    return changed;
}

bool redo_edit(AppState& state) {
    state.scenario = state.applied;
    if (!state.history.can_redo()) {
        state.status = "Nothing to redo";
        return false;
    }
    const std::string name = state.history.redo_name();
    const std::optional<core::BaselineSlot> baseline = state.history.redo_baseline();
    bool changed = restore(state, state.history.redo(state.applied));
    if (baseline) changed = put_baseline(state, *baseline) || changed;
    if (changed) state.status = "Redone: " + name;
    return changed;
}

bool reset_to_file(AppState& state) {
    state.scenario = state.applied;
    if (state.saved_scenario == state.applied) return false;
    const core::Scenario before = state.applied;
    if (!restore(state, state.saved_scenario)) return false;
    state.history.record(before, state.applied, "Reset to the file");
    state.status = "Reset to the file (Ctrl+Z takes the edits back)";
    return true;
}

void advance_playbacks(AppState& state, double dt_seconds) {
    for (widgets::Playback& playback : state.playbacks) playback.advance(dt_seconds);
}

namespace {

std::uint64_t next_baseline_revision() {
    static std::uint64_t revision = 0;
    return ++revision;
}

}  // namespace

std::string set_baseline(AppState& state, const core::Scenario& scenario, const std::string& name) {
    PinnedBaseline baseline;
    try {
        baseline.report = core::evaluate(scenario);
    } catch (const core::InputError& error) {
        return error.what();
    }
    baseline.text = core::explain(scenario, baseline.report);
    baseline.scenario = scenario;
    baseline.name = name;
    baseline.revision = next_baseline_revision();
    state.baseline = std::move(baseline);
    return {};
}

core::BaselineSlot baseline_slot(const AppState& state) {
    if (!state.baseline) return std::nullopt;
    return core::PinnedScenario{state.baseline->scenario, state.baseline->name};
}

void toggle_baseline(AppState& state) {
    const core::BaselineSlot before = baseline_slot(state);
    if (state.baseline) {
        state.baseline.reset();
        state.history.record_baseline(state.applied, before, std::nullopt, "Unpin baseline");
        state.status = "Baseline unpinned: one scenario again (Ctrl+Z pins it back)";
        return;
    }
    // The applied scenario evaluated already: pinning it copies its report rather than evaluating it again.
    PinnedBaseline baseline{state.applied, state.report, state.text, document_name(state) + " as pinned", next_baseline_revision()};
    state.baseline = std::move(baseline);
    state.history.record_baseline(state.applied, before, baseline_slot(state), "Pin as baseline");
    state.status = "Pinned " + state.baseline->name + " as the baseline: every panel draws your edits against it (Ctrl+P unpins)";
}

std::optional<widgets::BaselineView> baseline_view(AppState& state) {
    if (!state.baseline) return std::nullopt;
    const PinnedBaseline& baseline = *state.baseline;
    if (state.comparison_scenario_revision != state.scenario_revision || state.comparison_baseline_revision != baseline.revision) {
        state.comparison = core::compare_scenarios(baseline.scenario, baseline.report, state.applied, state.report);
        state.comparison_scenario_revision = state.scenario_revision;
        state.comparison_baseline_revision = baseline.revision;
    }
    return widgets::BaselineView{&baseline.scenario, &baseline.report, &baseline.text, &state.comparison, &baseline.name, baseline.revision};
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
