#include "widgets/size_job.h"

namespace widgets {

bool SizeRequest::operator==(const SizeRequest& other) const {
    const core::SizingOptions& a = options;
    const core::SizingOptions& b = other.options;
    return scenario == other.scenario && a.gpu_ids == b.gpu_ids && a.price == b.price && a.max_gpus == b.max_gpus &&
           a.deadline_seconds == b.deadline_seconds && a.budget_dollars == b.budget_dollars;
}

core::Sizing run_size_request(const SizeRequest& request) { return core::size_cluster(request.scenario, request.options); }

}  // namespace widgets
