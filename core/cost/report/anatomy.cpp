#include "core/cost/report/anatomy.h"

#include "core/model/errors.h"

#include <algorithm>
#include <cmath>

namespace core {

const char* step_part_name(StepPart part) {
    switch (part) {
        case StepPart::gemm: return "GEMMs";
        case StepPart::attention: return "attention";
        case StepPart::elementwise: return "elementwise";
        case StepPart::optimizer: return "optimizer";
        case StepPart::exposed_tp: return "exposed TP";
        case StepPart::exposed_cp: return "exposed CP";
        case StepPart::exposed_pp: return "exposed PP";
        case StepPart::exposed_dp: return "exposed DP";
        case StepPart::exposed_ep: return "exposed EP";
        case StepPart::bubble: return "pipeline bubble";
        case StepPart::stragglers: return "waiting for stragglers";
        case StepPart::beyond_model: return "beyond the model";
    }
    return "?";
}

bool is_exposed_comm(StepPart part) {
    return part == StepPart::exposed_tp || part == StepPart::exposed_cp || part == StepPart::exposed_pp || part == StepPart::exposed_dp ||
           part == StepPart::exposed_ep;
}

const char* mfu_milestone_name(MfuMilestone milestone) {
    switch (milestone) {
        case MfuMilestone::kernels: return "all kernels";
        case MfuMilestone::exposed_comm: return "+ exposed communication";
        case MfuMilestone::modelled_step: return "modelled step";
        case MfuMilestone::step: return "the step";
    }
    return "?";
}

StepBar step_bar(const Report& report) {
    const ComputeReport& compute = report.compute;
    require_positive("report.compute.peak_flops_per_s", compute.peak_flops_per_s);
    require_positive("report.layout.gpus", report.layout.gpus);
    const StepBreakdown& parts = compute.breakdown_seconds;
    StepBar bar;
    bar.step_seconds = compute.step_seconds;
    bar.modelled_step_seconds = compute.modelled_step_seconds;
    bar.ideal_step_seconds = compute.model_flops_per_step / (report.layout.gpus * compute.peak_flops_per_s);
    bar.mfu = compute.step_seconds > 0 ? bar.ideal_step_seconds / compute.step_seconds : 0;

    // An assumed MFU or a measured step longer than the model's leaves time the model does not explain.
    const double beyond = compute.step_basis == StepBasis::modelled ? 0.0 : std::max(0.0, compute.step_seconds - parts.total());
    const double seconds[kStepPartCount] = {
        parts.gemm_seconds,
        parts.attention_seconds,
        parts.elementwise_seconds,
        parts.optimizer_seconds,
        parts.exposed_comm_seconds[static_cast<int>(CommAxis::tp)],
        parts.exposed_comm_seconds[static_cast<int>(CommAxis::cp)],
        parts.exposed_comm_seconds[static_cast<int>(CommAxis::pp)],
        parts.exposed_comm_seconds[static_cast<int>(CommAxis::dp)],
        parts.exposed_comm_seconds[static_cast<int>(CommAxis::ep)],
        parts.bubble_seconds,
        parts.straggler_seconds,
        beyond,
    };
    double at = 0;
    for (int i = 0; i < kStepPartCount; ++i) {
        bar.segments.push_back({static_cast<StepPart>(i), at, seconds[i]});
        at += seconds[i];
        if (static_cast<StepPart>(i) == StepPart::optimizer) bar.marks.push_back({MfuMilestone::kernels, at, 0});
        if (static_cast<StepPart>(i) == StepPart::exposed_ep) bar.marks.push_back({MfuMilestone::exposed_comm, at, 0});
    }
    bar.total_seconds = at;
    if (compute.step_basis != StepBasis::modelled) bar.marks.push_back({MfuMilestone::modelled_step, parts.total(), 0});
    bar.marks.push_back({MfuMilestone::step, compute.step_seconds, 0});
    for (MfuMark& mark : bar.marks) mark.mfu = mark.end_seconds > 0 ? bar.ideal_step_seconds / mark.end_seconds : 0;

    for (int i = 0; i < static_cast<int>(compute.kernels.size()); ++i) {
        const Kernel& kernel = compute.kernels[i];
        if (kernel.category != KernelCategory::gemm || kernel.scope != KernelScope::layer || kernel.bound != Bound::compute) continue;
        if (kernel.efficiency > bar.best_gemm_efficiency) {
            bar.best_gemm_efficiency = kernel.efficiency;
            bar.best_gemm_kernel = i;
        }
    }
    return bar;
}

std::vector<ComputeStall> compute_stalls(const std::vector<TimelineOp>& ops) {
    // The compute stream's idle gaps, from 0 to the end of the last operation of any stream.
    std::vector<std::pair<double, double>> busy;
    double end = 0;
    for (const TimelineOp& op : ops) {
        end = std::max(end, op.start_seconds + op.duration_seconds);
        if (op.stream == Stream::compute) busy.push_back({op.start_seconds, op.start_seconds + op.duration_seconds});
    }
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<double, double>> gaps;
    double clock = 0;
    for (const auto& [start, stop] : busy) {
        if (start > clock) gaps.push_back({clock, start});
        clock = std::max(clock, stop);
    }
    if (end > clock) gaps.push_back({clock, end});

    // Within each gap, the stretches exposed communication covers, each put down to the stream that covers it longest.
    std::vector<ComputeStall> stalls;
    for (const auto& [gap_start, gap_end] : gaps) {
        double covered_start = gap_end, covered_end = gap_start, longest = 0;
        Stream stream = Stream::tp;
        for (const TimelineOp& op : ops) {
            if (op.stream == Stream::compute || !op.exposed) continue;
            const double from = std::max(gap_start, op.start_seconds);
            const double to = std::min(gap_end, op.start_seconds + op.duration_seconds);
            if (to <= from) continue;
            covered_start = std::min(covered_start, from);
            covered_end = std::max(covered_end, to);
            if (to - from > longest) {
                longest = to - from;
                stream = op.stream;
            }
        }
        if (covered_end > covered_start) stalls.push_back({covered_start, covered_end - covered_start, stream});
    }
    return stalls;
}

std::vector<PassSpan> pass_spans(const std::vector<TimelineOp>& ops) {
    std::vector<PassSpan> spans;
    for (const TimelineOp& op : ops) {
        if (op.stream != Stream::compute) continue;
        const KernelPass pass = op.pass == KernelPass::backward_weight ? KernelPass::backward_input : op.pass;
        const double end = op.start_seconds + op.duration_seconds;
        auto found = std::find_if(spans.begin(), spans.end(), [&](const PassSpan& span) { return span.pass == pass; });
        if (found == spans.end()) spans.push_back({pass, op.start_seconds, end});
        else {
            found->start_seconds = std::min(found->start_seconds, op.start_seconds);
            found->end_seconds = std::max(found->end_seconds, end);
        }
    }
    std::sort(spans.begin(), spans.end(), [](const PassSpan& a, const PassSpan& b) { return a.start_seconds < b.start_seconds; });
    return spans;
}

double cursor_seconds_at(double t_seconds, double play_seconds, double timeline_seconds) {
    if (!(play_seconds > 0) || !(timeline_seconds > 0)) return 0;
    const double t = std::isnan(t_seconds) ? 0.0 : std::clamp(t_seconds, 0.0, play_seconds);
    return t / play_seconds * timeline_seconds;
}

std::vector<int> ops_at(const std::vector<TimelineOp>& ops, double at_seconds) {
    std::vector<int> running;
    for (int pass = 0; pass < 2; ++pass) {  // the compute stream first, then the communication beside it
        for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
            const TimelineOp& op = ops[i];
            if ((op.stream == Stream::compute) != (pass == 0)) continue;
            if (at_seconds >= op.start_seconds && at_seconds < op.start_seconds + op.duration_seconds) running.push_back(i);
        }
    }
    return running;
}

