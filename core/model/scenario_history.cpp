#include "core/model/scenario_history.h"

namespace core {

void ScenarioHistory::record(const Scenario& before, const Scenario& after, const std::string& what, std::uint32_t gesture_id) {
    if (gesture_open_ != gesture_id) end_gesture();  // another drag, or none: the last one is over
    if (before == after) return;
    redo_.clear();
    if (gesture_id != 0 && gesture_open_ == gesture_id && !undo_.empty() && undo_.back().after == before) {
        undo_.back().after = after;  // the drag goes on: one step from where it started to where it is
        return;
    }
    undo_.push_back({before, after, what});
    if (undo_.size() > kMaxSteps) undo_.pop_front();
    gesture_open_ = gesture_id;
}

void ScenarioHistory::record_baseline(const Scenario& now, const BaselineSlot& before, const BaselineSlot& after, const std::string& what) {
    end_gesture();
    if (before == after) return;
    redo_.clear();
    undo_.push_back({now, now, what, BaselineChange{before, after}});
    if (undo_.size() > kMaxSteps) undo_.pop_front();
}

std::optional<BaselineSlot> ScenarioHistory::undo_baseline() const {
    if (undo_.empty() || !undo_.back().baseline) return std::nullopt;
    return undo_.back().baseline->before;
}

std::optional<BaselineSlot> ScenarioHistory::redo_baseline() const {
    if (redo_.empty() || !redo_.back().baseline) return std::nullopt;
    return redo_.back().baseline->after;
}

void ScenarioHistory::end_gesture() {
    if (gesture_open_ != 0 && !undo_.empty() && !undo_.back().baseline && undo_.back().before == undo_.back().after) undo_.pop_back();
    gesture_open_ = 0;
}

std::string ScenarioHistory::undo_name() const { return undo_.empty() ? std::string() : undo_.back().what; }

std::string ScenarioHistory::redo_name() const { return redo_.empty() ? std::string() : redo_.back().what; }

Scenario ScenarioHistory::undo(const Scenario& now) {
    end_gesture();
    Step step = std::move(undo_.back());
    undo_.pop_back();
    step.after = now;  // redo brings back the scenario as it was when undone
    Scenario before = step.before;
    redo_.push_back(std::move(step));
    if (redo_.size() > kMaxSteps) redo_.pop_front();
    return before;
}

Scenario ScenarioHistory::redo(const Scenario& now) {
    Step step = std::move(redo_.back());
    redo_.pop_back();
    step.before = now;
    Scenario after = step.after;
    undo_.push_back(std::move(step));
    if (undo_.size() > kMaxSteps) undo_.pop_front();
    gesture_open_ = 0;
    return after;
}

void ScenarioHistory::clear() {
    undo_.clear();
    redo_.clear();
    gesture_open_ = 0;
}

}  // namespace core
