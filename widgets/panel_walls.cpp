// The three walls: one model-size slider; how full the memory, time and serving budgets are; the wall
// that binds and where it sends you; and how each wall's fraction scales with the model size.
#include "core/model/layout.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/cost/serving/serving_text.h"
#include "core/lessons/walls.h"
#include "widgets/controls.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/stacked_bar.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

namespace widgets {
namespace {

struct WallsPanelOptions {
    double min_params = 1e8;         // the slider's range: the seed's 100M (or a smaller scenario's decade) ..
    double max_params = 2e12;        // .. 2T parameters
    int curve_points = 33;           // model sizes evaluated for the scaling plot (8 per decade)
    double overflow_decades = 3;     // a bar's red overflow zone shows 100 % .. 1000x on a log scale
};

struct WallsPanelState {
    WallsPanelOptions options;
    double params = 0;               // the slider; follows the scenario's size whenever that changes
    double followed_params = 0;      // the scenario size the slider last followed
    std::string evaluated_key;       // scenario revision + slider value the walls were evaluated for
    core::WallsReport walls;
    bool at_scenario_size = false;   // the walls are the scenario's own model, not a bare count
    std::string walls_error;
    std::uint64_t curves_revision = 0;  // scenario revision the curves were computed for
    core::WallCurves curves;
    std::string curves_error;
    std::uint64_t baseline_revision = 0;  // the pinned baseline its walls were taken for
    std::optional<core::WallsReport> baseline_walls;  // the baseline's walls, at its own size
};

// The pinned baseline's walls, taken once per baseline; drawn only while the walls are the scenario's own size.
const core::WallsReport* baseline_walls(WallsPanelState& state, const PanelContext& ctx) {
    if (!ctx.baseline || !state.at_scenario_size) return nullptr;
    if (state.baseline_revision != ctx.baseline->revision) {
        state.baseline_revision = ctx.baseline->revision;
        state.baseline_walls.reset();
        try {
            state.baseline_walls = core::walls_of(*ctx.baseline->scenario, *ctx.baseline->report);
        } catch (const core::InputError&) {
        }
    }
    return state.baseline_walls ? &*state.baseline_walls : nullptr;
}

ImU32 wall_color(core::WallKind kind) {
    const Palette& colors = palette();
    switch (kind) {
        case core::WallKind::memory: return colors.memory_wall;
        case core::WallKind::time: return colors.time_wall;
        case core::WallKind::serving: return colors.serving_wall;
    }
    return colors.text;
}

// Re-evaluates only when the scenario or the slider moved: evaluate() generates a pipeline schedule.
void refresh(WallsPanelState& state, const core::Scenario& scenario, const core::Report& report, std::uint64_t revision) {
    if (report.memory.params != state.followed_params) {
        state.followed_params = report.memory.params;
        state.options.min_params = core::size_slider_min(report.memory.params);
        state.curves_revision = 0;  // the curves span the new range
        state.params = std::clamp(report.memory.params, state.options.min_params, state.options.max_params);
    }
    const std::string key = std::to_string(revision) + "@" + std::to_string(state.params);
    if (key != state.evaluated_key) {
        state.evaluated_key = key;
        state.walls_error.clear();
        try {
            // At the scenario's own size its own model (GQA, gated MLP ...) answers, so this panel agrees with the others.
            state.at_scenario_size = state.params == report.memory.params;
            state.walls = state.at_scenario_size ? core::walls_of(scenario, report) : core::walls_at(scenario, state.params);
        } catch (const core::InputError& error) {
            state.walls_error = error.what();
        }
    }
    if (revision != state.curves_revision) {
        state.curves_revision = revision;
        state.curves_error.clear();
        try {
            // 8 points per decade, as many decades as the range spans
            const int points = 1 + static_cast<int>(std::ceil(8.0 * std::log10(state.options.max_params / state.options.min_params)));
            state.curves = core::wall_curves(scenario, state.options.min_params, state.options.max_params, std::max(state.options.curve_points, points));
        } catch (const core::InputError& error) {
            state.curves = {};
            state.curves_error = "No scaling lines: " + error.reason() + ".";  // a sentence for the reader, not the function's name
        }
    }
}

void draw_slider(WallsPanelState& state, const core::Scenario& scenario, const core::Report& report) {
    const float em = ImGui::GetFontSize();
    ImGui::PushFont(fonts().bold);
    ImGui::TextUnformatted("Model size");
    ImGui::PopFont();
    ImGui::SameLine();
    if (figure_mode()) {
        ImGui::Text("%s parameters", core::format_count(state.at_scenario_size ? report.memory.params : state.walls.params).c_str());
    } else {
    const float button_width = ImGui::CalcTextSize("Scenario's size").x + em * 1.5f;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - button_width - ImGui::GetStyle().ItemSpacing.x);
    const std::string shown = core::format_count(state.params) + " parameters";
    // The family's smallest member bounds the slider (a 128K-token vocabulary alone is hundreds of millions of parameters).
    const double slider_min = state.curves.params.empty() ? state.options.min_params : std::max(state.options.min_params, state.curves.params.front());
    slider_double("##model size", &state.params, slider_min, state.options.max_params, shown.c_str(),
                  ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    explain_last_item("The scenario's model grown or shrunk to this size (head size, attention groups, MLP ratio and vocabulary kept; "
                      "width and depth scaled together), evaluated on the scenario's cluster, layout, recipe, token budget and service.");
    ImGui::SameLine();
    if (ImGui::Button("Scenario's size", ImVec2(button_width, 0))) {
        state.params = std::clamp(report.memory.params, state.options.min_params, state.options.max_params);
    }
    explain_last_item("Back to " + core::format_count(report.memory.params) + " parameters, the scenario's model (" + scenario.model.name + ").");
    }
    const core::LayoutReport& layout = report.layout;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    const std::string model = state.at_scenario_size
                                  ? scenario.model.name + ", the scenario's model"
                                  : scenario.model.name + " scaled to " + core::format_count(state.walls.params) + " parameters";
    wrapped_textf(scenario.serving.asked ? "%s, on %s x %s (%s), %s, %s tokens by a %s-day deadline; serving %s."
                                         : "%s, on %s x %s (%s), %s, %s tokens by a %s-day deadline; no service asked (the serving wall "
                                           "shows %s for comparison).",
                  model.c_str(), core::format_grouped(layout.gpus).c_str(), scenario.cluster.gpu.name.c_str(), core::layout_label(core::layout_of(scenario)).c_str(),
                  scenario.precision.name.c_str(),
                  core::format_count(scenario.train.tokens).c_str(), core::format_number(scenario.train.deadline_days).c_str(),
                  core::serving_text(scenario, report.serving).load.c_str());
    ImGui::PopStyleColor();
}

// A track: 0..100 % linear over the first part, then 100 % .. 10^overflow_decades x on a log scale, red.
struct Track {
    float x0, x1, y0, y1;
    float budget_x;         // where 100 % sits
    double overflow_decades;
    float x_of(double fraction) const {
        if (!(fraction > 0)) return x0;
        if (fraction <= 1.0) return x0 + (budget_x - x0) * static_cast<float>(fraction);
        const double share = std::min(1.0, std::log10(fraction) / overflow_decades);
        return budget_x + (x1 - budget_x) * static_cast<float>(share);
    }
};

void draw_track(ImDrawList* draw, const Track& track, const core::Wall& wall, bool binding, float em, const core::Wall* baseline) {
    const Palette& colors = palette();
    const float rounding = em * 0.3f;
    draw->AddRectFilled(ImVec2(track.x0, track.y0), ImVec2(track.budget_x, track.y1), colors.idle, rounding, ImDrawFlags_RoundCornersLeft);
    draw->AddRectFilled(ImVec2(track.budget_x, track.y0), ImVec2(track.x1, track.y1), with_alpha(colors.over_budget, 0.12f), rounding,
                        ImDrawFlags_RoundCornersRight);
    const ImU32 fill = wall.over ? colors.over_budget : wall_color(wall.kind);
    const float end_x = track.x_of(wall.fraction);
    if (end_x > track.x0 + 1.0f) draw->AddRectFilled(ImVec2(track.x0, track.y0), ImVec2(end_x, track.y1), fill, rounding);
    // The seed's ball rides the end of the bar.
    const float middle = (track.y0 + track.y1) * 0.5f;
    draw->AddCircleFilled(ImVec2(end_x, middle), (track.y1 - track.y0) * 0.42f, colors.text);
    draw->AddCircleFilled(ImVec2(end_x, middle), (track.y1 - track.y0) * 0.30f, fill);
    // Where the baseline's ball was, and the trail from it to this one.
    if (baseline) add_trail(draw, ImVec2(track.x_of(baseline->fraction), middle), ImVec2(end_x, middle), colors.text, em);
    // Ticks: 0, 50 %, the budget, then each decade of overflow; a label that would touch the one before it is left out
    // (its tick stays), so a short track reads "100 %  100x" rather than "100 %10x 100x".
    float labels_end = -FLT_MAX;
    auto tick = [&](double fraction, const char* text, bool strong) {
        const float x = track.x_of(fraction);
        draw->AddLine(ImVec2(x, track.y0 - em * (strong ? 0.35f : 0.15f)), ImVec2(x, track.y1 + em * 0.15f),
                      strong ? colors.text : colors.axis, em * (strong ? 0.14f : 0.06f));
        const ImVec2 size = ImGui::CalcTextSize(text);
        const float left = std::max(x - size.x * 0.5f, track.x0);  // "0" starts where the track does
        if (left < labels_end + em * 0.4f || left + size.x > track.x1 + em * 1.5f) return;
        draw->AddText(ImVec2(left, track.y1 + em * 0.2f), strong ? colors.text : colors.text_dim, text);
        labels_end = left + size.x;
    };
    tick(0.0, "0", false);
    tick(0.5, "50 %", false);
    tick(1.0, "100 %", true);
    for (int decade = 1; decade <= static_cast<int>(track.overflow_decades); ++decade) {
        const std::string text = std::to_string(std::lround(std::pow(10.0, decade))) + "x";
        tick(std::pow(10.0, decade), text.c_str(), false);
    }
    if (binding) draw->AddRect(ImVec2(track.x0 - em * 0.25f, track.y0 - em * 0.25f), ImVec2(track.x1 + em * 0.25f, track.y1 + em * 0.25f),
                               wall.over ? colors.over_budget : colors.text_dim, rounding, 0, em * 0.1f);
}

void draw_walls(const WallsPanelState& state, bool hover_enabled, const core::WallsReport* baseline) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const core::WallsReport& walls = state.walls;
    const float width = ImGui::GetContentRegionAvail().x;
    // A narrow panel (beside the sidebar, zoomed) puts each wall's question above its track rather than beside it.
    const bool question_above = width < em * 40.0f;
    const float label_width = question_above ? 0.0f : em * 13.0f;
    const float value_width = em * 10.5f;
    float question_height = 0.0f;
    for (const core::Wall& wall : walls.walls)
        if (question_above) question_height = std::max(question_height, wrapped_text_size(wall.question, width).y + em * 0.2f);
    // The used figure against the budget under each track, on two lines where one does not hold it.
    bool used_wraps = false;
    for (const core::Wall& wall : walls.walls) {
        const std::string used_short = wall.used_text.substr(0, wall.used_text.find(" (")) + "  /  " + wall.budget_text;
        used_wraps = used_wraps || ImGui::CalcTextSize(used_short.c_str()).x > width - label_width - value_width;
    }
    const float row_height = em * (used_wraps ? 5.9f : 4.8f) + question_height + (question_above ? em * 1.7f : 0.0f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, row_height * core::wall_count));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (int i = 0; i < core::wall_count; ++i) {
        const core::Wall& wall = walls.walls[i];
        const bool binding = i == walls.binding;
        const float top = origin.y + row_height * i;
        ImFont* large = fonts().large;
        draw->AddText(large, large->FontSize, ImVec2(origin.x, top), wall_color(wall.kind), wall.title.c_str());
        // The binding wall is tagged; a serving wall the scenario does not ask about says so, and is no verdict.
        const char* tag = binding ? (wall.over ? "binds" : "closest") : !wall.asked ? "not asked" : nullptr;
        if (tag) {
            const float tag_x = origin.x + large->CalcTextSizeA(large->FontSize, FLT_MAX, 0, wall.title.c_str()).x + em * 0.6f;
            ImFont* bold = fonts().bold;  // measured in the font it is drawn in, or the bold tag runs past its box
            const ImVec2 tag_size = bold->CalcTextSizeA(bold->FontSize, FLT_MAX, 0, tag);
            const ImU32 tag_color = binding && wall.over ? colors.over_budget : colors.text_dim;
            draw->AddRectFilled(ImVec2(tag_x, top + em * 0.3f), ImVec2(tag_x + tag_size.x + em * 0.8f, top + em * 0.3f + tag_size.y + em * 0.2f),
                                tag_color, em * 0.3f);
            draw->AddText(bold, bold->FontSize, ImVec2(tag_x + em * 0.4f, top + em * 0.4f), colors.panel_background, tag);
        }
        if (question_above) {
            add_wrapped_text(draw, ImGui::GetFont(), em, ImVec2(origin.x, top + large->FontSize + em * 0.1f), colors.text_dim, wall.question,
                             width);
        } else {
            draw->PushClipRect(ImVec2(origin.x, top), ImVec2(origin.x + label_width - em * 0.5f, top + row_height), true);
            add_wrapped_text(draw, ImGui::GetFont(), em, ImVec2(origin.x, top + large->FontSize + em * 0.1f), colors.text_dim, wall.question,
                             label_width - em * 1.0f);
            draw->PopClipRect();
        }
        const float track_top = question_above ? top + large->FontSize + question_height + em * 0.6f : top + em * 0.5f;
        Track track{origin.x + label_width, origin.x + width - value_width, track_top, track_top + em * 1.4f, 0,
                    state.options.overflow_decades};
        track.budget_x = track.x0 + (track.x1 - track.x0) * 0.6f;
        const core::Wall* baseline_wall = baseline ? &baseline->walls[i] : nullptr;
        draw_track(draw, track, wall, binding, em, baseline_wall);
        // Used against budget under the track; narrow, the used figure drops its parenthesis ("(10.0 QPS x 256 tokens)").
        const std::string used_line = wall.used_text + "  /  " + wall.budget_text;
        const std::string used_short = wall.used_text.substr(0, wall.used_text.find(" (")) + "  /  " + wall.budget_text;
        const float used_width = track.x1 - track.x0;
        const std::string shown = ImGui::CalcTextSize(used_line.c_str()).x <= used_width ? used_line : used_short;
        add_wrapped_text(draw, ImGui::GetFont(), em, ImVec2(track.x0, track.y1 + em * 1.35f), colors.text, shown, used_width);

        const float value_x = track.x1 + em * 2.2f;
        const float value_top = track.y0 - em * 0.3f;
        draw->AddText(large, large->FontSize, ImVec2(value_x, value_top), wall.over ? colors.over_budget : colors.within_budget,
                      wall.fraction_text.c_str());
        if (baseline_wall) {
            // The change in points under the fraction, in place of "of its budget".
            const core::FigureComparison change = core::compare_figure(wall.title, baseline_wall->fraction, wall.fraction, core::FigureUnit::fraction);
            ImGui::PushFont(fonts().bold);
            const std::string shown_change = fit_variant({change.change + " vs baseline", change.change}, origin.x + width - value_x);
            ImGui::PopFont();
            add_change_label(draw, ImVec2(value_x, value_top + em * 0.2f + large->FontSize), shown_change, colors.text);
        } else {
            draw->AddText(ImVec2(value_x, value_top + em * 0.2f + large->FontSize), colors.text_dim, "of its budget");
        }

        const bool hovered = hover_enabled && mouse.x >= origin.x && mouse.x < origin.x + width && mouse.y >= top &&
                             mouse.y < top + row_height;
        if (hovered) area_tooltip(wall.formula, i == 1 ? "Kaplan et al. 2020 (6 N D)" : nullptr);
    }
}

