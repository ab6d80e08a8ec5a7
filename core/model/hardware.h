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
    double bytes_per_s = 450e9;      // line rate per direction, per GPU (scale-out: one NIC per GPU)
    double latency_seconds = 3e-6;   // alpha: one message, one hop of a ring
    double efficiency = 1.0;         // what NCCL's collectives reach of bytes_per_s (nccl-tests bus bandwidth / line rate)
    double compute_slowdown = 0.0;   // share of compute lost while a collective on this link overlaps it (SMs it occupies)
    std::string source;

    bool operator==(const LinkSpec&) const = default;
};

// How the scale-out network is built (Meta's 24K cluster, Llama 3 sec 3.3.1): the NICs of a node on their rails,
// the leaf tier's oversubscription, pods of full bisection and the tier between them. Defaults: a non-blocking fat tree
// with one NIC per GPU at the scale-out link's rate, as DGX SuperPODs are built.
struct FabricSpec {
    std::string id = "non-blocking";  // a catalog id, or "custom"
    std::string name = "Non-blocking fat tree";
    int rails = 0;                    // NICs per node, each on its own rail; 0: one per GPU
    double nic_bytes_per_s = 0;       // one NIC's rate per direction; 0: the scale-out link's (never above it)
    int leaf_gpus = 0;                // GPUs under one leaf switch group; 0: the whole pod under one tier
    double oversubscription = 1;      // a leaf's downlinks over its uplinks (>= 1): traffic leaving a leaf shares it
    int pod_gpus = 0;                 // GPUs in one pod of full bisection; 0: the whole cluster
    double cross_pod_oversubscription = 1;  // the aggregation tier between pods (>= 1; Llama 3's cluster: 7)
    std::string source;

    bool operator==(const FabricSpec&) const = default;
};

enum class Precision { fp32, bf16, fp8 };
const char* precision_name(Precision);

// Which price a scenario pays per GPU-hour: one of the catalog's two, or its own.
enum class PriceBasis { on_demand, spot, custom };
const char* price_basis_name(PriceBasis);  // "on-demand", "spot", "custom"

// What renting one GPU costs, as the catalog's editable default: a typical figure, with the date and source it is from.
struct GpuPrice {
    double on_demand_dollars_per_hour = 0;  // 0: no figure in the catalog
    double spot_dollars_per_hour = 0;       // interruptible / community; 0: no figure
    std::string date;                       // "2026-03": when the source stated it
    std::string source;                     // provider and where the figure was read

    double dollars_per_hour(PriceBasis) const;  // 0 for custom or a missing figure
    bool operator==(const GpuPrice&) const = default;
};

// Efficiency against a size, interpolated in log(size) between points and flat beyond the ends.
struct EfficiencyCurve {
    std::vector<double> sizes;         // ascending: GEMM FLOPs, or a sequence length
    std::vector<double> efficiencies;  // achieved over peak, (0, 1]

    double at(double size) const;
    bool operator==(const EfficiencyCurve&) const = default;
};

// A memory-bound kernel class: time = floor + bytes / (HBM bandwidth x efficiency).
struct MemoryClassEfficiency {
    double floor_seconds = 2e-6;       // the shortest such kernel on the GPU (launch and tail)
    double efficiency = 0.85;          // share of HBM bandwidth a large one streams at

    bool operator==(const MemoryClassEfficiency&) const = default;
};

// What serving's kernels reach, replayed from a CUDA graph as engines run a decode step: a GEMV (the weights times a few
// rows) and decode attention (every sequence's K and V read once), as shares of the GPU's own HBM bandwidth; and causal
// attention's rate at a head dim against the 128 its curves were measured at.
struct ServingEfficiency {
    MemoryClassEfficiency gemv;                 // time = floor + weight bytes / (HBM bandwidth x efficiency)
    EfficiencyCurve decode_attention;           // K and V bytes over HBM bandwidth, against the head dim (64, 128)
    double decode_attention_floor_seconds = 0;  // the shortest decode attention call
    EfficiencyCurve attention_head_dim_scale;   // forward attention at a head dim over the same at 128; empty: 1
    std::string source;

    bool operator==(const ServingEfficiency&) const = default;
};

