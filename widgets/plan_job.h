#pragma once
// The planner off the UI thread: a frame asks for the ranking of a scenario and draws whatever ranking has arrived, so
// dragging a slider never waits for a search (405B on 16,384 GPUs: about 12 ms, more than a frame at 60 Hz).
#include "core/cost/planner.h"
#include "core/model/scenario.h"

#include <future>
#include <optional>
#include <string>

namespace widgets {

class PlanJob {
public:
    PlanJob() = default;
    PlanJob(const PlanJob&) = delete;
    PlanJob& operator=(const PlanJob&) = delete;
    ~PlanJob();  // waits for a search still running: it cannot be interrupted, and it takes milliseconds

    // Asks for the ranking of `scenario` (its own layout is ignored by the planner). Nothing happens when that ranking
    // is already shown or being computed; when another search runs, this one starts as soon as it ends.
    void request(const core::Scenario& scenario, const core::PlanOptions& options);
    // Takes a finished search and starts the latest request. Call once per frame, before drawing.
    void poll();
    // Blocks until the latest request's ranking is shown: headless export draws a finished table.
    void wait();

    bool pending() const { return running_.valid() || queued_.has_value(); }  // the shown ranking is not the latest request
    bool has_result() const { return shown_.has_value(); }
    const core::Plan& plan() const { return plan_; }
    const std::string& error() const { return error_; }  // the planner's InputError, one line; empty when it ran

private:
    struct Request {
        core::Scenario scenario;
        core::PlanOptions options;
        bool operator==(const Request& other) const {
            return scenario == other.scenario && options.top == other.options.top && options.max_tp == other.options.max_tp &&
                   options.max_virtual_stages == other.options.max_virtual_stages &&
                   options.collapse_zero_ties == other.options.collapse_zero_ties;
        }
    };
    struct Outcome {
        core::Plan plan;
        std::string error;
    };
    void start(Request request);
    void finish();

    std::optional<Request> shown_;    // what plan_ ranks
    std::optional<Request> running_request_;
    std::future<Outcome> running_;
    std::optional<Request> queued_;   // the latest request, waiting for the running search to end
    core::Plan plan_;
    std::string error_;
};

}  // namespace widgets
