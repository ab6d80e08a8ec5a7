#include "widgets/clip_check.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cstring>

namespace widgets {
namespace {
bool g_recording = false;
std::vector<DrawnText> g_texts;
}  // namespace

void start_text_record() {
    g_texts.clear();
    g_recording = true;
}

std::vector<DrawnText> stop_text_record() {
    g_recording = false;
    return std::move(g_texts);
}

bool text_record_active() { return g_recording; }

void record_text(const ImDrawList* list, const ImFont* font, float font_size, const ImVec2& pos, const char* text_begin,
                 const char* text_end, float wrap_width, const ImVec4* fine_clip) {
    if (!g_recording || !text_begin) return;
    if (!text_end) text_end = text_begin + std::strlen(text_begin);
    if (text_begin == text_end) return;
    if (!font) font = list->_Data->Font;
    if (font_size == 0.0f) font_size = list->_Data->FontSize;
    if (!font) return;
    DrawnText drawn;
    drawn.text.assign(text_begin, text_end);
    const ImVec2 size = font->CalcTextSizeA(font_size, FLT_MAX, wrap_width, text_begin, text_end);
    drawn.min = pos;
    drawn.wrap_width = wrap_width;
    drawn.max = ImVec2(pos.x + size.x, pos.y + size.y);
    drawn.clip = list->_CmdHeader.ClipRect;
    if (fine_clip) {
        drawn.clip.x = std::max(drawn.clip.x, fine_clip->x);
        drawn.clip.y = std::max(drawn.clip.y, fine_clip->y);
        drawn.clip.z = std::min(drawn.clip.z, fine_clip->z);
        drawn.clip.w = std::min(drawn.clip.w, fine_clip->w);
    }
    if (const ImGuiWindow* window = ImGui::GetCurrentContext() ? ImGui::GetCurrentContext()->CurrentWindow : nullptr) {
        drawn.window = window->Name;
        for (const ImGuiWindow* scroller = window; scroller; scroller = scroller->ParentWindow) {
            // Scrolls only if the user can scroll it: content past the bottom of a NoScrollbar window is cut.
            if (scroller->ScrollMax.y > 0.0f && !(scroller->Flags & ImGuiWindowFlags_NoScrollbar)) drawn.scrolls_y = true;
            if (!(scroller->Flags & ImGuiWindowFlags_ChildWindow)) break;
        }
    }
    g_texts.push_back(std::move(drawn));
}

bool is_cut(const DrawnText& text) {
    constexpr float slack = 0.5f;
    const ImVec4& clip = text.clip;
    const bool seen_vertically = text.max.y > clip.y && text.min.y < clip.w;
    const bool seen_horizontally = text.max.x > clip.x && text.min.x < clip.z;
    if (!seen_vertically) return false;  // above or below the visible part: scrolled away or off the panel
    if (!seen_horizontally) return true;  // pushed wholly out sideways: a label lost
    if (text.min.x < clip.x - slack || text.max.x > clip.z + slack) return true;
    if (!text.scrolls_y && (text.min.y < clip.y - slack || text.max.y > clip.w + slack)) return true;
    return false;
}

std::vector<DrawnText> cut_texts(const std::vector<DrawnText>& texts) {
    std::vector<DrawnText> cut;
    std::copy_if(texts.begin(), texts.end(), std::back_inserter(cut), is_cut);
    return cut;
}

}  // namespace widgets
