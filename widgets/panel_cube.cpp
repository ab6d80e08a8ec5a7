// The regime cube (the three walls seen as one cube): every preset placed by what one rank needs of memory and
// compute over what the selected GPU gives, and the GPUs its service needs over those it has, on a rotatable log-scaled
// cube; dots coloured by the wall that binds.
#include "core/model/format.h"
#include "core/cost/serving/serving_text.h"
#include "core/lessons/regime.h"
#include "core/lessons/walls.h"
#include "widgets/controls.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/gl_cube_renderer.h"
#include "widgets/palette.h"
#include "widgets/panel.h"
#include "widgets/text_wrap.h"

#include <imgui.h>
#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the cube instead of scrolling the panel

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace widgets {
namespace {

struct CubePanelState {
    CubeView view;                 // the 3/4 view export shows; drag rotates, wheel zooms, double-click resets
    bool label_dots = true;        // preset names beside their dots; a name that would overlap another is left to the table
    std::uint64_t cube_revision = 0;  // the scenario revision the cube below was computed for
    core::RegimeCube cube;
    std::string cube_error;        // why the cube could not be computed, if it could not
    int highlighted = -1;          // the point hovered in the table or the cube, -1 for none
    int hovered_next = -1;         // collected during this frame, shown from the next
    GlCubeRenderer renderer;
    std::uint64_t baseline_revision = 0;      // the pinned baseline its place was found for
    std::optional<core::RegimePoint> baseline;  // the baseline placed by its own walls: a ring and a trail to this scenario
};

// The pinned baseline's place in the cube: its memory, time and serving walls' fractions, as the scenario's own dot has.
const core::RegimePoint* baseline_point(CubePanelState& state, const PanelContext& ctx) {
    if (!ctx.baseline) return nullptr;
    if (state.baseline_revision != ctx.baseline->revision) {
        state.baseline_revision = ctx.baseline->revision;
        state.baseline.reset();
        try {
            const core::WallsReport walls = core::walls_of(*ctx.baseline->scenario, *ctx.baseline->report);
            core::RegimePoint point;
            point.memory_fraction = walls.walls[static_cast<int>(core::WallKind::memory)].fraction;
            point.compute_fraction = walls.walls[static_cast<int>(core::WallKind::time)].fraction;
            point.serving_fraction = walls.walls[static_cast<int>(core::WallKind::serving)].fraction;
            state.baseline = point;
        } catch (const std::exception&) {
        }
    }
    return state.baseline ? &*state.baseline : nullptr;
}

constexpr float kSideColumnEm = 30.0f;  // legend and table: wide enough for "Megatron 145.6B" and four figures

ImU32 wall_color(core::WallKind wall) {
    switch (wall) {
        case core::WallKind::memory: return palette().memory_wall;
        case core::WallKind::time: return palette().time_wall;
        case core::WallKind::serving: return palette().serving_wall;
    }
    return palette().text;
}

// The wall's name inside a sentence ("the serving wall binds").
const char* wall_word(core::WallKind wall) {
    switch (wall) {
        case core::WallKind::memory: return "memory";
        case core::WallKind::time: return "time";
        case core::WallKind::serving: return "serving";
    }
    return "?";
}

// "14.2x" with a real times sign; a service no GPU count meets reads "unmet".
std::string times(double fraction) { return std::isfinite(fraction) ? core::format_number(fraction) + "\xC3\x97" : std::string("unmet"); }

std::string tick_text(double value) { return core::format_number(value, 1) + "\xC3\x97"; }

// ---- the scene as plain data: cube space [0,1]^3, x memory, y compute (up), z serving ----

using Point3 = std::array<float, 3>;

Point3 point_position(const core::RegimePoint& point, const core::RegimeCube& cube) {
    auto at = [&](double fraction) { return static_cast<float>(core::regime_axis_position(fraction, cube.log10_min, cube.log10_max)); };
    return {at(point.memory_fraction), at(point.compute_fraction), at(point.serving_fraction)};
}

void add_line(CubeScene& scene, Point3 from, Point3 to, ImU32 color, float width) {
    CubeLine line{};
    std::copy(from.begin(), from.end(), line.from);
    std::copy(to.begin(), to.end(), line.to);
    line.color = color;
    line.width_pixels = width;
    scene.lines.push_back(line);
}

// The face of axis `axis` at the far side from the camera: where grids belong, so they never cover a dot.
float back_plane(const CubeProjection& projection, int axis) { return projection.eye[axis] > 0.5f ? 0.0f : 1.0f; }

Point3 on_axes(int axis, float along, int first_other, float first_value, int second_other, float second_value) {
    Point3 point{};
    point[axis] = along;
    point[first_other] = first_value;
    point[second_other] = second_value;
    return point;
}

struct SceneSizes {
    float em;  // one font size in texture pixels
};

CubeScene build_scene(const core::RegimeCube& cube, const CubeProjection& projection, const SceneSizes& sizes, int highlighted) {
    const Palette& colors = palette();
    CubeScene scene;
    scene.background = colors.panel_background;
    const float em = sizes.em;

    // Decade grid on the three back faces, the 1x lines a little stronger.
    std::vector<float> decades;
    for (double tick : cube.ticks) decades.push_back(static_cast<float>(core::regime_axis_position(tick, cube.log10_min, cube.log10_max)));
    const float one = static_cast<float>(core::regime_axis_position(1.0, cube.log10_min, cube.log10_max));
    for (int plane_axis = 0; plane_axis < 3; ++plane_axis) {
        const float plane = back_plane(projection, plane_axis);
        const int a = (plane_axis + 1) % 3, b = (plane_axis + 2) % 3;
        for (float decade : decades) {
            const bool unit = std::fabs(decade - one) < 1e-4f;
            const ImU32 color = unit ? with_alpha(colors.within_budget, 0.55f) : with_alpha(colors.axis, 0.22f);
            const float width = (unit ? 0.10f : 0.06f) * em;
            add_line(scene, on_axes(a, 0, b, decade, plane_axis, plane), on_axes(a, 1, b, decade, plane_axis, plane), color, width);
            add_line(scene, on_axes(b, 0, a, decade, plane_axis, plane), on_axes(b, 1, a, decade, plane_axis, plane), color, width);
        }
    }
    // The cube's twelve edges.
    for (int axis = 0; axis < 3; ++axis) {
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            const float first = static_cast<float>(corner & 1), second = static_cast<float>(corner >> 1);
            add_line(scene, on_axes(axis, 0, a, first, b, second), on_axes(axis, 1, a, first, b, second), with_alpha(colors.axis, 0.55f),
                     0.08f * em);
        }
    }
    // The one-GPU budget: the box from the low corner to 1x on every axis.
    for (int axis = 0; axis < 3; ++axis) {
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            const float first = (corner & 1) ? one : 0.0f, second = (corner >> 1) ? one : 0.0f;
            add_line(scene, on_axes(axis, 0, a, first, b, second), on_axes(axis, one, a, first, b, second),
                     with_alpha(colors.within_budget, 0.85f), 0.10f * em);
        }
        for (float side : {0.0f, one}) {
            CubeFace face{};
            const float corners[4][2] = {{0, 0}, {one, 0}, {one, one}, {0, one}};
            for (int k = 0; k < 4; ++k) {
                Point3 corner = on_axes(axis, side, a, corners[k][0], b, corners[k][1]);
                std::copy(corner.begin(), corner.end(), face.corners[k]);
            }
            face.color = with_alpha(colors.within_budget, 0.09f);
            scene.faces.push_back(face);
        }
    }
    // Each model: a drop line to the floor (compute reads as its height), a shadow there, and the ball.
    for (std::size_t i = 0; i < cube.points.size(); ++i) {
        const core::RegimePoint& point = cube.points[i];
        const Point3 at = point_position(point, cube);
        const ImU32 color = wall_color(point.binding_wall);
        const bool lit = static_cast<int>(i) == highlighted;
        const float floor = back_plane(projection, 1) == 0.0f ? 0.0f : 1.0f;
        if (!point.is_current) {
            const Point3 shadow = {at[0], floor, at[2]};
            add_line(scene, at, shadow, with_alpha(color, lit ? 0.9f : 0.40f), (lit ? 0.10f : 0.06f) * em);
            CubeDot foot{};
            std::copy(shadow.begin(), shadow.end(), foot.position);
            foot.color = with_alpha(color, 0.45f);
            foot.radius_pixels = 0.16f * em;
            scene.dots.push_back(foot);
        }
        CubeDot dot{};
        std::copy(at.begin(), at.end(), dot.position);
        dot.color = color;
        dot.radius_pixels = (lit ? 0.62f : 0.42f) * em;
        if (point.is_current) {
            dot.ring = true;
            dot.color = colors.text;
            dot.radius_pixels = (lit ? 1.05f : 0.85f) * em;
        }
        scene.dots.push_back(dot);
    }
    return scene;
}

