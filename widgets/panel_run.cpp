// A long run ("at that scale something is always broken"): the whole training run simulated with its
// failures, checkpoints and restarts (core/cost/report/run_simulation.h), drawn as a timeline of days, each day split
// into useful training, checkpoint stalls, lost work, restarts, waits for a node and drained replicas, with the
// controls that change it beside it. The days fill in with the playback time t.
#include "core/cost/report/evaluate.h"
#include "core/cost/report/run_simulation.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"
#include "widgets/transport.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct RunPanelState {
    double seconds_per_day = 0.25;   // playback time one day of the run takes on screen
    std::uint64_t revision = 0;      // scenario revision the run was simulated for
    bool computed = false;
    core::RunView view;
    std::string error;               // a run that could not be simulated, in words
};

// The run once per scenario revision: 101 simulations, never per frame.
bool refresh(RunPanelState& state, const PanelContext& ctx) {
    if (state.computed && state.revision == ctx.scenario_revision) return state.error.empty();
    state.computed = true;
    state.revision = ctx.scenario_revision;
    state.error.clear();
    try {
        state.view = core::run_view(ctx.scenario, ctx.report);
    } catch (const core::InputError& error) {
        state.error = error.what();
    }
    return state.error.empty();
}

// Each activity's colour and its fill pattern, so no category is told by colour alone.
enum class Fill { solid, diagonal, cross, horizontal, vertical, dots };
struct ActivityStyle {
    core::RunActivity activity;
    Fill fill;
};
// Bottom to top in a day's bar: the useful share first, what was lost above it.
constexpr ActivityStyle kStyles[] = {{core::RunActivity::training, Fill::solid},      {core::RunActivity::checkpoint, Fill::horizontal},
                                     {core::RunActivity::drained, Fill::dots},        {core::RunActivity::lost_work, Fill::cross},
                                     {core::RunActivity::waiting, Fill::vertical},    {core::RunActivity::restart, Fill::diagonal}};

ImU32 activity_color(core::RunActivity activity) {
    const Palette& colors = palette();
    switch (activity) {
        case core::RunActivity::training: return colors.compute;
        case core::RunActivity::checkpoint: return colors.series[1];
        case core::RunActivity::lost_work: return colors.over_budget;
        case core::RunActivity::restart: return colors.series[3];
        case core::RunActivity::waiting: return colors.series[4];
        case core::RunActivity::drained: return colors.series[5];
    }
    return colors.compute;
}

// A rectangle in its activity's colour, faint, with the pattern's lines in full colour over it.
void fill_rect(ImDrawList* draw, ImVec2 min, ImVec2 max, ImU32 color, Fill fill, float em) {
    if (max.x - min.x < 0.5f || max.y - min.y < 0.5f) return;
    if (fill == Fill::solid) {
        draw->AddRectFilled(min, max, color);
        return;
    }
    draw->AddRectFilled(min, max, with_alpha(color, 0.35f));
    draw->PushClipRect(min, max, true);
    const float gap = std::max(3.0f, em * 0.35f);
    const float thickness = std::max(1.0f, em * 0.08f);
    const float width = max.x - min.x, height = max.y - min.y;
    switch (fill) {
        case Fill::horizontal:
            for (float y = min.y + gap * 0.5f; y < max.y; y += gap) draw->AddLine(ImVec2(min.x, y), ImVec2(max.x, y), color, thickness);
            break;
        case Fill::vertical:
            for (float x = min.x + gap * 0.5f; x < max.x; x += gap) draw->AddLine(ImVec2(x, min.y), ImVec2(x, max.y), color, thickness);
            break;
        case Fill::diagonal:
        case Fill::cross:
            for (float d = -height; d < width; d += gap) {
                draw->AddLine(ImVec2(min.x + d, max.y), ImVec2(min.x + d + height, min.y), color, thickness);
                if (fill == Fill::cross) draw->AddLine(ImVec2(min.x + d, min.y), ImVec2(min.x + d + height, max.y), color, thickness);
            }
            break;
        case Fill::dots:
            for (float y = min.y + gap * 0.5f; y < max.y; y += gap) {
                for (float x = min.x + gap * 0.5f; x < max.x; x += gap) draw->AddCircleFilled(ImVec2(x, y), thickness * 1.2f, color);
            }
            break;
        case Fill::solid: break;
    }
    draw->PopClipRect();
}

