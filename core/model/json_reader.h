#pragma once
// Strict reading of one JSON object: typed fields with ranges, every error naming the field path, unknown keys refused.
#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>

namespace core {

class JsonObjectReader {
public:
    // path is the dotted name of the object ("train"), used in every error message.
    JsonObjectReader(const nlohmann::json& object, std::string path);

    bool has(const char* key) const;
    std::string field(const char* key) const;  // "train.seq_len"
    const nlohmann::json& raw(const char* key);  // marks the key as read

    std::optional<double> number(const char* key, double min_value, double max_value);
    std::optional<long long> integer(const char* key, long long min_value, long long max_value);
    std::optional<bool> boolean(const char* key);
    std::optional<std::string> string(const char* key);

    // Throws InputError for the first key that no getter read.
    void reject_unknown_keys() const;

private:
    const nlohmann::json& object_;
    std::string path_;
    std::set<std::string> read_keys_;
};

// Parses JSON text; malformed text throws InputError("<what>", "malformed JSON: ...") with the position.
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

}  // namespace core
