// Memory over one step: one GPU's memory point by point through the forward, the loss, the backward, the
// optimizer step and zero_grad, stacked by what holds it (weights, gradients, optimizer state, saved activations, logits,
// temporaries, the allocator's slack, NCCL's buffers), against HBM, with the peaks marked and what is live at the peak;
// a pipeline's stages side by side on one scale. Every figure and word is core's (core/cost/report/timeline_figure.h).
#include "core/cost/report/timeline_figure.h"
#include "widgets/comparison.h"
#include "widgets/controls.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/log_plot.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct TimelinePanelOptions {
    float plot_min_height_em = 15.0f;     // the detailed plot: below this its bands and peaks crowd; the panel scrolls instead
    float live_width_em = 19.0f;          // the list of what is live at the peak, beside the plot, at most
    float live_min_width_em = 14.0f;      // and at least
    float plot_min_width_em = 32.0f;      // narrower than list + this, the list goes under the plot
    float band_height_em = 1.5f;          // the phases' strip above the plot
    float stage_min_width_em = 7.5f;      // a stage of the pipeline's small multiples, at least ("peak 81.7 GB" fits)
    float stage_height_em = 4.5f;         // its plot's height: 16 stages in two rows beside a readable plot at 1280x720
    float control_width_em = 8.5f;        // one control of the row above the figure
};

struct TimelinePanelState {
    TimelinePanelOptions options;
    std::uint64_t revision = ~0ull;       // the scenario revision `figure` was made for
    core::MemoryTimelineFigure figure;
    std::string error;                    // why the figure could not be made
};

constexpr double kGB = 1e-9;  // the plots' unit: GB (decimal, as every figure)

ImU32 phase_color(core::TimelinePhase phase) {
    const Palette& p = palette();
    switch (phase) {
        case core::TimelinePhase::forward: return p.forward;
        case core::TimelinePhase::loss: return timeline_part_color(core::TimelinePart::logits);
        case core::TimelinePhase::backward: return p.backward;
        case core::TimelinePhase::optimizer: return p.optimizer;
        case core::TimelinePhase::zero_grad: return p.grads;
    }
    return p.text_dim;
}

// The stacked parts between two drawn points as filled quads (no anti-aliased fringe: neighbours meet without seams),
// bottom part first; `to_screen` maps (x, GB) to pixels.
template <class ToScreen>
void draw_stack(ImDrawList* draw, const core::TimelineStageFigure& stage, const std::array<bool, core::kTimelineParts>& shown, ToScreen to_screen) {
    const std::size_t count = stage.x.size();
    if (count == 0) return;
    const ImDrawListFlags flags = draw->Flags;
    draw->Flags &= ~ImDrawListFlags_AntiAliasedFill;
    std::vector<double> below(count, 0.0), above(count, 0.0);
    for (int part = 0; part < core::kTimelineParts; ++part) {
        const std::vector<double>& bytes = stage.part_bytes[part];
        for (std::size_t i = 0; i < count; ++i) above[i] = below[i] + bytes[i] * kGB;
        if (shown[part]) {
            const ImU32 color = timeline_part_color(static_cast<core::TimelinePart>(part));
            if (count == 1) {
                draw->AddRectFilled(to_screen(stage.x[0] - 0.5, above[0]), to_screen(stage.x[0] + 0.5, below[0]), color);
            }
            // One strip per part: each point's two vertices shared by the quads either side (a frame draws thousands).
            std::size_t quads = 0;
            for (std::size_t i = 0; i + 1 < count; ++i) quads += (bytes[i] > 0 || bytes[i + 1] > 0) ? 1 : 0;
            if (quads > 0) {
                draw->PrimReserve(static_cast<int>(6 * quads), static_cast<int>(2 * count));
                const ImDrawIdx first = static_cast<ImDrawIdx>(draw->_VtxCurrentIdx);
                const ImVec2 uv = ImGui::GetFontTexUvWhitePixel();
                for (std::size_t i = 0; i < count; ++i) {
                    draw->PrimWriteVtx(to_screen(stage.x[i], below[i]), uv, color);
                    draw->PrimWriteVtx(to_screen(stage.x[i], above[i]), uv, color);
                }
                for (std::size_t i = 0; i + 1 < count; ++i) {
                    if (bytes[i] <= 0 && bytes[i + 1] <= 0) continue;
                    const ImDrawIdx at = static_cast<ImDrawIdx>(first + 2 * i);
                    draw->PrimWriteIdx(at);
                    draw->PrimWriteIdx(static_cast<ImDrawIdx>(at + 2));
                    draw->PrimWriteIdx(static_cast<ImDrawIdx>(at + 3));
                    draw->PrimWriteIdx(at);
                    draw->PrimWriteIdx(static_cast<ImDrawIdx>(at + 3));
                    draw->PrimWriteIdx(static_cast<ImDrawIdx>(at + 1));
                }
            }
        }
        below.swap(above);
    }
    draw->Flags = flags;
}

