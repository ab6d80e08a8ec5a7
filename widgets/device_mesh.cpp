#include "widgets/device_mesh.h"
#include "widgets/draw_helpers.h"

#include "core/cost/report/figure_text.h"
#include "core/model/format.h"
#include "core/model/layout.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

namespace widgets {
namespace {

int coordinate_of(const core::RankCoordinates& where, MeshColouring colour_by) {
    switch (colour_by) {
        case MeshColouring::tp: return where.tp;
        case MeshColouring::cp: return where.cp;
        case MeshColouring::pp: return where.pp;
        case MeshColouring::dp: return where.dp;
        case MeshColouring::ep: return where.ep;
    }
    return 0;
}

int count_of(const core::Layout& layout, MeshColouring colour_by) {
    switch (colour_by) {
        case MeshColouring::tp: return layout.tp;
        case MeshColouring::cp: return layout.cp;
        case MeshColouring::pp: return layout.pp;
        case MeshColouring::dp: return layout.dp;
        case MeshColouring::ep: return layout.ep;
    }
    return 1;
}

struct Grid {
    int columns = 1, rows = 1, cells_across = 8, cells_down = 1;
    float cell = 0;
};

// The node-box grid that makes GPU cells largest inside the box; a node lays its GPUs out in one row, or two when wide.
Grid best_grid(long long nodes, int per_node, ImVec2 size, float gap) {
    Grid best;
    for (int cells_down : {1, 2}) {
        if (per_node % cells_down != 0) continue;
        const int cells_across = per_node / cells_down;
        for (long long columns = 1; columns <= nodes; ++columns) {
            const long long rows = (nodes + columns - 1) / columns;
            const float cell_w = (size.x - gap * (columns - 1)) / (columns * (cells_across + 0.4f));
            const float cell_h = (size.y - gap * (rows - 1)) / (rows * (cells_down + 0.4f));
            const float cell = std::min(cell_w, cell_h);
            if (cell > best.cell) best = {static_cast<int>(columns), static_cast<int>(rows), cells_across, cells_down, cell};
        }
    }
    return best;
}

}  // namespace

MeshColouring effective_colouring(const DeviceMeshView& view, const core::Layout& layout) {
    if (!view.automatic) return view.colour_by;
    if (layout.ep > 1) return MeshColouring::ep;  // a mixture of experts: where its experts live is the new picture
    if (layout.pp > 1) return MeshColouring::pp;
    if (layout.tp > 1) return MeshColouring::tp;
    if (layout.cp > 1) return MeshColouring::cp;
    return MeshColouring::dp;
}

ImU32 coordinate_color(int index, int count) {
    if (count <= 8) return palette().series[index % 8];
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(0.78f * static_cast<float>(index) / static_cast<float>(count - 1), 0.55f, 0.92f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

void draw_device_mesh(const DeviceMeshView& view, const core::Layout& layout, int gpus, int gpus_per_node, ImVec2 size,
                      const char* scale_up_link, const char* scale_out_link) {
    const Palette& colors = palette();
    const float font = ImGui::GetFontSize();
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();

    const MeshColouring colour_by = effective_colouring(view, layout);
    const core::MeshSample sample = core::mesh_sample(layout, gpus, gpus_per_node, view.max_gpus_drawn, colour_by == MeshColouring::ep, scale_up_link,
                                                      scale_out_link);
    const long long drawn = sample.drawn_gpus;
    const long long nodes = sample.drawn_nodes;
    const int count = count_of(layout, colour_by);
    const float caption_height = line * 2.0f;
    const float gap = font * 0.5f;
    const ImVec2 area(size.x, std::max(font, size.y - caption_height));
    const Grid grid = best_grid(nodes, gpus_per_node, area, gap);
    const float cell = std::min(grid.cell, font * 2.4f);
    const float pad = cell * 0.2f;
    const float node_w = grid.cells_across * cell + 2 * pad;
    const float node_h = grid.cells_down * cell + 2 * pad;
    // Each cell's number, smaller where the widest would not fit inside its cell ("10" ran over its neighbours in
    // DeepSeek-V3's mesh), and none below 0.6 em, where the caption's "same number" could not be read.
    const float widest_label = ImGui::CalcTextSize(std::to_string(std::max(0, count - 1)).c_str()).x;
    const float label_size = std::min({font, cell * 0.8f, widest_label > 0 ? font * cell * 0.8f / widest_label : font});
    const bool label_cells = label_size >= font * 0.6f;

    for (long long node = 0; node < nodes; ++node) {
        const float x = origin.x + static_cast<float>(node % grid.columns) * (node_w + gap);
        const float y = origin.y + static_cast<float>(node / grid.columns) * (node_h + gap);
        draw->AddRectFilled(ImVec2(x, y), ImVec2(x + node_w, y + node_h), with_alpha(colors.nvlink, 0.12f), pad);
        draw->AddRect(ImVec2(x, y), ImVec2(x + node_w, y + node_h), colors.nvlink, pad, 0, std::max(1.0f, font * 0.08f));
        for (int slot = 0; slot < gpus_per_node; ++slot) {
            const long long rank = node * gpus_per_node + slot;
            if (rank >= drawn) break;
            const core::RankCoordinates where = core::rank_coordinates(layout, gpus_per_node, rank);
            const int value = coordinate_of(where, colour_by);
            const float cx = x + pad + static_cast<float>(slot % grid.cells_across) * cell;
            const float cy = y + pad + static_cast<float>(slot / grid.cells_across) * cell;
            const ImVec2 lo(cx + cell * 0.06f, cy + cell * 0.06f), hi(cx + cell * 0.94f, cy + cell * 0.94f);
            draw->AddRectFilled(lo, hi, coordinate_color(value, count), visible_rounding(cell * 0.12f));
            if (label_cells) {
                const std::string text = std::to_string(value);
                const ImVec2 text_size = ImGui::GetFont()->CalcTextSizeA(label_size, FLT_MAX, 0.0f, text.c_str());
                draw->AddText(ImGui::GetFont(), label_size, ImVec2((lo.x + hi.x - text_size.x) * 0.5f, (lo.y + hi.y - text_size.y) * 0.5f),
                              IM_COL32(20, 20, 24, 255), text.c_str());
            }
        }
    }
    const float grid_height = grid.rows * node_h + (grid.rows - 1) * gap;
    ImGui::Dummy(ImVec2(size.x, std::min(grid_height, area.y)));

    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors.text_dim));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
    wrapped_text(sample.caption);
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

}  // namespace widgets
