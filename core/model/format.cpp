#include "core/model/format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace core {
namespace {

struct Prefix {
    double scale;
    const char* symbol;
};

// Three significant digits with a decimal prefix: the precision a design doc quotes.
std::string with_prefix(double value, const char* unit, const Prefix* prefixes, int prefix_count) {
    if (!std::isfinite(value)) return std::string("n/a ") + unit;
    const double magnitude = std::fabs(value);
    for (int i = 0; i < prefix_count; ++i) {
        if (magnitude >= prefixes[i].scale * 0.9995 || i == prefix_count - 1) {
            return format_number(value / prefixes[i].scale) + " " + prefixes[i].symbol + unit;
        }
    }
    return format_number(value) + " " + unit;
}

const Prefix kDecimal[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}};

}  // namespace

std::string format_number(double value, int significant) {
    if (!std::isfinite(value)) return "n/a";
    if (value == 0.0) return "0";
    const double magnitude = std::fabs(value);
    // std::to_chars writes what printf's %.*e and %.*f write (the C++ standard defines it so), without printf's cost:
    // every figure on screen passes through here each frame.
    char buffer[48];
    if (magnitude >= 1e6 || magnitude < 1e-3) {
        const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific, std::max(0, significant - 1));
        return std::string(buffer, written.ptr);
    }
    int digits_before_point = static_cast<int>(std::floor(std::log10(magnitude))) + 1;
    int decimals = std::max(0, significant - digits_before_point);
    // Rounding can carry into a new digit (0.99976 -> 1.00): count digits again on the rounded value.
    const double rounded = std::fabs(std::round(value * std::pow(10.0, decimals)) / std::pow(10.0, decimals));
    if (rounded > 0 && static_cast<int>(std::floor(std::log10(rounded))) + 1 > digits_before_point) decimals = std::max(0, decimals - 1);
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
    return std::string(buffer, written.ptr);
}

std::string format_plain(double value) {
    if (!std::isfinite(value)) return "n/a";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::string format_bytes(double bytes) {
    if (std::isfinite(bytes) && std::fabs(bytes) < 1000.0) return format_number(bytes) + " B";
    return with_prefix(bytes, "B", kDecimal, 7);
}

std::string format_flops(double flops) {
    if (!std::isfinite(flops)) return "n/a FLOP";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2e FLOP", flops);
    return buffer;
}

std::string format_flops_rate(double flops_per_s) { return with_prefix(flops_per_s, "FLOP/s", kDecimal, 7); }

std::string format_bandwidth(double bytes_per_s) { return with_prefix(bytes_per_s, "B/s", kDecimal, 7); }

std::string format_seconds(double seconds) {
    if (!std::isfinite(seconds)) return "n/a";
    const double magnitude = std::fabs(seconds);
    if (magnitude == 0.0) return "0 s";
    if (magnitude < 1e-6) return format_number(seconds * 1e9) + " ns";
    if (magnitude < 1e-3) return format_number(seconds * 1e6) + " us";
    if (magnitude < 1.0) return format_number(seconds * 1e3) + " ms";
    if (magnitude < 120.0) return format_number(seconds) + " s";
    if (magnitude < 7200.0) return format_number(seconds / 60.0) + " min";
    if (magnitude < 2.0 * 86400.0) return format_number(seconds / 3600.0) + " h";
    if (magnitude < 2.0 * 365.25 * 86400.0) return format_number(seconds / 86400.0) + " days";
    return format_number(seconds / (365.25 * 86400.0)) + " years";
}

std::string format_count(double count) {
    static const Prefix kCount[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}};
    if (!std::isfinite(count)) return "n/a";
    const double magnitude = std::fabs(count);
    for (const Prefix& prefix : kCount) {
        if (magnitude >= prefix.scale * 0.9995 || prefix.scale == 1.0) {
            std::string text = format_number(count / prefix.scale);
            return prefix.symbol[0] ? text + " " + prefix.symbol : text;
        }
    }
    return format_number(count);
}

std::string format_sci(double value) {
    if (!std::isfinite(value)) return "n/a";
    if (value == 0.0) return "0";
    int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    exponent -= exponent % 3 < 0 ? exponent % 3 + 3 : exponent % 3;  // engineering notation: 70.0e9, not 7.00e10
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1fe%d", value / std::pow(10.0, exponent), exponent);
    return buffer;
}

std::string format_percent(double fraction) {
    if (!std::isfinite(fraction)) return "n/a %";
    // Below 0.1 %, one decimal would print "0.0 %" for a share that is not zero (MiniGPT's column against 24 GB).
    if (fraction != 0.0 && std::fabs(fraction) < 0.00095) return format_number(fraction * 100.0, 2) + " %";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", fraction * 100.0);
    return buffer;
}

std::string format_typed(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) return format_whole(value);
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);  // %g drops trailing zeros: 2.5, not 2.50000
    return text;
}

std::string format_whole(double value) {
    if (value != std::floor(value) || std::fabs(value) >= 1e15) return format_number(value);
    char text[24];
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
}

std::string format_counted(long long count, const char* one, const char* many) {
    return format_grouped(static_cast<double>(count)) + " " + (count == 1 ? one : many);
}