// The figure's key: a swatch and a label per part it holds, wrapping at the panel's edge.
void draw_legend(const core::MemoryTimelineFigure& figure) {
    const float em = ImGui::GetFontSize();
    bool first = true;
    for (int part = 0; part < core::kTimelineParts; ++part) {
        if (!figure.part_shown[part]) continue;
        const std::string& label = figure.part_labels[part];
        if (!first) same_line_if_fits(1.3f * em + ImGui::CalcTextSize(label.c_str()).x, 1.0f * em);
        first = false;
        legend_swatch(timeline_part_color(static_cast<core::TimelinePart>(part)));
        ImGui::TextUnformatted(label.c_str());
    }
}

// The phases above the plot on the plot's x scale (between Begin and EndLogPlot): a row of callouts [top, top + line)
// naming each band too narrow for its word, with a tick down to it, then the bands [band_top, bottom) with their words.
void draw_bands(ImDrawList* draw, const core::TimelineStageFigure& stage, float top, float band_top, float bottom, float left, float right) {
    const float em = ImGui::GetFontSize();
    const Palette& colors = palette();
    const float height = bottom - band_top;
    draw->PushClipRect(ImVec2(left - 0.5f * em, top), ImVec2(right + 0.5f * em, bottom), false);  // above the plot's own clip rectangle
    struct Callout {
        const std::string* text;
        float centre, width, x;
        ImU32 color;
    };
    std::vector<Callout> callouts;
    for (const core::TimelineBand& band : stage.bands) {
        const float x0 = std::max(left, PlotToPixels(band.first_point - 0.5, 0).x);
        const float x1 = std::min(right, PlotToPixels(band.last_point + 0.5, 0).x);
        if (!(x1 > x0)) continue;
        const ImU32 color = phase_color(band.phase);
        draw->AddRectFilled(ImVec2(x0, band_top), ImVec2(x1, bottom), with_alpha(color, 0.35f));
        draw->AddLine(ImVec2(x0, band_top), ImVec2(x0, bottom), with_alpha(colors.text, 0.3f));
        const ImVec2 size = ImGui::CalcTextSize(band.label.c_str());
        if (size.x <= x1 - x0 - 0.3f * em && size.y <= height) {
            draw->AddText(ImVec2(std::round((x0 + x1 - size.x) * 0.5f), std::round(band_top + (height - size.y) * 0.5f)), colors.text, band.label.c_str());
        } else {
            callouts.push_back({&band.label, (x0 + x1) * 0.5f, size.x, 0.0f, color});
        }
    }
    // The callouts centred over their bands, pushed apart left to right, then back inside the right edge.
    const float gap = 0.6f * em;
    for (std::size_t i = 0; i < callouts.size(); ++i) {
        Callout& c = callouts[i];
        c.x = std::max(left, c.centre - c.width * 0.5f);
        if (i > 0) c.x = std::max(c.x, callouts[i - 1].x + callouts[i - 1].width + gap);
    }
    for (std::size_t i = callouts.size(); i-- > 0;) {
        Callout& c = callouts[i];
        const float limit = i + 1 < callouts.size() ? callouts[i + 1].x - gap : right;
        c.x = std::min(c.x, limit - c.width);
    }
    const float line = ImGui::GetTextLineHeight();
    for (const Callout& c : callouts) {
        draw->AddText(ImVec2(std::round(c.x), std::round(top)), colors.text, c.text->c_str());
        // A tick from under the word down into its band.
        const float under = std::clamp(c.centre, c.x, c.x + c.width);
        draw->AddLine(ImVec2(under, top + line), ImVec2(c.centre, band_top + 0.5f * height), colors.text, std::max(1.0f, 0.08f * em));
        draw->AddRectFilled(ImVec2(c.centre - 0.15f * em, band_top), ImVec2(c.centre + 0.15f * em, bottom), c.color);
    }
    draw->PopClipRect();
}

