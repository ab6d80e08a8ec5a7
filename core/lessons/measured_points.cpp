#include "core/lessons/measured_points.h"

#include <array>
#include <charconv>
#include <cmath>

#include "core/model/errors.h"

namespace core {
namespace {

constexpr std::array<std::string_view, 11> column_names = {
    "kernel", "m", "n", "k", "elements", "flops", "bytes", "seconds", "tflops_per_s", "gbytes_per_s",
    "intensity_flops_per_byte"};

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    for (;;) {
        const size_t comma = line.find(',');
        fields.push_back(trim(line.substr(0, comma)));
        if (comma == std::string_view::npos) return fields;
        line.remove_prefix(comma + 1);
    }
}

// An empty field means "not used by this kernel" and reads as 0.
double parse_number(std::string_view field, std::string_view column, const std::string& where) {
    if (field.empty()) return 0;
    double value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size() || !std::isfinite(value) || value < 0) {
        throw InputError(where, "column " + std::string(column) + ": '" + std::string(field) +
                                    "' is not a number >= 0");
    }
    return value;
}

}  // namespace

std::vector<MeasuredPoint> parse_measured_points(std::string_view csv_text, std::string_view source_name) {
    std::vector<MeasuredPoint> points;
    std::array<size_t, column_names.size()> column_index{};
    size_t header_field_count = 0;
    int line_number = 0;
    while (!csv_text.empty()) {
        const size_t newline = csv_text.find('\n');
        const std::string_view line = trim(csv_text.substr(0, newline));
        csv_text.remove_prefix(newline == std::string_view::npos ? csv_text.size() : newline + 1);
        ++line_number;
        if (line.empty() || line.front() == '#') continue;
        const std::string where = std::string(source_name) + " line " + std::to_string(line_number);
        const std::vector<std::string_view> fields = split_fields(line);
        if (header_field_count == 0) {
            for (size_t column = 0; column < column_names.size(); ++column) {
                size_t found = 0;
                while (found < fields.size() && fields[found] != column_names[column]) ++found;
                if (found == fields.size()) {
                    throw InputError(where, "header lacks column '" + std::string(column_names[column]) + "'");
                }
                column_index[column] = found;
            }
            header_field_count = fields.size();
            continue;
        }
        if (fields.size() != header_field_count) {
            throw InputError(where, "expected " + std::to_string(header_field_count) + " fields, got " +
                                        std::to_string(fields.size()));
        }
        auto number = [&](size_t column) { return parse_number(fields[column_index[column]], column_names[column], where); };
        MeasuredPoint point;
        point.kernel = std::string(fields[column_index[0]]);
        if (point.kernel.empty()) throw InputError(where, "column kernel is empty");
        point.m = number(1);
        point.n = number(2);
        point.k = number(3);
        point.elements = number(4);
        point.flops = number(5);
        point.bytes = number(6);
        point.seconds = number(7);
        point.flops_per_s = number(8) * 1e12;
        point.bytes_per_s = number(9) * 1e9;
        point.intensity_flops_per_byte = number(10);
        if (point.bytes <= 0) throw InputError(where, "column bytes must be > 0");
        if (point.seconds <= 0) throw InputError(where, "column seconds must be > 0");
        points.push_back(point);
    }
    if (header_field_count == 0) throw InputError(std::string(source_name), "no header line");
    return points;
}

}  // namespace core
