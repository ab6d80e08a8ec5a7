#pragma once
// The fonts every panel shares (DejaVu Sans from fonts-dejavu-core), loaded by the app at the current UI scale.
#include <imgui.h>

namespace widgets {

struct Fonts {
    ImFont* regular = nullptr;
    ImFont* bold = nullptr;    // headings
    ImFont* large = nullptr;   // captions and big numbers (1.6x)
    ImFont* mono = nullptr;    // tables of figures
};

const Fonts& fonts();
// Rebuilds the atlas at base_pixels (the regular size); returns false if the font files are missing (ImGui's default is used).
bool load_fonts(float base_pixels);

}  // namespace widgets