// The heaviest stage point by point: its bands, the stacked parts, the allocated and reserved curves, the peaks, HBM.
void draw_detail(const TimelinePanelState& state, const core::MemoryTimelineFigure& figure, ImVec2 size, bool hover) {
    const float em = ImGui::GetFontSize();
    const Palette& colors = palette();
    const core::TimelineStageFigure& stage = figure.detail;
    // The callouts' row, then the bands' row.
    const float band_height = ImGui::GetTextLineHeight() + state.options.band_height_em * em;
    const ImVec2 strip = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(size.x, band_height));
    // The y axis leaves room above the highest stack for the peaks' labels.
    const double y_max = figure.y_max_bytes * kGB * 1.12;
    LogPlotAxes axes;
    axes.x_title = figure.x_title.c_str();
    axes.y_title = figure.y_title.c_str();
    axes.x_scale = AxisScale::linear;
    axes.y_scale = AxisScale::linear;
    axes.x_min = -0.5;
    axes.x_max = std::max(0.5, stage.points - 0.5);
    axes.y_min = 0;
    axes.y_max = y_max > 0 ? y_max : 1.0;
    axes.legend = LegendCorner::none;
    if (!BeginLogPlot("##memory_timeline", ImVec2(size.x, size.y - band_height - ImGui::GetStyle().ItemSpacing.y), axes)) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw_stack(draw, stage, figure.part_shown, [](double x, double gb) { return PlotToPixels(x, gb); });
    std::vector<double> allocated, reserved;
    for (std::size_t i = 0; i < stage.x.size(); ++i) {
        allocated.push_back(stage.allocated_bytes[i] * kGB);
        reserved.push_back(stage.reserved_bytes[i] * kGB);
    }
    const int count = static_cast<int>(stage.x.size());
    PlotLine("##reserved", stage.x.data(), reserved.data(), count, colors.text_dim, 0.08f, 0.3f);
    PlotLine("##allocated", stage.x.data(), allocated.data(), count, colors.text, 0.1f);
    PlotHLine("##hbm", figure.hbm_bytes * kGB, colors.over_budget, 0.12f, 0.5f);
    PlotText(axes.x_max, figure.hbm_bytes * kGB, figure.hbm_label.c_str(), colors.over_budget, ImVec2(1.0f, 1.0f), ImVec2(-0.3f, -0.2f));
    PlotPoint("##allocated peak", stage.peak_point, stage.peak_allocated_bytes * kGB, colors.text, 0.35f, MarkerShape::circle);
    // Allocated is never above reserved: its label goes under its point and reserved's over its own, so they read in order.
    PlotText(stage.peak_point, stage.peak_allocated_bytes * kGB, figure.allocated_peak_label.c_str(), colors.text, ImVec2(0.0f, 0.0f),
             ImVec2(0.5f, 0.3f));
    PlotPoint("##reserved peak", stage.reserved_peak_point, stage.peak_reserved_bytes * kGB, colors.text_dim, 0.35f, MarkerShape::diamond);
    PlotText(stage.reserved_peak_point, stage.peak_reserved_bytes * kGB, figure.reserved_peak_label.c_str(), colors.text, ImVec2(1.0f, 1.0f),
             ImVec2(-0.5f, -0.3f));
    double mouse_x = 0, mouse_y = 0;
    if (hover && GetPlotMousePosition(&mouse_x, &mouse_y) && !stage.point_texts.empty()) {
        const auto after = std::lower_bound(stage.x.begin(), stage.x.end(), mouse_x);
        std::size_t nearest = static_cast<std::size_t>(std::min<std::ptrdiff_t>(after - stage.x.begin(), count - 1));
        if (nearest > 0 && std::fabs(stage.x[nearest - 1] - mouse_x) < std::fabs(stage.x[nearest] - mouse_x)) --nearest;
        PlotVLine("##hovered point", stage.x[nearest], colors.axis, 0.06f);
        ImGui::SetTooltip("%s", stage.point_texts[nearest].c_str());
    }
    // The strip of phases above the plot rectangle, on the plot's own x scale.
    draw_bands(draw, stage, strip.y, strip.y + ImGui::GetTextLineHeight() + 0.2f * em, strip.y + band_height - 0.2f * em,
               PlotToPixels(axes.x_min, 0).x, PlotToPixels(axes.x_max, 0).x);
    EndLogPlot();
}