void draw_verdict(const core::WallsReport& walls) {
    const Palette& colors = palette();
    ImGui::PushFont(fonts().large);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(walls.any_over ? colors.over_budget : colors.within_budget));
    wrapped_text(walls.summary);
    ImGui::PopStyleColor();
    ImGui::PopFont();
    if (walls.verdict_row >= 0) {
        const core::WallVerdict& verdict = core::where_each_wall_sends_you()[walls.verdict_row];
        figure("Symptom:", verdict.symptom);
        ImGui::PushFont(fonts().bold);
        figure("First response:", verdict.first_response);
        ImGui::PopFont();
    } else {
        wrapped_text(walls.within_text);
    }
    ImGui::Spacing();

    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg;
    if (!ImGui::BeginTable("where_each_wall_sends_you", 3, flags)) return;
    ImGui::TableSetupColumn("Wall", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("Symptom", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("First response", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableHeadersRow();
    const auto& rows = core::where_each_wall_sends_you();
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const bool chosen = i == walls.verdict_row;
        ImGui::TableNextRow();
        if (chosen) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, with_alpha(colors.over_budget, 0.35f));
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(chosen ? colors.text : colors.text_dim));
        if (chosen) ImGui::PushFont(fonts().bold);
        ImGui::TableNextColumn();
        wrapped_text(rows[i].wall);
        ImGui::TableNextColumn();
        wrapped_text(rows[i].symptom);
        ImGui::TableNextColumn();
        wrapped_text(rows[i].first_response);
        if (chosen) ImGui::PopFont();
        ImGui::PopStyleColor();
    }
    ImGui::EndTable();
}

