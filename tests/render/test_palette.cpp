// The palette against two published rules: WCAG 2.1's contrast ratio for text (1.4.3, 4.5:1 for normal text), and
// Machado, Oliveira & Fernandes 2009's simulation of deuteranopia (severity 1.0), under which categories drawn side by
// side must stay apart (CIE 1976 colour difference, Delta E*ab).
#include "widgets/palette.h"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using Rgb = std::array<double, 3>;  // linear RGB, 0..1

Rgb linear_rgb(ImU32 color) {
    Rgb out{};
    for (int i = 0; i < 3; ++i) {
        const double c = ((color >> (8 * i)) & 0xFF) / 255.0;  // IM_COL32 packs R in the low byte
        out[i] = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    }
    return out;
}

// WCAG 2.1 relative luminance and contrast ratio.
double luminance(const Rgb& c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }
double contrast_ratio(ImU32 a, ImU32 b) {
    const double la = luminance(linear_rgb(a));
    const double lb = luminance(linear_rgb(b));
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Machado et al. 2009, Table 1: deuteranopia at severity 1.0, applied to linear RGB.
Rgb deuteranopia(const Rgb& c) {
    static const double m[3][3] = {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};
    Rgb out{};
    for (int i = 0; i < 3; ++i) out[i] = std::clamp(m[i][0] * c[0] + m[i][1] * c[1] + m[i][2] * c[2], 0.0, 1.0);
    return out;
}

// sRGB (D65) to CIELAB.
Rgb lab(const Rgb& c) {
    const double x = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047;
    const double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    const double z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double delta_e(const Rgb& a, const Rgb& b) {
    const Rgb la = lab(a);
    const Rgb lb = lab(b);
    return std::sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) + (la[2] - lb[2]) * (la[2] - lb[2]));
}

// A difference a viewer notices at a glance between two filled areas; 2.3 is the just-noticeable one (Sharma 2003).
constexpr double kApartDeltaE = 10.0;

using Named = std::vector<std::pair<std::string, ImU32>>;

void require_apart_under_deuteranopia(const Named& colors) {
    for (std::size_t i = 0; i < colors.size(); ++i) {
        for (std::size_t j = i + 1; j < colors.size(); ++j) {
            const double seen = delta_e(deuteranopia(linear_rgb(colors[i].second)), deuteranopia(linear_rgb(colors[j].second)));
            INFO(colors[i].first << " against " << colors[j].first << ": Delta E " << seen << " under deuteranopia");
            CHECK(seen >= kApartDeltaE);
        }
    }
}

}  // namespace

TEST_CASE("WCAG 2.1 sec 1.4.3: every colour a panel writes text in reads at 4.5:1 on the panel background, in both themes",
          "[palette]") {
    for (widgets::Theme theme : {widgets::Theme::dark, widgets::Theme::light}) {
        widgets::set_theme(theme);
        const widgets::Palette& p = widgets::palette();
        Named text_colors = {{"text", p.text},
                             {"text_dim", p.text_dim},
                             {"warning", p.warning},
                             {"over_budget", p.over_budget},
                             {"within_budget", p.within_budget},
                             {"nvlink", p.nvlink},
                             {"infiniband", p.infiniband},
                             {"memory_wall", p.memory_wall},
                             {"time_wall", p.time_wall},
                             {"serving_wall", p.serving_wall},
                             {"hbm", p.hbm},
                             {"compute", p.compute},
                             {"ceiling", p.ceiling},
                             {"axis", p.axis}};
        for (int i = 0; i < 8; ++i) text_colors.push_back({"series[" + std::to_string(i) + "]", p.series[i]});
        for (const auto& [name, color] : text_colors) {
            const double ratio = contrast_ratio(color, p.panel_background);
            INFO((theme == widgets::Theme::dark ? "dark" : "light") << " theme, " << name << ": " << ratio << ":1");
            CHECK(ratio >= 4.5);
        }
    }
    widgets::set_theme(widgets::Theme::dark);
}

TEST_CASE("Machado 2009 deuteranopia: the memory categories, the memory timeline's parts, the pipeline's ops and the verdicts stay apart, in both themes",
          "[palette]") {
    // The configurator's grads and optimizer blocks both turned grey in the first version; "does not fit" lost its red.
    for (widgets::Theme theme : {widgets::Theme::dark, widgets::Theme::light}) {
        widgets::set_theme(theme);
        const widgets::Palette& p = widgets::palette();
        INFO((theme == widgets::Theme::dark ? "dark" : "light") << " theme");
        require_apart_under_deuteranopia({{"weights", p.weights},
                                          {"grads", p.grads},
                                          {"master", p.master},
                                          {"optimizer", p.optimizer},
                                          {"optimizer_second", p.optimizer_second},
                                          {"activations", p.activations},
                                          {"kv_cache", p.kv_cache}});
        require_apart_under_deuteranopia({{"forward", p.forward}, {"backward", p.backward}, {"weight_grad", p.weight_grad}, {"idle", p.idle}});
        require_apart_under_deuteranopia({{"over_budget", p.over_budget}, {"within_budget", p.within_budget}});
        require_apart_under_deuteranopia({{"memory_wall", p.memory_wall}, {"time_wall", p.time_wall}, {"serving_wall", p.serving_wall}});
        // The network roofline's three roofs: HBM, the scale-up link, the scale-out link.
        require_apart_under_deuteranopia({{"hbm", p.hbm}, {"nvlink", p.nvlink}, {"infiniband", p.infiniband}});
        // The ring panel: its three algorithms (naive, ring, recursive doubling: panel_ring.cpp's algorithm_styles) and the
        // progress arc's two phases (reduce-scatter in the grads' colour, all-gather in the weights').
        require_apart_under_deuteranopia({{"naive series[5]", p.series[5]}, {"ring series[7]", p.series[7]},
                                          {"recursive doubling series[3]", p.series[3]}, {"reduce-scatter", p.grads},
                                          {"all-gather", p.weights}});
        // The memory timeline's stacked parts (panel_memory_timeline.cpp), side by side in one stack.
        Named parts;
        for (int part = 0; part < core::kTimelineParts; ++part) {
            const auto which = static_cast<core::TimelinePart>(part);
            parts.push_back({core::timeline_part_label(which), widgets::timeline_part_color(which)});
        }
        require_apart_under_deuteranopia(parts);
    }
    widgets::set_theme(widgets::Theme::dark);
}
