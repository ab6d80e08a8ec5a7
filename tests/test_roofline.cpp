// The roofline against published.md sec 7, seed 003's worked numbers, and the H100 measurements in assets/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "core/model/errors.h"
#include "core/lessons/measured_points.h"
#include "core/cost/kernels/roofline.h"
#include "core/lessons/textbook_kernels.h"

namespace {

const core::Ceiling h100_bf16{"H100 SXM bf16", 989e12, 3.35e12};
const core::Ceiling a100_bf16{"A100 SXM bf16", 312e12, 2.0e12};
const core::Ceiling h100_over_nvlink4{"NVLink 4", 989e12, 450e9};
const core::Ceiling h100_over_ib_ndr{"InfiniBand NDR", 989e12, 50e9};
constexpr double bf16_bytes = 2;

// The test binary reads the asset from the source tree (core itself never opens files).
std::string read_measured_csv() {
#ifdef SHARDSCOPE_SOURCE_DIR
    const std::string path = SHARDSCOPE_SOURCE_DIR "/assets/h100_measured_roofline.csv";
#else
    std::string path = __FILE__;
    path = path.substr(0, path.find_last_of('/')) + "/../assets/h100_measured_roofline.csv";
#endif
    std::ifstream file(path);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// One communication axis of a report, as traffic_points reads it.
core::AxisComm axis_comm(core::CommAxis kind, int degree, bool crosses_nodes, double bus_bytes_per_s, double bytes_per_gpu) {
    core::AxisComm axis;
    axis.axis = kind;
    axis.degree = degree;
    axis.crosses_nodes = crosses_nodes;
    axis.bus_bytes_per_s = bus_bytes_per_s;
    axis.bytes_per_gpu = bytes_per_gpu;
    return axis;
}

}  // namespace

TEST_CASE("published.md sec 7: H100 SXM bf16 ridge 989 / 3.35 = 295 FLOP/B", "[roofline]") {
    REQUIRE(core::ridge_flops_per_byte(h100_bf16) == Approx(295.22).epsilon(1e-4));
}

TEST_CASE("published.md sec 7: A100 SXM bf16 ridge 312 / 2.0 = 156 FLOP/B", "[roofline]") {
    REQUIRE(core::ridge_flops_per_byte(a100_bf16) == Approx(156.0));
}

TEST_CASE("published.md sec 7 catalog: bf16 ridges A100 156, H100 295, H200 206, B200 281, MI300X 247 FLOP/B",
          "[roofline][hardware]") {
    const core::HardwareCatalog& catalog = core::builtin_hardware();
    const std::pair<const char*, double> expected[] = {
        {"a100-sxm", 312.0 / 2.0}, {"h100-sxm", 989.0 / 3.35}, {"h200-sxm", 989.0 / 4.8},
        {"b200", 2250.0 / 8.0},    {"mi300x", 1307.0 / 5.3}};
    for (const auto& [id, ridge] : expected) {
        const core::GpuSpec* gpu = catalog.find_gpu(id);
        REQUIRE(gpu != nullptr);
        INFO(id);
        REQUIRE(core::ridge_flops_per_byte(core::hbm_ceiling(*gpu, core::Precision::bf16)) == Approx(ridge));
    }
    const core::Ceiling h100_fp8 = core::hbm_ceiling(*catalog.find_gpu("h100-sxm"), core::Precision::fp8);
    REQUIRE(h100_fp8.label == "H100 SXM fp8");
    REQUIRE(core::ridge_flops_per_byte(h100_fp8) == Approx(1979.0 / 3.35));  // fp8 doubles the ridge
    REQUIRE(core::element_bytes(core::Precision::fp32) == 4);
    REQUIRE(core::element_bytes(core::Precision::bf16) == 2);
    REQUIRE(core::element_bytes(core::Precision::fp8) == 1);
}

TEST_CASE("Williams 2009 roofline: attainable = min(peak, intensity x bandwidth) on both sides of the ridge",
          "[roofline]") {
    SECTION("below the ridge the HBM slope limits: 100 FLOP/B x 3.35 TB/s = 335 TFLOP/s") {
        REQUIRE(core::attainable_flops_per_s(h100_bf16, 100) == Approx(335e12));
    }
    SECTION("above the ridge the compute roof limits: 1000 FLOP/B reaches only 989 TFLOP/s") {
        REQUIRE(core::attainable_flops_per_s(h100_bf16, 1000) == Approx(989e12));
    }
    SECTION("at the ridge both limits agree") {
        const double ridge = core::ridge_flops_per_byte(h100_bf16);
        REQUIRE(core::attainable_flops_per_s(h100_bf16, ridge) == Approx(989e12));
        REQUIRE(ridge * h100_bf16.bytes_per_s == Approx(989e12));
    }
    SECTION("the outline bends exactly once, at the ridge") {
        const auto outline = core::roof_outline(h100_bf16, 0.1, 1e4);
        REQUIRE(outline.size() == 3);
        REQUIRE(outline[0].flops_per_s == Approx(0.335e12));
        REQUIRE(outline[1].intensity_flops_per_byte == Approx(295.22).epsilon(1e-4));
        REQUIRE(outline[2].flops_per_s == Approx(989e12));
        REQUIRE(core::roof_outline(h100_bf16, 1000, 1e4).size() == 2);
    }
}

TEST_CASE("GEMM intensity 2MNK / 2(MK+KN+MN): 4096^3 in bf16 is 1365.3 FLOP/B", "[roofline]") {
    const core::KernelCost gemm = core::gemm_cost(4096, 4096, 4096, bf16_bytes);
    REQUIRE(gemm.flops == Approx(137438953472.0));  // the CSV's flops column
    REQUIRE(gemm.bytes == Approx(100663296.0));     // the CSV's bytes column
    REQUIRE(gemm.intensity_flops_per_byte() == Approx(4096.0 / 3).epsilon(1e-9));
    const core::PlacedKernel placed = core::place_kernel(gemm, h100_bf16);
    REQUIRE(placed.bound == core::Bound::compute);
    REQUIRE(placed.seconds == Approx(137438953472.0 / 989e12));
    REQUIRE(placed.explanation == "compute-bound: the full 989 TFLOP/s (1365 FLOP/B > ridge 295)");
}

TEST_CASE("Seed 003 omits the output write: 4096^3 matmul 2048 -> 1365 FLOP/B, ReLU 0.5 -> 0.25 FLOP/B",
          "[roofline][seed]") {
    const core::KernelCost gemm = core::gemm_cost(4096, 4096, 4096, bf16_bytes);
    const double n = 4096;
    SECTION("the seed's 2 n^3 / (2 n^2 x 2) = 2048 counts only the inputs A and B") {
        const double input_bytes = bf16_bytes * (n * n + n * n);
        REQUIRE(gemm.flops / input_bytes == Approx(2048.0));
    }
    SECTION("writing C too, as the measured CSV counts, gives 2 n^3 / (3 n^2 x 2) = 1365.3, a third less") {
        REQUIRE(gemm.intensity_flops_per_byte() == Approx(1365.33).epsilon(1e-5));
        REQUIRE(gemm.intensity_flops_per_byte() != Approx(2048.0));
    }
    SECTION("ReLU reads and writes each bf16 element: 1 FLOP / 4 B = 0.25; the seed's 0.5 counts the read only") {
        const core::KernelCost relu = core::relu_cost(n * n, bf16_bytes);
        REQUIRE(relu.flops / (bf16_bytes * n * n) == Approx(0.5));
        REQUIRE(relu.intensity_flops_per_byte() == Approx(0.25));
    }
    SECTION("the seed's ridge 989,000 / 3,352 = 295 agrees with ours") {
        REQUIRE(989000.0 / 3352 == Approx(core::ridge_flops_per_byte(h100_bf16)).epsilon(1e-3));
    }
}

TEST_CASE("ReLU in bf16: 1 FLOP per 4 bytes = 0.25 FLOP/B, memory-bound at 0.84 TFLOP/s on H100", "[roofline]") {
    const core::PlacedKernel relu = core::place_kernel(core::relu_cost(16777216, bf16_bytes), h100_bf16);
    REQUIRE(relu.intensity_flops_per_byte == Approx(0.25));
    REQUIRE(relu.bound == core::Bound::memory);
    REQUIRE(relu.attainable_flops_per_s == Approx(0.8375e12));
    REQUIRE(relu.explanation == "memory-bound: 838 GFLOP/s of 989 TFLOP/s (0.250 FLOP/B < ridge 295)");
}

TEST_CASE("Decode GEMV 8192x8192 bf16: batch 1 is ~1 FLOP/B and memory-bound, batch 1024 compute-bound",
          "[roofline][decode]") {
    SECTION("batch 1: 2 d^2 / 2(d^2 + 2d) = 0.99976 FLOP/B, the CSV's 1x8192x8192 row (0.9998)") {
        const core::PlacedKernel decode = core::place_kernel(core::decode_gemv_cost(1, 8192, 8192, bf16_bytes), h100_bf16);
        REQUIRE(decode.intensity_flops_per_byte == Approx(8192.0 / 8194).epsilon(1e-9));
        REQUIRE(decode.bound == core::Bound::memory);
        REQUIRE(decode.attainable_flops_per_s == Approx(3.3492e12).epsilon(1e-4));
        REQUIRE_THAT(decode.explanation, Catch::StartsWith("memory-bound: 3.35 TFLOP/s of 989 TFLOP/s ("));
    }
    SECTION("batch 1024: b d / (2b + d) = 819.2 FLOP/B, above the ridge") {
        const core::PlacedKernel decode =
            core::place_kernel(core::decode_gemv_cost(1024, 8192, 8192, bf16_bytes), h100_bf16);
        REQUIRE(decode.intensity_flops_per_byte == Approx(819.2));
        REQUIRE(decode.bound == core::Bound::compute);
    }
    SECTION("the bound flips at b = 295.2 x 8192 / (8192 - 2 x 295.2) = 318.15") {
        const double ridge = core::ridge_flops_per_byte(h100_bf16);
        REQUIRE(core::decode_batch_for_intensity(ridge, 8192, 8192, bf16_bytes) == Approx(318.15).epsilon(1e-4));
        REQUIRE(core::place_kernel(core::decode_gemv_cost(318, 8192, 8192, bf16_bytes), h100_bf16).bound ==
                core::Bound::memory);
        REQUIRE(core::place_kernel(core::decode_gemv_cost(319, 8192, 8192, bf16_bytes), h100_bf16).bound ==
                core::Bound::compute);
    }
    SECTION("a 256 x 256 weight caps intensity below b d / 2b = 64 FLOP/B: it never reaches the ridge") {
        REQUIRE(std::isinf(core::decode_batch_for_intensity(295, 256, 256, bf16_bytes)));
    }
}

TEST_CASE("Prefill of 4096 tokens through an 8192x8192 weight is a GEMM with M = tokens: 2048 FLOP/B", "[roofline]") {
    const core::KernelCost prefill = core::prefill_cost(4096, 8192, 8192, bf16_bytes);
    REQUIRE(prefill.flops == Approx(549755813888.0));             // CSV row 4096,8192,8192
    REQUIRE(prefill.intensity_flops_per_byte() == Approx(2048.0));  // CSV intensity column
}

TEST_CASE("FlashAttention (Dao et al. 2022): fused s=4096, d=128 bf16 attention is s/2 = 2048 FLOP/B; "
          "materialising the s x s scores drops it to s d / 2(s + d) = 62 FLOP/B",
          "[roofline][attention]") {
    core::AttentionShape shape;
    shape.batch = 1;
    shape.sequence = 4096;
    shape.head_dim = 128;
    shape.heads = 64;
    shape.flash = true;
    const core::KernelCost flash = core::attention_cost(shape, bf16_bytes);
    REQUIRE(flash.flops == Approx(4.0 * 64 * 4096 * 4096 * 128));
    REQUIRE(flash.intensity_flops_per_byte() == Approx(2048.0));
    shape.flash = false;
    const core::KernelCost unfused = core::attention_cost(shape, bf16_bytes);
    REQUIRE(unfused.flops == Approx(flash.flops));
    REQUIRE(unfused.intensity_flops_per_byte() == Approx(4096.0 * 128 / (2 * (4096 + 128))));
    REQUIRE(core::place_kernel(unfused, h100_bf16).bound == core::Bound::memory);
    REQUIRE(core::place_kernel(flash, h100_bf16).bound == core::Bound::compute);
}

TEST_CASE("Extended roofline (seed 002): DP gradient all-reduce of a 70B bf16 model, ring of 8, over IB NDR vs NVLink",
          "[roofline][network]") {
    const double gradient_bytes_sent = 2.0 * 7 / 8 * 140e9;  // ring all-reduce: 2(n-1)/n x 140 GB
    SECTION("4096 tokens per GPU: 6 x 70e9 x 4096 / 245 GB = 7022 FLOP/B, under the IB ridge 19780: network-bound") {
        const core::TrafficPoint dp = core::place_traffic("DP", 6 * 70e9 * 4096, gradient_bytes_sent, h100_over_ib_ndr);
        REQUIRE(dp.comm_intensity_flops_per_byte == Approx(7021.7).epsilon(1e-4));
        REQUIRE(core::ridge_flops_per_byte(h100_over_ib_ndr) == Approx(19780));
        REQUIRE(dp.network_bound);
        REQUIRE(dp.network_seconds == Approx(4.9));
        REQUIRE(dp.attainable_flops_per_s == Approx(7021.7 * 50e9).epsilon(1e-4));
    }
    SECTION("the same traffic over NVLink 4 (ridge 2198 FLOP/B) is compute-bound") {
        const core::TrafficPoint dp = core::place_traffic("DP", 6 * 70e9 * 4096, gradient_bytes_sent, h100_over_nvlink4);
        REQUIRE(core::ridge_flops_per_byte(h100_over_nvlink4) == Approx(2197.8).epsilon(1e-4));
        REQUIRE_FALSE(dp.network_bound);
        REQUIRE(dp.attainable_flops_per_s == Approx(989e12));
    }
    SECTION("16x the tokens per GPU lifts the point past the IB ridge") {
        const core::TrafficPoint dp =
            core::place_traffic("DP", 16 * 6 * 70e9 * 4096, gradient_bytes_sent, h100_over_ib_ndr);
        REQUIRE(dp.comm_intensity_flops_per_byte == Approx(112347).epsilon(1e-4));
        REQUIRE_FALSE(dp.network_bound);
    }
    SECTION("an axis that sends nothing is never network-bound") {
        const core::TrafficPoint tp = core::place_traffic("TP", 1e15, 0, h100_over_nvlink4);
        REQUIRE_FALSE(tp.network_bound);
        REQUIRE(std::isinf(tp.comm_intensity_flops_per_byte));
    }
}

TEST_CASE("Extended roofline (seed 002): the Report's per-axis traffic becomes one point per axis", "[roofline][network]") {
    core::Report report;
    report.layout.gpus = 64;
    report.compute.hardware_flops_per_step = 64 * 2.75e16;
    report.compute.peak_flops_per_s = 989e12;
    report.comm.axes = {axis_comm(core::CommAxis::dp, 8, true, 50e9, 245e9), axis_comm(core::CommAxis::tp, 8, false, 450e9, 2.75e13)};
    // The ceilings' slopes are each group's bus bandwidth; their names come from the scenario's links.
    const std::vector<core::TrafficPoint> points = core::traffic_points(core::default_scenario(), report);
    REQUIRE(points.size() == 2);
    REQUIRE(points[0].axis == "DP 8");
    REQUIRE(points[0].link_label == "InfiniBand NDR");
    REQUIRE(points[0].flops == Approx(2.75e16));
    REQUIRE(points[0].comm_intensity_flops_per_byte == Approx(2.75e16 / 245e9));
    REQUIRE_FALSE(points[0].network_bound);  // 112,245 FLOP/B, above the IB ridge of 19,780
    REQUIRE(points[1].axis == "TP 8");
    REQUIRE(points[1].comm_intensity_flops_per_byte == Approx(1000));
    REQUIRE(points[1].network_bound);        // 1000 FLOP/B, under the NVLink 4 ridge of 2,198
    REQUIRE(points[1].attainable_flops_per_s == Approx(1000 * 450e9));
    REQUIRE(points[1].explanation ==
            "TP 8 network-bound on NVLink 4: 1000 FLOP per byte sent < ridge 2198; at most 450 TFLOP/s of 989 TFLOP/s");
    REQUIRE(points[0].explanation == "DP 8 compute-bound over InfiniBand NDR: 112 k FLOP per byte sent > ridge 19780");
}

TEST_CASE("Extended roofline: an axis whose collective reaches less than its link's line rate says so beside its ridge", "[roofline][network]") {
    // The plot draws NVLink 4 at its 450 GB/s line rate (ridge 989 / 450 = 2198 FLOP/B); a TP group whose NCCL bus
    // bandwidth is 370 GB/s has its ridge at 989 / 370 = 2673 FLOP/B, and the readout names both bandwidths.
    core::Report report;
    report.layout.gpus = 8;
    report.compute.hardware_flops_per_step = 8 * 1e16;
    report.compute.peak_flops_per_s = 989e12;
    report.comm.axes = {axis_comm(core::CommAxis::tp, 8, false, 370e9, 1e12)};
    const std::vector<core::TrafficPoint> points = core::traffic_points(core::default_scenario(), report);
    REQUIRE(points.size() == 1);
    REQUIRE(points[0].explanation ==
            "TP 8 compute-bound over NVLink 4: 10000 FLOP per byte sent > ridge 2673 (NCCL reaches 370 GB/s of the link's 450 GB/s)");
}

TEST_CASE("h100_measured_roofline.csv: 23 points, all under the H100 SXM bf16 roof", "[roofline][measured]") {
    const std::vector<core::MeasuredPoint> points = core::parse_measured_points(read_measured_csv());
    REQUIRE(points.size() == 23);
    int matmuls = 0;
    for (const core::MeasuredPoint& point : points) {
        INFO(point.kernel << " " << point.m << "x" << point.n << "x" << point.k << " " << point.elements);
        REQUIRE(point.flops_per_s <= core::attainable_flops_per_s(h100_bf16, point.intensity_flops_per_byte));
        REQUIRE(point.bytes_per_s <= h100_bf16.bytes_per_s);
        // The rate columns are flops / seconds and bytes / seconds to 4 significant figures.
        REQUIRE(point.flops_per_s == Approx(point.flops / point.seconds).epsilon(1e-3));
        REQUIRE(point.bytes_per_s == Approx(point.bytes / point.seconds).epsilon(1e-3));
        if (point.kernel == "matmul") {
            ++matmuls;
            const core::KernelCost model = core::gemm_cost(point.m, point.n, point.k, bf16_bytes);
            REQUIRE(point.flops == Approx(model.flops));
            REQUIRE(point.bytes == Approx(model.bytes));
            REQUIRE(point.intensity_flops_per_byte == Approx(model.intensity_flops_per_byte()).epsilon(5e-4));
        } else if (point.kernel == "relu") {
            const core::KernelCost model = core::relu_cost(point.elements, bf16_bytes);
            REQUIRE(point.bytes == Approx(model.bytes));
            REQUIRE(point.intensity_flops_per_byte == Approx(0.25));
        }
    }
    REQUIRE(matmuls == 17);
}

TEST_CASE("h100_measured_roofline.csv: compute-bound matmuls reach 68-81 % of 989 TFLOP/s; 70 % fails only at "
          "2048^3 (69.7 %) and 16384x8192x8192 (68.8 %)",
          "[roofline][measured]") {
    const std::vector<core::MeasuredPoint> points = core::parse_measured_points(read_measured_csv());
    const double ridge = core::ridge_flops_per_byte(h100_bf16);
    int compute_bound = 0, below_seventy_percent = 0;
    double best_fraction = 0;
    for (const core::MeasuredPoint& point : points) {
        if (point.kernel != "matmul" || point.intensity_flops_per_byte < 2 * ridge) continue;
        ++compute_bound;
        const double fraction = point.flops_per_s / h100_bf16.peak_flops_per_s;
        INFO(point.m << "x" << point.n << "x" << point.k << " at " << fraction);
        REQUIRE(fraction >= 0.68);
        REQUIRE(fraction <= 0.81);
        if (fraction < 0.70) ++below_seventy_percent;
        best_fraction = std::max(best_fraction, fraction);
    }
    REQUIRE(compute_bound == 7);
    REQUIRE(core::roof_fraction(h100_bf16, 1365, 787e12) == Approx(787.0 / 989));   // 4096^3: compute roof
    REQUIRE(core::roof_fraction(h100_bf16, 0.9998, 2.699e12) == Approx(2.699 / (0.9998 * 3.35)));  // decode b=1: HBM slope
    REQUIRE(below_seventy_percent == 2);
    REQUIRE(best_fraction == Approx(0.8007).epsilon(1e-3));  // 8192^3 and 4096x8192x8192 at 792 TFLOP/s
}

TEST_CASE("Measured CSV parser: comments skipped, malformed lines refused naming the line", "[roofline][measured]") {
    const std::string header = "kernel,m,n,k,elements,flops,bytes,seconds,tflops_per_s,gbytes_per_s,intensity_flops_per_byte\n";
    SECTION("columns may come in any order, blank and # lines are skipped") {
        const auto points = core::parse_measured_points(
            "# note\n\nbytes,kernel,m,n,k,elements,flops,seconds,tflops_per_s,gbytes_per_s,intensity_flops_per_byte\n"
            "393216,matmul,256,256,256,,33554432,2.3e-05,1.453,17.03,85.33\n");
        REQUIRE(points.size() == 1);
        REQUIRE(points[0].bytes == 393216);
        REQUIRE(points[0].flops_per_s == Approx(1.453e12));
        REQUIRE(points[0].bytes_per_s == Approx(17.03e9));
    }
    SECTION("a short line names its line number") {
        try {
            core::parse_measured_points("# c\n" + header + "matmul,1,2\n", "h100.csv");
            FAIL("no InputError");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "h100.csv line 3");
            REQUIRE(error.reason() == "expected 11 fields, got 3");
        }
    }
    SECTION("a field that is not a number") {
        REQUIRE_THROWS_WITH(core::parse_measured_points(header + "relu,,,,1e6,1e6,4e6,fast,0.07,274,0.25\n", "h100.csv"),
                            "h100.csv line 2: column seconds: 'fast' is not a number >= 0");
    }
    SECTION("a header without the intensity column") {
        REQUIRE_THROWS_AS(core::parse_measured_points("kernel,m,n,k\n"), core::InputError);
    }
}

TEST_CASE("Roofline inputs are refused naming the field", "[roofline][errors]") {
    REQUIRE_THROWS_WITH(core::ridge_flops_per_byte({"broken", 989e12, 0}),
                        Catch::StartsWith("roofline.ceiling.bytes_per_s: must be a finite number > 0"));
    REQUIRE_THROWS_WITH(core::gemm_cost(0, 1, 1, 2), Catch::StartsWith("roofline.gemm.m:"));
    REQUIRE_THROWS_WITH(core::decode_gemv_cost(-1, 8192, 8192, 2), Catch::StartsWith("roofline.decode.batch:"));
    REQUIRE_THROWS_WITH(core::place_traffic("DP", 1, -5, h100_over_ib_ndr),
                        Catch::StartsWith("roofline.traffic.bytes_sent:"));
}
