#pragma once
// What every fuzz entry asks of a file the app read: refused with a core::InputError that names its field, or read
// into figures that are all finite. The Catch2 generator (tests/test_fuzz_scenario.cpp) asks the same.
#include "core/cost/report/report.h"
#include "core/model/errors.h"
#include "core/model/scenario.h"

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

// The names a user chose ("Infinity Fabric", a model called "nan"): echoed into texts, not computed, so set aside.
std::vector<std::string> names_in(const core::Scenario&);

// True when "nan" or "inf" stands as a word in text (as printf writes them into a formula) once the names are removed.
bool spells_non_finite(std::string text, const std::vector<std::string>& names);

// Everything the app shows of an evaluated scenario: every number of report_to_json, the memory blocks, every formula
// explain() writes and the layer timeline are finite; and the scenario written by scenario_to_json reads back to the
// same report (the app re-reads what it saves).
std::optional<std::string> report_problem(const core::Scenario&, const core::Report&);

// A file named name in this process's scratch directory (under the system's temporary directory, removed at exit)
// holding bytes, for entries whose app function reads a path: returns the path.
std::string scratch_file(const std::string& name, std::string_view bytes);

// Runs read(), which returns a problem or nothing, and turns how it ended into a problem or nothing: an InputError
// naming its field is the answer bad input should get; any other exception is a problem.
template <typename Read>
std::optional<std::string> problem_of(Read&& read) {
    try {
        return read();
    } catch (const core::InputError& error) {
        if (error.field().empty()) return std::string("InputError without a field: ") + error.what();
        return std::nullopt;
    } catch (const std::exception& error) {
        return std::string("threw something other than core::InputError: ") + error.what();
    } catch (...) {
        return std::string("threw a non-standard exception");
    }
}

}  // namespace fuzz