// What is live at the peak: the stack panel's blocks, each with its part's swatch, its label and its bytes.
void draw_live(const core::MemoryTimelineFigure& figure) {
    const float em = ImGui::GetFontSize();
    ImGui::PushFont(fonts().bold);
    wrapped_text(figure.live_heading);
    ImGui::PopFont();
    const float width = ImGui::GetContentRegionAvail().x;
    for (const core::TimelineLiveRow& row : figure.live) {
        legend_swatch(timeline_part_color(row.part));
        const float label_width = ImGui::CalcTextSize(row.label.c_str()).x;
        const float value_width = ImGui::CalcTextSize(row.value.c_str()).x;
        ImGui::TextUnformatted(row.label.c_str());
        // The value right-aligned on the row, or under the label when both do not fit.
        const float right = ImGui::GetCursorStartPos().x + width - value_width;
        if (1.3f * em + label_width + 0.8f * em + value_width <= width) ImGui::SameLine(right);
        else ImGui::SetCursorPosX(right);
        ImGui::TextUnformatted(row.value.c_str());
    }
    ImGui::Spacing();
    wrapped_text(figure.live_total);
}

// The stages' grid at a width: its columns, their cells and each row's height (a title, a peak, the small plot).
struct StageGrid {
    int columns = 1, rows = 0;
    float axis_width = 0, gap = 0, cell_width = 0, row_height = 0;
};
StageGrid stage_grid(const TimelinePanelOptions& options, int stages, float width) {
    const float em = ImGui::GetFontSize();
    StageGrid grid;
    grid.axis_width = ImGui::CalcTextSize("0000").x + 0.6f * em;  // the first column's tick labels
    grid.gap = 0.8f * em;
    grid.columns = std::clamp(static_cast<int>((width - grid.axis_width + grid.gap) / (options.stage_min_width_em * em + grid.gap)), 1, std::max(1, stages));
    grid.rows = (stages + grid.columns - 1) / grid.columns;
    grid.cell_width = (width - grid.axis_width - grid.gap * (grid.columns - 1)) / grid.columns;
    grid.row_height = 2.0f * ImGui::GetTextLineHeight() + options.stage_height_em * em + 0.6f * em;
    return grid;
}
// What draw_stages takes down the panel, the spacing before it and its heading included.
float stages_height(const TimelinePanelOptions& options, int stages, float width) {
    if (stages == 0) return 0;
    const float spacing = ImGui::GetStyle().ItemSpacing.y;
    const StageGrid grid = stage_grid(options, stages, width);
    return spacing + ImGui::GetTextLineHeight() + 2.0f * spacing + 1.0f + grid.rows * (grid.row_height + spacing);
}

