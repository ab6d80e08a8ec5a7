#include "core/cost/report/timeline_figure.h"

#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/report/figure_text.h"
#include "core/cost/report/stage_timelines.h"
#include "core/model/format.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

// A pipeline stage's 1F1B steady state alternates one backward and one forward per micro-batch: one word for the run (on
// its first band), not a word per band, between the warm-up's forwards and the cool-down's backwards; the loss keeps its
// word. Not for one GPU, whose micro-batches run whole one after another (gradient accumulation).
void label_steady_state(std::vector<TimelineBand>& bands) {
    int first_backward = -1, last_forward = -1;
    for (int b = 0; b < static_cast<int>(bands.size()); ++b) {
        if (bands[b].phase == TimelinePhase::backward && first_backward < 0) first_backward = b;
        if (bands[b].phase == TimelinePhase::forward) last_forward = b;
    }
    if (first_backward < 0 || last_forward < first_backward) return;
    for (int b = first_backward; b <= last_forward; ++b) {
        if (bands[b].phase == TimelinePhase::forward || bands[b].phase == TimelinePhase::backward) bands[b].label = b == first_backward ? "1F1B steady state" : "";
    }
}

// A point's parts, in TimelinePart order: the allocated bytes split as the timeline split them, then the allocator's
// slack and the buffers outside it.
std::array<double, kTimelineParts> parts_of(const TimelinePoint& point, double outside_bytes) {
    return {point.weights_bytes,
            point.master_bytes,
            point.optimizer_bytes,
            point.grads_bytes,
            point.activations_bytes,
            point.logits_bytes,
            std::max(0.0, point.transient_bytes - point.logits_bytes),
            std::max(0.0, point.reserved_bytes - point.allocated_bytes),
            outside_bytes};
}

// The points drawn: all of them, or the fullest (most reserved, then allocated) of each of `most` runs, with the
// allocated peak's point kept wherever it falls.
std::vector<int> drawn_points(const MemoryTimeline& timeline, int most) {
    const int count = static_cast<int>(timeline.points.size());
    std::vector<int> chosen;
    if (count <= most || most < 2) {
        for (int i = 0; i < count; ++i) chosen.push_back(i);
        return chosen;
    }
    const auto fuller = [&](int a, int b) {
        const TimelinePoint& pa = timeline.points[a];
        const TimelinePoint& pb = timeline.points[b];
        return pa.reserved_bytes != pb.reserved_bytes ? pa.reserved_bytes > pb.reserved_bytes : pa.allocated_bytes > pb.allocated_bytes;
    };
    for (int run = 0; run < most; ++run) {
        const int begin = static_cast<int>(static_cast<long long>(run) * count / most);
        const int end = static_cast<int>(static_cast<long long>(run + 1) * count / most);
        if (begin >= end) continue;
        int best = begin;
        for (int i = begin; i < end; ++i) {
            if (i == timeline.peak_point) {
                best = i;
                break;
            }
            if (fuller(i, best)) best = i;
        }
        chosen.push_back(best);
    }
    return chosen;
}

TimelineStageFigure stage_figure(const MemoryTimeline& timeline, double outside_bytes, int most_points) {
    TimelineStageFigure figure;
    figure.stage = timeline.stage;
    figure.points = static_cast<int>(timeline.points.size());
    figure.outside_bytes = outside_bytes;
    figure.peak_point = timeline.peak_point;
    figure.peak_allocated_bytes = timeline.peak_allocated_bytes;
    figure.peak_reserved_bytes = timeline.peak_reserved_bytes;
    double most_reserved = -1, top = timeline.peak_reserved_bytes;
    for (int i = 0; i < figure.points; ++i) {
        const TimelinePoint& point = timeline.points[i];
        if (point.reserved_bytes > most_reserved) {
            most_reserved = point.reserved_bytes;
            figure.reserved_peak_point = i;
        }
        top = std::max(top, point.reserved_bytes);
        // Bands: a run of one phase.
        if (figure.bands.empty() || figure.bands.back().phase != point.phase) {
            figure.bands.push_back({point.phase, i, i, timeline_phase_name(point.phase)});
        } else {
            figure.bands.back().last_point = i;
        }
    }
    figure.top_bytes = top + outside_bytes;
    for (int i : drawn_points(timeline, most_points)) {
        const TimelinePoint& point = timeline.points[i];
        figure.x.push_back(i);
        const std::array<double, kTimelineParts> parts = parts_of(point, outside_bytes);
        for (int part = 0; part < kTimelineParts; ++part) figure.part_bytes[part].push_back(parts[part]);
        figure.allocated_bytes.push_back(point.allocated_bytes);
        figure.reserved_bytes.push_back(point.reserved_bytes);
    }
    figure.peak_text = "peak " + format_bytes(figure.top_bytes);
    return figure;
}

}  // namespace