void draw_curves(const WallsPanelState& state, ImVec2 size, const core::WallsReport* baseline, double baseline_params) {
    const core::WallCurves& curves = state.curves;
    if (curves.params.empty()) return;
    double low = 1.0, high = 1.0;
    for (const auto& fractions : curves.fractions) {
        for (double fraction : fractions) {
            if (!(fraction > 0) || !std::isfinite(fraction)) continue;
            low = std::min(low, fraction);
            high = std::max(high, fraction);
        }
    }
    LogPlotAxes axes;
    axes.x_title = "model size (parameters)";
    axes.y_title = "used / budget (1 = 100 %)";
    axes.x_min = state.options.min_params;
    axes.x_max = state.options.max_params;
    axes.y_min = std::pow(10.0, std::floor(std::log10(low)));
    axes.y_max = std::pow(10.0, std::ceil(std::log10(high) + 1e-9));
    axes.legend = LegendCorner::top_left;
    if (!BeginLogPlot("##wall curves", size, axes)) return;
    PlotHLine("##budget", 1.0, palette().over_budget, 0.1f, 0.4f);
    PlotText(axes.x_max, 1.0, "budget", palette().over_budget, ImVec2(1, 1), ImVec2(-0.3f, -0.2f));
    // The lines are the scenario's model family, through the scenario's own point (a ring); the slider's size is a point of
    // the same family, at its exact parameter count.
    PlotVLine("##slider", state.walls.params, palette().text_dim, 0.07f, 0.3f);
    const MarkerShape marker = state.at_scenario_size ? MarkerShape::ring : MarkerShape::circle;
    // The long form where the legend has room for it; a narrow plot (1280 px beside the sidebar) would cut it mid-phrase.
    const std::string scenario_marker = fit_variant({"the scenario's model (lines: its family scaled)", "the scenario's model"}, (size.x > 0 ? size.x : ImGui::GetContentRegionAvail().x) - ImGui::GetFontSize() * 4.0f);
    PlotLegendMarker(state.at_scenario_size ? scenario_marker.c_str() : "the slider's size", palette().text_dim, marker);
    if (baseline) PlotLegendMarker("the baseline (a trail to the scenario)", palette().text_dim, MarkerShape::ring);
    const int count = static_cast<int>(curves.params.size());
    for (int w = 0; w < core::wall_count; ++w) {
        const core::Wall& wall = state.walls.walls[w];
        const ImU32 color = wall_color(wall.kind);
        PlotLine(wall.title.c_str(), curves.params.data(), curves.fractions[w].data(), count, color, 0.16f);
        if (PlotPoint("##now", state.walls.params, wall.fraction, color, 0.42f, marker)) ImGui::SetTooltip("%s", wall.formula.c_str());
        const double baseline_fraction = baseline ? baseline->walls[w].fraction : 0.0;
        if (baseline && baseline_fraction > 0 && std::isfinite(baseline_fraction)) {
            add_trail(ImGui::GetWindowDrawList(), PlotToPixels(baseline_params, baseline_fraction), PlotToPixels(state.walls.params, wall.fraction),
                      color, ImGui::GetFontSize());
        }
        const double crossing = curves.crossing_params[w];
        if (crossing > curves.params.front()) {
            PlotPoint("##crossing", crossing, 1.0, color, 0.3f, MarkerShape::diamond);
            const std::string text = wall.title + " wall at " + core::format_count(crossing);
            PlotText(crossing, 1.0, text.c_str(), color, ImVec2(0.0f, 0.0f), ImVec2(0.3f, 0.3f));
        }
    }
    EndLogPlot();
}