// Every stage of the pipeline, small, on the detailed plot's y scale: 1F1B's staircase stage by stage.
void draw_stages(const TimelinePanelState& state, const core::MemoryTimelineFigure& figure) {
    const float em = ImGui::GetFontSize();
    const Palette& colors = palette();
    section_heading(figure.stages_heading.c_str());
    const float width = ImGui::GetContentRegionAvail().x;
    const int stages = static_cast<int>(figure.stages.size());
    const StageGrid grid = stage_grid(state.options, stages, width);
    const float axis_width = grid.axis_width, gap = grid.gap, cell_width = grid.cell_width;
    const int columns = grid.columns;
    const float line = ImGui::GetTextLineHeight();
    const float plot_height = state.options.stage_height_em * em;
    const double y_max = figure.y_max_bytes * kGB * 1.12;
    const std::vector<double> ticks = linear_ticks(0.0, y_max, std::max(1.0, static_cast<double>(plot_height / (2.0f * em))));
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : y_max;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int row = 0; row * columns < stages; ++row) {
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(width, grid.row_height));
        const float plot_top = origin.y + 2.0f * line + 0.2f * em;
        const float plot_bottom = plot_top + plot_height;
        // The shared y axis, labelled once per row.
        for (double tick : ticks) {
            const float y = plot_bottom - static_cast<float>(tick / y_max) * plot_height;
            const std::string label = tick_label(tick, step);
            const ImVec2 size = ImGui::CalcTextSize(label.c_str());
            if (y - size.y * 0.5f < plot_top - 0.1f * em) continue;
            draw->AddText(ImVec2(origin.x + axis_width - 0.4f * em - size.x, y - size.y * 0.5f), colors.text, label.c_str());
        }
        for (int column = 0; column < columns && row * columns + column < stages; ++column) {
            const core::TimelineStageFigure& stage = figure.stages[static_cast<std::size_t>(row * columns + column)];
            const float left = origin.x + axis_width + column * (cell_width + gap);
            const float right = left + cell_width;
            const ImU32 title_color = stage.heaviest ? colors.text : colors.text_dim;
            ImGui::PushFont(stage.heaviest ? fonts().bold : ImGui::GetFont());
            const std::string title = fit_variant({stage.title, stage.short_title}, cell_width);
            draw->AddText(ImVec2(left, origin.y), title_color, title.c_str());
            ImGui::PopFont();
            const std::string peak = fit_variant({stage.peak_text}, cell_width);
            draw->AddText(ImVec2(left, origin.y + line), colors.text_dim, peak.c_str());
            draw->AddRectFilled(ImVec2(left, plot_top), ImVec2(right, plot_bottom), with_alpha(colors.text, 0.03f));
            const double x_max = std::max(1.0, stage.points - 0.5);
            const auto to_screen = [&](double x, double gb) {
                return ImVec2(left + static_cast<float>((x + 0.5) / (x_max + 0.5)) * cell_width, plot_bottom - static_cast<float>(gb / y_max) * plot_height);
            };
            draw->PushClipRect(ImVec2(left, plot_top), ImVec2(right, plot_bottom), true);
            draw_stack(draw, stage, figure.part_shown, to_screen);
            const float hbm_y = to_screen(0, figure.hbm_bytes * kGB).y;
            add_dashed_line(draw, ImVec2(left, hbm_y), ImVec2(right, hbm_y), colors.over_budget, 0.1f * em, 0.4f * em);
            draw->PopClipRect();
            draw->AddRect(ImVec2(left, plot_top), ImVec2(right, plot_bottom), stage.heaviest ? colors.text : with_alpha(colors.axis, 0.8f),
                          0.0f, 0, stage.heaviest ? 0.12f * em : 1.0f);
        }
    }
}