// What kernels reach on one GPU: one table per GPU serves every scenario (measured or published; see source).
struct GpuEfficiency {
    EfficiencyCurve gemm;                           // dense GEMMs, against FLOPs; the HBM roof is applied separately
    // The most a GEMM reaches when a weight dimension's rows are not 16-byte aligned (GPT-2's 50257-token vocabulary):
    // cuBLAS falls back to kernels for narrower loads. Against that alignment in bytes (2, 4, 8); empty: not measured.
    EfficiencyCurve gemm_misaligned;
    MemoryClassEfficiency streaming, norm, softmax, dropout, optimizer;
    MemoryClassEfficiency broadcast;                // eager: an op with a broadcast operand (masked_fill_), unvectorized
    MemoryClassEfficiency widening;                 // eager: a copy to a wider type (bf16 -> fp32), unvectorized
    // fp32 compute on the CUDA cores, over the fp32 peak: GEMMs (SGEMM) and PyTorch's memory-efficient attention (no flash
    // kernel takes fp32). 0: not measured, the bf16 tables' fractions are used at the fp32 peak.
    double gemm_fp32 = 0, attention_fp32_forward = 0, attention_fp32_backward = 0;
    // fp8 GEMMs (an fp8 recipe's linear layers), over the fp8 peak: the gemm table times this. 0: no fp8 table, they run
    // as bf16 ones.
    double gemm_fp8_scale = 0;
    std::string gemm_fp8_source;
    MemoryClassEfficiency gemm_memory;              // a GEMM whose operands and output are what limits it
    EfficiencyCurve fused_attention_forward;        // causal flash attention as frameworks fuse it (cuDNN / Transformer Engine),
    EfficiencyCurve fused_attention_backward;       // against the sequence length, over the FLOPs it executes
    EfficiencyCurve sdpa_attention_forward;         // PyTorch's scaled_dot_product_attention (flash backend)
    EfficiencyCurve sdpa_attention_backward;
    ServingEfficiency serving;                      // serving's kernels (a table without them: gemm and streaming classes)
    std::string source;

    bool operator==(const GpuEfficiency&) const = default;
};

struct GpuSpec {
    std::string id;                    // "h100-sxm"
    std::string name;                  // "H100 SXM"
    double hbm_bytes = 80e9;
    double hbm_bytes_per_s = 3.35e12;
    double fp32_flops_per_s = 67e12;   // CUDA cores, no tensor cores
    double bf16_flops_per_s = 989e12;  // dense tensor cores
    double fp8_flops_per_s = 1979e12;  // 0 where the GPU has none
    std::string scale_up_link = "nvlink4";  // the link inside a node
    std::string scale_out_link;        // the link between the machines its catalog price rents; empty: the catalog's default
    std::string fabric;                // how those machines are joined; empty: a non-blocking fat tree
    int multiprocessors = 0;           // SMs (CUs on AMD), from the datasheet: how many thread blocks one wave runs; 0 unknown
    GpuEfficiency efficiency;          // what its kernels reach (assets/hardware.json, with sources)
    std::string source;
    GpuPrice price;                    // typical rental price per GPU-hour (assets/hardware.json, dated)

    double peak_flops_per_s(Precision) const;  // 0 when the GPU lacks that precision

    bool operator==(const GpuSpec&) const = default;
};

struct HardwareCatalog {
    std::vector<GpuSpec> gpus;
    std::vector<LinkSpec> links;
    std::vector<FabricSpec> fabrics;
    std::string default_scale_out_link = "ib-ndr";

    const GpuSpec* find_gpu(std::string_view id) const;
    const LinkSpec* find_link(std::string_view id) const;
    const FabricSpec* find_fabric(std::string_view id) const;
};

// Parses catalog JSON text (the format of assets/hardware.json); throws InputError naming the field.
HardwareCatalog parse_hardware_catalog(std::string_view json_text);
// One GPU or link object (a scenario may give a custom GPU); path names the object in errors.
GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& path);
LinkSpec parse_link_object(const nlohmann::json& object, const std::string& path);
// A fabric object; its rules that need no cluster (oversubscription at least 1, a leaf inside its pod) are checked here.
FabricSpec parse_fabric_object(const nlohmann::json& object, const std::string& path);
// The catalog compiled in from assets/hardware.json.
const HardwareCatalog& builtin_hardware();

}  // namespace core
