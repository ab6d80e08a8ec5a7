// Scaling (seed lessons 02 and 05): throughput against the GPU count as data parallelism doubles, the linear ideal beside
// it, and the step's compute and overheads per point, with the point where an overhead outgrows the compute named.
#include "core/cost/report/scaling.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "widgets/draw_helpers.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct ScalingPanelState {
    core::ScalingMode mode = core::ScalingMode::strong;  // strong: the scenario's global batch held
    std::uint64_t curve_revision = 0;   // scenario revision the curve was computed for
    core::ScalingMode curve_mode = core::ScalingMode::strong;
    bool computed = false;
    core::ScalingCurve curve;
    std::string error;                  // a curve that could not be computed, in words
};

// The curve once per scenario revision and mode: fifteen evaluations, never per frame.
const core::ScalingCurve* refresh(ScalingPanelState& state, const PanelContext& ctx) {
    if (!state.computed || state.curve_revision != ctx.scenario_revision || state.curve_mode != state.mode) {
        state.computed = true;
        state.curve_revision = ctx.scenario_revision;
        state.curve_mode = state.mode;
        state.error.clear();
        try {
            state.curve = core::scaling_curve(ctx.scenario, state.mode);
        } catch (const core::InputError& error) {
            state.curve = {};
            state.error = error.what();
        }
    }
    return state.error.empty() ? &state.curve : nullptr;
}

// Plain data for the plots: the points that have a step, feasible or not.
struct CurveSeries {
    std::vector<double> gpus, tokens, ideal, compute, dp, other_comm, bubble, stragglers;
    std::vector<double> unfit_gpus, unfit_tokens;  // modelled, but the peak exceeds HBM: drawn hollow
    std::vector<double> published_gpus, published_tokens;  // the published sweep the scenario matches, whole-cluster tokens/s
    double min_y = 0, max_y = 0, min_seconds = 0, max_seconds = 0;
};

