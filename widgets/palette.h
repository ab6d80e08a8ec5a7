#pragma once
// One colour per meaning, the same in every panel; dark (screen) and light (print) themes.
#include "core/cost/report/report.h"
#include "core/cost/report/timeline_figure.h"

#include <imgui.h>

#include <string_view>

namespace widgets {

struct Palette {
    ImU32 weights, grads, master, optimizer, optimizer_second, activations, kv_cache;  // memory categories
    ImU32 forward, backward, weight_grad, idle;                                          // pipeline ops
    ImU32 memory_wall, time_wall, serving_wall;                                          // the three walls
    ImU32 nvlink, infiniband, hbm, compute;                                               // links and roofs
    ImU32 over_budget, within_budget, warning;                                           // verdicts
    ImU32 text, text_dim, grid, axis, panel_background, ceiling;
    ImU32 series[8];                                                                     // categorical: GPUs, algorithms, ranks
};

enum class Theme { dark, light };

void set_theme(Theme);              // also sets ImGui's style colours
Theme current_theme();
const Palette& palette();

// The colour of a memory category; index picks the second shade when a kind has two components in a row (Adam m, Adam v).
ImU32 memory_kind_color(core::MemoryKind kind, int index_within_kind = 0);

// The memory timeline's stacked parts: the memory categories' hues for the state, the gradients and the activations, and
// for the rest colours that stay apart from all of them under deuteranopia (tests/render/test_palette.cpp). Opaque: the
// slack is the panel's grey over the background, as drawn.
ImU32 timeline_part_color(core::TimelinePart part);

ImU32 with_alpha(ImU32 color, float alpha);

}  // namespace widgets
