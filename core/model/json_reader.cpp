#include "core/model/json_reader.h"

#include "core/model/errors.h"
#include "core/model/format.h"

#include <cmath>

namespace core {

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) throw InputError(path_.empty() ? "scenario" : path_, kMustBeJsonObject);
}

bool JsonObjectReader::has(const char* key) const { return object_.contains(key); }

std::string JsonObjectReader::field(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

const nlohmann::json& JsonObjectReader::raw(const char* key) {
    read_keys_.insert(key);
    return object_.at(key);
}

std::optional<double> JsonObjectReader::number(const char* key, double min_value, double max_value) {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& value = raw(key);
    if (!value.is_number()) throw InputError(field(key), "must be a number, got " + std::string(value.type_name()));
    const double number_value = value.get<double>();
    if (!std::isfinite(number_value)) throw InputError(field(key), "must be finite");
    if (number_value < min_value || number_value > max_value) {
        throw InputError(field(key), must_be_between(format_typed(min_value), format_typed(max_value), format_typed(number_value)));
    }
    return number_value;
}

std::optional<long long> JsonObjectReader::integer(const char* key, long long min_value, long long max_value) {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& value = raw(key);
    if (!value.is_number()) throw InputError(field(key), "must be an integer, got " + std::string(value.type_name()));
    const double number_value = value.get<double>();
    if (!std::isfinite(number_value) || std::floor(number_value) != number_value) {
        throw InputError(field(key), "must be a whole number, got " + format_typed(number_value));
    }
    if (number_value < static_cast<double>(min_value) || number_value > static_cast<double>(max_value)) {
        throw InputError(field(key), must_be_between(std::to_string(min_value), std::to_string(max_value), format_typed(number_value)));
    }
    return static_cast<long long>(number_value);
}

std::optional<bool> JsonObjectReader::boolean(const char* key) {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& value = raw(key);
    if (!value.is_boolean()) throw InputError(field(key), "must be true or false, got " + std::string(value.type_name()));
    return value.get<bool>();
}

std::optional<std::string> JsonObjectReader::string(const char* key) {
    if (!has(key)) return std::nullopt;
    const nlohmann::json& value = raw(key);
    if (!value.is_string()) throw InputError(field(key), "must be a string, got " + std::string(value.type_name()));
    return value.get<std::string>();
}

void JsonObjectReader::reject_unknown_keys() const {
    for (auto item = object_.begin(); item != object_.end(); ++item) {
        if (!read_keys_.count(item.key()) && item.key().rfind('_', 0) != 0) {  // "_about" style keys are comments
            const std::string key = item.key().empty() ? "\"\"" : item.key();  // an empty key, quoted: the field is named
            throw InputError(field(key.c_str()), "unknown key");
        }
    }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& what) {
    // Copying a parsed value recurses once per level: 100,000 nested objects overflow the stack, so refuse them here.
    constexpr int max_depth = 64;
    const auto limit_depth = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_depth) throw InputError(what, "nested deeper than " + std::to_string(max_depth) + " levels");
        return true;
    };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), limit_depth);
    } catch (const nlohmann::json::exception& error) {  // parse_error, and out_of_range for a number like 1e999
        std::string message = error.what();
        const auto colon = message.find("parse error");
        if (colon != std::string::npos) message = message.substr(colon);
        else if (const auto tag_end = message.find("] "); tag_end != std::string::npos) message = message.substr(tag_end + 2);
        throw InputError(what, "malformed JSON: " + message);
    }
}

}  // namespace core
