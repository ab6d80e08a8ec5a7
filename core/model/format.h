#pragma once
// Every figure is formatted here and only here. Convention: decimal SI units (1 GB = 1e9 B), as the seeds and papers use.
#include <string>
#include <string_view>

namespace core {

std::string format_bytes(double bytes);               // "1.12 TB", "80.0 GB", "512 B"
std::string format_flops(double flops);               // "6.30e24 FLOP"
std::string format_flops_rate(double flops_per_s);    // "989 TFLOP/s"
std::string format_bandwidth(double bytes_per_s);     // "3.35 TB/s"
std::string format_seconds(double seconds);           // "8.60 s", "12.3 ms", "43.4 days", "499 years"
std::string format_count(double count);               // "70.6 B", "405 B", "124 M" (parameters, tokens)
std::string format_sci(double value);                 // "70.0e9"
std::string format_percent(double fraction);          // "27.3 %", "0.030 %": two significant digits below 0.1 %
std::string format_number(double value, int significant = 3);  // "295", "1.37", "0.250"
std::string format_plain(double value);                          // "4", "16", "0.5", "6.09": no trailing zeros
std::string format_whole(double value);                          // "4096", "1": shapes and counts, never "1.00"
std::string format_typed(double value);                          // "-4", "2.5", "1e+300": a value as typed, for messages
std::string format_grouped(double value);                         // "16,384": a whole count with thousands separators
std::string format_counted(long long count, const char* one, const char* many);  // "1 node", "2,048 nodes", "0 nodes"
// "an H100 SXM", "a B200": the article a GPU's name is read with.
std::string with_article(const std::string& gpu_name);
std::string format_dollars(double dollars);  // "$2.10", "$0.0040", "$12,345", "$1.23 M": cents while they matter

// What a figure is measured in, so its value and a change of it are written in its unit.
enum class FigureUnit { bytes, seconds, flops, flops_rate, bandwidth, dollars, fraction, count, number };
std::string format_in(double value, FigureUnit unit);  // the formatter above for the unit ("80.0 GB", "46.5 %", "1.37")
// A change from `from` to `to`, signed, in the figure's unit: "+0.410 s", "-18.2 GB", "+1.5 pp" (a fraction changes in
// percentage points), "no change" when equal.
std::string format_change(double from, double to, FigureUnit unit);
// The relative change, signed: "+7.0 %", "-23.1 %"; "" where `from` is 0 (no ratio) or the two are equal.
std::string format_relative_change(double from, double to);
// The change with its relative change where there is one: "+0.410 s, +7.0 %", "-18.2 GB, -23.1 %"; a fraction, whose
// relative change would be a percentage of a percentage, only in points: "+1.5 pp".
std::string format_change_both(double from, double to, FigureUnit unit);

// Whether a word is a unit the formatters above print after a figure ("GB", "ms", "%", "TFLOP/s", the "B" of "70.6 B"):
// text wrapping keeps a figure on its unit's line (widgets/text_wrap.cpp).
bool is_formatted_unit(std::string_view word);

// The one line the UI prints so nobody wonders whether GB means 1e9 or 2^30.
inline constexpr const char* kUnitConvention = "Units: decimal SI (1 GB = 10^9 bytes, 1 TFLOP/s = 10^12 FLOP/s)";

}  // namespace core
