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
    }
    return "1f1b";
}

ScheduleKind parse_schedule_kind(std::string_view name, const char* field) {
    for (ScheduleKind kind : {ScheduleKind::naive, ScheduleKind::gpipe, ScheduleKind::one_f_one_b,
                              ScheduleKind::interleaved, ScheduleKind::zb_h1}) {
        if (name == schedule_name(kind)) return kind;
    }
    throw InputError(field, "unknown schedule \"" + std::string(name) +
                                "\", expected naive, gpipe, 1f1b, interleaved or zb-h1");
}

}  // namespace core
