#pragma once
// The seed's "16-byte stack vs the HBM ceiling" (seed 000) as a pure function of the Report and t: the categories appear
// one by one in recipe order at a size that still fits, then the parameter count grows past each GPU's ceiling up to the
// scenario's size. Also the ceilings themselves and "how many GPUs' worth" a stack is.
#include "core/model/hardware.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report.h"

#include <string>
#include <vector>

namespace core {

// GPUs whose capacities lie within 1 % of the lowest of them share one line: apart, their lines and labels would
// overlap on the stack (A100 80GB, H100 and H800: 84.99 to 85.02 GB as CUDA gives them).
inline constexpr double ceiling_merge_share = 0.01;

// One horizontal HBM line; GPUs of (nearly) equal capacity share it.
struct GpuCeiling {
    double hbm_bytes = 0;         // the selected GPU's where it is on the line, else the lowest of the line's GPUs
    std::string gpu_names;        // "A100 SXM 80GB / H100 SXM"
    std::string short_names;      // "A100 / H100": each name's first word, for a label a room can read
    bool selected = false;        // the scenario's GPU is on this line
};

// The selected GPU and the catalog's NVLink-class GPUs at least as large, as ceilings, lowest first.
std::vector<GpuCeiling> gpu_ceilings(const HardwareCatalog& catalog, const GpuSpec& selected);

// How a stack of bytes compares with one GPU's HBM.
struct Overshoot {
    double bytes = 0;
    double hbm_bytes = 0;
    double gpus_worth = 0;        // bytes / hbm: 14.0 for 70e9 x 16 B on an H100
    bool over = false;            // bytes > hbm
    double over_bytes = 0;        // bytes - hbm, 0 when it fits
    std::string caption;          // "14.0x an H100 SXM" or "fits: 20.3 % of an H100 SXM"
};
Overshoot overshoot(double bytes, const GpuSpec& gpu);

// One GPU's training state without its activations: weights + grads + master + optimizer.
double per_gpu_state_bytes(const PerGpuMemory& per_gpu);

// Why one GPU's peak stands above the whole model's column, which counts one copy trained on one GPU: the buffers only a
// parallel layout needs (DP's NCCL buckets, ZeRO-3's gathered layers). "" where the GPU's peak is not above it.
// Longest first: "above the whole model: 688 MB of NCCL buckets one GPU alone would not need", "+688 MB of NCCL buckets".
std::vector<std::string> above_whole_model_text(const PerGpuMemory& per_gpu, double whole_model_bytes);

// Pacing of the animation, in seconds of playback.
struct StackTiming {
    double seconds_per_category = 0.8;  // each category grows in over this long
    double seconds_per_decade = 1.6;    // the parameter count grows tenfold in this long
    double min_grow_seconds = 1.2;      // a short growth still reads as motion
    double hold_seconds = 1.5;          // the finished stack stays up before a loop restarts
    double start_fill = 0.75;           // the build happens where the state fills this share of the lowest ceiling
};

enum class StackPhase { build, grow, hold };

struct StackTimeline {
    double start_params = 0;      // the size the categories are built at (<= final_params)
    double final_params = 0;      // the scenario's parameter count
    double final_total_bytes = 0; // the finished column: the Report's whole_bytes summed
    double build_seconds = 0;
    double grow_seconds = 0;      // 0 when the scenario is no larger than start_params
    double duration_seconds = 0;  // build + grow + hold
    double step_seconds = 0;      // one category's slot: what "step" moves by
};

// One category of the whole-model column at time t.
struct StackLayer {
    std::string label;            // "fp32 master"
    MemoryKind kind = MemoryKind::weights;
    int index_within_kind = 0;    // 0 for Adam m, 1 for Adam v: picks the colour's shade
    double bytes_per_param = 0;   // 0 for activations
    double bytes = 0;             // height at t
    double final_bytes = 0;       // height at the end: the Report's whole_bytes
    double shown = 0;             // 0..1, how far it has grown in
    std::string formula;          // with the numbers at t: "fp32 master: 4 B x 23.1e9 = 92.4 GB"
};

struct StackFrame {
    double t_seconds = 0;
    StackPhase phase = StackPhase::build;
    double params = 0;                   // parameter count at t
    int appearing = -1;                  // the layer growing in during the build, -1 after
    std::vector<StackLayer> layers;      // recipe order, then activations
    double state_bytes = 0;              // the recipe's layers at t
    double total_bytes = 0;              // + activations
    std::vector<GpuCeiling> crossed;     // ceilings below total_bytes, lowest first
    std::string caption;                 // what is happening at t, with its numbers
};

StackTimeline stack_timeline(const MemoryReport& memory, const std::vector<GpuCeiling>& ceilings, const StackTiming& timing = {});
// Non-decreasing in t; t <= 0 shows the first category grown in, t >= duration the Report's whole column.
// text gives each block's label and whole-model formula (core/cost/report/explain.h).
StackFrame stack_frame(const MemoryReport& memory, const ReportText& text, const std::vector<GpuCeiling>& ceilings, double t_seconds,
                       const StackTiming& timing = {});

}  // namespace core
