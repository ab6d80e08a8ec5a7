#pragma once
// Cluster sizing off the UI thread (one planner search per GPU type and count: far more than a frame), as the planner's.
#include "core/cost/search/sizing.h"
#include "core/model/scenario.h"
#include "widgets/background_job.h"

namespace widgets {

struct SizeRequest {
    core::Scenario scenario;      // its GPU, count and layout are what sizing varies
    core::SizingOptions options;
    bool operator==(const SizeRequest& other) const;
};

core::Sizing run_size_request(const SizeRequest& request);

class SizeJob : public BackgroundJob<SizeRequest, core::Sizing> {
public:
    SizeJob() : BackgroundJob(&run_size_request) {}
    void request(const core::Scenario& scenario, const core::SizingOptions& options) { BackgroundJob::request({scenario, options}); }
    const core::Sizing& sizing() const { return result(); }
    // Only the latest request's result counts as one: the sizing of the previous model is not shown under the new
    // model's name while the new one is computed (it takes seconds).
    bool has_result() const { return has_current_result(); }
};

}  // namespace widgets