// ---- labels, drawn by ImGui over the picture so they stay flat and crisp ----

struct LabelLayout {
    ImDrawList* draw;
    ImVec2 canvas_min, canvas_max;
    float pixel_to_screen;             // texture pixels per screen unit, inverted
    std::vector<ImRect> placed;

    ImVec2 screen(ImVec2 pixels) const {
        return ImVec2(canvas_min.x + pixels.x * pixel_to_screen, canvas_min.y + pixels.y * pixel_to_screen);
    }
    bool free(const ImRect& box) const {
        if (box.Min.x < canvas_min.x || box.Min.y < canvas_min.y || box.Max.x > canvas_max.x || box.Max.y > canvas_max.y) return false;
        return std::none_of(placed.begin(), placed.end(), [&](const ImRect& other) { return other.Overlaps(box); });
    }
    // Draws text with a translucent plate behind it, so grid lines never cut through a label.
    void text(const ImRect& box, ImU32 color, const std::string& label, ImFont* font = nullptr) {
        const float pad = ImGui::GetFontSize() * 0.15f;
        draw->AddRectFilled(ImVec2(box.Min.x - pad, box.Min.y), ImVec2(box.Max.x + pad, box.Max.y), with_alpha(palette().panel_background, 0.80f),
                            pad);
        ImFont* used = font ? font : ImGui::GetFont();
        draw->AddText(used, ImGui::GetFontSize(), box.Min, color, label.c_str());
        placed.push_back(box);
    }
};

