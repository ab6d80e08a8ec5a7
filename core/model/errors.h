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

// The two range checks every numeric input of core's functions needs, as one-line InputErrors.
inline void require_positive(const char* field, double value) {
    if (!std::isfinite(value) || value <= 0) throw InputError(field, "must be a finite number > 0, got " + format_typed(value));
}
inline void require_non_negative(const char* field, double value) {
    if (!std::isfinite(value) || value < 0) throw InputError(field, "must be a finite number >= 0, got " + format_typed(value));
}

}  // namespace core
