// The GPUs people rent, each figure's source in assets/hardware.json: dense datasheet peaks (never the sparsity figure),
// memory, the scale-up link (PCIe for the cards without NVLink), a dated price, and efficiency tables borrowed the
// documented way.
#include "core/model/hardware.h"
#include "core/model/scenario.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

const core::GpuSpec& gpu(const char* id) {
    const core::GpuSpec* found = core::builtin_hardware().find_gpu(id);
    REQUIRE(found != nullptr);
    return *found;
}

}  // namespace

TEST_CASE("Datasheets: dense bf16 peaks, memory and scale-up link of the rented GPUs", "[hardware]") {
    struct Row {
        const char* id;
        double bf16_tflops, memory_gb, bandwidth_tb_s;
        const char* link;
    };
    // NVIDIA datasheets and whitepapers; L4 and L40S list sparse figures only (242, 733): halved. GeForce cards train
    // at the fp32-accumulate rate (RTX 4090 165.2, RTX 3090 71), half their fp16-accumulate figure.
    const Row rows[] = {{"rtx-4090", 165.2, 24, 1.008, "pcie4"}, {"rtx-3090", 71, 24, 0.936, "pcie4"},
                        {"l4", 121, 24, 0.300, "pcie4"},         {"l40s", 362, 48, 0.864, "pcie4"},
                        {"a10g", 125, 24, 0.600, "pcie4"},       {"a100-40gb", 312, 40, 1.555, "nvlink3"},
                        {"h100-pcie", 756, 80, 2.0, "pcie5"},    {"h100-sxm", 989, 80, 3.35, "nvlink4"}};
    for (const Row& row : rows) {
        INFO(row.id);
        const core::GpuSpec& spec = gpu(row.id);
        CHECK(spec.bf16_flops_per_s == Approx(row.bf16_tflops * 1e12));
        // The catalog holds what CUDA gives a process: the datasheet's GB are GiB, less the driver's share and, on GDDR6
        // with ECC on (L4, L40S, A10G), ECC's: about 8 % in all. Never more than the GiB, never under 90 % of them.
        CHECK(spec.hbm_bytes <= row.memory_gb * 1073741824.0);
        CHECK(spec.hbm_bytes >= 0.9 * row.memory_gb * 1073741824.0);
        CHECK(spec.hbm_bytes_per_s == Approx(row.bandwidth_tb_s * 1e12));
        CHECK(spec.scale_up_link == row.link);
        CHECK(core::builtin_hardware().find_link(spec.scale_up_link) != nullptr);
        CHECK(spec.source.find("NVIDIA") != std::string::npos);  // named after the vendor's datasheet or whitepaper
    }
    // NCCL all-reduce bus bandwidth inside a PCIe node: 24 GB/s on Gen4, 48 on Gen5 (NVIDIA GTC24 S62129).
    const core::LinkSpec* pcie4 = core::builtin_hardware().find_link("pcie4");
    const core::LinkSpec* pcie5 = core::builtin_hardware().find_link("pcie5");
    REQUIRE(pcie4 != nullptr);
    REQUIRE(pcie5 != nullptr);
    CHECK(pcie4->bytes_per_s * pcie4->efficiency == Approx(24e9));
    CHECK(pcie5->bytes_per_s * pcie5->efficiency == Approx(48e9));
}

TEST_CASE("Rental prices: every catalog GPU has a dated on-demand price with its source", "[hardware][price]") {
    for (const core::GpuSpec& spec : core::builtin_hardware().gpus) {
        INFO(spec.id);
        CHECK(spec.price.on_demand_dollars_per_hour > 0);
        CHECK(spec.price.date.size() >= 7);
        CHECK(spec.price.source.size() > 20);
        // Spot (interruptible) is cheaper where the catalog has it.
        if (spec.price.spot_dollars_per_hour > 0) CHECK(spec.price.spot_dollars_per_hour < spec.price.on_demand_dollars_per_hour);
    }
    // RunPod, March 2026 (deploybase.ai): RTX 4090 $0.60 on demand, $0.34 spot; seed 004 quotes ~$0.35 spot.
    CHECK(gpu("rtx-4090").price.dollars_per_hour(core::PriceBasis::on_demand) == Approx(0.60));
    CHECK(gpu("rtx-4090").price.dollars_per_hour(core::PriceBasis::spot) == Approx(0.34));
    CHECK(gpu("a10g").price.dollars_per_hour(core::PriceBasis::spot) == 0);  // AWS spot is published live only
}