ImVec2 text_size(const std::string& label, ImFont* font = nullptr) {
    ImFont* used = font ? font : ImGui::GetFont();
    return used->CalcTextSizeA(ImGui::GetFontSize(), 1e9f, 0.0f, label.c_str());
}

// The box of a label whose nearest side sits `gap` beyond anchor in direction (unit vector) outward.
ImRect box_beyond(ImVec2 anchor, ImVec2 outward, float gap, ImVec2 size) {
    const float reach = std::fabs(outward.x) * size.x * 0.5f + std::fabs(outward.y) * size.y * 0.5f;
    const ImVec2 centre(anchor.x + outward.x * (gap + reach), anchor.y + outward.y * (gap + reach));
    return ImRect(ImVec2(centre.x - size.x * 0.5f, centre.y - size.y * 0.5f), ImVec2(centre.x + size.x * 0.5f, centre.y + size.y * 0.5f));
}

ImRect clamped_into(ImRect box, ImVec2 min, ImVec2 max) {
    const ImVec2 shift(std::clamp(box.Min.x, min.x, std::max(min.x, max.x - box.GetWidth())) - box.Min.x,
                       std::clamp(box.Min.y, min.y, std::max(min.y, max.y - box.GetHeight())) - box.Min.y);
    box.Translate(shift);
    return box;
}

// Two titles clamped into a small canvas can meet (the floor axes' at 1024x768): the title slides along its axis, a
// quarter em at a time either way, to the nearest free spot; where none is, it stays (the clip checker names it).
ImRect free_title_box(const LabelLayout& layout, const ImRect& box, ImVec2 along) {
    if (layout.free(box)) return box;
    const float step = 0.25f * ImGui::GetFontSize();
    for (int k = 1; k <= 120; ++k) {
        for (const float sign : {1.0f, -1.0f}) {
            ImRect moved = box;
            moved.Translate(ImVec2(along.x * step * k * sign, along.y * step * k * sign));
            moved = clamped_into(moved, layout.canvas_min, layout.canvas_max);
            if (layout.free(moved)) return moved;
        }
    }
    return box;
}

struct AxisText {
    const char* title;
    ImU32 color;
};

