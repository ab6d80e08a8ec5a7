#include "app/table.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace app {
namespace {

// UTF-8: every byte but the continuation bytes (10xxxxxx) starts a character.
std::size_t display_width(const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

OutputFormat output_format(bool json, bool csv, bool table) {
    if (json) return OutputFormat::json;
    if (csv) return OutputFormat::csv;
    if (table) return OutputFormat::table;
    return isatty(STDOUT_FILENO) ? OutputFormat::table : OutputFormat::json;
}

std::string TextTable::render() const {
    std::size_t columns = headers.size();
    for (const auto& row : rows) columns = std::max(columns, row.size());
    std::vector<std::size_t> widths(columns, 0);
    const auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
    };
    measure(headers);
    for (const auto& row : rows) measure(row);
    std::string out;
    const auto line = [&](const std::vector<std::string>& row) {
        std::string text;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::size_t pad = widths[i] - display_width(row[i]);
            const bool right = i < right_aligned.size() && right_aligned[i];
            if (i > 0) text += "  ";
            if (right) text += std::string(pad, ' ');
            text += row[i];
            if (!right && i + 1 < row.size()) text += std::string(pad, ' ');
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    };
    if (!headers.empty()) line(headers);
    for (const auto& row : rows) line(row);
    return out;
}

std::string csv_record(const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += ',';
        const std::string& field = fields[i];
        if (field.find_first_of(",\"\r\n") == std::string::npos) {
            out += field;
            continue;
        }
        out += '"';
        for (char c : field) {
            if (c == '"') out += '"';
            out += c;
        }
        out += '"';
    }
    return out + "\r\n";
}

std::string exact_number(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

}  // namespace app