TEST_CASE("make_efficiency_tables.py: a GPU without tables borrows the nearest measured one's, scaled by best matmul over peak",
          "[hardware][efficiency]") {
    const core::GpuSpec& a100 = gpu("a100-sxm");
    // L40S: 269.15 of 362 TFLOP/s against the A100 SXM's 264.53 of 312 in the same square-matmul benchmark: x 0.877.
    const core::GpuSpec& l40s = gpu("l40s");
    CHECK(l40s.efficiency.gemm.at(1e11) == Approx(a100.efficiency.gemm.at(1e11) * 0.877).epsilon(1e-6));
    CHECK(l40s.efficiency.fused_attention_forward.at(4096) == Approx(a100.efficiency.fused_attention_forward.at(4096) * 0.877));
    CHECK(l40s.efficiency.streaming == a100.efficiency.streaming);  // memory classes are fractions of the GPU's own bandwidth
    // An RTX 4090 boosts past its datasheet clock: its plateau reaches the peak (capped at 1), never beyond.
    const core::GpuSpec& rtx4090 = gpu("rtx-4090");
    CHECK(rtx4090.efficiency.gemm.at(1e12) == Approx(1.0));
    CHECK(rtx4090.efficiency.gemm.at(1e9) == Approx(a100.efficiency.gemm.at(1e9) * 1.18));
    // H100 PCIe at 350 W: 495.93 of 756 against the H100 SXM's 790.6 of 989: x 0.821 on the measured H100 tables.
    CHECK(gpu("h100-pcie").efficiency.gemm.at(1e11) == Approx(gpu("h100-sxm").efficiency.gemm.at(1e11) * 0.821));
    for (const char* id : {"rtx-4090", "rtx-3090", "l4", "l40s", "a10g", "a100-40gb", "h100-pcie"}) {
        INFO(id);
        CHECK(gpu(id).efficiency.source.size() > 40);
    }
}

// RunPod's documentation (runpod/docs @a900806): Instant Clusters join B200, H200 and H100 nodes at 3200 Gbps and A100
// nodes at 1600 Gbps (instant-clusters.mdx, "Supported hardware"); any other pods reach one another over global
// networking, which "operates at 100 Mbps between Pods" (pods/networking.mdx).
TEST_CASE("RunPod's networks: A100 machines join at 8 x 200 Gb/s, RTX 3090, RTX 4090, L40S and L4 machines at 100 Mb/s each",
          "[hardware][network]") {
    CHECK(core::scale_out_link_of(gpu("h100-sxm")).bytes_per_s == Approx(400e9 / 8));
    CHECK(core::scale_out_link_of(gpu("a100-sxm")).bytes_per_s == Approx(200e9 / 8));
    CHECK(core::fabric_of(gpu("a100-sxm")).rails == 0);  // one NIC per GPU
    for (const char* id : {"rtx-3090", "rtx-4090", "l40s", "l4"}) {
        INFO(id);
        CHECK(core::scale_out_link_of(gpu(id)).bytes_per_s == Approx(100e6 / 8));
        CHECK(core::fabric_of(gpu(id)).rails == 1);  // one network per machine, shared by its GPUs
    }
}

TEST_CASE("A cluster's network follows its GPU unless the file names one, and reads back as written", "[hardware][network]") {
    const core::Scenario pods = core::parse_scenario(R"({"cluster": {"gpu": "rtx-3090", "gpus": 16}})");
    CHECK(pods.cluster.scale_out.id == "runpod-global-networking");
    CHECK(pods.cluster.fabric.id == "runpod-pods");
    CHECK(core::scenario_to_json(pods).find("scale_out_link") == std::string::npos);  // its GPU's own: not written
    CHECK(core::parse_scenario(core::scenario_to_json(pods)).cluster == pods.cluster);

    // InfiniBand named for RTX 3090s stays, and is written, or the file would read back on the pod network.
    const core::Scenario chosen = core::parse_scenario(R"({"cluster": {"gpu": "rtx-3090", "gpus": 16, "scale_out_link": "ib-ndr"}})");
    CHECK(chosen.cluster.scale_out.id == "ib-ndr");
    CHECK(chosen.cluster.fabric.id == "runpod-pods");
    CHECK(core::parse_scenario(core::scenario_to_json(chosen)).cluster == chosen.cluster);

    // Switching GPU: the GPU's own network follows; one the file chose stays.
    const core::Edit to_h100 = core::with_gpu(pods, gpu("h100-sxm"));
    REQUIRE(to_h100.ok());
    CHECK(to_h100.scenario.cluster.scale_out.id == "ib-ndr");
    CHECK(to_h100.scenario.cluster.fabric.id == "non-blocking");
    const core::Edit kept = core::with_gpu(chosen, gpu("h100-sxm"));
    REQUIRE(kept.ok());
    CHECK(kept.scenario.cluster.scale_out.id == "ib-ndr");
    CHECK(kept.scenario.cluster.fabric.id == "runpod-pods");
}