void draw_axis_labels(LabelLayout& layout, const core::RegimeCube& cube, const CubeProjection& projection) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    const AxisText axes[3] = {{"Memory: bytes per GPU \xC3\xB7 HBM", colors.memory_wall},
                              {"Compute: time to train \xC3\xB7 deadline", colors.time_wall},
                              {"Serving: GPUs needed \xC3\xB7 GPUs", colors.serving_wall}};
    const ImVec2 centre = layout.screen(projection.to_pixels(0.5f, 0.5f, 0.5f));
    // The three titles first, then the ticks, which a narrow canvas may push in over a title: a tick without room is left out.
    for (int pass = 0; pass < 6; ++pass) {
        const int axis = pass % 3;
        const bool titles = pass < 3;
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        // The edge to label: the lowest on screen for the floor axes, the leftmost for the vertical one.
        int best = 0;
        float best_score = -1e30f;
        for (int corner = 0; corner < 4; ++corner) {
            const Point3 mid = on_axes(axis, 0.5f, a, static_cast<float>(corner & 1), b, static_cast<float>(corner >> 1));
            const ImVec2 at = layout.screen(projection.to_pixels(mid[0], mid[1], mid[2]));
            const float score = axis == 1 ? -at.x : at.y;
            if (score > best_score) best_score = score, best = corner;
        }
        const float first = static_cast<float>(best & 1), second = static_cast<float>(best >> 1);
        const Point3 start = on_axes(axis, 0, a, first, b, second), end = on_axes(axis, 1, a, first, b, second);
        const ImVec2 start_screen = layout.screen(projection.to_pixels(start[0], start[1], start[2]));
        const ImVec2 end_screen = layout.screen(projection.to_pixels(end[0], end[1], end[2]));
        ImVec2 along(end_screen.x - start_screen.x, end_screen.y - start_screen.y);
        const float length = std::max(1e-3f, std::sqrt(along.x * along.x + along.y * along.y));
        along = ImVec2(along.x / length, along.y / length);
        ImVec2 outward(-along.y, along.x);
        const ImVec2 middle((start_screen.x + end_screen.x) * 0.5f, (start_screen.y + end_screen.y) * 0.5f);
        if (outward.x * (middle.x - centre.x) + outward.y * (middle.y - centre.y) < 0) outward = ImVec2(-outward.x, -outward.y);

        float tick_reach = 0;
        for (double tick : cube.ticks) {
            const ImVec2 size = text_size(tick_text(tick));
            tick_reach = std::max(tick_reach, std::fabs(outward.x) * size.x + std::fabs(outward.y) * size.y);
        }
        const std::string title = axes[axis].title;
        const ImVec2 size = text_size(title, fonts().bold);
        ImRect box;
        if (axis == 1) {
            // The vertical axis is titled above its top end, reading horizontally.
            const ImVec2 top = along.y < 0 ? end_screen : start_screen;
            box = ImRect(ImVec2(top.x - size.x * 0.5f, top.y - 1.0f * em - size.y), ImVec2(top.x + size.x * 0.5f, top.y - 1.0f * em));
        } else {
            box = box_beyond(middle, outward, 0.6f * em + tick_reach, size);
        }
        box = clamped_into(box, layout.canvas_min, layout.canvas_max);
        if (titles) {
            box = free_title_box(layout, box, along);
            layout.text(box, axes[axis].color, title, fonts().bold);
            continue;
        }
        for (double tick : cube.ticks) {
            const float at = static_cast<float>(core::regime_axis_position(tick, cube.log10_min, cube.log10_max));
            const Point3 position = on_axes(axis, at, a, first, b, second);
            const ImVec2 anchor = layout.screen(projection.to_pixels(position[0], position[1], position[2]));
            const std::string label = tick_text(tick);
            const ImRect tick_box = box_beyond(anchor, outward, 0.35f * em, text_size(label));
            if (!layout.free(tick_box)) continue;  // foreshortened: skip rather than overlap
            const bool unit = tick == 1.0;
            layout.text(tick_box, unit ? colors.within_budget : colors.text_dim, label);
        }
    }
}

// Preset names beside their dots, most telling first; a name with no free spot around its dot is left to the table.
void draw_dot_labels(LabelLayout& layout, const core::RegimeCube& cube, const CubeProjection& projection, int highlighted) {
    const float em = ImGui::GetFontSize();
    std::vector<int> order(cube.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    auto rank = [&](int index) {
        const core::RegimePoint& point = cube.points[static_cast<std::size_t>(index)];
        if (index == highlighted) return 0;
        if (point.is_current) return 1;
        return point.model_id.rfind("megatron", 0) == 0 ? 3 : 2;  // the Llama and GPT families first: the seed names them
    };
    std::stable_sort(order.begin(), order.end(), [&](int left, int right) {
        if (rank(left) != rank(right)) return rank(left) < rank(right);
        return cube.points[static_cast<std::size_t>(left)].params > cube.points[static_cast<std::size_t>(right)].params;
    });
    const auto current = std::find_if(cube.points.begin(), cube.points.end(), [](const core::RegimePoint& point) { return point.is_current; });
    for (int index : order) {
        const core::RegimePoint& point = cube.points[static_cast<std::size_t>(index)];
        const bool same_as_scenario = current != cube.points.end() && !point.is_current && point.model_id == current->model_id &&
                                      point.memory_fraction == current->memory_fraction && point.compute_fraction == current->compute_fraction;
        if (same_as_scenario && index != highlighted) continue;  // the scenario's own label names it
        const Point3 at = point_position(point, cube);
        const ImVec2 anchor = layout.screen(projection.to_pixels(at[0], at[1], at[2]));
        const std::string label = point.is_current ? "this scenario: " + point.model_name : point.model_name;
        const ImVec2 size = text_size(label);
        const float gap = (point.is_current ? 1.0f : 0.5f) * em;  // just clear of the dot's own disc (0.42 em)
        const ImVec2 directions[] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {0.7f, -0.7f}, {-0.7f, -0.7f}, {0.7f, 0.7f}, {-0.7f, 0.7f}};
        bool drawn = false;
        for (const ImVec2& direction : directions) {
            const ImRect box = box_beyond(anchor, direction, gap, size);
            if (!layout.free(box)) continue;
            const ImU32 color = point.is_current ? palette().text : palette().text_dim;
            // A short leader from the dot's rim to the label's nearest edge ties a label that had to move to its dot.
            const ImVec2 nearest(std::clamp(anchor.x, box.Min.x, box.Max.x), std::clamp(anchor.y, box.Min.y, box.Max.y));
            const float dx = nearest.x - anchor.x, dy = nearest.y - anchor.y, reach = std::sqrt(dx * dx + dy * dy);
            const float rim = (point.is_current ? 0.85f : 0.42f) * em;
            if (reach > rim + 0.2f * em)
                layout.draw->AddLine(ImVec2(anchor.x + dx / reach * rim, anchor.y + dy / reach * rim), nearest, with_alpha(color, 0.6f),
                                     std::max(1.0f, 0.06f * em));
            layout.text(box, color, label);
            drawn = true;
            break;
        }
        if (!drawn && index == highlighted) layout.text(box_beyond(anchor, ImVec2(1, 0), gap, size), palette().text, label);
    }
}

