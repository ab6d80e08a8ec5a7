#include "widgets/plan_job.h"

namespace widgets {

bool PlanRequest::operator==(const PlanRequest& other) const {
    return scenario == other.scenario && options.top == other.options.top && options.max_tp == other.options.max_tp &&
           options.max_virtual_stages == other.options.max_virtual_stages && options.collapse_zero_ties == other.options.collapse_zero_ties;
}

core::Plan run_plan_request(const PlanRequest& request) { return core::plan_layouts(request.scenario, request.options); }

}  // namespace widgets