// The knobs the figure moves with: the framework, recompute, the micro-batch and the sequence (the sidebar's too).
void draw_controls(const TimelinePanelState& state, PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    const float width = state.options.control_width_em * em;
    const float spacing = ImGui::GetStyle().ItemSpacing.x * 2.0f;
    const auto next = [&](const char* label, bool first) {
        if (!first) same_line_if_fits(labelled_width(width, label), spacing);
        ImGui::SetNextItemWidth(width);
    };
    next("Framework", true);
    framework_combo("Framework", ctx.scenario, ctx.feedback);
    next("Recompute", false);
    recompute_combo("Recompute", ctx.scenario, ctx.feedback);
    next("Micro-batch", false);
    axis_slider("Micro-batch", ctx.scenario, core::LayoutAxis::micro_batch, ctx.feedback, "Sequences per micro-batch: the activations grow with it.");
    next("Sequence", false);
    seq_len_combo("Sequence", ctx.scenario, ctx.feedback);
}

void draw_memory_timeline_panel(TimelinePanelState& state, PanelContext& ctx) {
    ctx.playback.set_timeline({0.0});  // nothing animates: the step is the x axis
    if (ctx.scenario_revision != state.revision) {
        state.revision = ctx.scenario_revision;
        state.error.clear();
        try {
            state.figure = core::memory_timeline_figure(ctx.scenario, ctx.report, ctx.text);
        } catch (const std::exception& error) {
            state.figure = {};
            state.error = error.what();
        }
    }
    const Palette& colors = palette();
    if (!state.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(colors.over_budget));
        wrapped_text(state.error);
        ImGui::PopStyleColor();
        return;
    }
    const core::MemoryTimelineFigure& figure = state.figure;
    const float em = ImGui::GetFontSize();
    ImGui::PushFont(fonts().bold);
    wrapped_text(figure.title);
    ImGui::PopFont();
    ImGui::PushStyleColor(ImGuiCol_Text, color4(ctx.report.memory.fits ? colors.text : colors.over_budget));
    wrapped_text(figure.headline);
    ImGui::PopStyleColor();
    dim_text(figure.method);
    if (!figure_mode()) draw_controls(state, ctx);
    ImGui::Spacing();
    draw_legend(figure);

    const bool hover = !ctx.exporting && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    ImGui::BeginChild("timeline_body", ImVec2(0, 0), false);
    const ImVec2 available = ImGui::GetContentRegionAvail();
    const TimelinePanelOptions& options = state.options;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float live_width = std::clamp(available.x * 0.28f, options.live_min_width_em * em, options.live_width_em * em);
    const bool side_by_side = available.x >= live_width + spacing + options.plot_min_width_em * em;
    // The stages' strip takes its rows; the detailed plot takes the rest, never less than its minimum.
    // Under the plot: the stages' strip and the note, each as tall as it will be drawn.
    const float below = stages_height(options, static_cast<int>(figure.stages.size()), available.x) +
                        ImGui::CalcTextSize(figure.note.c_str(), nullptr, false, available.x).y + 2.0f * ImGui::GetStyle().ItemSpacing.y;
    const float plot_height = std::max(options.plot_min_height_em * em, available.y - below);
    const float plot_width = side_by_side ? available.x - live_width - spacing : available.x;
    ImGui::BeginChild("timeline_plot", ImVec2(plot_width, plot_height), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_detail(state, figure, ImVec2(plot_width, plot_height), hover);
    ImGui::EndChild();
    if (side_by_side) {
        ImGui::SameLine();
        ImGui::BeginChild("timeline_live", ImVec2(live_width, plot_height), false);
        draw_live(figure);
        ImGui::EndChild();
    } else {
        draw_live(figure);
    }
    if (!figure.stages.empty()) {
        ImGui::Spacing();
        draw_stages(state, figure);
    }
    dim_text(figure.note);
    ImGui::EndChild();
}

}  // namespace

PanelDef make_memory_timeline_panel() {
    auto state = std::make_shared<TimelinePanelState>();
    return {"timeline", "Memory over one step", [state](PanelContext& ctx) { draw_memory_timeline_panel(*state, ctx); }, "Memory"};
}

}  // namespace widgets
