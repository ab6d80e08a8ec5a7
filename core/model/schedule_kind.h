#pragma once
// Which pipeline schedule a scenario names: an input, so it lives with the scenario; the generator is in core/cost.
#include <string_view>

namespace core {

enum class ScheduleKind { naive, gpipe, one_f_one_b, interleaved, zb_h1 };

// Scenario / command-line names: "naive", "gpipe", "1f1b", "interleaved", "zb-h1".
const char* schedule_name(ScheduleKind kind);
// Throws InputError(field, ...) for any other name.
ScheduleKind parse_schedule_kind(std::string_view name, const char* field = "parallel.schedule");

}  // namespace core
