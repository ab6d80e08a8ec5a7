#pragma once
// Kernels measured on real hardware (assets/h100_measured_roofline.csv), parsed from text: core reads no files.
#include <string>
#include <string_view>
#include <vector>

namespace core {

// One CSV row in SI units; shape fields the kernel does not use are 0 (m, n, k for relu/copy, elements for matmul).
struct MeasuredPoint {
    std::string kernel;   // "matmul", "relu", "copy"
    double m = 0, n = 0, k = 0;
    double elements = 0;
    double flops = 0;
    double bytes = 0;
    double seconds = 0;
    double flops_per_s = 0;   // from the tflops_per_s column
    double bytes_per_s = 0;   // from the gbytes_per_s column
    double intensity_flops_per_byte = 0;
};

// Skips blank lines and lines starting with '#'; the first other line is the header, matched by column name
// (kernel,m,n,k,elements,flops,bytes,seconds,tflops_per_s,gbytes_per_s,intensity_flops_per_byte, any order).
// Throws InputError("<source_name> line N", reason) for a missing column, a wrong field count or a bad number.
std::vector<MeasuredPoint> parse_measured_points(std::string_view csv_text,
                                                 std::string_view source_name = "measured roofline CSV");

}  // namespace core
