#pragma once
// Undo and redo for the scenario: every edit (a control, the sidebar, a panel, a lesson scene's controls, Reset) is one
// step holding the whole scenario from before it. A drag is one gesture: its first change opens the step, the changes
// after it while the same gesture lasts only move where the step leads, and the release closes it. Pinning or unpinning
// a baseline is a step too: the scenario stays, the baseline it carries changes.
#include "core/model/scenario.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace core {

// A pinned baseline as the history keeps it: its scenario and the name the banner gives it.
struct PinnedScenario {
    Scenario scenario;
    std::string name;
    bool operator==(const PinnedScenario&) const = default;
};
using BaselineSlot = std::optional<PinnedScenario>;  // nullopt: nothing pinned

class ScenarioHistory {
public:
    // The steps kept each way; older steps are forgotten first.
    static constexpr std::size_t kMaxSteps = 200;

    // An edit changed `before` into `after`, made by `what` ("GPUs", "TP"). gesture_id names a drag (0: no drag): while
    // the same drag goes on, its step keeps the `before` it opened with and takes each new `after`. A step clears redo;
    // nothing is recorded when before == after.
    void record(const Scenario& before, const Scenario& after, const std::string& what, std::uint32_t gesture_id = 0);
    // The baseline changed from `before` to `after` while the scenario stayed `now` ("Pin as baseline", "Unpin").
    void record_baseline(const Scenario& now, const BaselineSlot& before, const BaselineSlot& after, const std::string& what);
    // Whether the next undo or redo changes the baseline, and to what: set it after calling undo or redo.
    std::optional<BaselineSlot> undo_baseline() const;
    std::optional<BaselineSlot> redo_baseline() const;
    // The drag has ended: its step is closed; a drag that came back to where it started leaves no step.
    void end_gesture();

    bool can_undo() const { return !undo_.empty(); }
    bool can_redo() const { return !redo_.empty(); }
    // What the next undo or redo would take back or do again ("GPUs"); empty when there is none.
    std::string undo_name() const;
    std::string redo_name() const;
    std::size_t undo_steps() const { return undo_.size(); }
    std::size_t redo_steps() const { return redo_.size(); }

    // The scenario before the last step; `now` (the scenario as it is) becomes what redo brings back. Call only when
    // can_undo(). A gesture still open is closed first.
    Scenario undo(const Scenario& now);
    // The scenario the last undone step led to. Call only when can_redo().
    Scenario redo(const Scenario& now);
    // Forgets every step (a file was opened: its scenario is where history starts).
    void clear();

private:
    struct BaselineChange {
        BaselineSlot before, after;
    };
    struct Step {
        Scenario before;
        Scenario after;
        std::string what;
        std::optional<BaselineChange> baseline;  // a pin or an unpin
    };
    std::deque<Step> undo_;
    std::deque<Step> redo_;
    std::uint32_t gesture_open_ = 0;  // the drag the last undo step belongs to while it goes on; 0: none
};

}  // namespace core
