// The render tests link with -Wl,--wrap for ImDrawList::AddText (both overloads), so every text ImGui or a panel draws
// passes through widgets::record_text on its way to the draw list. The app itself is linked without it.
#include "widgets/clip_check.h"

#include <imgui.h>

extern "C" {

void __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList*, const ImFont*, float, const ImVec2&, ImU32,
                                                                        const char*, const char*, float, const ImVec4*);
void __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList*, const ImVec2&, ImU32, const char*, const char*);

void __wrap__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(ImDrawList* list, const ImFont* font, float font_size,
                                                                        const ImVec2& pos, ImU32 color, const char* begin,
                                                                        const char* end, float wrap_width, const ImVec4* clip) {
    if ((color & IM_COL32_A_MASK) != 0) widgets::record_text(list, font, font_size, pos, begin, end, wrap_width, clip);
    __real__ZN10ImDrawList7AddTextEPK6ImFontfRK6ImVec2jPKcS7_fPK6ImVec4(list, font, font_size, pos, color, begin, end, wrap_width, clip);
}

void __wrap__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(ImDrawList* list, const ImVec2& pos, ImU32 color, const char* begin, const char* end) {
    if ((color & IM_COL32_A_MASK) != 0) widgets::record_text(list, nullptr, 0.0f, pos, begin, end, 0.0f, nullptr);
    __real__ZN10ImDrawList7AddTextERK6ImVec2jPKcS4_(list, pos, color, begin, end);
}

}  // extern "C"
