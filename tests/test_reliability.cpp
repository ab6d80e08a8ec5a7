// Failures and checkpoints: Young 1974, Daly 2006 (published.md sec 8), and the goodput model of core/cost/report/reliability.h.
#include "core/model/errors.h"
#include "core/cost/report/reliability.h"
#include "core/cost/report/report_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

constexpr double hour = 3600;

double sum_of_shares(const core::ReliabilityReport& report) {
    return report.goodput + report.checkpoint_share + report.rework_share + report.restart_share;
}

}  // namespace

TEST_CASE("Young / Daly (published.md sec 8): delta = 0.1 h, M = 5 h -> Young 1.000 h, Daly 0.934 h", "[reliability]") {
    REQUIRE(core::young_interval_seconds(0.1 * hour, 5 * hour) / hour == Approx(1.000).margin(0.0005));
    REQUIRE(core::daly_interval_seconds(0.1 * hour, 5 * hour) / hour == Approx(0.934).margin(0.0005));
    SECTION("through reliability(): 10 GPUs at 50 h each, 360 GB written at 1 GB/s") {
        core::ReliabilityInputs inputs;
        inputs.gpu_mtbf_seconds = 50 * hour;
        inputs.gpus = 10;
        inputs.checkpoint_bytes = 360e9;
        inputs.checkpoint_bytes_per_s = 1e9;
        const core::ReliabilityReport report = core::reliability(inputs);
        REQUIRE(report.cluster_mtbf_seconds == Approx(5 * hour));
        REQUIRE(report.checkpoint_seconds == Approx(0.1 * hour));
        REQUIRE(report.young_interval_seconds / hour == Approx(1.000).margin(0.0005));
        REQUIRE(report.daly_interval_seconds / hour == Approx(0.934).margin(0.0005));
        REQUIRE(report.interval_seconds == report.daly_interval_seconds);  // no interval given: Daly's optimum
    }
}

TEST_CASE("Daly 2006: when a checkpoint costs 2M or more, checkpoint once per MTBF", "[reliability]") {
    REQUIRE(core::daly_interval_seconds(10 * hour, 5 * hour) == Approx(5 * hour));
    REQUIRE(core::daly_interval_seconds(30 * hour, 5 * hour) == Approx(5 * hour));
    // Just below 2M the formula itself: sqrt(2 delta M) (1 + 1/3 + 1/9) - delta = 10 h x 13/9 - 10 h.
    REQUIRE(core::daly_interval_seconds(9.999999 * hour, 5 * hour) / hour == Approx(10.0 * 13 / 9 - 10).margin(1e-4));
}

TEST_CASE("Cluster MTBF: Llama 3's 419 unexpected interruptions in 54 days on 16,384 GPUs ~ 50,000 GPU-hours each", "[reliability]") {
    // Dubey et al. 2024 sec 3.3.4: 54 days x 24 h / 419 = 3.09 h between failures for the job.
    const double observed = 54 * 24.0 / 419;
    REQUIRE(core::cluster_mtbf_seconds(50000 * hour, 16384) / hour == Approx(observed).epsilon(0.02));
    REQUIRE(core::cluster_mtbf_seconds(50000 * hour, 1) == Approx(50000 * hour));
    REQUIRE(core::cluster_mtbf_seconds(50000 * hour, 2) == Approx(25000 * hour));
}

TEST_CASE("Checkpoint seconds = bytes / storage bandwidth", "[reliability]") {
    REQUIRE(core::checkpoint_seconds(988e9, 100e9) == Approx(9.88));
    REQUIRE(core::checkpoint_seconds(0, 100e9) == 0);
}