const char* timeline_part_label(TimelinePart part) {
    switch (part) {
        case TimelinePart::weights: return "weights";
        case TimelinePart::master: return "master copy";
        case TimelinePart::optimizer: return "optimizer state";
        case TimelinePart::grads: return "gradients";
        case TimelinePart::activations: return "saved activations";
        case TimelinePart::logits: return "logits and loss";
        case TimelinePart::temporaries: return "temporaries";
        case TimelinePart::slack: return "allocator slack (reserved - allocated)";
        case TimelinePart::outside: return "NCCL buffers (outside the allocator)";
    }
    return "";
}

TimelinePart timeline_part_of(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::weights: return TimelinePart::weights;
        case MemoryKind::grads: return TimelinePart::grads;
        case MemoryKind::master: return TimelinePart::master;
        case MemoryKind::optimizer: return TimelinePart::optimizer;
        case MemoryKind::activations: return TimelinePart::activations;
        case MemoryKind::logits: return TimelinePart::logits;
        case MemoryKind::fragmentation: return TimelinePart::slack;
        case MemoryKind::comm_buffers: return TimelinePart::outside;
        case MemoryKind::kv_cache:
        case MemoryKind::weight_copies:
        case MemoryKind::gathered_weights:
        case MemoryKind::backward_working_set:
        case MemoryKind::workspace: return TimelinePart::temporaries;
    }
    return TimelinePart::temporaries;
}

std::string timeline_point_text(const TimelinePoint& point, bool name_microbatch) {
    std::string text;
    switch (point.phase) {
        case TimelinePhase::forward:
        case TimelinePhase::backward:
            text = point.layer >= 0 ? "layer " + format_whole(point.layer + 1) + "'s " + timeline_phase_name(point.phase) : std::string("the ") + timeline_phase_name(point.phase);
            break;
        case TimelinePhase::loss: text = "the loss"; break;
        case TimelinePhase::optimizer: return point.inside_op ? "inside the optimizer step" : "the optimizer step";
        case TimelinePhase::zero_grad: return "zero_grad";
    }
    if (name_microbatch) text += ", micro-batch " + format_whole(point.microbatch + 1);
    return point.inside_op ? "inside " + text : text;  // the peak within an op, before the boundary that ends it
}

std::string timeline_peak_text(const MemoryTimeline& timeline) {
    if (timeline.points.empty()) return {};
    bool several_microbatches = false;
    for (const TimelinePoint& point : timeline.points) several_microbatches = several_microbatches || point.microbatch > 0;
    const int peak = std::clamp(timeline.peak_point, 0, static_cast<int>(timeline.points.size()) - 1);
    return timeline_point_text(timeline.points[peak], several_microbatches);
}

std::string timeline_peak_where(const MemoryTimeline& timeline) {
    if (timeline.points.empty()) return {};
    const bool inside = timeline.points[std::clamp(timeline.peak_point, 0, static_cast<int>(timeline.points.size()) - 1)].inside_op;
    return (inside ? "" : "at ") + timeline_peak_text(timeline);  // the inside point's text says "inside" itself
}

double timeline_most_activations_bytes(const MemoryTimeline& timeline) {
    double most = 0;
    for (const TimelinePoint& point : timeline.points) most = std::max(most, point.activations_bytes);
    return most;
}

