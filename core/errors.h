#pragma once
// The one error type of core: invalid input, naming the field and the reason in one line.
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

}  // namespace core
