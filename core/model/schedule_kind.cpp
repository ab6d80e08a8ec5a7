#include "core/model/schedule_kind.h"

#include "core/model/errors.h"

#include <string>

namespace core {

const char* schedule_name(ScheduleKind kind) {
    switch (kind) {
        case ScheduleKind::naive: return "naive";
        case ScheduleKind::gpipe: return "gpipe";
        case ScheduleKind::one_f_one_b: return "1f1b";
        case ScheduleKind::interleaved: return "interleaved";
        case ScheduleKind::zb_h1: return "zb-h1";
        case ScheduleKind::dualpipe: return "dualpipe";
        case ScheduleKind::dualpipe_v: return "dualpipev";
    }
    return "1f1b";
}

ScheduleTraits schedule_traits(ScheduleKind kind) {
    switch (kind) {
        case ScheduleKind::zb_h1: return {false, true};
        case ScheduleKind::dualpipe:
        case ScheduleKind::dualpipe_v: return {true, true};
        default: return {};
    }
}

ScheduleKind parse_schedule_kind(std::string_view name, const char* field) {
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved,
                              ScheduleKind::zb_h1, ScheduleKind::dualpipe, ScheduleKind::dualpipe_v}) {
        if (name == schedule_name(kind)) return kind;
    }
    throw InputError(field, "unknown schedule \"" + std::string(name) +
                                "\", expected naive, gpipe, 1f1b, interleaved, zb-h1, dualpipe or dualpipev");
}

std::optional<ScheduleFitProblem> schedule_fit_problem(ScheduleKind kind, int pp, long long microbatches, int layers) {
    if (!is_dualpipe(kind)) return std::nullopt;
    const std::string name = kind == ScheduleKind::dualpipe ? "DualPipe" : "DualPipeV";
    if (kind == ScheduleKind::dualpipe && pp % 2 != 0) {
        return ScheduleFitProblem{true, "DualPipe needs an even pp (it feeds micro-batches from both ends), got " + std::to_string(pp)};
    }
    if (kind == ScheduleKind::dualpipe_v && 2LL * pp > layers) {
        return ScheduleFitProblem{true, "DualPipeV runs 2 x pp = " + std::to_string(2LL * pp) + " stages, more than the " +
                                            std::to_string(layers) + " layers"};
    }
    if (microbatches < 2LL * pp) {
        return ScheduleFitProblem{false, name + " needs at least 2 x pp = " + std::to_string(2LL * pp) + " micro-batches, got " +
                                             std::to_string(microbatches)};
    }
    if (kind == ScheduleKind::dualpipe && microbatches % 2 != 0) {
        return ScheduleFitProblem{false, "DualPipe needs an even number of micro-batches (half enter at each end), got " +
                                             std::to_string(microbatches)};
    }
    return std::nullopt;
}

}  // namespace core
