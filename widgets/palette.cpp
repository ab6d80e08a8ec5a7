#include "widgets/palette.h"

namespace widgets {
namespace {

constexpr ImU32 rgb(unsigned r, unsigned g, unsigned b) { return IM_COL32(r, g, b, 255); }

// Okabe-Ito-like hues: distinguishable for colour-blind viewers and on a washed-out projector. Every colour a panel may
// write text in reads at WCAG's 4.5:1 on the panel background, in both themes (tests/render/test_palette.cpp).
Palette dark_palette() {
    Palette p{};
    p.weights = rgb(86, 180, 233);
    p.grads = rgb(0, 158, 115);
    p.master = rgb(230, 159, 0);
    p.optimizer = rgb(204, 121, 167);
    p.optimizer_second = rgb(160, 90, 140);
    p.activations = rgb(240, 228, 66);
    p.kv_cache = rgb(130, 120, 200);  // apart from the weights' blue under deuteranopia (tests/render/test_palette.cpp)
    p.forward = rgb(86, 180, 233);
    p.backward = rgb(230, 159, 0);
    p.weight_grad = rgb(0, 158, 115);
    p.idle = rgb(70, 72, 78);
    p.memory_wall = rgb(86, 180, 233);
    p.time_wall = rgb(230, 159, 0);
    p.serving_wall = rgb(204, 121, 167);
    p.nvlink = rgb(140, 205, 40);  // light enough to stay apart from the InfiniBand orange under deuteranopia
    p.infiniband = rgb(213, 94, 0);
    p.hbm = rgb(86, 180, 233);
    p.compute = rgb(240, 240, 240);
    p.over_budget = rgb(240, 80, 70);
    p.within_budget = rgb(80, 200, 120);
    p.warning = rgb(240, 190, 60);
    p.text = rgb(235, 235, 235);
    p.text_dim = rgb(160, 162, 170);
    p.grid = IM_COL32(255, 255, 255, 28);
    p.axis = rgb(190, 190, 195);
    p.panel_background = rgb(24, 26, 31);
    p.ceiling = rgb(220, 220, 225);
    const ImU32 series[8] = {rgb(86, 180, 233), rgb(230, 159, 0), rgb(0, 158, 115), rgb(204, 121, 167),
                             rgb(240, 228, 66), rgb(213, 94, 0), rgb(150, 150, 230), rgb(200, 200, 200)};
    for (int i = 0; i < 8; ++i) p.series[i] = series[i];
    return p;
}

Palette light_palette() {
    Palette p = dark_palette();
    p.weights = rgb(0, 114, 178);
    p.grads = rgb(0, 130, 95);
    p.master = rgb(163, 98, 0);  // darker than the dark theme's orange: 4.5:1 on white, and apart from the yellow
    p.optimizer = rgb(180, 80, 140);
    p.optimizer_second = rgb(130, 60, 110);
    p.activations = rgb(190, 170, 0);
    p.forward = rgb(0, 114, 178);
    p.backward = p.master;
    p.weight_grad = rgb(0, 130, 95);
    p.idle = rgb(215, 215, 220);
    p.memory_wall = p.weights;
    p.time_wall = p.master;
    p.serving_wall = p.optimizer;
    p.nvlink = rgb(64, 128, 0);
    p.infiniband = rgb(194, 77, 0);
    p.hbm = p.weights;
    p.compute = rgb(30, 30, 30);
    p.over_budget = rgb(200, 30, 30);
    p.within_budget = rgb(26, 131, 61);
    p.warning = rgb(151, 103, 0);
    p.text = rgb(20, 20, 25);
    p.text_dim = rgb(90, 90, 100);
    p.grid = IM_COL32(0, 0, 0, 30);
    p.axis = rgb(60, 60, 65);
    p.panel_background = rgb(250, 250, 250);
    p.ceiling = rgb(40, 40, 45);
    const ImU32 series[8] = {rgb(0, 114, 178), rgb(163, 98, 0), rgb(0, 130, 95), rgb(180, 80, 140),
                             rgb(131, 114, 0), rgb(194, 77, 0), rgb(90, 90, 200), rgb(90, 90, 90)};
    for (int i = 0; i < 8; ++i) p.series[i] = series[i];
    return p;
}

Theme g_theme = Theme::dark;
Palette g_palette = dark_palette();

}  // namespace

void set_theme(Theme theme) {
    g_theme = theme;
    g_palette = theme == Theme::dark ? dark_palette() : light_palette();
    if (ImGui::GetCurrentContext()) {
        if (theme == Theme::dark) ImGui::StyleColorsDark();
        else ImGui::StyleColorsLight();
        ImGuiStyle& style = ImGui::GetStyle();
        style.Colors[ImGuiCol_WindowBg] = ImGui::ColorConvertU32ToFloat4(g_palette.panel_background);
        style.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
        if (theme == Theme::light) {
            // ImGui's light frames vanish on white: give checkboxes, sliders and combos a visible fill and border.
            style.Colors[ImGuiCol_FrameBg] = ImVec4(0.86f, 0.87f, 0.90f, 1.0f);
            style.Colors[ImGuiCol_Border] = ImVec4(0.55f, 0.56f, 0.60f, 0.60f);
            style.FrameBorderSize = 1.0f;
        }
    }
}

Theme current_theme() { return g_theme; }

const Palette& palette() { return g_palette; }

ImU32 memory_kind_color(core::MemoryKind kind, int index_within_kind) {
    const Palette& p = g_palette;
    switch (kind) {
        case core::MemoryKind::weights: return p.weights;
        case core::MemoryKind::grads: return index_within_kind == 0 ? p.grads : with_alpha(p.grads, 0.65f);
        case core::MemoryKind::master: return p.master;
        case core::MemoryKind::optimizer: return index_within_kind == 0 ? p.optimizer : p.optimizer_second;
        case core::MemoryKind::activations: return p.activations;
        case core::MemoryKind::kv_cache: return p.kv_cache;
        // What the step holds beside its state: each beside its label in every stack, so the hue need not tell them apart.
        case core::MemoryKind::weight_copies: return with_alpha(p.weights, 0.55f);
        case core::MemoryKind::gathered_weights: return with_alpha(p.weights, 0.35f);
        case core::MemoryKind::logits: return p.infiniband;
        case core::MemoryKind::backward_working_set: return with_alpha(p.activations, 0.55f);
        case core::MemoryKind::workspace: return p.text_dim;
        case core::MemoryKind::comm_buffers: return p.nvlink;
        case core::MemoryKind::fragmentation: return with_alpha(p.text_dim, 0.45f);
    }
    return p.text_dim;
}

ImU32 timeline_part_color(core::TimelinePart part) {
    const Palette& p = g_palette;
    const bool dark = g_theme == Theme::dark;
    switch (part) {
        case core::TimelinePart::weights: return p.weights;
        case core::TimelinePart::master: return p.master;
        case core::TimelinePart::optimizer: return p.optimizer;
        case core::TimelinePart::grads: return p.grads;
        case core::TimelinePart::activations: return p.activations;
        // A red apart from the master copy's orange under deuteranopia (the stack's vermillion is not, in the light theme).
        case core::TimelinePart::logits: return dark ? rgb(200, 60, 60) : rgb(150, 40, 40);
        case core::TimelinePart::temporaries: return p.kv_cache;
        case core::TimelinePart::slack: return dark ? rgb(85, 87, 94) : rgb(178, 178, 182);  // text_dim at 45 % over the background
        case core::TimelinePart::outside: return rgb(180, 230, 120);
    }
    return p.text_dim;
}

ImU32 with_alpha(ImU32 color, float alpha) {
    const ImU32 a = static_cast<ImU32>(alpha * 255.0f + 0.5f);
    return (color & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

}  // namespace widgets
