#include "core/cost/report/stage_timelines.h"

#include "core/cost/memory/timeline.h"
#include "core/cost/step/step.h"
#include "core/model/layout.h"

namespace core {

std::vector<MemoryTimeline> stage_memory_timelines(const Scenario& scenario, const Report& report) {
    const Layout layout = layout_of(scenario);
    const MemoryConstants constants = memory_constants(scenario);
    const LayerCost cost = layer_cost(scenario, split_of(layout), false);
    const StepInputs inputs = step_inputs(scenario, layout, cost);
    const ScheduleParams schedule = schedule_params(scenario, layout, cost, inputs);
    const ScheduleTimeline* generated = generated_schedule(schedule, PipelineTiming::timeline);
    std::vector<MemoryTimeline> timelines;
    for (int stage = 0; stage < layout.pp; ++stage) {
        const double inflight = stage < static_cast<int>(report.memory.per_stage.size()) ? report.memory.per_stage[stage].inflight_microbatches : 1.0;
        timelines.push_back(memory_timeline(constants, layout, stage, stage_order(generated, stage), inflight));
    }
    return timelines;
}

}  // namespace core