void draw_walls_panel(WallsPanelState& state, PanelContext& ctx) {
    ctx.playback.set_timeline({0.0});  // nothing animates: the slider is the time axis here
    refresh(state, ctx.scenario, ctx.report, ctx.scenario_revision);
    draw_slider(state, ctx.scenario, ctx.report);
    ImGui::Spacing();
    if (!state.walls_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().over_budget));
        wrapped_textf("Cannot evaluate at this size: %s", state.walls_error.c_str());
        ImGui::PopStyleColor();
        return;
    }
    const core::WallsReport* baseline = baseline_walls(state, ctx);
    draw_walls(state, !ctx.exporting && ImGui::IsWindowHovered(), baseline);
    ImGui::Spacing();

    const float em = ImGui::GetFontSize();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    avail.y = std::max(avail.y, em * 12.0f);  // a short window scrolls to the verdict and the curves rather than squeeze them
    const float verdict_width = std::clamp(avail.x * 0.48f, std::min(em * 30.0f, avail.x), em * 50.0f);
    // The curves beside the verdict while they keep 26 em, else under it, as wide as the panel.
    const bool curves_beside = avail.x - verdict_width >= em * 26.0f;
    if (curves_beside) ImGui::BeginChild("walls_verdict", ImVec2(verdict_width, avail.y), false);
    section_heading("Where it sends you");
    draw_verdict(state.walls);
    if (curves_beside) {
        ImGui::EndChild();
        ImGui::SameLine();
    }
    ImGui::BeginChild("walls_curves", ImVec2(0, curves_beside ? avail.y : std::max(avail.y, em * 22.0f)), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    section_heading("Three walls, three scaling lines");
    if (!state.curves_error.empty()) wrapped_text(state.curves_error);
    else draw_curves(state, ImVec2(0, ImGui::GetContentRegionAvail().y), baseline, ctx.baseline ? ctx.baseline->report->memory.params : 0.0);
    ImGui::EndChild();
}

}  // namespace

PanelDef make_walls_panel() {
    auto state = std::make_shared<WallsPanelState>();
    return {"walls", "The three walls", [state](PanelContext& ctx) { draw_walls_panel(*state, ctx); }, "Walls"};
}

}  // namespace widgets
