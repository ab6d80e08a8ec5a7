#pragma once
// The device mesh: nodes as boxes, each GPU a cell coloured by one of its parallel coordinates (core::rank_coordinates).
#include "core/cost/search/planner.h"
#include "core/model/layout.h"

#include <imgui.h>

namespace widgets {

enum class MeshColouring { tp, cp, pp, dp, ep };  // ep: the GPU's place in its expert-parallel group (which experts it holds)

struct DeviceMeshView {
    bool automatic = true;                        // colour by the first of EP, PP, TP, CP, DP that has more than one rank
    MeshColouring colour_by = MeshColouring::pp;  // when not automatic: pipeline stages across nodes, the seed's picture
    int max_gpus_drawn = 256;                     // beyond this, whole DP replicas up to it stand for the rest
};

// What the view colours by for this layout (resolves automatic).
MeshColouring effective_colouring(const DeviceMeshView& view, const core::Layout& layout);

// Draws in a box of the given size at the cursor and advances the cursor past it; the caption says what is shown.
void draw_device_mesh(const DeviceMeshView& view, const core::Layout& layout, int gpus, int gpus_per_node, ImVec2 size,
                      const char* scale_up_link, const char* scale_out_link);

// The colour of coordinate index out of count: the categorical series up to 8, a hue ramp beyond.
ImU32 coordinate_color(int index, int count);

}  // namespace widgets
