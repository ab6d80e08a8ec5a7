#include "core/model/hardware.h"

#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace core {

const char* precision_name(Precision precision) {
    switch (precision) {
        case Precision::fp32: return "fp32";
        case Precision::bf16: return "bf16";
        case Precision::fp8: return "fp8";
    }
    return "?";
}

const char* price_basis_name(PriceBasis basis) {
    switch (basis) {
        case PriceBasis::on_demand: return "on-demand";
        case PriceBasis::spot: return "spot";
        case PriceBasis::custom: return "custom";
    }
    return "?";
}

double GpuPrice::dollars_per_hour(PriceBasis basis) const {
    switch (basis) {
        case PriceBasis::on_demand: return on_demand_dollars_per_hour;
        case PriceBasis::spot: return spot_dollars_per_hour;
        case PriceBasis::custom: return 0;
    }
    return 0;
}

double GpuSpec::peak_flops_per_s(Precision precision) const {
    switch (precision) {
        case Precision::fp32: return fp32_flops_per_s;
        case Precision::bf16: return bf16_flops_per_s;
        case Precision::fp8: return fp8_flops_per_s;
    }
    return 0;
}

double EfficiencyCurve::at(double size) const {
    if (sizes.empty()) return 1.0;
    if (size <= sizes.front()) return efficiencies.front();
    if (size >= sizes.back()) return efficiencies.back();
    const auto upper = std::upper_bound(sizes.begin(), sizes.end(), size);
    const std::size_t i = static_cast<std::size_t>(upper - sizes.begin());
    const double w = std::log(size / sizes[i - 1]) / std::log(sizes[i] / sizes[i - 1]);
    return efficiencies[i - 1] + w * (efficiencies[i] - efficiencies[i - 1]);
}

const GpuSpec* HardwareCatalog::find_gpu(std::string_view id) const {
    for (const GpuSpec& gpu : gpus) if (gpu.id == id) return &gpu;
    return nullptr;
}

const LinkSpec* HardwareCatalog::find_link(std::string_view id) const {
    for (const LinkSpec& link : links) if (link.id == id) return &link;
    return nullptr;
}

const FabricSpec* HardwareCatalog::find_fabric(std::string_view id) const {
    for (const FabricSpec& fabric : fabrics) if (fabric.id == id) return &fabric;
    return nullptr;
}

