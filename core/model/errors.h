#pragma once
// The one error type of core: invalid input, naming the field and the reason in one line.
#include "core/model/format.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace core {

class InputError : public std::runtime_error {
public:
    InputError(std::string field, std::string reason)
        : std::runtime_error(field + ": " + reason), field_(std::move(field)), reason_(std::move(reason)) {}
    const std::string& field() const { return field_; }
    const std::string& reason() const { return reason_; }

private:
    std::string field_;
    std::string reason_;
};

// Each refusal's reason, written once: core's parsers and checks call these rather than spelling the text again.
inline constexpr const char* kMustBeJsonObject = "must be a JSON object";
inline constexpr const char* kMustBeArray = "must be an array";
inline std::string must_be_between(const std::string& low, const std::string& high, const std::string& got) {
    return "must be between " + low + " and " + high + ", got " + got;
}
inline std::string must_be_in(long long low, long long high, long long got) {
    return "must be in " + std::to_string(low) + ".." + std::to_string(high) + ", got " + std::to_string(got);
}
inline std::string must_be_one_of(const std::string& names, const std::string& got) { return "must be one of " + names + ", got \"" + got + "\""; }
inline std::string must_be_at_least_one(long long value) { return "must be >= 1, got " + std::to_string(value); }
inline std::string not_in_catalog(const std::string& kind, const std::string& id) {
    return "no " + kind + " \"" + id + "\" in the hardware catalog";
}

// The two range checks every numeric input of core's functions needs, as one-line InputErrors.
inline void require_positive(const std::string& field, double value) {
    if (!std::isfinite(value) || value <= 0) throw InputError(field, "must be a finite number > 0, got " + format_typed(value));
}
inline void require_non_negative(const std::string& field, double value) {
    if (!std::isfinite(value) || value < 0) throw InputError(field, "must be a finite number >= 0, got " + format_typed(value));
}

}  // namespace core
