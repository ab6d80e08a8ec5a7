#include "app/plan_command.h"

#include "core/model/format.h"
#include "core/cost/planner.h"
#include "core/model/layout.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>

namespace app {

nlohmann::ordered_json layout_json(const core::Layout& layout) {
    return {{"tp", layout.tp},
            {"pp", layout.pp},
            {"cp", layout.cp},
            {"dp", layout.dp},
            {"zero", layout.zero},
            {"micro_batch", layout.micro_batch},
            {"recompute", core::recompute_name(layout.recompute)},
            {"schedule", core::schedule_name(layout.schedule)},
            {"virtual_stages", layout.virtual_stages},
            {"sequence_parallel", layout.sequence_parallel}};
}

int run_plan(const core::Scenario& scenario, int top) {
    core::PlanOptions options;
    options.top = top;
    const auto start = std::chrono::steady_clock::now();
    const core::Plan plan = core::plan_layouts(scenario, options);
    const double search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    nlohmann::ordered_json json;
    json["model"] = scenario.model.name;
    json["gpu"] = scenario.cluster.gpu.name;
    json["gpus"] = scenario.cluster.gpus;
    json["global_batch"] = scenario.train.global_batch;
    json["seq_len"] = scenario.train.seq_len;
    json["hbm_bytes"] = scenario.cluster.gpu.hbm_bytes;
    json["ranked_by"] = "modelled step time (compute + pipeline bubble + exposed communication); equal times: fewer GPUs per replica, then less memory";
    json["layouts_considered"] = plan.layouts_considered;
    json["layouts_fitting"] = plan.layouts_fitting;
    json["search_seconds"] = search_seconds;
    nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < plan.best.size(); ++i) {
        const core::LayoutEstimate& estimate = plan.best[i].estimate;
        ranking.push_back({{"rank", i + 1},
                           {"layout", layout_json(plan.best[i].layout)},
                           {"memory_per_gpu_bytes", estimate.memory_per_gpu_bytes},
                           {"activations_bytes", estimate.activations_bytes},
                           {"step_seconds", estimate.step_seconds},
                           {"compute_seconds", estimate.compute_seconds},
                           {"bubble_seconds", estimate.bubble_seconds},
                           {"exposed_comm_seconds", estimate.exposed_comm_seconds},
                           {"mfu", estimate.mfu}});
    }
    json["ranking"] = ranking;
    std::fputs((json.dump(2) + "\n").c_str(), stdout);
    if (plan.best.empty()) {
        std::fprintf(stderr, "shardscope: plan: no layout fits in %s of HBM per GPU\n", core::format_bytes(scenario.cluster.gpu.hbm_bytes).c_str());
    }
    return 0;
}

}  // namespace app
