#pragma once
// Memory over one step as the timeline panel draws it, prepared as plain data: each pipeline stage's points
// (core/cost/memory/timeline.h, every stage from stage_timelines.h) split into stacked parts, the step's phases as bands,
// the allocated and reserved peaks, the HBM line, what is live at the peak (the stack panel's blocks), and every word
// the panel shows. The panel draws these and formats nothing itself.
#include "core/cost/memory/memory_report.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"

#include <array>
#include <string>
#include <vector>

namespace core {

// The stacked parts, bottom to top: the training state, the gradients, what the layers keep for the backward, the head's
// logits and loss, the other tensors the allocator hands out, what it reserves beyond them, and NCCL's buffers beside it.
enum class TimelinePart { weights, master, optimizer, grads, activations, logits, temporaries, slack, outside };
inline constexpr int kTimelineParts = 9;
const char* timeline_part_label(TimelinePart);  // "weights", "master copy", ..., "NCCL buffers (outside the allocator)"
// The part a block of the stack panel's (report.memory.blocks) falls in: weight copies, working sets and workspaces
// are temporaries, fragmentation the allocator's slack, NCCL's buffers and DDP's buckets outside.
TimelinePart timeline_part_of(MemoryKind);

// Where a point sits in the step: "layer 12's forward", "the loss", "the optimizer step", "zero_grad"; with the
// micro-batch ("layer 12's backward, micro-batch 2") when the step runs more than one. Layers count from 1.
std::string timeline_point_text(const TimelinePoint&, bool name_microbatch);
// Where a timeline's allocated peak falls: its peak point's text, naming the micro-batch when the step has several.
std::string timeline_peak_text(const MemoryTimeline&);
// The same with its preposition, for a sentence: "at layer 12's backward", "inside the loss".
std::string timeline_peak_where(const MemoryTimeline&);
// The most the layers keep for the backward at any point of the step.
double timeline_most_activations_bytes(const MemoryTimeline&);

// Consecutive points of one phase.
struct TimelineBand {
    TimelinePhase phase = TimelinePhase::forward;
    int first_point = 0, last_point = 0;  // the step's point indices, inclusive
    std::string label;                    // "forward", "loss", "backward", "optimizer", "zero_grad": named above it if narrow;
                                          // "1F1B steady state" on the first band of that run, empty on the rest
};

struct TimelineStageFigure {
    int stage = 0;
    std::string title;                    // "One GPU", "Stage 3 (heaviest)"
    std::string short_title;              // "Stage 3": where the title does not fit
    std::string peak_text;                // "peak 61.3 GB": the stack's top at its highest (reserved + NCCL's buffers)
    int points = 0;                       // the step's points: x runs from 0 to points - 1
    // The points drawn: every one, or when there are more than asked, the fullest of each run (the peak's always).
    std::vector<double> x;
    std::array<std::vector<double>, kTimelineParts> part_bytes;  // per drawn point; their sum is the stack's top
    std::vector<double> allocated_bytes, reserved_bytes;         // per drawn point
    std::vector<std::string> point_texts; // per drawn point, for the detailed stage only: where it is and its bytes
    std::vector<TimelineBand> bands;
    int peak_point = 0;                   // the point nearest the allocated peak
    int reserved_peak_point = 0;          // the first point at the most reserved
    double peak_allocated_bytes = 0;      // the step's, which may fall inside a layer, between two points
    double peak_reserved_bytes = 0;
    double outside_bytes = 0;             // NCCL's buffers: beside the allocator, the same at every point
    double top_bytes = 0;                 // the most the stack reaches: max(reserved peak, top of any point) + outside
    bool heaviest = false;
};

// One row of what is live at the peak: a block of the stack panel's, its words, and the part it is drawn in.
struct TimelineLiveRow {
    std::string label;                    // the block's label, as the stack panel's
    std::string value;                    // "12.1 GB"
    double bytes = 0;
    TimelinePart part = TimelinePart::temporaries;
};

struct MemoryTimelineFigure {
    std::string title;                    // "Memory over one step: Llama 3.2 1B on one H100 SXM"
    std::string headline;                 // "Peak 21.3 GB allocated, 24.0 GB reserved, at layer 16's backward; HBM 85.0 GB"
    std::string method;                   // how the curves were obtained, one sentence
    std::string note;                     // where the points are and where the peaks fall
    std::string x_title;                  // "point of the step (each layer's forward and backward)"
    std::string y_title;                  // "GB per GPU"
    std::string stages_heading;           // "Every stage, same scale": the small multiples' heading ("" for one stage)
    std::array<std::string, kTimelineParts> part_labels;
    std::array<bool, kTimelineParts> part_shown{};  // some stage holds bytes of it
    TimelineStageFigure detail;           // the heaviest stage, point by point: the one the peak and the live rows describe
    std::vector<TimelineStageFigure> stages;        // with a pipeline, every stage first to last, fewer points each
    double hbm_bytes = 0;
    std::string hbm_label;                // "HBM 85.0 GB"
    std::string allocated_peak_label;     // "allocated peak 21.3 GB", the heaviest stage's
    std::string reserved_peak_label;      // "reserved peak 24.0 GB"
    double y_max_bytes = 0;               // the shared y axis: the highest stack or HBM, whichever is more
    std::string live_heading;             // "Live at the peak (a layer's backward)"
    std::vector<TimelineLiveRow> live;    // the stack panel's blocks at the peak, empty ones left out
    std::string live_total;               // "Peak per GPU: 24.9 GB of 85.0 GB HBM: fits" (figure_text's peak_memory)
};

// The panel's figure for a scenario and its report (the heaviest stage's timeline is the report's; a pipeline's other
// stages are walked here). most_points: the detailed stage's points drawn at most; most_stage_points: each small stage's.
MemoryTimelineFigure memory_timeline_figure(const Scenario&, const Report&, const ReportText&, int most_points = 600,
                                            int most_stage_points = 120);

}  // namespace core
