#include "widgets/figure.h"

#include "widgets/draw_helpers.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <imgui.h>

namespace widgets {
namespace {
bool g_explain_mode = true;
bool g_figure_mode = false;
}

void set_explain_mode(bool on) { g_explain_mode = on; }
bool explain_mode() { return g_explain_mode; }

void set_figure_mode(bool on) { g_figure_mode = on; }
bool figure_mode() { return g_figure_mode; }

void explain_last_item(const std::string& formula, const char* source) {
    if (ImGui::IsItemHovered()) explain_tooltip(formula, source);
}

void explain_tooltip(const std::string& formula, const char* source) {
    if (!g_explain_mode || formula.empty()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    wrapped_text(formula);
    if (source && *source) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
        wrapped_textf("Source: %s", source);
        ImGui::PopStyleColor();
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

namespace {

// The value after its label when it fits on the line, else under it; wrapped at the region's edge, never cut.
void value_after(const std::string& value) {
    same_line_if_fits(ImGui::CalcTextSize(value.c_str()).x, ImGui::GetStyle().ItemSpacing.x);
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text(value);
    ImGui::PopTextWrapPos();
}

}  // namespace

void figure(const char* label, const std::string& value, const std::string& formula, const char* source) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_text(label);  // wrapped where the panel wraps its figures, never cut
    ImGui::PopStyleColor();
    value_after(value);
    explain_last_item(formula, source);
}

void run_figure(bool fits, const char* label, const std::string& value, const std::string& formula, const char* source) {
    if (fits) return figure(label, value, formula, source);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().text_dim));
    wrapped_textf("%s, if it fit", label);
    value_after(value);
    ImGui::PopStyleColor();
    explain_last_item("What it would be if the layout fit in HBM (it does not)" + (formula.empty() ? "." : ": " + formula), source);
}

void figure(const core::FigureText& text) {
    figure(text.label.c_str(), text.value, text.formula, text.source.empty() ? nullptr : text.source.c_str());
}

void run_figure(bool fits, const core::FigureText& text) {
    run_figure(fits, text.label.c_str(), text.value, text.formula, text.source.empty() ? nullptr : text.source.c_str());
}

void section_heading(const char* text) {
    ImGui::PushFont(fonts().bold);
    wrapped_text(text);  // a narrow column breaks a long heading at its spaces
    ImGui::PopFont();
    ImGui::Separator();
}

}  // namespace widgets
