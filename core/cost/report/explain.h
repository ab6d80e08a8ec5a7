#pragma once
// The words behind the numbers: each figure's formula with its values substituted, and its source. evaluate() writes
// numbers only; this is built once per scenario revision for the panels (and eval) that show text.
#include "core/cost/report/figure_text.h"
#include "core/cost/report/report.h"

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
    FigureTexts figures;                             // every headline figure's label, value, formula and source (figure_text.h)
    std::vector<FigureText> peak_groups;             // per report.peak_groups: "optimizer", "1.13 TB", its blocks' formulas
    std::vector<Explanation> kernels;                // per compute.kernels: "GEMM 8192 x 1024 x 8192, 137 GFLOP, ..."
    std::vector<std::string> warnings;               // per report.warnings, one line each
    // Memory at the peak (core/cost/memory/memory.h):
    std::string memory_verdict;                      // "Peak 85.3 GB per GPU (stage 8 of 8, the loss's backward): over ..."
    std::string memory_peak_line;                    // "state 60.1 GB + activations 12.0 GB + at the peak 7.3 GB = 79.4 GB"
    std::vector<std::string> stage_labels;           // per memory.per_stage: "stage 1 (first): 10 layers + embedding"
    std::vector<Explanation> stage_formulas;         // per memory.per_stage: its peak, block by block
    // The anatomy of a step
    std::vector<std::string> kernel_short_labels;    // per compute.kernels: "up dX", for a narrow box
    std::vector<Explanation> timeline_ops;           // per compute.layer_timeline: what runs, how long, hidden or waited for
    std::vector<Explanation> step_parts;             // per StepPart (anatomy.h): what the part holds, its time and share
    Explanation ideal_step;                          // model FLOPs / (GPUs x peak): the step at 100 % MFU
    std::vector<std::string> mfu_marks;              // per step_bar().marks: "all kernels: 65.0 % MFU"
    std::string mfu_chain;                           // "best GEMM 70.0 % of peak -> all kernels 65.0 % -> ... -> the step 46.5 % MFU"
    std::vector<std::string> axis_groups;            // per report.comm.axes: "tp 8", "dp 64", "dp x cp 8" (DP's gradients
                                                     // reduce over the CP ranks too: with dp 1 and cp 8 that group is CP's)
    std::string budget_sentence;                     // seed 004's sentence: GPUs x price x (run + setup) = total, vs budget
};

ReportText explain(const Scenario&, const Report&);

// One line each, for places that need a single figure's words without the whole set.
std::string collective_text(const Scenario&, const AxisComm&);
std::string warning_text(const Scenario&, const Warning&);
std::string kernel_label(const Kernel&);    // "qkv forward", "attention backward_input"
// A memory block's name: the recipe component's label ("fp32 master"), "activations", or what the peak holds ("cuBLAS").
std::string memory_block_label(const Scenario&, const MemoryBlock&);
std::string memory_phase_text(MemoryPhase);  // "the end of the forward", "the loss's backward", "a layer's backward"
std::string kernel_short_label(const Kernel&);  // "QKV", "up dX", "down dW", "attn r": name and pass in a few letters

}  // namespace core