TEST_CASE("Goodput model: (1 - (R + (tau + delta)/2) / M) x tau / (tau + delta)", "[reliability]") {
    SECTION("worked example: tau 0.9 h, delta 0.1 h, M 5 h, no restart -> 0.9 x 0.9 = 0.81") {
        REQUIRE(core::expected_goodput(0.9 * hour, 0.1 * hour, 5 * hour, 0) == Approx(0.81));
        REQUIRE(core::expected_goodput(0.9 * hour, 0.1 * hour, 5 * hour, 0.5 * hour) == Approx(0.8 * 0.9));
    }
    SECTION("its optimum is sqrt(2 delta M) - delta, Daly's first-order interval; Daly beats Young") {
        const double delta = 0.1 * hour, mtbf = 5 * hour;
        const double optimum = std::sqrt(2 * delta * mtbf) - delta;
        const double best = core::expected_goodput(optimum, delta, mtbf, 0);
        REQUIRE(best > core::expected_goodput(optimum * 0.95, delta, mtbf, 0));
        REQUIRE(best > core::expected_goodput(optimum * 1.05, delta, mtbf, 0));
        const double daly = core::daly_interval_seconds(delta, mtbf), young = core::young_interval_seconds(delta, mtbf);
        REQUIRE(core::expected_goodput(daly, delta, mtbf, 0) > core::expected_goodput(young, delta, mtbf, 0));
        REQUIRE(core::expected_goodput(daly, delta, mtbf, 0) > core::expected_goodput(2 * daly, delta, mtbf, 0));
        REQUIRE(core::expected_goodput(daly, delta, mtbf, 0) > core::expected_goodput(daly / 2, delta, mtbf, 0));
    }
    SECTION("the shares of wall time add up to one") {
        core::ReliabilityInputs inputs;
        inputs.gpus = 16384;
        inputs.checkpoint_bytes = 5.7e12;
        inputs.train_seconds = 30 * 86400;
        const core::ReliabilityReport report = core::reliability(inputs);
        REQUIRE(sum_of_shares(report) == Approx(1));
        REQUIRE(report.makes_progress);
        REQUIRE(report.goodput > 0.5);
        REQUIRE(report.goodput < 1);
        REQUIRE(report.wall_seconds == Approx(inputs.train_seconds / report.goodput));
        REQUIRE(report.expected_failures == Approx(report.wall_seconds / report.cluster_mtbf_seconds));
    }
    SECTION("free checkpoints: only restarts cost, 1 - R/M") {
        core::ReliabilityInputs inputs;
        inputs.gpu_mtbf_seconds = 10 * hour;
        inputs.restart_seconds = 0.5 * hour;
        const core::ReliabilityReport report = core::reliability(inputs);
        REQUIRE(report.goodput == Approx(0.95));
        REQUIRE(sum_of_shares(report) == Approx(1));
    }
    SECTION("an interval the user picks is the one the goodput assumes") {
        core::ReliabilityInputs inputs;
        inputs.gpu_mtbf_seconds = 50 * hour;
        inputs.gpus = 10;
        inputs.checkpoint_bytes = 360e9;
        inputs.checkpoint_bytes_per_s = 1e9;
        inputs.restart_seconds = 0;
        inputs.interval_seconds = 0.9 * hour;
        const core::ReliabilityReport report = core::reliability(inputs);
        REQUIRE(report.interval_seconds == 0.9 * hour);
        REQUIRE(report.goodput == Approx(0.81));
        REQUIRE(report.checkpoint_share == Approx(0.09));
        REQUIRE(report.rework_share == Approx(0.1));
    }
    SECTION("failures faster than a cycle plus a restart: no progress, reported as such") {
        core::ReliabilityInputs inputs;
        inputs.gpu_mtbf_seconds = 50000 * hour;
        inputs.gpus = 1e6;                 // M = 180 s
        inputs.checkpoint_bytes = 140e12;  // 1,400 s per checkpoint at 100 GB/s
        inputs.train_seconds = 86400;
        const core::ReliabilityReport report = core::reliability(inputs);
        REQUIRE_FALSE(report.makes_progress);
        REQUIRE(report.goodput == 0);
        REQUIRE(report.wall_seconds == 0);
        REQUIRE(sum_of_shares(report) == Approx(1));
    }
}

TEST_CASE("reliability() refuses invalid inputs, naming the field", "[reliability]") {
    core::ReliabilityInputs inputs;
    inputs.gpus = 0;
    REQUIRE_THROWS_AS(core::reliability(inputs), core::InputError);
    try {
        core::reliability(inputs);
    } catch (const core::InputError& error) {
        REQUIRE(error.field() == "reliability.gpus");
    }
    inputs.gpus = 8;
    inputs.checkpoint_bytes_per_s = 0;
    try {
        core::reliability(inputs);
        FAIL("a zero storage bandwidth was accepted");
    } catch (const core::InputError& error) {
        REQUIRE(error.field() == "reliability.checkpoint_bytes_per_s");
    }
}

TEST_CASE("evaluate() fills report.reliability from scenario.operations, and eval prints it", "[reliability]") {
    // Default: 64 H100s at 50,000 h each; a checkpoint is the state but the gradients, 14 B x 70.55B, at 100 GB/s.
    const core::Report report = core::evaluate(core::default_scenario());
    const core::ReliabilityReport& reliability = report.reliability;
    REQUIRE(reliability.cluster_mtbf_seconds == Approx(50000 * hour / 64));
    REQUIRE(reliability.checkpoint_bytes == Approx(14 * 70553706496.0));
    REQUIRE(reliability.checkpoint_seconds == Approx(14 * 70553706496.0 / 100e9));
    REQUIRE(reliability.young_interval_seconds ==
            Approx(std::sqrt(2 * reliability.checkpoint_seconds * reliability.cluster_mtbf_seconds)));
    REQUIRE(reliability.wall_seconds == Approx(report.compute.train_seconds / reliability.goodput));
    const std::string json = core::report_to_json(core::default_scenario(), report);
    REQUIRE(json.find("\"reliability\"") != std::string::npos);
    REQUIRE(json.find("\"goodput\"") != std::string::npos);
    REQUIRE(json.find("\"daly_interval_seconds\"") != std::string::npos);
    SECTION("more GPUs fail more often: goodput falls from 64 to 16,384 GPUs") {
        core::Scenario big = core::default_scenario();
        big.cluster.gpus = 16384;
        big.train.global_batch = 16384;
        REQUIRE(core::evaluate(big).reliability.goodput < reliability.goodput);
    }
}