void draw_controls(PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    section_heading("Failures and recovery");
    failure_table_combo("Failures", ctx.scenario, ctx.feedback);
    checkpoint_mode_combo("Checkpoints", ctx.scenario, ctx.feedback);
    checkpoint_interval_input("Every (min)", ctx.scenario, ctx.feedback);
    restart_input("Restart (min)", ctx.scenario, ctx.feedback);
    spare_nodes_input("Spares", ctx.scenario, ctx.feedback);
    repair_hours_input("Repair (h)", ctx.scenario, ctx.feedback);
    elastic_checkbox("Elastic: shrink, not wait", ctx.scenario, ctx.feedback);
    ImGui::Spacing();
    section_heading("Simulation");
    window_days_input("Window (days)", ctx.scenario, ctx.feedback);
    run_seed_input("Seed", ctx.scenario, ctx.feedback);
    ImGui::Dummy(ImVec2(0, em * 0.2f));
}

void draw_days(const RunPanelState& state, PanelContext& ctx, int shown_days, float height) {
    const float em = ImGui::GetFontSize();
    const Palette& colors = palette();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float left = origin.x + em * 3.2f, right = origin.x + width - em * 0.5f;
    const float top = origin.y + em * 0.4f, bottom = origin.y + height - em * 2.7f;
    ImGui::Dummy(ImVec2(width, height));
    const int day_count = std::max<int>(1, static_cast<int>(state.view.days.size()));
    // A bar at least a third of an em wide: a run of years is drawn a week or a month to a bar.
    const int days_per_bar = std::max(1, static_cast<int>(std::ceil(day_count * em * 0.35f / std::max(1.0f, right - left))));
    const std::vector<core::RunDay> bars = core::binned_days(state.view.days, days_per_bar);
    const float day_width = (right - left) / day_count;
    // The share axis: 0 to 100 % of each day.
    for (int percent = 0; percent <= 100; percent += 25) {
        const float y = bottom - (bottom - top) * percent / 100.0f;
        draw->AddLine(ImVec2(left, y), ImVec2(right, y), colors.grid);
        const std::string label = std::to_string(percent) + " %";
        draw->AddText(ImVec2(left - ImGui::CalcTextSize(label.c_str()).x - em * 0.3f, y - em * 0.5f), colors.text_dim, label.c_str());
    }
    for (int bar = 0; bar < static_cast<int>(bars.size()) && bar * days_per_bar < shown_days; ++bar) {
        const int first_day = bar * days_per_bar, end_day = std::min(day_count, first_day + days_per_bar);
        float y = bottom;
        const float x0 = left + first_day * day_width + 1.0f, x1 = left + end_day * day_width;
        for (const ActivityStyle& style : kStyles) {
            const float share = static_cast<float>(bars[bar].activity_share[static_cast<int>(style.activity)]);
            const float y_top = y - (bottom - top) * share;
            fill_rect(draw, ImVec2(x0, y_top), ImVec2(x1, y), activity_color(style.activity), style.fill, em);
            y = y_top;
        }
        if (!ctx.exporting && ImGui::IsMouseHoveringRect(ImVec2(x0, top), ImVec2(x1, bottom))) {
            std::string tip = days_per_bar == 1 ? "Day " + std::to_string(first_day + 1) : "Days " + std::to_string(first_day + 1) + " to " + std::to_string(end_day);
            for (const ActivityStyle& style : kStyles) {
                const double share = bars[bar].activity_share[static_cast<int>(style.activity)];
                if (share > 0) tip += std::string("\n") + core::run_activity_name(style.activity) + ": " + core::format_percent(share);
            }
            ImGui::SetTooltip("%s", tip.c_str());
        }
    }
    add_axis_line(draw, ImVec2(left, bottom), ImVec2(right, bottom), colors.axis);
    for (double tick : linear_ticks(0, day_count, std::max(2.0, (right - left) / (em * 4.0)))) {
        const float x = left + static_cast<float>(tick) * day_width;
        const std::string label = tick_label(tick, 1);
        draw->AddLine(ImVec2(x, bottom), ImVec2(x, bottom + em * 0.3f), colors.axis);
        draw->AddText(ImVec2(x - ImGui::CalcTextSize(label.c_str()).x * 0.5f, bottom + em * 0.3f), colors.text_dim, label.c_str());
    }
    const std::string title = days_per_bar == 1 ? std::string("day of the run (wall clock), one bar a day")
                                                : "day of the run (wall clock), one bar per " + std::to_string(days_per_bar) + " days";
    draw->AddText(ImVec2(right - ImGui::CalcTextSize(title.c_str()).x, bottom + em * 1.45f), colors.text_dim, title.c_str());
}

