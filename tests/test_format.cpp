// Number formatting (core/model/format.h): decimal SI prefixes and three significant figures, the convention of the
// seeds and the papers (1 GB = 1e9 B; "1.12 TB" for Llama 3 70B's 16 bytes per parameter).
#include "core/model/format.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

TEST_CASE("Seed 000: 70.6e9 parameters x 16 B prints as 1.13 TB, an H100's HBM as 80.0 GB (decimal SI, 3 figures)", "[format]") {
    CHECK(core::format_bytes(70.6e9 * 16) == "1.13 TB");
    CHECK(core::format_bytes(80e9) == "80.0 GB");
    CHECK(core::format_bytes(512) == "512 B");
    CHECK(core::format_bytes(999.96e9) == "1.00 TB");  // rounding carries into the next prefix, not "1000 GB"
    CHECK(core::format_count(70.6e9) == "70.6 B");
    CHECK(core::format_count(405e9) == "405 B");
    CHECK(core::format_flops_rate(989e12) == "989 TFLOP/s");
    CHECK(core::format_bandwidth(3.35e12) == "3.35 TB/s");
}

TEST_CASE("format_number: three significant figures, the carry re-counted (0.99976 -> 1.00), scientific outside 1e-3..1e6",
          "[format]") {
    CHECK(core::format_number(295.4) == "295");
    CHECK(core::format_number(1.3749) == "1.37");
    CHECK(core::format_number(0.25) == "0.250");
    CHECK(core::format_number(0.99976) == "1.00");
    CHECK(core::format_number(99.96) == "100");
    CHECK(core::format_number(-2.5) == "-2.50");
    CHECK(core::format_number(0) == "0");
    CHECK(core::format_number(2.5e7) == "2.50e+07");
    CHECK(core::format_number(std::nan("")) == "n/a");
    CHECK(core::format_number(std::numeric_limits<double>::infinity()) == "n/a");
}

TEST_CASE("format_seconds picks the unit a person reads: ns, us, ms, s, min, h, days, years", "[format]") {
    CHECK(core::format_seconds(0) == "0 s");
    CHECK(core::format_seconds(5e-9) == "5.00 ns");
    CHECK(core::format_seconds(6.5e-6) == "6.50 us");
    CHECK(core::format_seconds(0.0123) == "12.3 ms");
    CHECK(core::format_seconds(8.6) == "8.60 s");
    CHECK(core::format_seconds(600) == "10.0 min");
    CHECK(core::format_seconds(3 * 3600.0) == "3.00 h");
    CHECK(core::format_seconds(54 * 86400.0) == "54.0 days");
    CHECK(core::format_seconds(499 * 365.25 * 86400.0) == "499 years");
}

TEST_CASE("format_whole, format_percent, format_sci: shapes never as 1.00, percent to one decimal, engineering exponents", "[format]") {
    CHECK(core::format_whole(4096) == "4096");
    CHECK(core::format_whole(1) == "1");
    CHECK(core::format_whole(0.5) == "0.500");
    CHECK(core::format_percent(0.273) == "27.3 %");
    CHECK(core::format_sci(70e9) == "70.0e9");
    CHECK(core::format_sci(1.5e-4) == "150.0e-6");
}

TEST_CASE("format_typed: a value in a message reads as typed: got -4, not -4.00000", "[format]") {
    CHECK(core::format_typed(-4) == "-4");
    CHECK(core::format_typed(100000000) == "100000000");
    CHECK(core::format_typed(2.5) == "2.5");
    CHECK(core::format_typed(0.01) == "0.01");
    CHECK(core::format_typed(1e300) == "1e+300");
}

TEST_CASE("format_counted: one node, 8 nodes, 0 nodes: the noun agrees with its count", "[format]") {
    CHECK(core::format_counted(1, "node", "nodes") == "1 node");
    CHECK(core::format_counted(8, "node", "nodes") == "8 nodes");
    CHECK(core::format_counted(0, "node", "nodes") == "0 nodes");
    CHECK(core::format_counted(1, "micro-batch", "micro-batches") == "1 micro-batch");
}

TEST_CASE("is_formatted_unit knows every unit the formatters print, so a wrapped figure keeps its unit", "[format]") {
    // Every magnitude from 1e-10 to 1e25, through every formatter that prints a unit after its figure.
    for (double value = 1.234e-10; value < 1e25; value *= 3.7) {
        for (const std::string& text : {core::format_bytes(value), core::format_flops(value), core::format_flops_rate(value),
                                         core::format_bandwidth(value), core::format_seconds(value), core::format_count(value),
                                         core::format_percent(value)}) {
            const std::size_t space = text.rfind(' ');
            if (space == std::string::npos) continue;  // format_count below 1000: a bare number
            INFO(text);
            CHECK(core::is_formatted_unit(std::string_view(text).substr(space + 1)));
        }
    }
    CHECK_FALSE(core::is_formatted_unit("layers"));
    CHECK_FALSE(core::is_formatted_unit("GPUs"));
    CHECK_FALSE(core::is_formatted_unit("x"));
}