std::string format_grouped(double value) {
    const std::string digits = format_whole(value);
    if (digits.find_first_not_of("-0123456789") != std::string::npos) return digits;  // not a whole number: as format_whole
    const std::size_t first = digits[0] == '-' ? 1 : 0;
    std::string grouped = digits.substr(0, first);
    for (std::size_t i = first; i < digits.size(); ++i) {
        if (i > first && (digits.size() - i) % 3 == 0) grouped += ',';
        grouped += digits[i];
    }
    return grouped;
}

bool is_formatted_unit(std::string_view word) {
    // format_seconds' units, format_percent's, and format_count's prefixes standing alone.
    static constexpr std::string_view kWholeUnits[] = {"ns", "us", "ms", "s", "min", "h", "days", "years", "%", "T", "B", "M", "k", "pp"};
    for (std::string_view unit : kWholeUnits)
        if (word == unit) return true;
    // with_prefix's units, bare or after one of kDecimal's prefixes; format_flops' "FLOP".
    for (const Prefix& prefix : kDecimal) {
        if (prefix.symbol[0] != '\0' && word.substr(0, 1) == prefix.symbol) {
            word.remove_prefix(1);
            break;
        }
    }
    for (std::string_view base : {"B", "B/s", "FLOP", "FLOP/s"})
        if (word == base) return true;
    return false;
}

std::string format_dollars(double dollars) {
    if (!std::isfinite(dollars)) return "n/a";
    if (dollars < 0) return "-" + format_dollars(-dollars);
    char buffer[48];
    if (dollars == 0.0) return "$0.00";
    if (dollars < 0.005) return "$" + format_number(dollars, 2);  // a fraction of a cent still shows what it is
    if (dollars < 999.995) {
        std::snprintf(buffer, sizeof buffer, "$%.2f", dollars);
        return buffer;
    }
    if (dollars < 999999.5) {
        const long long whole = std::llround(dollars);
        std::snprintf(buffer, sizeof buffer, "$%lld,%03lld", whole / 1000, whole % 1000);
        return buffer;
    }
    static const Prefix kMoney[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
    for (const Prefix& prefix : kMoney) {
        if (dollars >= prefix.scale * 0.9995) return "$" + format_number(dollars / prefix.scale) + " " + prefix.symbol;
    }
    return "$" + format_number(dollars);
}

std::string format_in(double value, FigureUnit unit) {
    switch (unit) {
        case FigureUnit::bytes: return format_bytes(value);
        case FigureUnit::seconds: return format_seconds(value);
        case FigureUnit::flops: return format_flops(value);
        case FigureUnit::flops_rate: return format_flops_rate(value);
        case FigureUnit::bandwidth: return format_bandwidth(value);
        case FigureUnit::dollars: return format_dollars(value);
        case FigureUnit::fraction: return format_percent(value);
        case FigureUnit::count: return format_count(value);
        case FigureUnit::number: break;
    }
    // A whole number (a degree, a layer count, a GPU count) reads as itself: "2", not "2.00".
    if (std::isfinite(value) && std::fabs(value) < 1e15 && std::floor(value) == value) return format_grouped(value);
    return format_number(value);
}

std::string format_change(double from, double to, FigureUnit unit) {
    const double change = to - from;
    if (!std::isfinite(change)) return "n/a";
    if (change == 0.0) return "no change";
    const std::string sign = change > 0 ? "+" : "-";
    if (unit == FigureUnit::fraction) {  // percentage points: "+1.5 pp"
        char buffer[32];
        const double points = std::fabs(change) * 100.0;
        if (points >= 0.095) std::snprintf(buffer, sizeof buffer, "%.1f pp", points);
        else std::snprintf(buffer, sizeof buffer, "%s pp", format_number(points, 2).c_str());
        return sign + buffer;
    }
    return sign + format_in(std::fabs(change), unit);
}

std::string format_relative_change(double from, double to) {
    if (from == 0.0 || from == to || !std::isfinite(from) || !std::isfinite(to)) return {};
    const double relative = (to - from) / std::fabs(from);
    return (relative > 0 ? "+" : "-") + format_percent(std::fabs(relative));
}

std::string format_change_both(double from, double to, FigureUnit unit) {
    const std::string change = format_change(from, to, unit);
    const std::string relative = unit == FigureUnit::fraction ? std::string() : format_relative_change(from, to);
    return relative.empty() ? change : change + ", " + relative;
}

std::string with_article(const std::string& gpu_name) {
    if (gpu_name.empty()) return "a GPU";
    const char first = static_cast<char>(std::toupper(static_cast<unsigned char>(gpu_name[0])));
    const bool spelled_out = gpu_name.size() > 1 && !std::islower(static_cast<unsigned char>(gpu_name[1]));
    // Vowels, and the letters whose names start with a vowel sound when read as an acronym: "an H100", "an MI300X".
    const bool vowel_sound = std::string("AEIOU").find(first) != std::string::npos ||
                             (spelled_out && std::string("FHLMNRSX").find(first) != std::string::npos);
    return (vowel_sound ? "an " : "a ") + gpu_name;
}

}  // namespace core
