#pragma once
// The words behind the numbers: each figure's formula with its values substituted, and its source. evaluate() writes
// numbers only; this is built once per scenario revision for the panels (and eval) that show text.
#include "core/cost/report.h"

#include <string>
#include <vector>

namespace core {

struct Explanation {
    std::string formula;   // "fp32 master: 4 B x 70.6e9 = 282 GB"
    std::string source;    // "Rajbhandari et al. 2019, sec 3.1" (may be empty)
};

struct ReportText {
    std::string model_name, gpu_name, recipe_name;
    std::vector<std::string> block_labels;           // per memory block: the recipe component's label, or "activations"
    std::vector<Explanation> block_whole;            // per memory block: the whole model's bytes
    std::vector<Explanation> block_per_gpu;          // per memory block: one GPU's bytes under the layout
    std::string activation_configuration;            // "tensor + sequence parallel + selective recompute"
    Explanation activations;                         // bytes per layer x layers x micro-batches in flight
    std::vector<std::string> axis_collectives;       // per report.comm.axes: "all-reduce (ring)"
    std::vector<std::string> axis_links;             // "NVLink 4", "InfiniBand NDR"
    std::vector<Explanation> axis_formulas;
    std::string step_basis;                          // "modelled: every kernel on the roofline, ..." / "assumed MFU 40.0 %"
    Explanation mfu;
    std::vector<Explanation> kernels;                // per compute.kernels: "GEMM 8192 x 1024 x 8192, 137 GFLOP, ..."
    std::vector<std::string> warnings;               // per report.warnings, one line each
    std::string budget_sentence;                     // seed 004's sentence: GPUs x price x (run + setup) = total, vs budget
};

ReportText explain(const Scenario&, const Report&);

// One line each, for places that need a single figure's words without the whole set.
std::string collective_text(const Scenario&, const AxisComm&);
std::string warning_text(const Scenario&, const Warning&);
std::string kernel_label(const Kernel&);   // "qkv forward", "attention backward_input"

}  // namespace core