CurveSeries series_of(const core::ScalingCurve& curve) {
    CurveSeries s;
    for (const core::ScalingPoint& point : curve.points) {
        if (point.step_seconds <= 0) continue;
        if (!point.feasible) {
            s.unfit_gpus.push_back(point.gpus);
            s.unfit_tokens.push_back(point.tokens_per_s);
            continue;
        }
        s.gpus.push_back(point.gpus);
        s.tokens.push_back(point.tokens_per_s);
        s.ideal.push_back(point.ideal_tokens_per_s);
        s.compute.push_back(point.compute_seconds);
        s.dp.push_back(point.exposed_comm_seconds[static_cast<int>(core::CommAxis::dp)]);
        double other = 0;
        for (int axis = 0; axis < core::kCommAxes; ++axis) if (axis != static_cast<int>(core::CommAxis::dp)) other += point.exposed_comm_seconds[axis];
        s.other_comm.push_back(other);
        s.bubble.push_back(point.bubble_seconds);
        s.stragglers.push_back(point.straggler_seconds);
    }
    if (curve.published) {
        for (const core::PublishedSweepPoint& point : curve.published->points) {
            s.published_gpus.push_back(point.gpus);
            s.published_tokens.push_back(point.tokens_per_s_per_gpu * point.gpus);
        }
    }
    const auto range = [](std::initializer_list<const std::vector<double>*> lists, double& lo, double& hi) {
        lo = 0, hi = 0;
        for (const std::vector<double>* list : lists) {
            for (double v : *list) {
                if (v <= 0) continue;
                lo = lo == 0 ? v : std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        if (hi <= 0) lo = 1, hi = 10;
        lo /= 2, hi *= 2;
    };
    range({&s.tokens, &s.ideal, &s.unfit_tokens, &s.published_tokens}, s.min_y, s.max_y);
    range({&s.compute, &s.dp, &s.other_comm, &s.bubble, &s.stragglers}, s.min_seconds, s.max_seconds);
    return s;
}

void draw_scaling_panel(ScalingPanelState& state, PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    int mode = state.mode == core::ScalingMode::weak ? 1 : 0;
    ImGui::RadioButton("Strong: the global batch held", &mode, 0);
    same_line_if_fits(ImGui::CalcTextSize("Weak: each replica's batch held").x + 2 * em, em);
    ImGui::RadioButton("Weak: each replica's batch held", &mode, 1);
    state.mode = mode == 1 ? core::ScalingMode::weak : core::ScalingMode::strong;
    const core::ScalingCurve* curve = refresh(state, ctx);
    if (!curve) {
        wrapped_text("No scaling curve: " + state.error);
        return;
    }
    wrapped_text(curve->sentence);
    const CurveSeries s = series_of(*curve);
    if (s.gpus.empty() && s.unfit_gpus.empty()) return;
    double first_gpus = 0, last_gpus = 0;  // the points with a modelled step: the ones drawn
    for (const core::ScalingPoint& point : curve->points) {
        if (point.step_seconds <= 0) continue;
        if (first_gpus == 0) first_gpus = point.gpus;
        last_gpus = point.gpus;
    }
    const double x_min = std::max(0.5, first_gpus / 1.5), x_max = std::max(first_gpus * 4, last_gpus * 1.5);
    const Palette& colors = palette();
    const float height = std::max(10 * em, (ImGui::GetContentRegionAvail().y - 1.0f * em) / 2);
    const core::ScalingPoint* wall = curve->wall_point >= 0 ? &curve->points[curve->wall_point] : nullptr;
    const std::string wall_label = wall ? std::string("wall: ") + core::scaling_wall_name(curve->wall) + ", " + core::format_grouped(wall->gpus) + " GPUs" : "";

    // Both plots share the GPU axis; each its own quantity.
    const auto axes_over_gpus = [&](const char* y_title, double y_min, double y_max, LegendCorner legend) {
        LogPlotAxes axes;
        axes.x_title = "GPUs";
        axes.y_title = y_title;
        axes.x_min = x_min, axes.x_max = x_max;
        axes.y_min = y_min, axes.y_max = y_max;
        axes.legend = legend;
        return axes;
    };
    if (BeginLogPlot("##scaling_throughput", ImVec2(0, height), axes_over_gpus("tokens/s (whole cluster)", s.min_y, s.max_y, LegendCorner::top_left))) {
        const int n = static_cast<int>(s.gpus.size());
        PlotLine("linear (ideal)", s.gpus.data(), s.ideal.data(), n, colors.text_dim, 0.1f, 0.4f);
        PlotLine("modelled", s.gpus.data(), s.tokens.data(), n, colors.series[0], 0.14f);
        for (int i = 0; i < n; ++i) {
            if (PlotPoint(i == 0 ? "modelled" : "##modelled", s.gpus[i], s.tokens[i], colors.series[0]) && !ctx.exporting) {
                const core::ScalingPoint* point = nullptr;
                for (const core::ScalingPoint& p : curve->points) if (p.gpus == s.gpus[i]) point = &p;
                if (point) {
                    ImGui::SetTooltip("%s GPUs: %s a step, %s MFU, %s of linear", core::format_grouped(point->gpus).c_str(),
                                      core::format_seconds(point->step_seconds).c_str(), core::format_percent(point->mfu).c_str(),
                                      core::format_percent(point->scaling_efficiency).c_str());
                }
            }
        }
        for (std::size_t i = 0; i < s.unfit_gpus.size(); ++i) {
            PlotPoint(i == 0 ? "does not fit in HBM" : "##unfit", s.unfit_gpus[i], s.unfit_tokens[i], colors.over_budget, 0.3f, MarkerShape::ring);
        }
        if (curve->published) {
            const std::string label = "published: " + curve->published->name;
            for (std::size_t i = 0; i < s.published_gpus.size(); ++i) {
                if (PlotPoint(i == 0 ? label.c_str() : "##published", s.published_gpus[i], s.published_tokens[i], colors.series[3], 0.32f,
                              MarkerShape::diamond) &&
                    !ctx.exporting) {
                    ImGui::SetTooltip("%s\n%s", curve->published->name.c_str(), curve->published->source.c_str());
                }
            }
        }
        PlotVLine("##this scenario", ctx.scenario.cluster.gpus, colors.axis, 0.06f, 0.3f);
        const std::string this_scenario = "this scenario: " + core::format_grouped(ctx.scenario.cluster.gpus) + " GPUs";
        PlotText(ctx.scenario.cluster.gpus, s.min_y * 1.3, this_scenario.c_str(), colors.text_dim, ImVec2(0.5f, 1.0f));
        if (wall) {
            PlotVLine("##wall", wall->gpus, colors.time_wall, 0.1f);
            PlotText(wall->gpus, s.max_y / 1.5, wall_label.c_str(), colors.time_wall, ImVec2(0.5f, 0.0f));
        }
        EndLogPlot();
    }

    if (BeginLogPlot("##scaling_parts", ImVec2(0, height), axes_over_gpus("seconds per step", s.min_seconds, s.max_seconds, LegendCorner::top_right))) {
        const int n = static_cast<int>(s.gpus.size());
        PlotLine("compute", s.gpus.data(), s.compute.data(), n, colors.compute, 0.14f);
        PlotLine("exposed DP", s.gpus.data(), s.dp.data(), n, colors.infiniband, 0.14f, 0.5f);
        // A part that is zero at every point has no line on a log axis, and no legend entry.
        const auto any = [](const std::vector<double>& values) { return std::any_of(values.begin(), values.end(), [](double v) { return v > 0; }); };
        if (any(s.other_comm)) PlotLine("other exposed comm", s.gpus.data(), s.other_comm.data(), n, colors.nvlink, 0.1f, 0.25f);
        if (any(s.bubble)) PlotLine("pipeline bubble", s.gpus.data(), s.bubble.data(), n, colors.idle, 0.1f, 0.15f);
        if (any(s.stragglers)) PlotLine("waiting for stragglers", s.gpus.data(), s.stragglers.data(), n, colors.warning, 0.1f, 0.8f);
        for (int i = 0; i < n; ++i) {
            PlotPoint("##compute", s.gpus[i], s.compute[i], colors.compute, 0.22f, MarkerShape::circle);
            PlotPoint("##dp", s.gpus[i], s.dp[i], colors.infiniband, 0.22f, MarkerShape::square);
        }
        if (wall) PlotVLine("##wall", wall->gpus, colors.time_wall, 0.1f);
        EndLogPlot();
    }
}

}  // namespace

PanelDef make_scaling_panel() {
    auto state = std::make_shared<ScalingPanelState>();
    return {"scaling", "Scaling: adding GPUs", [state](PanelContext& ctx) { draw_scaling_panel(*state, ctx); }, "Scaling"};
}

}  // namespace widgets