namespace {

EfficiencyCurve read_curve(JsonObjectReader& parent, const char* key, const char* size_key) {
    const nlohmann::json& object = parent.raw(key);
    JsonObjectReader reader(object, parent.field(key));
    const auto numbers = [&](const char* name) {
        const nlohmann::json& list = reader.raw(name);
        if (!list.is_array() || list.empty()) throw InputError(reader.field(name), "must be a non-empty array of numbers");
        std::vector<double> values;
        for (const nlohmann::json& value : list) {
            if (!value.is_number() || !(value.get<double>() > 0)) throw InputError(reader.field(name), "must hold numbers > 0");
            values.push_back(value.get<double>());
        }
        return values;
    };
    EfficiencyCurve curve;
    curve.sizes = numbers(size_key);
    curve.efficiencies = numbers("efficiency");
    if (curve.sizes.size() != curve.efficiencies.size()) throw InputError(reader.field("efficiency"), "must have one value per size");
    for (std::size_t i = 1; i < curve.sizes.size(); ++i) {
        if (!(curve.sizes[i] > curve.sizes[i - 1])) throw InputError(reader.field(size_key), "must be strictly ascending");
    }
    for (double e : curve.efficiencies) if (e > 1.0) throw InputError(reader.field("efficiency"), "must be at most 1");
    reader.reject_unknown_keys();
    return curve;
}

MemoryClassEfficiency read_memory_class(JsonObjectReader& parent, const char* key) {
    MemoryClassEfficiency result;
    if (!parent.has(key)) throw InputError(parent.field(key), "is required");
    JsonObjectReader reader(parent.raw(key), parent.field(key));
    result.floor_seconds = reader.number("floor_seconds", 0, 1e-2).value_or(result.floor_seconds);
    result.efficiency = reader.number("efficiency", 1e-3, 1).value_or(result.efficiency);
    reader.reject_unknown_keys();
    return result;
}

// A GPU without tables of its own names a measured one ("like") and scales its GEMM and attention curves so that their
// plateau matches its own measured best GEMM (the ratio of maximum achievable matmul FLOPS, each over its peak).
struct BorrowedEfficiency {
    std::string like;
    double gemm_scale = 1.0;
    std::string source;
    std::optional<ServingEfficiency> serving;  // the GPU's own serving measurements, kept over the borrowed tables
};

ServingEfficiency read_serving(JsonObjectReader& parent) {
    JsonObjectReader reader(parent.raw("serving"), parent.field("serving"));
    ServingEfficiency serving;
    serving.gemv = read_memory_class(reader, "gemv");
    serving.decode_attention = read_curve(reader, "decode_attention", "head_dim");
    serving.decode_attention_floor_seconds = reader.number("decode_attention_floor_seconds", 0, 1e-2).value_or(0.0);
    if (reader.has("attention_head_dim_scale")) serving.attention_head_dim_scale = read_curve(reader, "attention_head_dim_scale", "head_dim");
    serving.source = reader.string("source").value_or("");
    reader.reject_unknown_keys();
    return serving;
}

// A table without serving measurements times a GEMV as a GEMM bound by its operands and decode attention as a streaming read.
ServingEfficiency serving_from_classes(const GpuEfficiency& efficiency) {
    ServingEfficiency serving;
    serving.gemv = efficiency.gemm_memory;
    serving.decode_attention.sizes = {128.0};
    serving.decode_attention.efficiencies = {efficiency.streaming.efficiency};
    serving.decode_attention_floor_seconds = efficiency.streaming.floor_seconds;
    serving.source = "no serving measurements: a GEMV as a GEMM bound by its operands, decode attention as a streaming read";
    return serving;
}

GpuEfficiency with_serving(GpuEfficiency efficiency, const std::optional<ServingEfficiency>& serving) {
    if (serving) efficiency.serving = *serving;
    return efficiency;
}

GpuEfficiency scaled(GpuEfficiency efficiency, double gemm_scale, const std::string& source) {
    for (EfficiencyCurve* curve : {&efficiency.gemm, &efficiency.gemm_misaligned, &efficiency.fused_attention_forward, &efficiency.fused_attention_backward,
                                   &efficiency.sdpa_attention_forward, &efficiency.sdpa_attention_backward}) {
        for (double& e : curve->efficiencies) e = std::min(1.0, e * gemm_scale);
    }
    efficiency.source = source;
    return efficiency;
}

GpuEfficiency read_efficiency(JsonObjectReader& gpu_reader, BorrowedEfficiency& borrowed) {
    JsonObjectReader reader(gpu_reader.raw("efficiency"), gpu_reader.field("efficiency"));
    GpuEfficiency efficiency;
    efficiency.source = reader.string("source").value_or("");
    if (auto like = reader.string("like")) {
        borrowed.like = *like;
        borrowed.gemm_scale = reader.number("gemm_scale", 0.05, 2.0).value_or(1.0);
        borrowed.source = efficiency.source;
        if (reader.has("serving")) borrowed.serving = read_serving(reader);
        reader.reject_unknown_keys();
        return efficiency;
    }
    efficiency.gemm = read_curve(reader, "gemm", "flops");
    if (reader.has("gemm_misaligned")) {
        efficiency.gemm_misaligned = read_curve(reader, "gemm_misaligned", "alignment_bytes");
        if (efficiency.gemm_misaligned.sizes.back() >= 16) {
            throw InputError(reader.field("gemm_misaligned") + ".alignment_bytes", "must be below 16 (16-byte rows run at the gemm table)");
        }
    }
    JsonObjectReader memory(reader.raw("memory"), reader.field("memory"));
    efficiency.streaming = read_memory_class(memory, "streaming");
    efficiency.norm = read_memory_class(memory, "norm");
    efficiency.softmax = read_memory_class(memory, "softmax");
    efficiency.dropout = read_memory_class(memory, "dropout");
    efficiency.optimizer = read_memory_class(memory, "optimizer");
    efficiency.gemm_memory = read_memory_class(memory, "gemm");
    if (reader.has("fp32")) {
        JsonObjectReader fp32(reader.raw("fp32"), reader.field("fp32"));
        efficiency.gemm_fp32 = fp32.number("gemm", 1e-3, 1).value_or(0.0);
        efficiency.attention_fp32_forward = fp32.number("attention_forward", 1e-3, 1).value_or(0.0);
        efficiency.attention_fp32_backward = fp32.number("attention_backward", 1e-3, 1).value_or(0.0);
        fp32.reject_unknown_keys();
    }
    if (reader.has("fp8")) {
        JsonObjectReader fp8(reader.raw("fp8"), reader.field("fp8"));
        efficiency.gemm_fp8_scale = fp8.number("gemm_scale", 0.05, 1.5).value_or(0.0);
        efficiency.gemm_fp8_source = fp8.string("source").value_or("");
        fp8.reject_unknown_keys();
    }
    // Classes added later: a catalog without them times those kernels as streaming ones.
    efficiency.broadcast = memory.has("broadcast") ? read_memory_class(memory, "broadcast") : efficiency.streaming;
    efficiency.widening = memory.has("widening") ? read_memory_class(memory, "widening") : efficiency.streaming;
    memory.reject_unknown_keys();
    efficiency.fused_attention_forward = read_curve(reader, "fused_attention_forward", "seq");
    efficiency.fused_attention_backward = read_curve(reader, "fused_attention_backward", "seq");
    efficiency.sdpa_attention_forward = read_curve(reader, "sdpa_attention_forward", "seq");
    efficiency.sdpa_attention_backward = read_curve(reader, "sdpa_attention_backward", "seq");
    efficiency.serving = reader.has("serving") ? read_serving(reader) : serving_from_classes(efficiency);
    reader.reject_unknown_keys();
    return efficiency;
}

GpuPrice read_price(JsonObjectReader& gpu_reader) {
    JsonObjectReader reader(gpu_reader.raw("price"), gpu_reader.field("price"));
    GpuPrice price;
    price.on_demand_dollars_per_hour = reader.number("on_demand_dollars_per_hour", 0, 1e4).value_or(0);
    price.spot_dollars_per_hour = reader.number("spot_dollars_per_hour", 0, 1e4).value_or(0);
    price.date = reader.string("date").value_or("");
    price.source = reader.string("source").value_or("");
    reader.reject_unknown_keys();
    return price;
}

GpuSpec read_gpu(const nlohmann::json& object, const std::string& path, BorrowedEfficiency& borrowed) {
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
    gpu.scale_out_link = reader.string("scale_out_link").value_or("");
    gpu.fabric = reader.string("fabric").value_or("");
    gpu.multiprocessors = static_cast<int>(reader.integer("multiprocessors", 1, 100000).value_or(0));
    gpu.source = reader.string("source").value_or("");
    if (reader.has("price")) gpu.price = read_price(reader);
    if (reader.has("efficiency")) gpu.efficiency = read_efficiency(reader, borrowed);
    else borrowed.like = "h100-sxm";  // a GPU described without tables: the measured H100's, unscaled
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
    link.efficiency = reader.number("efficiency", 0.01, 1).value_or(link.efficiency);
    link.compute_slowdown = reader.number("compute_slowdown", 0, 0.9).value_or(link.compute_slowdown);
    link.source = reader.string("source").value_or("");
    reader.reject_unknown_keys();
    return link;
}

}  // namespace

