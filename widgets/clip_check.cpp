#include "widgets/clip_check.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cstring>

namespace widgets {
namespace {
bool g_recording = false;
std::vector<DrawnText> g_texts;
std::vector<PlotLayout> g_plots;
std::vector<std::string> g_previews;  // this frame's shortened combo previews, not yet drawn
}  // namespace

void note_combo_preview(const std::string& shown) {
    if (g_recording) g_previews.push_back(shown);
}

void start_text_record() {
    g_texts.clear();
    g_plots.clear();
    g_previews.clear();
    g_recording = true;
}

std::vector<PlotLayout> recorded_plots() { return g_plots; }

void record_plot(PlotLayout layout) {
    if (g_recording) g_plots.push_back(std::move(layout));
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
    if (const auto preview = std::find(g_previews.begin(), g_previews.end(), drawn.text); preview != g_previews.end()) {
        drawn.combo_preview = true;
        g_previews.erase(preview);
    }
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
        // ImGui's implicit window titles itself in every NewFrame, and is hidden at the frame's end unless something was
        // drawn into it (the app draws nothing outside its windows): its title is not on screen.
        if (std::strcmp(window->Name, "Debug##Default") == 0) return;
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

std::vector<TextOverlap> overlapping_texts(const std::vector<DrawnText>& texts) {
    constexpr float slack = 1.0f;
    struct Seen {
        const DrawnText* text;
        ImVec4 box;  // min x, min y, max x, max y of what shows
    };
    std::vector<Seen> seen;
    for (const DrawnText& text : texts) {
        if (text.text.find_first_not_of(" \t\n") == std::string::npos) continue;
        const ImVec4 box(std::max(text.min.x, text.clip.x), std::max(text.min.y, text.clip.y), std::min(text.max.x, text.clip.z),
                         std::min(text.max.y, text.clip.w));
        if (box.z - box.x <= slack || box.w - box.y <= slack) continue;  // not seen
        seen.push_back({&text, box});
    }
    std::vector<TextOverlap> overlaps;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        for (std::size_t j = i + 1; j < seen.size(); ++j) {
            const ImVec4& a = seen[i].box;
            const ImVec4& b = seen[j].box;
            const float width = std::min(a.z, b.z) - std::max(a.x, b.x);
            const float height = std::min(a.w, b.w) - std::max(a.y, b.y);
            // A line's extent holds the font's gap above and below its glyphs: lines that share a quarter of the smaller
            // one's height are drawn over each other, a sliver less is two lines set close.
            const float shorter = std::min(a.w - a.y, b.w - b.y);
            if (width > slack && height > std::max(slack, 0.25f * shorter)) overlaps.push_back({*seen[i].text, *seen[j].text});
        }
    }
    return overlaps;
}

}  // namespace widgets