void draw_point_tooltip(const core::RegimePoint& point) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34.0f);
    ImGui::PushFont(fonts().bold);
    wrapped_text(point.is_current ? "This scenario: " + point.model_name : point.model_name);
    ImGui::PopFont();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(wall_color(point.binding_wall)));
    if (!std::isfinite(point.binding_fraction))
        wrapped_textf("The %s wall binds: no replica meets the service", wall_word(point.binding_wall));
    else if (point.binding_fraction > 1.0)
        wrapped_textf("The %s wall binds: %s the GPU's budget", wall_word(point.binding_wall), times(point.binding_fraction).c_str());
    else
        wrapped_textf("One GPU is enough; the nearest wall is %s, at %s its budget", wall_word(point.binding_wall),
                      times(point.binding_fraction).c_str());
    ImGui::PopStyleColor();
    wrapped_textf("Memory %s: %s", times(point.memory_fraction).c_str(), point.memory_formula.c_str());
    wrapped_textf("Compute %s: %s", times(point.compute_fraction).c_str(), point.compute_formula.c_str());
    wrapped_textf("Serving %s: %s", times(point.serving_fraction).c_str(), point.serving_formula.c_str());
    if (!point.layout_note.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warning));
        wrapped_text(point.layout_note);
        ImGui::PopStyleColor();
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

// ---- the panel ----

void draw_canvas(CubePanelState& state, PanelContext& ctx, ImVec2 size) {
    const ImGuiIO& io = ImGui::GetIO();
    const float em = ImGui::GetFontSize();
    const ImVec2 canvas_min = ImGui::GetCursorScreenPos();
    const ImVec2 canvas_max(canvas_min.x + size.x, canvas_min.y + size.y);
    ImGui::InvisibleButton("##regime_cube", size);
    const bool hovered = !ctx.exporting && ImGui::IsItemHovered();
    if (!ctx.exporting) {
        if (hovered) ImGui::SetItemUsingMouseWheel();
        if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
            const float radians_per_unit = 3.14159265f / std::max(size.x, 1.0f);  // a drag across the whole canvas turns half a turn
            state.view.yaw_radians -= io.MouseDelta.x * radians_per_unit;
            state.view.pitch_radians = std::clamp(state.view.pitch_radians + io.MouseDelta.y * radians_per_unit, -1.45f, 1.45f);
        }
        if (hovered && io.MouseWheel != 0.0f) state.view.zoom = std::clamp(state.view.zoom * std::pow(1.12f, io.MouseWheel), 0.6f, 3.0f);
        if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) state.view = CubeView{};
    }

    const float scale = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
    const int width_pixels = std::max(1, static_cast<int>(size.x * scale + 0.5f));
    const int height_pixels = std::max(1, static_cast<int>(size.y * scale + 0.5f));
    const CubeProjection projection = make_cube_projection(state.view, static_cast<float>(width_pixels), static_cast<float>(height_pixels));
    const CubeScene scene = build_scene(state.cube, projection, SceneSizes{em * scale}, state.highlighted);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (!state.renderer.render(scene, projection, width_pixels, height_pixels)) {
        const std::string message = "The 3D view is unavailable here (" + state.renderer.error() + "). The table lists every figure.";
        draw->AddRect(canvas_min, canvas_max, palette().grid, em * 0.3f);
        add_wrapped_text(draw, ImGui::GetFont(), em, ImVec2(canvas_min.x + em, canvas_min.y + em), palette().warning, message,
                         size.x - 2 * em);
        return;
    }
    draw->AddImage(state.renderer.texture(), canvas_min, canvas_max, ImVec2(0, 1), ImVec2(1, 0));

    LabelLayout layout{draw, canvas_min, canvas_max, 1.0f / scale, {}};
    // Dots first claim their own discs, so no label covers a model.
    for (const core::RegimePoint& point : state.cube.points) {
        const Point3 at = point_position(point, state.cube);
        const ImVec2 centre = layout.screen(projection.to_pixels(at[0], at[1], at[2]));
        const float radius = 0.42f * em;
        layout.placed.emplace_back(ImVec2(centre.x - radius, centre.y - radius), ImVec2(centre.x + radius, centre.y + radius));
    }
    draw_axis_labels(layout, state.cube, projection);
    if (state.label_dots) draw_dot_labels(layout, state.cube, projection, state.highlighted);
    // Where the pinned baseline was, and the trail from it to this scenario's dot.
    const auto current = std::find_if(state.cube.points.begin(), state.cube.points.end(), [](const core::RegimePoint& point) { return point.is_current; });
    if (const core::RegimePoint* baseline = baseline_point(state, ctx); baseline && current != state.cube.points.end()) {
        const Point3 from = point_position(*baseline, state.cube), to = point_position(*current, state.cube);
        add_trail(draw, layout.screen(projection.to_pixels(from[0], from[1], from[2])), layout.screen(projection.to_pixels(to[0], to[1], to[2])),
                  palette().text, em);
    }

    if (!hovered) return;
    // The nearest dot under the mouse explains itself.
    float nearest = (0.42f * em + 0.3f * em) * (0.42f * em + 0.3f * em);
    int found = -1;
    for (std::size_t i = 0; i < state.cube.points.size(); ++i) {
        const Point3 at = point_position(state.cube.points[i], state.cube);
        const ImVec2 centre = layout.screen(projection.to_pixels(at[0], at[1], at[2]));
        const float dx = centre.x - io.MousePos.x, dy = centre.y - io.MousePos.y;
        if (dx * dx + dy * dy <= nearest) nearest = dx * dx + dy * dy, found = static_cast<int>(i);
    }
    if (found >= 0) {
        state.hovered_next = found;
        if (!ImGui::IsItemActive()) draw_point_tooltip(state.cube.points[static_cast<std::size_t>(found)]);
    }
}

