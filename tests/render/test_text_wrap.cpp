// Wrapped text breaks at spaces only (widgets/text_wrap.h): a figure such as "10.0 QPS" or "1,493 layouts" is never split
// where Dear ImGui 1.86's own wrap would split it, after the '.' or the ','. Measured here in a fixed-width "font"
// (one unit a character), so each case reads as columns.
#include "tests/render/headless_imgui.h"
#include "widgets/fonts.h"
#include "widgets/text_wrap.h"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace {

// One unit per UTF-8 character: "1.12 TB" is 7 wide.
float characters(std::string_view text) {
    float count = 0;
    for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return count;
}

std::vector<std::string> lines_of(std::string_view text, float width) {
    std::vector<std::string> lines;
    for (const widgets::LineSpan& line : widgets::break_lines(text, width, characters))
        lines.emplace_back(text.substr(line.begin, line.end - line.begin));
    return lines;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("Wrapping keeps a number whole: \"10.0 QPS\" breaks at its space, never after \"10.\"", "[text_wrap]") {
    CHECK(lines_of("serving 10.0 QPS", 10) == Lines{"serving", "10.0 QPS"});  // ImGui 1.86 gives "serving 10." / "0 QPS"
    CHECK(lines_of("10.0 QPS", 6) == Lines{"10.0", "QPS"});  // the figure and its unit are wider than the line: they part
    CHECK(lines_of("1,493 layouts", 8) == Lines{"1,493", "layouts"});
    CHECK(lines_of("of 1,493 layouts", 7) == Lines{"of", "1,493", "layouts"});
    CHECK(lines_of("at $2.10 / GPU-h", 6) == Lines{"at", "$2.10", "/", "GPU-h"});
}

TEST_CASE("Wrapping keeps a figure with its unit: \"80.0 GB\", \"54.4 s\", \"10.0 QPS\" start the next line together", "[text_wrap]") {
    CHECK(lines_of("serving 10.0 QPS x 256 tokens", 12) == Lines{"serving", "10.0 QPS x", "256 tokens"});
    CHECK(lines_of("H800 (80.0 GB), H200 (141 GB)", 11) == Lines{"H800", "(80.0 GB),", "H200", "(141 GB)"});
    CHECK(lines_of("state 1.12 TB, a step 54.4 s, $2.10 per GPU-hour", 13) ==
          Lines{"state", "1.12 TB, a", "step 54.4 s,", "$2.10 per", "GPU-hour"});
    CHECK(lines_of("an MFU of 27.3 % at 989 TFLOP/s", 10) == Lines{"an MFU of", "27.3 % at", "989", "TFLOP/s"});
    CHECK(lines_of("TP 8 must divide", 6) == Lines{"TP 8", "must", "divide"});  // "must" is no unit: the 8 stays with TP
}

TEST_CASE("Wrapping: at every width, each break is at a space or inside a word wider than the line", "[text_wrap]") {
    const std::string text = "Llama 3 405B, on 16,384 x H100 SXM (TP 8 PP 16), 15.6 T tokens by a 90-day deadline; serving 10.0 QPS x 256 "
                             "tokens, $2.10 / GPU-h: 1.12 TB; 54.4 s; \"quoted\" words! and questions?";
    for (float width = 1; width <= 60; width += 1) {
        INFO("width " << width);
        const std::vector<widgets::LineSpan> lines = widgets::break_lines(text, width, characters);
        REQUIRE_FALSE(lines.empty());
        std::string rebuilt;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string line = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
            CHECK(characters(line) <= width);
            CHECK_FALSE(line.empty());
            if (i > 0) {
                const std::size_t gap = lines[i].begin - lines[i - 1].end;
                // Either the spaces at a break were dropped, or a word longer than the line was cut mid-word.
                const bool at_space = gap > 0 && text.substr(lines[i - 1].end, gap).find_first_not_of(' ') == std::string::npos;
                const std::size_t word_begin = text.rfind(' ', lines[i].begin) == std::string::npos ? 0 : text.rfind(' ', lines[i].begin) + 1;
                const std::size_t word_end = std::min(text.find(' ', lines[i].begin), text.size());
                CHECK((at_space || (gap == 0 && characters(text.substr(word_begin, word_end - word_begin)) > width)));
                rebuilt += gap > 0 ? " " : "";
            }
            rebuilt += line;
        }
        CHECK(rebuilt == text);  // nothing lost, nothing doubled
        // A figure (with its unit and the punctuation after it) no wider than the line is on one line, whole.
        for (const std::string figure : {"10.0 QPS", "256 tokens,", "1.12 TB;", "54.4 s;", "15.6 T", "$2.10", "16,384"}) {
            if (characters(figure) > width) continue;
            bool whole = false;
            for (const widgets::LineSpan& line : lines)
                whole = whole || text.substr(line.begin, line.end - line.begin).find(figure) != std::string::npos;
            INFO("figure " << figure);
            CHECK(whole);
        }
    }
}