void draw_legend(float em) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    bool first = true;
    for (const ActivityStyle& style : kStyles) {
        const char* name = core::run_activity_name(style.activity);
        const float item = em * 1.3f + ImGui::CalcTextSize(name).x;
        if (!first) same_line_if_fits(item, em * 0.8f);
        first = false;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        fill_rect(draw, ImVec2(at.x, at.y + em * 0.1f), ImVec2(at.x + em * 0.9f, at.y + em), activity_color(style.activity), style.fill, em);
        ImGui::Dummy(ImVec2(em * 1.1f, em));
        ImGui::SameLine(0, em * 0.2f);
        ImGui::TextUnformatted(name);
    }
}

int figure_columns(float em) { return ImGui::GetContentRegionAvail().x > em * 38 ? 2 : 1; }

void draw_figures(const RunPanelState& state, float em) {
    const int columns = figure_columns(em);
    if (!ImGui::BeginTable("run_figures", columns * 2, ImGuiTableFlags_SizingFixedFit)) return;
    for (std::size_t i = 0; i < state.view.figures.size(); ++i) {
        if (i % columns == 0) ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(color4(palette().text_dim), "%s", state.view.figures[i].label.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(state.view.figures[i].value.c_str());
    }
    ImGui::EndTable();
}

void draw_run_panel(RunPanelState& state, PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    const bool ok = refresh(state, ctx);
    const int day_count = ok ? static_cast<int>(state.view.days.size()) : 0;
    ctx.playback.set_timeline({day_count * state.seconds_per_day, state.seconds_per_day, false, true});
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const bool controls = !figure_mode();
    const ColumnSplit split = split_columns(avail.x, 0.3f, em * 17.0f, em * 21.0f, em * 22.0f);
    if (controls && split.side_by_side) {
        ImGui::BeginChild("run_controls", ImVec2(split.first_width, avail.y), false);
        ImGui::PushItemWidth(-em * 7.5f);
        draw_controls(ctx);
        ImGui::PopItemWidth();
        ImGui::EndChild();
        ImGui::SameLine();
    }
    ImGui::BeginChild("run_figure", ImVec2(0, controls && split.side_by_side ? avail.y : 0), false);
    if (controls && !split.side_by_side) {
        ImGui::PushItemWidth(std::min(ImGui::GetContentRegionAvail().x - em * 7.5f, em * 16.0f));
        draw_controls(ctx);
        ImGui::PopItemWidth();
    }
    if (!ok) {
        wrapped_text("No simulated run: " + state.error);
        ImGui::EndChild();
        return;
    }
    draw_transport(ctx.playback);
    const double t_seconds = std::isfinite(ctx.playback.t_seconds) ? std::max(0.0, ctx.playback.t_seconds) : 0.0;
    const int shown_days = static_cast<int>(std::ceil(t_seconds / state.seconds_per_day - 1e-9));
    wrapped_text(state.view.sentence);
    draw_legend(em);
    const int columns = figure_columns(em);
    const int rows = static_cast<int>((state.view.figures.size() + columns - 1) / columns);
    const float figures_height = ImGui::GetTextLineHeightWithSpacing() * (rows + 2.3f) + ImGui::GetStyle().ItemSpacing.y;
    const float height = std::max(em * 9.0f, ImGui::GetContentRegionAvail().y - figures_height);
    draw_days(state, ctx, shown_days, height);
    draw_figures(state, em);
    dim_text("Failure table: " + state.view.plan.table.name + ".");
    if (!ctx.exporting) explain_last_item(state.view.plan.table.source);
    ImGui::EndChild();
}

}  // namespace

PanelDef make_run_panel() {
    auto state = std::make_shared<RunPanelState>();
    return {"run", "A long run: failures and restarts", [state](PanelContext& ctx) { draw_run_panel(*state, ctx); }, "Run"};
}

}  // namespace widgets