FabricSpec parse_fabric_object(const nlohmann::json& object, const std::string& path) {
    JsonObjectReader reader(object, path);
    FabricSpec fabric;
    fabric.id = reader.string("id").value_or("custom");
    fabric.name = reader.string("name").value_or(fabric.id);
    fabric.rails = static_cast<int>(reader.integer("rails", 0, 4096).value_or(fabric.rails));
    fabric.nic_bytes_per_s = reader.number("nic_bytes_per_s", 0, 1e15).value_or(fabric.nic_bytes_per_s);
    fabric.leaf_gpus = static_cast<int>(reader.integer("leaf_gpus", 0, 100000000).value_or(fabric.leaf_gpus));
    fabric.pod_gpus = static_cast<int>(reader.integer("pod_gpus", 0, 100000000).value_or(fabric.pod_gpus));
    // Oversubscription below 1 would give a tier more uplink than the GPUs beneath it can send.
    fabric.oversubscription = reader.number("oversubscription", 1, 1000).value_or(fabric.oversubscription);
    fabric.cross_pod_oversubscription = reader.number("cross_pod_oversubscription", 1, 1000).value_or(fabric.cross_pod_oversubscription);
    fabric.source = reader.string("source").value_or("");
    if (fabric.leaf_gpus > 0 && fabric.pod_gpus > 0 && fabric.leaf_gpus > fabric.pod_gpus) {
        throw InputError(reader.field("leaf_gpus"), "a leaf of " + std::to_string(fabric.leaf_gpus) + " GPUs is larger than its pod of " +
                                                         std::to_string(fabric.pod_gpus));
    }
    reader.reject_unknown_keys();
    return fabric;
}

GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& path) {
    BorrowedEfficiency borrowed;
    GpuSpec gpu = read_gpu(object, path, borrowed);
    if (!borrowed.like.empty()) {
        const GpuSpec* like = builtin_hardware().find_gpu(borrowed.like);
        if (!like) throw InputError(path + ".efficiency.like", not_in_catalog("GPU", borrowed.like));
        gpu.efficiency = with_serving(scaled(like->efficiency, borrowed.gemm_scale, borrowed.source.empty() ? like->efficiency.source : borrowed.source),
                                     borrowed.serving);
    }
    return gpu;
}
LinkSpec parse_link_object(const nlohmann::json& object, const std::string& path) { return read_link(object, path); }

HardwareCatalog parse_hardware_catalog(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "hardware");
    JsonObjectReader reader(root, "hardware");
    HardwareCatalog catalog;
    if (reader.has("gpus")) {
        const nlohmann::json& gpus = reader.raw("gpus");
        if (!gpus.is_array()) throw InputError("hardware.gpus", kMustBeArray);
        std::vector<BorrowedEfficiency> borrowed(gpus.size());
        for (std::size_t i = 0; i < gpus.size(); ++i) catalog.gpus.push_back(read_gpu(gpus[i], "hardware.gpus[" + std::to_string(i) + "]", borrowed[i]));
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            if (borrowed[i].like.empty()) continue;
            const GpuSpec* like = catalog.find_gpu(borrowed[i].like);
            const std::string field = "hardware.gpus[" + std::to_string(i) + "].efficiency.like";
            if (!like) throw InputError(field, not_in_catalog("GPU", borrowed[i].like));
            if (like->efficiency.gemm.sizes.empty()) throw InputError(field, "\"" + borrowed[i].like + "\" has no tables of its own");
            catalog.gpus[i].efficiency = with_serving(scaled(like->efficiency, borrowed[i].gemm_scale, borrowed[i].source), borrowed[i].serving);
        }
    }
    if (reader.has("links")) {
        const nlohmann::json& links = reader.raw("links");
        if (!links.is_array()) throw InputError("hardware.links", kMustBeArray);
        for (std::size_t i = 0; i < links.size(); ++i) catalog.links.push_back(read_link(links[i], "hardware.links[" + std::to_string(i) + "]"));
    }
    if (reader.has("fabrics")) {
        const nlohmann::json& fabrics = reader.raw("fabrics");
        if (!fabrics.is_array()) throw InputError("hardware.fabrics", kMustBeArray);
        for (std::size_t i = 0; i < fabrics.size(); ++i) {
            catalog.fabrics.push_back(parse_fabric_object(fabrics[i], "hardware.fabrics[" + std::to_string(i) + "]"));
        }
    }
    catalog.default_scale_out_link = reader.string("default_scale_out_link").value_or(catalog.default_scale_out_link);
    reader.reject_unknown_keys();
    // A GPU's own network names catalog entries: checked once here, so no scenario meets a dangling name.
    for (std::size_t i = 0; i < catalog.gpus.size(); ++i) {
        const GpuSpec& gpu = catalog.gpus[i];
        const std::string field = "hardware.gpus[" + std::to_string(i) + "].";
        if (!gpu.scale_out_link.empty() && !catalog.find_link(gpu.scale_out_link)) {
            throw InputError(field + "scale_out_link", not_in_catalog("link", gpu.scale_out_link));
        }
        if (!gpu.fabric.empty() && !catalog.find_fabric(gpu.fabric)) throw InputError(field + "fabric", not_in_catalog("fabric", gpu.fabric));
    }
    return catalog;
}

const HardwareCatalog& builtin_hardware() {
    static const HardwareCatalog catalog = parse_hardware_catalog(embedded_asset("hardware.json"));
    return catalog;
}

}  // namespace core
