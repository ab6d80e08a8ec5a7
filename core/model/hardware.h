#pragma once
// The hardware catalog: GPUs and the links between them, from assets/hardware.json (compiled in, editable).
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace core {

struct LinkSpec {
    std::string id;                  // "nvlink4", "ib-ndr", "custom"
    std::string name;                // "NVLink 4"
    double bytes_per_s = 450e9;      // per direction, the beta of the alpha-beta model is 1 / bytes_per_s
    double latency_seconds = 3e-6;   // alpha: the fixed cost of one message
    std::string source;

    bool operator==(const LinkSpec&) const = default;
};

enum class Precision { fp32, bf16, fp8 };
const char* precision_name(Precision);

struct GpuSpec {
    std::string id;                    // "h100-sxm"
    std::string name;                  // "H100 SXM"
    double hbm_bytes = 80e9;
    double hbm_bytes_per_s = 3.35e12;
    double fp32_flops_per_s = 67e12;   // CUDA cores, no tensor cores
    double bf16_flops_per_s = 989e12;  // dense tensor cores
    double fp8_flops_per_s = 1979e12;  // 0 where the GPU has none
    std::string scale_up_link = "nvlink4";  // the link inside a node
    std::string source;

    double peak_flops_per_s(Precision) const;  // 0 when the GPU lacks that precision

    bool operator==(const GpuSpec&) const = default;
};

struct HardwareCatalog {
    std::vector<GpuSpec> gpus;
    std::vector<LinkSpec> links;
    std::string default_scale_out_link = "ib-ndr";

    const GpuSpec* find_gpu(std::string_view id) const;
    const LinkSpec* find_link(std::string_view id) const;
};

// Parses catalog JSON text (the format of assets/hardware.json); throws InputError naming the field.
HardwareCatalog parse_hardware_catalog(std::string_view json_text);
// One GPU or link object (a scenario may give a custom GPU); path names the object in errors.
GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& path);
LinkSpec parse_link_object(const nlohmann::json& object, const std::string& path);
// The catalog compiled in from assets/hardware.json.
const HardwareCatalog& builtin_hardware();

}  // namespace core
