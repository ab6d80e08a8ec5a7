#pragma once
// For evaluate(): communication per parallel axis (published.md sections 3 and 5), each on the link the axis runs over.
#include "core/cost/report.h"
#include "core/model/scenario.h"

namespace core {

struct CommInputs {
    double params_per_gpu = 0;       // the heaviest stage / tp
    int microbatches = 1;
    int stage_layers = 1;
    double compute_seconds = 0;      // per step, per GPU
    double attention_share = 0;      // share of compute in attention scores (what context-parallel traffic hides behind)
};

CommReport communication(const Scenario&, const CommInputs&);

}  // namespace core