MemoryTimelineFigure memory_timeline_figure(const Scenario& scenario, const Report& report, const ReportText& text, int most_points,
                                            int most_stage_points) {
    MemoryTimelineFigure figure;
    const MemoryReport& memory = report.memory;
    const int stages = std::max(1, report.layout.pp);
    const auto outside_of = [&](int stage) {
        return stage >= 0 && stage < static_cast<int>(memory.per_stage.size()) ? memory.per_stage[stage].comm_buffers_bytes : 0.0;
    };
    const auto titled = [&](TimelineStageFigure& stage) {
        stage.heaviest = stage.stage == memory.peak_stage;
        stage.short_title = stages == 1 ? "One GPU" : "Stage " + format_whole(stage.stage + 1);
        stage.title = stage.short_title + (stages > 1 && stage.heaviest ? " (heaviest)" : "");
    };
    // The heaviest stage's timeline is the report's own (evaluate walked it): the same peak as the stack panel's.
    figure.detail = stage_figure(memory.timeline, outside_of(memory.peak_stage), most_points);
    titled(figure.detail);
    if (stages > 1) label_steady_state(figure.detail.bands);
    bool several_microbatches = false;
    for (const TimelinePoint& point : memory.timeline.points) several_microbatches = several_microbatches || point.microbatch > 0;
    for (std::size_t i = 0; i < figure.detail.x.size(); ++i) {
        const TimelinePoint& point = memory.timeline.points[static_cast<std::size_t>(figure.detail.x[i])];
        figure.detail.point_texts.push_back(timeline_point_text(point, several_microbatches) + ": " + format_bytes(point.allocated_bytes) +
                                            " allocated, " + format_bytes(point.reserved_bytes) + " reserved");
    }
    if (stages > 1) {
        for (const MemoryTimeline& timeline : stage_memory_timelines(scenario, report)) {
            const bool heaviest = timeline.stage == memory.peak_stage;
            figure.stages.push_back(stage_figure(heaviest ? memory.timeline : timeline, outside_of(timeline.stage), most_stage_points));
            titled(figure.stages.back());
            label_steady_state(figure.stages.back().bands);
        }
    }
    const TimelineStageFigure& peak = figure.detail;

    for (int part = 0; part < kTimelineParts; ++part) {
        figure.part_labels[part] = timeline_part_label(static_cast<TimelinePart>(part));
        for (const TimelineStageFigure* stage : {&figure.detail}) {
            for (double bytes : stage->part_bytes[part]) figure.part_shown[part] = figure.part_shown[part] || bytes > 0;
        }
        for (const TimelineStageFigure& stage : figure.stages) {
            for (double bytes : stage.part_bytes[part]) figure.part_shown[part] = figure.part_shown[part] || bytes > 0;
        }
    }
    figure.hbm_bytes = memory.hbm_bytes;
    figure.hbm_label = "HBM " + format_bytes(memory.hbm_bytes);
    double highest = std::max(memory.hbm_bytes, figure.detail.top_bytes);
    for (const TimelineStageFigure& stage : figure.stages) highest = std::max(highest, stage.top_bytes);
    figure.y_max_bytes = highest;

    // The timeline is one GPU's: the only one, one of a data-parallel group, or one per pipeline stage.
    const std::string where = stages > 1                ? format_counted(stages, "pipeline stage", "pipeline stages")
                              : report.layout.gpus == 1 ? "one " + scenario.cluster.gpu.name
                                                        : "each of " + format_whole(report.layout.gpus) + " " + scenario.cluster.gpu.name + " GPUs";
    figure.title = "Memory over one step: " + scenario.model.name + " on " + where;
    const MemoryTimeline& heaviest = memory.timeline;
    const std::string at = heaviest.points.empty() ? std::string() : ", " + timeline_peak_where(heaviest);
    figure.allocated_peak_label = "allocated peak " + format_bytes(peak.peak_allocated_bytes);
    figure.reserved_peak_label = "reserved peak " + format_bytes(peak.peak_reserved_bytes);
    // NCCL's buffers sit outside the allocator: with them, the peak the stages' plots and memory.fits show.
    const double nccl_bytes = memory.per_gpu.comm_buffers_bytes;
    const std::string with_nccl = nccl_bytes > 0 ? "with NCCL's buffers " + format_bytes(peak.peak_reserved_bytes + nccl_bytes) + " of " : std::string();
    figure.headline = (stages > 1 ? "Stage " + format_whole(peak.stage + 1) + ": peak " : std::string("Peak ")) + format_bytes(peak.peak_allocated_bytes) +
                      " allocated, " + format_bytes(peak.peak_reserved_bytes) + " reserved" + at + "; " + with_nccl + figure.hbm_label + ".";
    if (heaviest.allocator_model) {
        figure.method = "Replayed through a model of PyTorch's caching allocator (" + framework_recipe_of(scenario).name +
                        "), a warm-up step first: reserved is what its segments hold.";
    } else {
        figure.method = "From " + std::string(framework_name(scenario.train.framework)) + "'s per-layer figures: reserved is allocated plus the " +
                        format_percent(scenario.memory.fragmentation) + " fragmentation allowance.";
    }
    figure.note = "A point after each layer's forward and backward; a peak inside an op is a point of its own, between them.";
    figure.x_title = "point of the step";
    figure.y_title = "GB per GPU";
    figure.stages_heading = stages > 1 ? "Every stage, first to last, on the same scale (GB per GPU)" : "";

    figure.live_heading = "Live at the peak (" + std::string(stages > 1 ? "stage " + format_whole(memory.peak_stage + 1) + ", " : "") +
                          memory_phase_text(memory.peak_phase) + ")";
    for (std::size_t i = 0; i < memory.blocks.size() && i < text.block_labels.size(); ++i) {
        const MemoryBlock& block = memory.blocks[i];
        if (block.kind == MemoryKind::kv_cache || block.per_gpu_bytes <= 0) continue;
        figure.live.push_back({text.block_labels[i], format_bytes(block.per_gpu_bytes), block.per_gpu_bytes, timeline_part_of(block.kind)});
    }
    figure.live_total = text.figures.peak_memory.label + ": " + text.figures.peak_memory.value;
    return figure;
}

}  // namespace core