void draw_legend(const core::RegimeCube& cube, const core::Scenario& scenario, bool baseline) {
    const Palette& colors = palette();
    const float em = ImGui::GetFontSize();
    section_heading("Dot colour: the wall that binds");
    legend_swatch(colors.memory_wall, SwatchShape::disc);
    ImGui::TextUnformatted("memory: needs the most HBM");
    legend_swatch(colors.time_wall, SwatchShape::disc);
    ImGui::TextUnformatted("time: needs the most compute");
    legend_swatch(colors.serving_wall, SwatchShape::disc);
    ImGui::TextUnformatted("serving: needs the most GPUs to serve");
    legend_swatch(colors.text, SwatchShape::ring);
    wrapped_textf("this scenario (%s)", scenario.model.name.c_str());
    if (baseline) {
        legend_swatch(colors.text, SwatchShape::ring);
        wrapped_textf("small ring and dashed trail: the baseline");
    }
    {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float line = ImGui::GetTextLineHeight();
        ImDrawList* draw = ImGui::GetWindowDrawList();
        const ImVec2 min(at.x + 0.15f * em, at.y + line * 0.5f - 0.35f * em), max(at.x + 0.85f * em, at.y + line * 0.5f + 0.35f * em);
        draw->AddRectFilled(min, max, with_alpha(colors.within_budget, 0.25f));
        draw->AddRect(min, max, colors.within_budget, 0, 0, 0.1f * em);
        ImGui::Dummy(ImVec2(1.1f * em, line));
        ImGui::SameLine();
        wrapped_textf("one %s is enough: \xE2\x89\xA4 1\xC3\x97 on all three", cube.gpu_name.c_str());
    }
}

// A slider whose value is written by core/model/format.h: the format string is the formatted text, with '%' escaped.
std::string literal_format(const std::string& text) {
    std::string escaped;
    for (char c : text) escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
}

void budget_row(const char* label) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    // Beside its label while the slider keeps 10 em, else under it.
    if (ImGui::GetContentRegionAvail().x >= ImGui::GetFontSize() * (9.5f + 10.0f)) ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
    ImGui::SetNextItemWidth(-1.0f);
}

