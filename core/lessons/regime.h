#pragma once
// The regime cube (seed 000, "3D - the regime cube"): a model placed in (memory, compute, bandwidth) space, each axis what
// it needs of that resource over what the selected GPU gives, so 1.0 is exactly the GPU's budget; the walls' rule picks the
// one that binds (core/lessons/walls.h binding_wall).
// The axes are the three walls' fractions: memory per GPU / HBM, training time / deadline, serving GPUs needed / GPUs it has.
#include "core/cost/report/report.h"
#include "core/model/scenario.h"
#include "core/lessons/walls.h"

#include <string>
#include <vector>

namespace core {

struct RegimePoint {
    std::string model_id;               // preset id, or the scenario's own model id
    std::string model_name;
    double params = 0;
    bool is_current = false;            // the scenario itself rather than a preset
    double memory_fraction = 0;         // per-GPU training bytes / HBM
    double compute_fraction = 0;        // time to train on the scenario's GPU count / the deadline
    double serving_fraction = 0;        // GPUs the service needs (replicas x TP at the target rate and latency) / its GPUs
    WallKind binding_wall = WallKind::memory;  // the wall that binds (binding_wall: memory first when over HBM)
    double binding_fraction = 0;
    std::string binding_title;          // "Memory", "Time", "Serving"
    std::string layout;                 // "TP 1 PP 1 DP 64 ZeRO 0" (core::layout_label): the layout the point was evaluated under
    std::string layout_note;            // why that differs from the scenario's layout; empty when it does not
    std::string memory_formula;         // the walls' formulas, numbers substituted (core/walls.h)
    std::string compute_formula;
    std::string serving_formula;
};

struct RegimeCube {
    std::string gpu_name;               // the GPU every axis is normalised to
    std::vector<RegimePoint> points;    // the builtin presets in catalog order, then the scenario itself
    std::vector<std::string> unplaced;  // "GPT-2 124M: train.global_batch: ..." for a preset no layout could evaluate
    double log10_min = -2;              // the shared axis range in whole decades, always containing 1.0 (= 10^0)
    double log10_max = 2;
    std::vector<double> ticks;          // one per decade from 10^log10_min to 10^log10_max
};

// The three fractions of an evaluated scenario: seed 000's three walls (walls_of), so the cube and the walls panel agree.
RegimePoint regime_point(const Scenario&, const Report&);
// Every builtin preset under the scenario's GPU, cluster, training and serving settings, then the scenario itself.
// A preset the scenario's layout cannot hold (pp > layers, ...) is evaluated with fewer pipeline stages, else data-parallel
// only, and says so in layout_note; one that no layout holds is listed in unplaced.
RegimeCube regime_cube(const Scenario&);
// Where a fraction sits along an axis of the cube: 0 at 10^log10_min, 1 at 10^log10_max, logarithmic, clamped to [0, 1].
double regime_axis_position(double fraction, double log10_min, double log10_max);

}  // namespace core