std::vector<KernelPoint> kernel_points(const Report& report) {
    const std::vector<Kernel>& kernels = report.compute.kernels;
    std::vector<KernelPoint> points;
    std::vector<KernelId> labelled;
    for (int i = 0; i < static_cast<int>(kernels.size()); ++i) {
        const Kernel& kernel = kernels[i];
        if (!(kernel.flops > 0) || !(kernel.bytes > 0) || !(kernel.seconds > 0)) continue;
        KernelPoint point;
        point.kernel = i;
        point.intensity_flops_per_byte = kernel.flops / kernel.bytes;
        point.achieved_flops_per_s = kernel.flops / kernel.seconds;
        point.bound = kernel.bound;
        point.first_of_its_name = std::find(labelled.begin(), labelled.end(), kernel.id) == labelled.end();
        if (point.first_of_its_name) labelled.push_back(kernel.id);
        points.push_back(point);
    }
    return points;
}

int find_kernel(const std::vector<Kernel>& kernels, KernelId id, KernelPass pass, KernelScope scope, int occurrence) {
    int seen = 0;
    for (int i = 0; i < static_cast<int>(kernels.size()); ++i) {
        const Kernel& kernel = kernels[i];
        if (kernel.id != id || kernel.pass != pass || kernel.scope != scope) continue;
        if (seen++ == occurrence) return i;
    }
    return -1;
}

int kernel_occurrence(const std::vector<Kernel>& kernels, int index) {
    if (index < 0 || index >= static_cast<int>(kernels.size())) return -1;
    const Kernel& target = kernels[index];
    int occurrence = 0;
    for (int i = 0; i < index; ++i) {
        const Kernel& kernel = kernels[i];
        if (kernel.id == target.id && kernel.pass == target.pass && kernel.scope == target.scope) ++occurrence;
    }
    return occurrence;
}

}  // namespace core