// The three budgets the axes are measured against: dragging them moves every dot and can change which wall binds.
void draw_budgets(core::Scenario& scenario, const core::Report& report) {
    ImGui::Spacing();
    section_heading("The budgets behind the axes");
    core::TrainSpec& train = scenario.train;
    core::ServingSpec& serving = scenario.serving;
    const core::ServingSpec before = serving;
    const int serving_gpus = report.serving.gpu_budget;
    const std::string serving_gpus_text = core::format_counted(serving_gpus, "GPU", "GPUs") + (serving.gpus > 0 ? "" : " (the cluster's)");
    if (figure_mode()) {  // a document states the budgets; the sliders are for the live window
        figure("Deadline", core::format_seconds(train.deadline_days * 86400.0));
        figure("Target rate", core::format_number(serving.target_qps) + " queries/s");
        figure("Serving GPUs", serving_gpus_text);
    } else {
        float deadline_days = static_cast<float>(train.deadline_days);
        budget_row("Deadline");
        if (slider_float("##deadline", &deadline_days, 1.0f, 3650.0f,
                               literal_format(core::format_seconds(train.deadline_days * 86400.0)).c_str(), ImGuiSliderFlags_Logarithmic))
            train.deadline_days = std::clamp(static_cast<double>(deadline_days), 1.0, 3650.0);
        float queries_per_s = static_cast<float>(serving.target_qps);
        budget_row("Target rate");
        if (slider_float("##target_qps", &queries_per_s, 0.01f, 1000.0f,
                               literal_format(core::format_number(serving.target_qps) + " queries/s").c_str(), ImGuiSliderFlags_Logarithmic))
            serving.target_qps = std::clamp(static_cast<double>(queries_per_s), 0.01, 1000.0);
        int gpus = serving_gpus;
        budget_row("Serving GPUs");
        if (slider_int("##serving_gpus", &gpus, 1, 16384, literal_format(serving_gpus_text).c_str(), ImGuiSliderFlags_Logarithmic))
            serving.gpus = std::clamp(gpus, 1, 16384);
        if (!(serving == before)) serving.asked = true;  // moving a service's control asks about that service
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_textf("Training: %s tokens on %s GPUs (the sidebar sets them). Serving: %s.", core::format_count(train.tokens).c_str(),
                  core::format_grouped(scenario.cluster.gpus).c_str(), core::serving_text(scenario, report.serving).load.c_str());
    ImGui::PopStyleColor();
}

void figure_cell(double fraction, const std::string& formula, bool binding, core::WallKind wall) {
    const std::string text = times(fraction);
    const float width = ImGui::CalcTextSize(text.c_str()).x;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - width);  // right-aligned, digits line up
    if (binding) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(wall_color(wall)));
    ImGui::TextUnformatted(text.c_str());
    if (binding) ImGui::PopStyleColor();
    explain_last_item(formula);
}

void draw_table(CubePanelState& state) {
    const core::RegimeCube& cube = state.cube;
    const float em = ImGui::GetFontSize();
    ImGui::Spacing();
    section_heading(("Each figure: \xC3\x97 one " + cube.gpu_name + "'s budget").c_str());
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("regime_points", 5, flags)) return;
    ImGui::TableSetupColumn("Model", ImGuiTableColumnFlags_WidthFixed, 10.2f * em);
    ImGui::TableSetupColumn("Memory", ImGuiTableColumnFlags_WidthFixed, 4.1f * em);
    ImGui::TableSetupColumn("Compute", ImGuiTableColumnFlags_WidthFixed, 4.4f * em);
    ImGui::TableSetupColumn("Serving", ImGuiTableColumnFlags_WidthFixed, 4.1f * em);
    ImGui::TableSetupColumn("Binds", ImGuiTableColumnFlags_WidthFixed, 3.9f * em);
    ImGui::TableHeadersRow();
    // The scenario first: it is the row the reader came for.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < cube.points.size(); ++i)
        if (cube.points[i].is_current) order.push_back(i);
    for (std::size_t i = 0; i < cube.points.size(); ++i)
        if (!cube.points[i].is_current) order.push_back(i);
    for (std::size_t index : order) {
        const core::RegimePoint& point = cube.points[index];
        ImGui::TableNextRow();
        if (static_cast<int>(index) == state.highlighted)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, with_alpha(wall_color(point.binding_wall), 0.25f));
        ImGui::TableSetColumnIndex(0);
        legend_swatch(point.is_current ? palette().text : wall_color(point.binding_wall), point.is_current ? SwatchShape::ring : SwatchShape::disc);
        if (point.is_current) ImGui::PushFont(fonts().bold);
        // A name too long for its column drops its parenthesis ("Megatron 530B (MT-NLG shape)"), then shortens.
        const std::string note = point.layout_note.empty() ? "" : " *";
        const std::string shown = fit_variant({point.model_name + note, point.model_name.substr(0, point.model_name.find(" (")) + note},
                                              ImGui::GetContentRegionAvail().x);
        const std::string name = shown + "##row" + std::to_string(index);
        // Spans the row, so hovering anywhere on it lights the model's dot in the cube.
        const ImVec4 row_tint = ImGui::ColorConvertU32ToFloat4(with_alpha(wall_color(point.binding_wall), 0.25f));
        ImGui::PushStyleColor(ImGuiCol_HeaderHovered, row_tint);  // the wall's tint, not the theme's blue, so coloured figures stay legible
        ImGui::PushStyleColor(ImGuiCol_HeaderActive, row_tint);
        ImGui::Selectable(name.c_str(), false, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap);
        ImGui::PopStyleColor(2);
        if (point.is_current) ImGui::PopFont();
        if (ImGui::IsItemHovered()) state.hovered_next = static_cast<int>(index);
        explain_last_item(core::format_count(point.params) + " parameters, evaluated as " + point.layout +
                          (point.layout_note.empty() ? "" : ". " + point.layout_note));
        ImGui::TableSetColumnIndex(1);
        figure_cell(point.memory_fraction, point.memory_formula, point.binding_wall == core::WallKind::memory, core::WallKind::memory);
        ImGui::TableSetColumnIndex(2);
        figure_cell(point.compute_fraction, point.compute_formula, point.binding_wall == core::WallKind::time, core::WallKind::time);
        ImGui::TableSetColumnIndex(3);
        figure_cell(point.serving_fraction, point.serving_formula, point.binding_wall == core::WallKind::serving, core::WallKind::serving);
        ImGui::TableSetColumnIndex(4);
        // Inside the box no wall binds: "none", dimmed; its tooltip names the nearest wall, as the dot's does.
        const bool binds = point.binding_fraction > 1.0;
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(binds ? wall_color(point.binding_wall) : palette().text_dim));
        ImGui::TextUnformatted(binds ? wall_word(point.binding_wall) : "none");
        ImGui::PopStyleColor();
        explain_last_item(binds ? std::string("The wall this model hits hardest on one GPU.")
                                : std::string("One GPU is enough on all three axes; the nearest wall is ") + wall_word(point.binding_wall) + ".");
    }
    ImGui::EndTable();

    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    bool any_note = false;
    for (const core::RegimePoint& point : cube.points) any_note = any_note || !point.layout_note.empty();
    if (any_note) wrapped_text("* the scenario's layout cannot hold this preset: placed with the nearest layout that can (hover the name for which).");
    for (const std::string& unplaced : cube.unplaced) wrapped_textf("Not placed: %s", unplaced.c_str());
    ImGui::PopStyleColor();
}

