#include "app/memory_command.h"

#include "app/table.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/stage_timelines.h"
#include "core/model/errors.h"
#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace app {

int run_memory(const core::Scenario& scenario, MemoryFormat format, int stage) {
    const core::Report report = core::evaluate(scenario);
    const int stages = report.layout.pp;
    if (stage >= stages) throw core::InputError("--stage", "the layout has " + core::format_counted(stages, "stage", "stages") + " (0 to " + std::to_string(stages - 1) + ")");
    const int shown = stage < 0 ? report.memory.peak_stage : stage;
    const core::MemoryTimeline timeline = stages == 1 ? report.memory.timeline : core::stage_memory_timelines(scenario, report)[shown];
    const auto layer_text = [](int layer) { return layer < 0 ? std::string() : std::to_string(layer); };
    if (format == MemoryFormat::csv) {
        std::printf("stage,point,phase,microbatch,layer,allocated_bytes,reserved_bytes,state_bytes,grads_bytes,activations_bytes,transient_bytes\n");
        for (std::size_t i = 0; i < timeline.points.size(); ++i) {
            const core::TimelinePoint& p = timeline.points[i];
            std::printf("%d,%zu,%s,%d,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", shown, i, core::timeline_phase_name(p.phase), p.microbatch,
                        layer_text(p.layer).c_str(), p.allocated_bytes, p.reserved_bytes, p.state_bytes, p.grads_bytes, p.activations_bytes,
                        p.transient_bytes);
        }
        return 0;
    }
    if (format == MemoryFormat::json) {
        nlohmann::ordered_json json;
        json["stage"] = shown;
        json["peak_allocated_bytes"] = timeline.peak_allocated_bytes;
        json["peak_reserved_bytes"] = timeline.peak_reserved_bytes;
        json["hbm_bytes"] = report.memory.hbm_bytes;
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (const core::TimelinePoint& p : timeline.points) {
            points.push_back({{"phase", core::timeline_phase_name(p.phase)}, {"microbatch", p.microbatch},
                              {"layer", p.layer >= 0 ? nlohmann::ordered_json(p.layer) : nlohmann::ordered_json(nullptr)},
                              {"allocated_bytes", p.allocated_bytes}, {"reserved_bytes", p.reserved_bytes}});
            if (p.inside_op) points.back()["inside_op"] = true;  // the step's peak, inside an op between two boundaries
        }
        json["points"] = points;
        std::fputs((json.dump(2) + "\n").c_str(), stdout);
        return 0;
    }
    TextTable table;
    table.headers = {"point", "phase", "micro-batch", "layer", "allocated", "reserved"};
    table.right_aligned = {true, false, true, true, true, true};
    for (std::size_t i = 0; i < timeline.points.size(); ++i) {
        const core::TimelinePoint& p = timeline.points[i];
        const std::string phase = (p.inside_op ? std::string("inside ") : std::string()) + core::timeline_phase_name(p.phase);
        table.rows.push_back({std::to_string(i), phase, std::to_string(p.microbatch), layer_text(p.layer),
                              core::format_bytes(p.allocated_bytes), core::format_bytes(p.reserved_bytes)});
    }
    std::printf("stage %d: peak %s allocated, %s reserved, of %s HBM\n", shown, core::format_bytes(timeline.peak_allocated_bytes).c_str(),
                core::format_bytes(timeline.peak_reserved_bytes).c_str(), core::format_bytes(report.memory.hbm_bytes).c_str());
    std::fputs(table.render().c_str(), stdout);
    return 0;
}

}  // namespace app
