#include "widgets/fonts.h"
#include "widgets/text_wrap.h"

#include <cstdio>

namespace widgets {
namespace {

Fonts g_fonts;
constexpr const char* kFontDir = "/usr/share/fonts/truetype/dejavu/";

bool readable(const char* path) {
    std::FILE* file = std::fopen(path, "rb");
    if (!file) return false;
    std::fclose(file);
    return true;
}

ImFont* add(ImGuiIO& io, const char* file, float pixels) {
    char path[512];
    std::snprintf(path, sizeof path, "%s%s", kFontDir, file);
    if (!readable(path)) return nullptr;
    ImFontConfig config;
    config.OversampleH = 2;
    config.OversampleV = 2;
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2500, 0x25FF, 0};
    return io.Fonts->AddFontFromFileTTF(path, pixels, &config, ranges);
}

}  // namespace

const Fonts& fonts() { return g_fonts; }

bool load_fonts(float base_pixels) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    g_fonts.regular = add(io, "DejaVuSans.ttf", base_pixels);
    g_fonts.bold = add(io, "DejaVuSans-Bold.ttf", base_pixels);
    g_fonts.large = add(io, "DejaVuSans-Bold.ttf", base_pixels * 1.6f);
    g_fonts.mono = add(io, "DejaVuSansMono.ttf", base_pixels);
    const bool found = g_fonts.regular != nullptr;
    if (!found) {
        ImFontConfig config;
        config.SizePixels = base_pixels;
        g_fonts.regular = io.Fonts->AddFontDefault(&config);
    }
    if (!g_fonts.bold) g_fonts.bold = g_fonts.regular;
    if (!g_fonts.large) g_fonts.large = g_fonts.regular;
    if (!g_fonts.mono) g_fonts.mono = g_fonts.regular;
    io.FontDefault = g_fonts.regular;
    io.Fonts->Build();
    clear_wrapped_lines();  // the same font pointers may now measure differently
    return found;
}

}  // namespace widgets