void draw_cube_panel(CubePanelState& state, PanelContext& ctx) {
    const float em = ImGui::GetFontSize();
    if (ctx.scenario_revision != state.cube_revision) {
        state.cube_revision = ctx.scenario_revision;
        state.cube_error.clear();
        try {
            state.cube = core::regime_cube(ctx.scenario);
        } catch (const std::exception& error) {
            state.cube = {};
            state.cube_error = error.what();
        }
    }
    state.highlighted = ctx.exporting ? -1 : state.hovered_next;
    state.hovered_next = -1;

    ImGui::PushFont(fonts().bold);
    wrapped_textf("Where each model lives: what one rank needs, in units of one %s", state.cube.gpu_name.c_str());
    ImGui::PopFont();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_text("Every axis is logarithmic and 1\xC3\x97 is exactly the GPU's budget: inside the green box one GPU is enough "
                 "on all three, past it on any axis that wall is hit. Each preset runs under this scenario's cluster, training "
                 "and serving settings.");
    ImGui::PopStyleColor();
    if (!state.cube_error.empty() || state.cube.points.empty()) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().over_budget), "Cannot place the models: %s",
                           state.cube_error.empty() ? "no preset evaluates under this scenario" : state.cube_error.c_str());
        return;
    }

    const ImVec2 available = ImGui::GetContentRegionAvail();
    const float side_width = kSideColumnEm * em;
    const float hint_height = ctx.exporting ? 0.0f : ImGui::GetFrameHeightWithSpacing();
    // Beside the sidebar or zoomed: the cube takes the whole width and the legend, budgets and table follow under it.
    const bool one_column = available.x - side_width - ImGui::GetStyle().ItemSpacing.x * 2.0f < 24.0f * em;
    const ImVec2 canvas = one_column ? ImVec2(available.x, std::max(22.0f * em, available.y * 0.75f))
                                     : ImVec2(std::max(8.0f * em, available.x - side_width - ImGui::GetStyle().ItemSpacing.x * 2.0f),
                                              std::max(8.0f * em, available.y - hint_height));
    ImGui::BeginGroup();
    const float group_left = ImGui::GetCursorPosX();
    draw_canvas(state, ctx, canvas);
    if (!ctx.exporting) {
        if (ImGui::SmallButton("Reset view")) state.view = CubeView{};
        ImGui::SameLine();
        ImGui::Checkbox("Name the dots", &state.label_dots);
        ImGui::SameLine();
        // The hint stays under the canvas (a wider group would push the side column out of the window): shortened to
        // fit, whole on hover.
        const char* hint = "Drag to rotate, wheel to zoom, double-click to reset; hover a dot for its formulas.";
        const float room = canvas.x - (ImGui::GetCursorPosX() - group_left);
        const std::string shown = fit_variant({hint, "Drag to rotate, wheel to zoom", "Drag to rotate"}, room);
        ImGui::TextDisabled("%s", shown.c_str());
        if (shown != hint && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hint);
    }
    ImGui::EndGroup();
    if (!one_column) {
        ImGui::SameLine();
        ImGui::BeginChild("regime_side", ImVec2(side_width, canvas.y + hint_height), false);
    }
    draw_legend(state.cube, ctx.scenario, ctx.baseline != nullptr);
    draw_budgets(ctx.scenario, ctx.report);
    draw_table(state);
    if (!one_column) ImGui::EndChild();
}

}  // namespace

PanelDef make_cube_panel() {
    auto state = std::make_shared<CubePanelState>();
    return {"cube", "The regime cube", [state](PanelContext& ctx) { draw_cube_panel(*state, ctx); }, "Regimes"};
}

}  // namespace widgets
