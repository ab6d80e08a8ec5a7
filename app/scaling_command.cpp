#include "app/scaling_command.h"

#include "core/model/format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace app {
namespace {

const char* const kAxisKeys[] = {"tp", "cp", "pp", "dp", "ep"};

nlohmann::ordered_json point_json(const core::ScalingPoint& point) {
    nlohmann::ordered_json out;
    out["gpus"] = point.gpus;
    out["dp"] = point.dp;
    out["micro_batch"] = point.micro_batch;
    out["global_batch"] = point.global_batch;
    out["feasible"] = point.feasible;
    if (!point.reason.empty()) out["reason"] = point.reason;
    if (point.step_seconds <= 0) return out;
    out["fits"] = point.fits;
    out["step_seconds"] = point.step_seconds;
    out["mfu"] = point.mfu;
    out["tokens_per_s"] = point.tokens_per_s;
    out["tokens_per_s_per_gpu"] = point.tokens_per_s_per_gpu;
    out["ideal_tokens_per_s"] = point.ideal_tokens_per_s;
    out["scaling_efficiency"] = point.scaling_efficiency;
    out["compute_seconds"] = point.compute_seconds;
    nlohmann::ordered_json exposed;
    for (int axis = 0; axis < core::kCommAxes; ++axis) exposed[kAxisKeys[axis]] = point.exposed_comm_seconds[axis];
    out["exposed_comm_seconds"] = exposed;
    out["bubble_seconds"] = point.bubble_seconds;
    out["straggler_seconds"] = point.straggler_seconds;
    out["host_seconds"] = point.host_seconds;
    out["largest_overhead"] = core::scaling_wall_name(point.largest_overhead);
    out["largest_overhead_seconds"] = point.largest_overhead_seconds;
    return out;
}

std::vector<std::string> point_cells(const core::ScalingPoint& point, bool exact) {
    const auto number = [&](double value, const std::string& shown) { return exact ? exact_number(value) : shown; };
    std::vector<std::string> cells = {exact ? std::to_string(point.gpus) : core::format_grouped(point.gpus), std::to_string(point.dp),
                                      point.micro_batch > 0 ? std::to_string(point.micro_batch) : "", std::to_string(point.global_batch)};
    if (point.step_seconds <= 0) {
        cells.insert(cells.end(), {"", "", "", "", "", "", "", point.reason});
        return cells;
    }
    cells.push_back(number(point.step_seconds, core::format_seconds(point.step_seconds)));
    cells.push_back(number(point.mfu, core::format_percent(point.mfu)));
    cells.push_back(number(point.tokens_per_s_per_gpu, core::format_number(point.tokens_per_s_per_gpu)));
    cells.push_back(point.feasible ? number(point.scaling_efficiency, core::format_percent(point.scaling_efficiency)) : "");
    cells.push_back(number(point.compute_seconds, core::format_seconds(point.compute_seconds)));
    cells.push_back(number(point.exposed_comm_seconds[static_cast<int>(core::CommAxis::dp)],
                           core::format_seconds(point.exposed_comm_seconds[static_cast<int>(core::CommAxis::dp)])));
    cells.push_back(point.largest_overhead == core::ScalingWall::none ? "none"
                                                                      : std::string(core::scaling_wall_name(point.largest_overhead)) + " " +
                                                                            core::format_seconds(point.largest_overhead_seconds));
    cells.push_back(point.reason);
    return cells;
}

}  // namespace

int run_scaling(const core::Scenario& scenario, core::ScalingMode mode, int max_gpus, OutputFormat format) {
    const core::ScalingCurve curve = core::scaling_curve(scenario, mode, max_gpus);
    if (format == OutputFormat::json) {
        nlohmann::ordered_json out;
        out["mode"] = core::scaling_mode_name(curve.mode);
        out["model_parallel_gpus"] = curve.model_parallel_gpus;
        if (mode == core::ScalingMode::weak) out["per_replica_batch"] = curve.per_replica_batch;
        out["sentence"] = curve.sentence;
        out["wall"] = core::scaling_wall_name(curve.wall);
        out["wall_gpus"] = curve.wall_point >= 0 ? nlohmann::ordered_json(curve.points[curve.wall_point].gpus) : nlohmann::ordered_json();
        if (curve.published) {
            nlohmann::ordered_json published;
            published["name"] = curve.published->name;
            published["source"] = curve.published->source;
            published["points"] = nlohmann::ordered_json::array();
            for (const core::PublishedSweepPoint& point : curve.published->points) {
                published["points"].push_back({{"gpus", point.gpus}, {"tokens_per_s_per_gpu", point.tokens_per_s_per_gpu}});
            }
            out["published"] = published;
        }
        out["points"] = nlohmann::ordered_json::array();
        for (const core::ScalingPoint& point : curve.points) out["points"].push_back(point_json(point));
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    const std::vector<std::string> headers = {"gpus", "dp", "micro_batch", "global_batch", "step", "mfu", "tokens_per_s_per_gpu",
                                              "of_linear", "compute", "exposed_dp", "largest_overhead", "note"};
    if (format == OutputFormat::csv) {
        std::string text = csv_record(headers);
        for (const core::ScalingPoint& point : curve.points) text += csv_record(point_cells(point, true));
        std::fputs(text.c_str(), stdout);
        return 0;
    }
    TextTable table;
    table.headers = {"GPUs", "DP", "micro", "batch", "step", "MFU", "tokens/s/GPU", "of linear", "compute", "exposed DP", "largest overhead", "note"};
    table.right_aligned = {true, true, true, true, true, true, true, true, true, true, false, false};
    for (const core::ScalingPoint& point : curve.points) table.rows.push_back(point_cells(point, false));
    std::printf("%s\n%s", curve.sentence.c_str(), table.render().c_str());
    if (curve.published) {
        std::string published = "Published beside it: " + curve.published->name + ":";
        for (const core::PublishedSweepPoint& point : curve.published->points) {
            published += " " + core::format_grouped(point.gpus) + " GPUs " + core::format_number(point.tokens_per_s_per_gpu) + " tokens/s/GPU;";
        }
        published.back() = '.';
        std::printf("%s\n", published.c_str());
    }
    return 0;
}

}  // namespace app
