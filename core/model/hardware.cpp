#include "core/model/hardware.h"

#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"

namespace core {

const char* precision_name(Precision precision) {
    switch (precision) {
        case Precision::fp32: return "fp32";
        case Precision::bf16: return "bf16";
        case Precision::fp8: return "fp8";
    }
    return "?";
}

double GpuSpec::peak_flops_per_s(Precision precision) const {
    switch (precision) {
        case Precision::fp32: return fp32_flops_per_s;
        case Precision::bf16: return bf16_flops_per_s;
        case Precision::fp8: return fp8_flops_per_s;
    }
    return 0;
}

const GpuSpec* HardwareCatalog::find_gpu(std::string_view id) const {
    for (const GpuSpec& gpu : gpus) if (gpu.id == id) return &gpu;
    return nullptr;
}

const LinkSpec* HardwareCatalog::find_link(std::string_view id) const {
    for (const LinkSpec& link : links) if (link.id == id) return &link;
    return nullptr;
}

namespace {

GpuSpec read_gpu(const nlohmann::json& object, const std::string& path) {
    JsonObjectReader reader(object, path);
    GpuSpec gpu;
    gpu.id = reader.string("id").value_or("");
    gpu.name = reader.string("name").value_or(gpu.id);
    if (gpu.id.empty()) throw InputError(reader.field("id"), "is required");
    gpu.hbm_bytes = reader.number("hbm_bytes", 1e6, 1e15).value_or(gpu.hbm_bytes);
    gpu.hbm_bytes_per_s = reader.number("hbm_bytes_per_s", 1e6, 1e16).value_or(gpu.hbm_bytes_per_s);
    gpu.fp32_flops_per_s = reader.number("fp32_flops_per_s", 0, 1e18).value_or(gpu.fp32_flops_per_s);
    gpu.bf16_flops_per_s = reader.number("bf16_flops_per_s", 1e9, 1e18).value_or(gpu.bf16_flops_per_s);
    gpu.fp8_flops_per_s = reader.number("fp8_flops_per_s", 0, 1e18).value_or(gpu.fp8_flops_per_s);
    gpu.scale_up_link = reader.string("scale_up_link").value_or(gpu.scale_up_link);
    gpu.source = reader.string("source").value_or("");
    reader.reject_unknown_keys();
    return gpu;
}

LinkSpec read_link(const nlohmann::json& object, const std::string& path) {
    JsonObjectReader reader(object, path);
    LinkSpec link;
    link.id = reader.string("id").value_or("");
    if (link.id.empty()) throw InputError(reader.field("id"), "is required");
    link.name = reader.string("name").value_or(link.id);
    link.bytes_per_s = reader.number("bytes_per_s", 1e6, 1e15).value_or(link.bytes_per_s);
    link.latency_seconds = reader.number("latency_seconds", 0, 1).value_or(link.latency_seconds);
    link.source = reader.string("source").value_or("");
    reader.reject_unknown_keys();
    return link;
}

}  // namespace

GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& path) { return read_gpu(object, path); }
LinkSpec parse_link_object(const nlohmann::json& object, const std::string& path) { return read_link(object, path); }

HardwareCatalog parse_hardware_catalog(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "hardware");
    JsonObjectReader reader(root, "hardware");
    HardwareCatalog catalog;
    if (reader.has("gpus")) {
        const nlohmann::json& gpus = reader.raw("gpus");
        if (!gpus.is_array()) throw InputError("hardware.gpus", "must be an array");
        for (std::size_t i = 0; i < gpus.size(); ++i) catalog.gpus.push_back(read_gpu(gpus[i], "hardware.gpus[" + std::to_string(i) + "]"));
    }
    if (reader.has("links")) {
        const nlohmann::json& links = reader.raw("links");
        if (!links.is_array()) throw InputError("hardware.links", "must be an array");
        for (std::size_t i = 0; i < links.size(); ++i) catalog.links.push_back(read_link(links[i], "hardware.links[" + std::to_string(i) + "]"));
    }
    catalog.default_scale_out_link = reader.string("default_scale_out_link").value_or(catalog.default_scale_out_link);
    reader.reject_unknown_keys();
    return catalog;
}

const HardwareCatalog& builtin_hardware() {
    static const HardwareCatalog catalog = parse_hardware_catalog(embedded_asset("hardware.json"));
    return catalog;
}

}  // namespace core
