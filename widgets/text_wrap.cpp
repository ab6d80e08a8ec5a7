#include "widgets/text_wrap.h"

#include "core/model/format.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cstdarg>
#include <cstdio>
#include <unordered_map>

namespace widgets {
namespace {

bool is_space(char c) { return c == ' '; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Whether a word is a unit a figure carries ("GB),": punctuation after it aside): what core/model/format.h prints after a
// number, and the words the panels write after their own counts and rates.
bool is_unit(std::string_view word) {
    while (!word.empty() && std::string_view("),.;:").find(word.back()) != std::string_view::npos) word.remove_suffix(1);
    if (core::is_formatted_unit(word)) return true;
    static constexpr std::string_view kPanelUnits[] = {"\xC2\xB5s", "day", "year", "K", "QPS", "tokens", "tokens/s", "FLOPs"};
    for (std::string_view unit : kPanelUnits)
        if (word == unit) return true;
    return false;
}

// The byte after the UTF-8 character at `at`, not past `limit`.
std::size_t next_character(std::string_view text, std::size_t at, std::size_t limit) {
    ++at;
    while (at < limit && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    return at;
}

// Appends the lines of one paragraph, bytes [begin, end) holding no '\n'.
void break_paragraph(std::string_view text, std::size_t begin, std::size_t end, float max_width,
                     const std::function<float(std::string_view)>& width_of, std::vector<LineSpan>& lines) {
    const auto width = [&](std::size_t from, std::size_t to) { return width_of(text.substr(from, to - from)); };
    const auto first_non_space = [&](std::size_t at) {
        while (at < end && is_space(text[at])) ++at;
        return at;
    };
    const auto plain_word_end = [&](std::size_t at) {
        while (at < end && !is_space(text[at])) ++at;
        return at;
    };
    // A figure keeps its unit ("80.0 GB"): a word ending in a digit runs on over the space when the next word is a unit.
    const auto word_end = [&](std::size_t at) {
        const std::size_t after = plain_word_end(at);
        const std::size_t next = first_non_space(after);
        if (!is_digit(text[after - 1]) || next == end) return after;
        const std::size_t next_end = plain_word_end(next);
        return is_unit(text.substr(next, next_end - next)) ? next_end : after;
    };
    std::size_t line_begin = begin;
    while (line_begin < end) {
        // The most whole words that fit, measured from the line's start (its leading spaces included). Each word is
        // measured once, with the spaces before it, and added: ImGui's width of a text is the sum of its glyphs' advances.
        std::size_t line_end = line_begin;
        float line_width = 0.0f;
        for (std::size_t word = first_non_space(line_begin); word < end; word = first_non_space(line_end)) {
            const std::size_t after = word_end(word);
            const float wider = line_width + width(line_end, after);
            if (wider > max_width) break;
            line_end = after;
            line_width = wider;
        }
        if (line_end == line_begin) {
            const std::size_t word = first_non_space(line_begin);
            if (word == end) {  // a paragraph of spaces only: one blank line
                lines.push_back({begin, begin});
                return;
            }
            if (word > line_begin) {  // an indent with no room for its first word goes before the word is cut
                line_begin = word;
                continue;
            }
            // A figure and its unit wider than the line: they part at a space between them, as far as fits.
            const std::size_t after = word_end(word);
            for (std::size_t part = word; part < after; part = first_non_space(line_end)) {
                const std::size_t part_end = plain_word_end(part);
                if (width(line_begin, part_end) > max_width) break;
                line_end = part_end;
            }
        }
        if (line_end == line_begin) {
            // A word alone wider than the line: as many whole characters as fit, one at least.
            const std::size_t after = plain_word_end(line_begin);
            line_end = next_character(text, line_begin, after);
            while (line_end < after) {
                const std::size_t longer = next_character(text, line_end, after);
                if (width(line_begin, longer) > max_width) break;
                line_end = longer;
            }
        }
        lines.push_back({line_begin, line_end});
        line_begin = first_non_space(line_end);  // a break swallows its spaces
    }
}

float width_in(const ImFont* font, float font_size, std::string_view text) {
    return font->CalcTextSizeA(font_size, FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
}

// A text's lines in a font at a width, and the widest line's width: what every frame asks again of the same captions.
struct WrappedLines {
    std::vector<LineSpan> lines;
    float widest = 0.0f;
};

struct WrapKey {
    const ImFont* font;
    float font_size, wrap_width;
    std::string_view text;
};
struct StoredWrapKey {
    const ImFont* font;
    float font_size, wrap_width;
    std::string text;
};
struct WrapKeyHash {
    using is_transparent = void;
    std::size_t operator()(const WrapKey& key) const {
        std::size_t hash = std::hash<std::string_view>()(key.text);
        hash ^= std::hash<const void*>()(key.font) + 0x9e3779b9 + (hash << 6) + (hash >> 2);
        hash ^= std::hash<float>()(key.font_size) + 0x9e3779b9 + (hash << 6) + (hash >> 2);
        return hash ^ (std::hash<float>()(key.wrap_width) + 0x9e3779b9 + (hash << 6) + (hash >> 2));
    }
    std::size_t operator()(const StoredWrapKey& key) const { return (*this)(WrapKey{key.font, key.font_size, key.wrap_width, key.text}); }
};
struct WrapKeyEqual {
    using is_transparent = void;
    static WrapKey view(const WrapKey& key) { return key; }
    static WrapKey view(const StoredWrapKey& key) { return {key.font, key.font_size, key.wrap_width, key.text}; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
        const WrapKey x = view(a), y = view(b);
        return x.font == y.font && x.font_size == y.font_size && x.wrap_width == y.wrap_width && x.text == y.text;
    }
};

// Lines already broken, by font, size, width and text; emptied when the fonts are rebuilt or it grows past a bound
// (only the UI thread draws text).
std::unordered_map<StoredWrapKey, WrappedLines, WrapKeyHash, WrapKeyEqual>& wrap_cache() {
    static std::unordered_map<StoredWrapKey, WrappedLines, WrapKeyHash, WrapKeyEqual> cache;
    return cache;
}
constexpr std::size_t kWrapCacheEntries = 4096;

const WrappedLines& lines_in(const ImFont* font, float font_size, std::string_view text, float wrap_width) {
    auto& cache = wrap_cache();
    const WrapKey key{font, font_size, wrap_width, text};
    if (auto found = cache.find(key); found != cache.end()) return found->second;
    if (cache.size() >= kWrapCacheEntries) cache.clear();
    WrappedLines wrapped;
    wrapped.lines = break_lines(text, wrap_width, [&](std::string_view part) { return width_in(font, font_size, part); });
    for (const LineSpan& line : wrapped.lines)
        wrapped.widest = std::max(wrapped.widest, width_in(font, font_size, text.substr(line.begin, line.end - line.begin)));
    return cache.emplace(StoredWrapKey{font, font_size, wrap_width, std::string(text)}, std::move(wrapped)).first->second;
}

// The block's size from its lines: as wide as the widest, one font_size per line, one line when there is none.
ImVec2 block_size(float font_size, const WrappedLines& wrapped) {
    return ImVec2(wrapped.widest, font_size * static_cast<float>(std::max<std::size_t>(wrapped.lines.size(), 1)));
}

// One AddText per non-empty line, one font_size below the last: ImGui's own line advance in AddText and CalcTextSizeA.
void draw_lines(ImDrawList* draw, const ImFont* font, float font_size, const ImVec2& pos, ImU32 color, std::string_view text,
                const std::vector<LineSpan>& lines, const ImVec4* fine_clip) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].end == lines[i].begin) continue;
        draw->AddText(font, font_size, ImVec2(pos.x, pos.y + font_size * static_cast<float>(i)), color, text.data() + lines[i].begin,
                      text.data() + lines[i].end, 0.0f, fine_clip);
    }
}

}  // namespace

