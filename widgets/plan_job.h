#pragma once
// The planner off the UI thread: a frame asks for the ranking of a scenario and draws whatever ranking has arrived, so
// dragging a slider never waits for a search (405B on 16,384 GPUs: about 12 ms, more than a frame at 60 Hz).
#include "core/cost/search/planner.h"
#include "core/model/scenario.h"
#include "widgets/background_job.h"

namespace widgets {

struct PlanRequest {
    core::Scenario scenario;      // its own layout is ignored by the planner
    core::PlanOptions options;
    bool operator==(const PlanRequest& other) const;
};

core::Plan run_plan_request(const PlanRequest& request);

class PlanJob : public BackgroundJob<PlanRequest, core::Plan> {
public:
    PlanJob() : BackgroundJob(&run_plan_request) {}
    // Asks for the ranking of `scenario`; nothing happens when that ranking is shown or being computed.
    void request(const core::Scenario& scenario, const core::PlanOptions& options) { BackgroundJob::request({scenario, options}); }
    const core::Plan& plan() const { return result(); }
};

}  // namespace widgets
