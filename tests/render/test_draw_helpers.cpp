// The shared drawing helpers' pure parts (widgets/draw_helpers.h): 1-2-5 tick steps and their labels.
#include "widgets/draw_helpers.h"

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("1-2-5 ticks: the smallest of 1, 2, 5 x 10^k giving at most the intervals asked for", "[draw_helpers]") {
    CHECK(widgets::tick_step_125(100, 10) == Approx(10));
    CHECK(widgets::tick_step_125(100, 9) == Approx(20));   // 10 would give 10 intervals, one too many
    CHECK(widgets::tick_step_125(100, 4) == Approx(50));   // 20 would give 5
    CHECK(widgets::tick_step_125(100, 1) == Approx(100));
    CHECK(widgets::tick_step_125(0.3, 3) == Approx(0.1));  // 0.3 / 3 is a hair above 0.1 in binary: still 0.1
    CHECK(widgets::tick_step_125(33.0, 8) == Approx(5));
    CHECK(widgets::tick_step_125(7e-6, 7) == Approx(1e-6));
    CHECK(widgets::tick_step_125(0, 5) == 0);
    CHECK(widgets::tick_step_125(-3, 5) == 0);
}

TEST_CASE("1-2-5 ticks: placed on multiples of the step, both ends included when they fall on one", "[draw_helpers]") {
    CHECK(widgets::linear_ticks(0, 33, 8) == std::vector<double>{0, 5, 10, 15, 20, 25, 30});
    CHECK(widgets::linear_ticks(0, 1, 5) == std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
    const std::vector<double> around_zero = widgets::linear_ticks(-1, 1, 4);
    REQUIRE(around_zero.size() == 5);
    CHECK(around_zero[2] == 0.0);
    CHECK(widgets::linear_ticks(5, 5, 4).empty());
    for (double tick : widgets::linear_ticks(0.123, 9.87, 6)) CHECK((tick >= 0.123 && tick <= 9.87));
}

TEST_CASE("Tick labels carry the decimals their step needs and no more", "[draw_helpers]") {
    CHECK(widgets::tick_label(40, 20) == "40");
    CHECK(widgets::tick_label(0.25, 0.05) == "0.25");
    CHECK(widgets::tick_label(0.6000000000000001, 0.2) == "0.6");
    CHECK(widgets::tick_label(1e-17, 0.1) == "0.0");
    CHECK(widgets::tick_label(-0.0, 1) == "0");
    CHECK(widgets::tick_label(2.5, 0.5) == "2.5");
}
