#pragma once
// Which pipeline schedule a scenario names: an input, so it lives with the scenario; the generator is in core/cost.
#include <optional>
#include <string>
#include <string_view>

namespace core {

enum class ScheduleKind { naive, gpipe, one_f_one_b, interleaved, zb_h1, dualpipe, dualpipe_v };

// Scenario / command-line names: "naive", "gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe", "dualpipev".
const char* schedule_name(ScheduleKind kind);
// Throws InputError(field, ...) for any other name.
ScheduleKind parse_schedule_kind(std::string_view name, const char* field = "parallel.schedule");

// What a schedule is, as data: the rest of the model asks these, never the kind itself.
struct ScheduleTraits {
    bool two_way = false;               // DualPipe and DualPipeV: micro-batches fed from both ends, two stages per device
    bool splits_weight_gradient = false;  // zero bubble and DualPipe: B (input gradient) and W (weight gradient) apart
};
ScheduleTraits schedule_traits(ScheduleKind kind);
inline bool is_dualpipe(ScheduleKind kind) { return schedule_traits(kind).two_way; }

// What DualPipe and DualPipeV need of the pipeline (DualPipe README; the checks at the top of its step()):
// DualPipe an even pp and an even number of micro-batches, at least 2 pp; DualPipeV at least 2 pp micro-batches and
// a layer for each of its 2 pp stages (pp counts devices; each holds two stages). Every other schedule: none here.
struct ScheduleFitProblem {
    bool pipeline_size = false;  // the pp is at fault; otherwise the number of micro-batches
    std::string reason;          // "DualPipe needs an even pp (feeds micro-batches from both ends), got 3"
};
std::optional<ScheduleFitProblem> schedule_fit_problem(ScheduleKind kind, int pp, long long microbatches, int layers);

}  // namespace core
