#pragma once
// Each headline figure's words, written once: its label, its value with the unit, its formula with the numbers in, and
// where the formula comes from. The sidebar, the configurator, the other panels, `eval`, `cost` and the lessons' captions
// print these and write no sentence of a figure themselves, so the same figure reads the same everywhere.
#include "core/cost/report/report.h"

#include <string>
#include <vector>

namespace core {

struct FigureText {
    std::string label;    // "MFU"
    std::string value;    // "46.5 %": the number and its unit, as every place shows it
    std::string formula;  // "model FLOPs per step / (step time x GPUs x peak) = ... = 46.5 %": the numbers substituted
    std::string source;   // "Korthikanti et al. 2022, Appendix A" (may be empty)
};

struct FigureTexts {
    // Memory
    FigureText parameters;         // "70.6 B", or "671 B (37.0 B active)" for a mixture of experts
    FigureText training_state;     // the whole model's state: bytes per parameter x parameters
    FigureText peak_memory;        // one GPU at its peak against HBM, with the verdict: "79.4 GB of 80.0 GB HBM: fits, ..."
    // The step
    FigureText step_time;          // the formula says how it was obtained (modelled, assumed MFU, measured)
    FigureText compute_time;       // the busiest GPU's kernels
    FigureText bubble_time;        // the pipeline's idle time in the step
    FigureText exposed_comm_time;  // communication the compute did not hide, every axis
    FigureText straggler_time;     // the step waiting for its slowest machine
    FigureText expected_error;     // the model's error over the validation runs of the step's regime: "+-6.2 % (14 runs)"
    FigureText mfu;
    FigureText hfu;
    FigureText achieved_flops;     // model FLOP/s per GPU
    FigureText compile_time;       // torch.compile's first step, once: "8.18 s", the kernels Inductor fused
    // The run
    FigureText time_to_train;      // tokens / tokens per step x step time, no failures
    FigureText gpu_hours;
    FigureText training_cost;      // GPU-hours x price: training alone
    FigureText billed_cost;        // GPUs x price x (training + setup): what the budget sentence totals
    // Failures and checkpoints
    FigureText cluster_mtbf;
    FigureText checkpoint;         // "988 GB in 9.88 s"
    FigureText young_interval;
    FigureText daly_interval;
    FigureText goodput;
    FigureText failures;           // expected over the wall time
    FigureText wall_time;          // time to train / goodput
};

FigureTexts figure_texts(const Scenario&, const Report&);
// Every figure of the set, in the order above: for the checks that read them all.
std::vector<FigureText> figure_list(const FigureTexts&);

// The peak per GPU said two ways, for the places that show it as a sentence: "Peak 85.3 GB per GPU (stage 8 of 8, at the
// loss's backward): over 80.0 GB by 5.3 GB; ..." and "state 60.1 GB + activations 12.0 GB + beside them at the peak 7.3 GB = 79.4 GB".
std::string memory_verdict_text(const Scenario&, const Report&);
// The layout's GPUs: "TP 8 x PP 16 x CP 1 x DP 128 = 16,384 GPUs on 2,048 nodes of 8", "... = 1 GPU on 1 node of 1".
std::string layout_gpus_text(const LayoutReport&);
std::string memory_peak_line_text(const Report&);

// What the device mesh draws of a cluster and its caption: every GPU when there are at most `budget`, else whole DP
// replicas up to it (so the picture repeats exactly), else the first GPUs of one replica in rank order.
struct MeshSample {
    long long drawn_gpus = 0;
    long long drawn_nodes = 0;
    // "GPUs 0-255 of 16,384: 2 of 128 DP replicas (128 GPUs each); the rest repeat them. Box = node (NVLink 4 inside);
    // between boxes: InfiniBand NDR." and, coloured by expert rank, what one EP group holds.
    std::string caption;
};
MeshSample mesh_sample(const Layout&, int gpus, int gpus_per_node, int budget, bool coloured_by_expert, const std::string& scale_up_link,
                       const std::string& scale_out_link);

}  // namespace core
