#pragma once
// How the commands print: an aligned table for people, JSON or CSV for scripts. "On a terminal" means standard output
// is a terminal (isatty(1)): a pipe or a file gets JSON by default, so scripts that read `eval` keep working unchanged.
#include <string>
#include <vector>

namespace app {

enum class OutputFormat { table, json, csv };

// The format the flags ask for; without one, the table when standard output is a terminal, JSON otherwise.
OutputFormat output_format(bool json, bool csv, bool table);

// Columns padded to their widest cell (counted in characters, not bytes), two spaces apart.
struct TextTable {
    std::vector<std::string> headers;     // empty: no header row
    std::vector<bool> right_aligned;      // per column; numbers read best right-aligned
    std::vector<std::vector<std::string>> rows;
    std::string render() const;
};

// One CSV record (RFC 4180): fields with a comma, quote or line break are quoted, quotes doubled; ends in "\r\n".
std::string csv_record(const std::vector<std::string>& fields);

// A double as the shortest text that reads back as the same value ("0.1", "8.6", "1e+21"); integers without a point.
std::string exact_number(double value);

}  // namespace app