void clear_wrapped_lines() { wrap_cache().clear(); }

std::vector<LineSpan> break_lines(std::string_view text, float max_width, const std::function<float(std::string_view)>& width_of) {
    std::vector<LineSpan> lines;
    std::size_t paragraph = 0;
    while (paragraph < text.size()) {
        const std::size_t newline = text.find('\n', paragraph);
        const std::size_t paragraph_end = newline == std::string_view::npos ? text.size() : newline;
        if (paragraph == paragraph_end) lines.push_back({paragraph, paragraph});  // "\n\n": an empty line kept
        else break_paragraph(text, paragraph, paragraph_end, max_width, width_of, lines);
        paragraph = paragraph_end + 1;  // past the '\n': a final one opens no line
    }
    return lines;
}

std::vector<std::string> wrap_at_spaces(const std::string& text, float max_width) {
    std::vector<std::string> lines;
    for (const LineSpan& line : lines_in(ImGui::GetFont(), ImGui::GetFontSize(), text, max_width).lines)
        lines.push_back(text.substr(line.begin, line.end - line.begin));
    if (lines.empty()) lines.emplace_back();
    return lines;
}

ImVec2 wrapped_text_size(std::string_view text, float wrap_width, const ImFont* font, float font_size) {
    return block_size(font_size, lines_in(font, font_size, text, wrap_width));
}

ImVec2 wrapped_text_size(std::string_view text, float wrap_width) {
    return wrapped_text_size(text, wrap_width, ImGui::GetFont(), ImGui::GetFontSize());
}

ImVec2 add_wrapped_text(ImDrawList* draw, const ImFont* font, float font_size, const ImVec2& pos, ImU32 color, std::string_view text,
                        float wrap_width, const ImVec4* fine_clip) {
    const WrappedLines& wrapped = lines_in(font, font_size, text, wrap_width);
    draw_lines(draw, font, font_size, pos, color, text, wrapped.lines, fine_clip);
    return block_size(font_size, wrapped);
}

void wrapped_text(std::string_view text) {
    ImGuiWindow* window = ImGui::GetCurrentWindow();
    if (window->SkipItems) return;
    // As ImGui::TextEx does for TextWrapped, so the block takes the room (and the item rectangle) it took before.
    const ImVec2 text_pos(window->DC.CursorPos.x, window->DC.CursorPos.y + window->DC.CurrLineTextBaseOffset);
    const float wrap_pos_x = window->DC.TextWrapPos >= 0.0f ? window->DC.TextWrapPos : 0.0f;  // TextWrapped's default: the edge
    const float wrap_width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos_x);
    const ImFont* font = ImGui::GetFont();
    const float font_size = ImGui::GetFontSize();
    const WrappedLines& wrapped = lines_in(font, font_size, text, wrap_width);
    ImVec2 size = block_size(font_size, wrapped);
    size.x = IM_FLOOR(size.x + 0.95f);  // ImGui::CalcTextSize's rounding
    const ImRect box(text_pos, ImVec2(text_pos.x + size.x, text_pos.y + size.y));
    ImGui::ItemSize(size, 0.0f);
    if (!ImGui::ItemAdd(box, 0)) return;
    draw_lines(window->DrawList, font, font_size, text_pos, ImGui::GetColorU32(ImGuiCol_Text), text, wrapped.lines, nullptr);
}

void wrapped_textf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list measure;
    va_copy(measure, args);
    const int length = std::vsnprintf(nullptr, 0, format, measure);
    va_end(measure);
    std::string text(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
    if (length > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
    va_end(args);
    wrapped_text(text);
}

}  // namespace widgets