TEST_CASE("Wrapping keeps the text's own newlines, blank lines included; a final newline opens no line", "[text_wrap]") {
    CHECK(lines_of("first line\nsecond", 40) == Lines{"first line", "second"});
    CHECK(lines_of("one\n\nthree", 40) == Lines{"one", "", "three"});
    CHECK(lines_of("ends here\n", 40) == Lines{"ends here"});
    CHECK(lines_of("\n", 40) == Lines{""});
    CHECK(lines_of("a long first line\nshort", 8) == Lines{"a long", "first", "line", "short"});
}

TEST_CASE("Wrapping cuts a word wider than the line where it must, between UTF-8 characters, and always moves on", "[text_wrap]") {
    CHECK(lines_of("abcdefghij", 4) == Lines{"abcd", "efgh", "ij"});
    CHECK(lines_of("go /home/someone/scenarios/x.json now", 10) == Lines{"go", "/home/some", "one/scenar", "ios/x.json", "now"});
    CHECK(lines_of("\xC3\x97\xC3\x97\xC3\x97", 2) == Lines{"\xC3\x97\xC3\x97", "\xC3\x97"});  // "xxx" in U+00D7, two a line
    CHECK(lines_of("abc", 0) == Lines{"a", "b", "c"});  // narrower than one character: one a line, never none
    CHECK(lines_of("abc", -5) == Lines{"a", "b", "c"});
}

TEST_CASE("Wrapping: empty text has no lines; spaces at a break go, a paragraph's indent stays", "[text_wrap]") {
    CHECK(widgets::break_lines("", 10, characters).empty());
    CHECK(lines_of("   ", 10) == Lines{""});
    CHECK(lines_of("word   next", 6) == Lines{"word", "next"});
    CHECK(lines_of("  also: TP 8 must divide 64 heads", 12) == Lines{"  also: TP 8", "must divide", "64 heads"});
    CHECK(lines_of("  indented", 8) == Lines{"indented"});  // no room for the indent and the word: the indent goes, not the word
    CHECK(lines_of("fits whole ", 40) == Lines{"fits whole"});
}

TEST_CASE("Wrapped text in the app's font: the block is one font size a line, as tall as ImGui's own wrapped text", "[text_wrap]") {
    const test_support::HeadlessImGui imgui{};
    ImGui::NewFrame();
    const float em = ImGui::GetFontSize();
    // No '.' or ',' to tempt ImGui: both break at the same spaces, so the heights agree.
    const std::string plain = "serving ten QPS x 256 tokens with a batch of 64 and a context of 4096 tokens";
    const float wrap_width = em * 10.0f;
    CHECK(widgets::wrapped_text_size(plain, wrap_width).y == ImGui::CalcTextSize(plain.c_str(), nullptr, false, wrap_width).y);
    CHECK(widgets::wrapped_text_size(plain, wrap_width).x <= wrap_width);
    CHECK(widgets::wrapped_text_size("", wrap_width).y == em);  // an empty text is one line high, as ImGui::Text("") is
    // The figure itself: wherever the line ends, "10.0" is never cut after its '.'.
    const std::string figure = "serving 10.0 QPS";
    const float just_past_point = ImGui::CalcTextSize("serving 10.").x + 1.0f;
    const std::vector<std::string> lines = widgets::wrap_at_spaces(figure, just_past_point);
    CHECK(lines == std::vector<std::string>{"serving", "10.0 QPS"});
    ImGui::EndFrame();
}
