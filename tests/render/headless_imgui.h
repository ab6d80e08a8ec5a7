#pragma once
// An ImGui context with the app's shared fonts built and no window: what the render tests that measure or draw text
// need. It is destroyed when the object goes out of scope, so a failed REQUIRE leaves no context behind.
#include "widgets/fonts.h"

#include <imgui.h>

namespace test_support {

class HeadlessImGui {
public:
    explicit HeadlessImGui(ImVec2 display_size = ImVec2(800, 600)) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;  // a test writes no imgui.ini
        io.DisplaySize = display_size;
        widgets::load_fonts(16.0f);  // panels and helpers measure text with the shared fonts
        unsigned char* pixels = nullptr;
        int width = 0, height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);  // NewFrame needs the atlas built
    }
    ~HeadlessImGui() { ImGui::DestroyContext(); }
    HeadlessImGui(const HeadlessImGui&) = delete;
    HeadlessImGui& operator=(const HeadlessImGui&) = delete;
};

}  // namespace test_support
