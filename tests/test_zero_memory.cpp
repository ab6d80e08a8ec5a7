// ZeRO (Rajbhandari et al. 2019, arXiv 1910.02054): model-state memory per device, published.md sec 1.
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using core_tests::bare_params;
using core_tests::state_per_gpu_bytes;

namespace {

struct Table1Row {
    int data_parallel;
    double os_gb, os_g_gb, os_g_p_gb;  // P_os, P_os+g, P_os+g+p
};

// The paper rounds or truncates some cells: within 1 GB or 1 %, whichever is larger (published.md).
void require_cell(double model_bytes, double published_gb) {
    const double tolerance_gb = std::max(1.0, 0.01 * published_gb);
    INFO("model " << model_bytes / 1e9 << " GB, ZeRO Table 1 " << published_gb << " GB");
    REQUIRE(std::abs(model_bytes / 1e9 - published_gb) <= tolerance_gb);
}

void check_table1(double params, const Table1Row (&rows)[6]) {
    for (const Table1Row& row : rows) {
        const int global_batch = 1024;  // divisible by every N_d of the table
        INFO("N_d = " << row.data_parallel);
        require_cell(state_per_gpu_bytes(core::evaluate(bare_params(params, row.data_parallel, 1, global_batch))), row.os_gb);
        require_cell(state_per_gpu_bytes(core::evaluate(bare_params(params, row.data_parallel, 2, global_batch))), row.os_g_gb);
        require_cell(state_per_gpu_bytes(core::evaluate(bare_params(params, row.data_parallel, 3, global_batch))), row.os_g_p_gb);
    }
}

}  // namespace

TEST_CASE("ZeRO Table 1: 7.5B model, GB per device for P_os / P_os+g / P_os+g+p", "[zero][memory]") {
    const Table1Row rows[] = {
        {1, 120, 120, 120}, {4, 52.5, 41.3, 30}, {16, 35.6, 21.6, 7.5},
        {64, 31.4, 16.6, 1.88}, {256, 30.4, 15.4, 0.47}, {1024, 30.1, 15.1, 0.12},
    };
    check_table1(7.5e9, rows);
}

TEST_CASE("ZeRO Table 1: 128B model, GB per device for P_os / P_os+g / P_os+g+p", "[zero][memory]") {
    const Table1Row rows[] = {
        {1, 2048, 2048, 2048}, {4, 896, 704, 512}, {16, 608, 368, 128},
        {64, 536, 284, 32}, {256, 518, 263, 8}, {1024, 513, 257, 2},
    };
    check_table1(128e9, rows);
}

TEST_CASE("ZeRO sec 3.1 / Figure 1: (2 + 2 + K) Psi per stage, K = 12, exactly", "[zero][memory]") {
    const double psi = 7.5e9;
    const double k = 12;
    const int n = 64;
    SECTION("baseline DP keeps (2 + 2 + K) Psi = 16 Psi") {
        REQUIRE(state_per_gpu_bytes(core::evaluate(bare_params(psi, n, 0, n))) == Approx((2 + 2 + k) * psi));
    }
    SECTION("P_os: 4 Psi + K Psi / N_d") {
        REQUIRE(state_per_gpu_bytes(core::evaluate(bare_params(psi, n, 1, n))) == Approx(4 * psi + k * psi / n));
    }
    SECTION("P_os+g: 2 Psi + (2 + K) Psi / N_d") {
        REQUIRE(state_per_gpu_bytes(core::evaluate(bare_params(psi, n, 2, n))) == Approx(2 * psi + (2 + k) * psi / n));
    }
    SECTION("P_os+g+p: (4 + K) Psi / N_d") {
        REQUIRE(state_per_gpu_bytes(core::evaluate(bare_params(psi, n, 3, n))) == Approx((4 + k) * psi / n));
    }
    SECTION("the whole state stays 16 Psi whatever the stage: ZeRO moves bytes, it does not remove them") {
        for (int zero = 0; zero <= 3; ++zero) {
            REQUIRE(core::evaluate(bare_params(psi, n, zero, n)).memory.state_bytes == Approx(16 * psi));
        }
    }
}

TEST_CASE("Megatron distributed optimizer: 6 + 12/DP bytes per parameter (published.md sec 1)", "[zero][memory]") {
    // bf16 weight 2 + fp32 grad 4 replicated; fp32 master + Adam m + v (12 B) sharded over DP even at ZeRO-0.
    const int dp = 8;
    core::Scenario scenario = bare_params(10e9, dp, 0, dp);
    scenario.precision = *core::find_recipe("megatron-distributed-optimizer");
    REQUIRE(state_per_gpu_bytes(core::evaluate(scenario)) == Approx((6.0 + 12.0 / dp) * 10e9));
}
