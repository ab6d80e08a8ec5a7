#include "app/ui.h"

#include "app/files.h"
#include "app/lesson.h"
#include "app/scenario_io.h"
#include "core/model/format.h"
#include "widgets/comparison.h"
#include "widgets/draw_helpers.h"
#include "widgets/figure.h"
#include "widgets/fonts.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>  // GetActiveID (the control a drag holds), the keyboard navigation the arrow keys would move
#include <imgui_stdlib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

namespace app {
namespace {

constexpr ImGuiWindowFlags kFixedWindow = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                          ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

constexpr const char* kOpenDialog = "Open";
constexpr const char* kSaveDialog = "Save scenario as";
constexpr const char* kUnsavedDialog = "Unsaved changes";
constexpr const char* kErrorDialog = "File error";

constexpr float kSidebarEm = 23.0f;          // the sidebar's width in a wide window
constexpr float kSidebarMinEm = 14.0f;       // and in a narrow one: its controls then take their labels above them
constexpr float kSidebarShare = 0.3f;        // between the two, this share of the window: the panels keep the rest
constexpr float kFoldSidebarBelowEm = 68.0f;  // narrower windows fold it: the panels need about 45 em

struct Shortcut {
    const char* keys;
    const char* action;
};
constexpr Shortcut kShortcuts[] = {
    {"Space", "play / pause the current panel's animation"},
    {"Left / Right", "step the animation (in presentation: previous / next scene)"},
    {"Ctrl+O", "open a scenario, a lesson or a Hugging Face config.json"},
    {"Ctrl+S", "save the scenario (Ctrl+Shift+S: save as)"},
    {"Ctrl+Z", "undo the last scenario edit (a drag is one step; opening a file starts a new history)"},
    {"Ctrl+Shift+Z / Ctrl+Y", "redo what was undone"},
    {"Ctrl+E", "export the current panel to a PNG in the working directory"},
    {"Ctrl+P", "pin the scenario as the baseline every panel draws your edits against, or unpin it (not an edit: undo is unaffected)"},
    {"Ctrl+B", "fold or unfold the scenario sidebar"},
    {"Ctrl+= / Ctrl+- / Ctrl+0", "zoom the whole UI in / out / back to 100 %"},
    {"F5", "start or leave presentation mode (the default lesson)"},
    {"F11", "full screen"},
    {"C", "in presentation: show or hide the panel's controls (hidden, the figure has the room)"},
    {"Esc", "leave presentation mode (your scenario comes back)"},
    {"Ctrl+Q", "quit"},
};

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

void draw_panel_body(AppState& state, int index, bool exporting, UiRequests* requests = nullptr) {
    widgets::PanelRequests panel_requests;
    widgets::PanelContext context{state.scenario, state.report, state.text, state.scenario_revision, state.playbacks[index], state.assets, state.feedback, exporting,
                                  &state.kernel_selection, requests ? &panel_requests : nullptr};
    const std::optional<widgets::BaselineView> baseline = baseline_view(state);
    if (baseline) {
        widgets::draw_baseline_banner(*baseline);
        context.baseline = &*baseline;
    }
    state.panels[index].draw(context);
    if (requests && panel_requests.save_trace) requests->save_trace = true;
}

void error_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, widgets::color4(widgets::palette().over_budget));
    widgets::wrapped_text(text);
    ImGui::PopStyleColor();
}

// The app's own use of the arrow keys (a step, a scene), and leaving presentation, leave no keyboard-navigation frame
// behind: ImGui would also move its focus with those keys, then frame the focused item and show its tooltip as if the
// mouse were on it (a frame and the stack panel's title over Play after Esc).
void drop_keyboard_navigation() {
    ImGui::NavMoveRequestCancel();
    ImGuiContext& context = *ImGui::GetCurrentContext();
    context.NavDisableHighlight = true;
    context.NavDisableMouseHover = false;
}

// ---- actions: every way in (menu, keys, dialogs, drops) goes through these ----

void leave_presentation(AppState& state, UiSession& session, UiRequests& requests) {
    if (!session.presentation.active) return;
    end_presentation(state, session.presentation);
    requests.presentation_changed = true;
    drop_keyboard_navigation();
}

void write_to(AppState& state, const std::string& path) {
    const std::string error = save_scenario(state, path);
    if (error.empty()) state.status = "Saved " + path;
    else state.file_error = error;
}

void ask_save_as(AppState& state, UiSession& session, const std::string& reason) {
    session.save_reason = reason;
    session.path_input = state.scenario_path.empty() ? "scenario.json" : state.scenario_path;
    if (state.read_only || !state.imported_from.empty()) {
        const std::string base = state.read_only ? file_name(state.scenario_path) : "scenario.json";
        session.path_input = (std::filesystem::current_path() / base).string();
    }
    session.save_dialog_request = true;
}

void request_save(AppState& state, UiSession& session, bool save_as) {
    if (session.presentation.active) {
        state.status = "Presentation shows the lesson's scenarios: leave it (Esc) to save your own";
        return;
    }
    if (save_as) return ask_save_as(state, session, {});
    const SaveCheck check = check_save(state);
    if (check.verdict == SaveVerdict::write) write_to(state, state.scenario_path);
    else ask_save_as(state, session, check.reason);
}

bool is_lesson_file(const std::string& path) {
    try {
        const nlohmann::json json = nlohmann::json::parse(read_text_file(path, "file"));
        return json.is_object() && json.contains("scenes");
    } catch (const std::exception&) {
        return false;
    }
}

std::vector<std::string> panel_name_list(const AppState& state) {
    std::vector<std::string> names;
    for (const widgets::PanelDef& panel : state.panels) names.push_back(panel.name);
    return names;
}

// Opens a scenario (or imports a config), or plays a lesson; "" or the error, with the app unchanged on error.
std::string open_path(AppState& state, UiSession& session, UiRequests& requests, const std::string& path) {
    if (is_lesson_file(path)) {
        PresentationState& presentation = session.presentation;
        Lesson lesson;
        try {
            lesson = load_lesson_file(path, panel_name_list(state));
        } catch (const std::exception& error) {
            return error.what();
        }
        if (presentation.active) end_presentation(state, presentation);
        presentation.lesson = std::move(lesson);
        presentation.scene = 0;
        const std::string error = begin_presentation(state, presentation);
        if (!error.empty()) return error;
        requests.presentation_changed = true;
        session.welcome = false;
        remember_recent(state, path);
        state.status = "Playing the lesson " + file_name(path) + " (Esc leaves it)";
        return {};
    }
    if (session.presentation.active) leave_presentation(state, session, requests);
    const std::string error = open_scenario(state, path);
    if (error.empty()) {
        state.status = state.imported_from.empty() ? "Opened " + path : "Imported the model of " + path + " (untitled: Save asks for a file)";
    }
    return error;
}

// Opening a scenario replaces the user's: ask first when that would lose unsaved changes.
std::string request_open(AppState& state, UiSession& session, UiRequests& requests, const std::string& path) {
    if (!is_lesson_file(path) && user_has_unsaved_changes(state, session)) {
        session.pending = PendingAction::open;
        session.pending_path = path;
        return {};
    }
    return open_path(state, session, requests, path);
}

void request_quit(AppState& state, UiSession& session, UiRequests& requests) {
    session.quit_request = false;
    if (user_has_unsaved_changes(state, session)) session.pending = PendingAction::quit;
    else requests.quit = true;
}

// Edit > Reset's target, by what the document is: the file as opened or saved, the import, or the scenario at start.
std::string reset_label(const AppState& state) {
    if (!state.imported_from.empty()) return "Reset to the import of " + file_name(state.imported_from);
    if (state.scenario_path.empty()) return "Reset to the scenario at start";
    return "Reset to the file (" + file_name(state.scenario_path) + ")";
}

void toggle_sidebar(UiSession& session) {
    const float width_em = ImGui::GetIO().DisplaySize.x / ImGui::GetFontSize();
    session.sidebar = sidebar_folded(session, width_em) ? SidebarMode::shown : SidebarMode::folded;
}

// ---- menu and keys ----

void status_text(const AppState& state) {
    if (state.status.empty()) return;
    // Right-aligned after the menus, cut (keeping the file name) rather than drawn over them.
    const float font = ImGui::GetFontSize();
    const float room = ImGui::GetWindowWidth() - ImGui::GetCursorPosX() - 2.0f * font;
    if (room < font * 4.0f) return;
    const std::string shown = widgets::fit_text(state.status, room, true);
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(shown.c_str()).x - font);
    ImGui::TextDisabled("%s", shown.c_str());
}

void menu_bar(AppState& state, UiSession& session, UiRequests& requests) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) {
            session.open_dialog_request = true;
            session.open_baseline = false;
        }
        if (ImGui::MenuItem("Save", "Ctrl+S")) request_save(state, session, false);
        if (ImGui::MenuItem("Save As...", "Ctrl+Shift+S")) request_save(state, session, true);
        if (ImGui::BeginMenu("Open Recent", !state.recent_files.empty())) {
            const std::vector<std::string> recent = state.recent_files;  // opening reorders the list
            for (const std::string& path : recent) {
                if (ImGui::MenuItem(path.c_str())) state.file_error = request_open(state, session, requests, path);
            }
            ImGui::EndMenu();
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Pin as baseline", "Ctrl+P", state.baseline.has_value(), !session.presentation.active)) toggle_baseline(state);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every panel draws the scenario against the pinned one; Ctrl+P again unpins it. Not an edit: undo is unaffected.");
        if (ImGui::MenuItem("Open baseline...", nullptr, false, !session.presentation.active)) {
            session.open_dialog_request = true;
            session.open_baseline = true;
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Export current panel to PNG", "Ctrl+E")) requests.export_current_panel = true;
        if (ImGui::MenuItem("Save step trace (Perfetto JSON)")) requests.save_trace = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) session.quit_request = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        const core::ScenarioHistory& history = state.history;
        const std::string undo = history.can_undo() ? "Undo " + history.undo_name() : std::string("Undo");
        const std::string redo = history.can_redo() ? "Redo " + history.redo_name() : std::string("Redo");
        if (ImGui::MenuItem(undo.c_str(), "Ctrl+Z", false, history.can_undo())) undo_edit(state);
        if (ImGui::MenuItem(redo.c_str(), "Ctrl+Shift+Z", false, history.can_redo())) redo_edit(state);
        ImGui::Separator();
        if (ImGui::MenuItem(reset_label(state).c_str(), nullptr, false, !(state.applied == state.saved_scenario))) reset_to_file(state);
        ImGui::Separator();
        // How far back undo reaches, and where the history starts.
        ImGui::TextDisabled("%s to undo, %s to redo (at most %d kept)", core::format_counted(static_cast<long long>(history.undo_steps()), "step", "steps").c_str(),
                            core::format_counted(static_cast<long long>(history.redo_steps()), "step", "steps").c_str(),
                            static_cast<int>(core::ScenarioHistory::kMaxSteps));
        ImGui::TextDisabled("Opening a file starts a new history.");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (std::size_t i = 0; i < state.panels.size(); ++i) {
            bool shown = state.visible[i];
            if (ImGui::MenuItem(state.panels[i].title, nullptr, &shown)) {
                state.visible[i] = shown;
                if (shown) state.select_panel_request = static_cast<int>(i);
            }
        }
        ImGui::Separator();
        const float width_em = ImGui::GetIO().DisplaySize.x / ImGui::GetFontSize();
        if (ImGui::MenuItem("Scenario sidebar", "Ctrl+B", !sidebar_folded(session, width_em))) toggle_sidebar(session);
        if (ImGui::MenuItem("Zoom in", "Ctrl+=")) requests.zoom_factor *= 1.1f;
        if (ImGui::MenuItem("Zoom out", "Ctrl+-")) requests.zoom_factor /= 1.1f;
        if (ImGui::MenuItem("Reset zoom", "Ctrl+0")) requests.zoom_reset = true;
        if (ImGui::MenuItem("Light theme (print)", nullptr, widgets::current_theme() == widgets::Theme::light)) requests.theme_toggle = true;
        bool explain = widgets::explain_mode();
        if (ImGui::MenuItem("Explain figures on hover", nullptr, &explain)) widgets::set_explain_mode(explain);
        ImGui::Separator();
        if (ImGui::MenuItem("Presentation mode", "F5")) {
            state.file_error = start_presentation(state, session);
            requests.presentation_changed = state.file_error.empty();
        }
        if (ImGui::MenuItem("Full screen", "F11")) requests.toggle_fullscreen = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Shortcuts")) session.show_shortcuts = true;
        ImGui::EndMenu();
    }
    status_text(state);
    ImGui::EndMainMenuBar();
}

void keyboard(AppState& state, UiSession& session, UiRequests& requests) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;  // typing a path or a number: keys belong to the text field
    // A dialog owns the keys while it is open (Enter, Esc): no shortcut acts behind it.
    if (ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel)) return;
    // ImGui 1.86 indexes keys by the backend's codes: GLFW's here.
    PresentationState& presentation = session.presentation;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
        if (presentation.active) leave_presentation(state, session, requests);
        else {
            state.file_error = start_presentation(state, session);
            requests.presentation_changed = state.file_error.empty();
        }
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F11, false)) requests.toggle_fullscreen = true;
    if (presentation.active && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) leave_presentation(state, session, requests);
    if (presentation.active && ImGui::IsKeyPressed(GLFW_KEY_C, false) && !io.KeyCtrl) presentation.show_controls = !presentation.show_controls;
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false) && !io.KeyCtrl) state.playbacks[state.current_panel].toggle();
    const int direction = ImGui::IsKeyPressed(GLFW_KEY_RIGHT) ? 1 : ImGui::IsKeyPressed(GLFW_KEY_LEFT) ? -1 : 0;
    if (direction != 0 && !io.KeyCtrl) {
        if (presentation.active) {
            state.file_error = enter_scene(state, presentation, presentation.scene + direction);
            drop_keyboard_navigation();
        } else if (!ImGui::IsAnyItemActive()) {
            state.playbacks[state.current_panel].step(direction);
            drop_keyboard_navigation();
        }
    }
    if (!io.KeyCtrl) return;
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) requests.zoom_factor *= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) requests.zoom_factor /= 1.1f;
    if (ImGui::IsKeyPressed(GLFW_KEY_0) || ImGui::IsKeyPressed(GLFW_KEY_KP_0)) requests.zoom_reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_Q, false)) session.quit_request = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_O, false)) {
        session.open_dialog_request = true;
        session.open_baseline = false;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_E, false)) requests.export_current_panel = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_P, false) && !presentation.active) toggle_baseline(state);
    if (ImGui::IsKeyPressed(GLFW_KEY_B, false) && !presentation.active) toggle_sidebar(session);
    if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) request_save(state, session, io.KeyShift);
    if (ImGui::IsKeyPressed(GLFW_KEY_Z, false)) {
        if (io.KeyShift) redo_edit(state);
        else undo_edit(state);
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_Y, false)) redo_edit(state);
}

// ---- dialogs ----

// Enter and the dialog's own button: Enter only once the dialog has been up a frame, so the key that opened it does not act.
bool confirmed(const char* label, float width) {
    const bool clicked = ImGui::Button(label, ImVec2(width, 0));
    return clicked || (!ImGui::IsWindowAppearing() && ImGui::IsKeyPressed(GLFW_KEY_ENTER, false));
}

bool cancelled(const char* label, float width) {
    const bool clicked = ImGui::Button(label, ImVec2(width, 0));
    return clicked || (!ImGui::IsWindowAppearing() && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false));
}

// The About line of a shipped file: its "_about" or its "title", first sentence, for the Open dialog's lists.
std::string about_of(const std::string& path) {
    try {
        const nlohmann::json json = nlohmann::json::parse(read_text_file(path, "file"));
        std::string about = json.value("title", json.value("_about", std::string()));
        const std::size_t stop = about.find(": ");
        if (stop != std::string::npos && stop > 12) about = about.substr(0, stop);
        return about;
    } catch (const std::exception&) {
        return {};
    }
}

struct ShippedEntry {
    std::string path, about;
};
const std::vector<ShippedEntry>& shipped_entries(const char* kind) {
    static std::vector<ShippedEntry> scenarios, lessons;  // the assets do not change while the app runs
    std::vector<ShippedEntry>& entries = std::string(kind) == "lessons" ? lessons : scenarios;
    if (entries.empty()) {
        for (const std::string& path : shipped_files(kind)) entries.push_back({path, about_of(path)});
    }
    return entries;
}

// A list of files to pick: a click puts the path in the field, a double-click opens it.
bool file_list(const char* heading, const std::vector<ShippedEntry>& entries, std::string& path_input, float width) {
    if (entries.empty()) return false;
    widgets::dim_text(heading);
    bool open_now = false;
    ImGui::PushID(heading);
    const float indent = ImGui::GetFontSize() * 1.5f;  // a description's further lines, under the file's name
    for (const ShippedEntry& entry : entries) {
        // A shipped file by name and what it is, its description whole on as many lines as it takes ("Dubey et al. 2024",
        // not "Dubey..."); a recent file by its path, shortened in the middle to keep its name.
        std::vector<std::string> lines;
        if (entry.about.empty()) lines.push_back(widgets::fit_text(entry.path, width, true));
        else lines = widgets::wrap_at_spaces(file_name(entry.path) + "  -  " + entry.about, width - indent);
        ImGui::PushID(entry.path.c_str());
        const ImVec2 top_left = ImGui::GetCursorScreenPos();
        const float line_height = ImGui::GetTextLineHeight();
        const float height = line_height * static_cast<float>(lines.size());
        if (ImGui::Selectable("##entry", path_input == entry.path, ImGuiSelectableFlags_AllowDoubleClick | ImGuiSelectableFlags_DontClosePopups,
                              ImVec2(width, height))) {
            path_input = entry.path;
            open_now = ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
        }
        for (std::size_t i = 0; i < lines.size(); ++i) {
            ImGui::GetWindowDrawList()->AddText(ImVec2(top_left.x + (i > 0 ? indent : 0.0f), top_left.y + line_height * static_cast<float>(i)),
                                                ImGui::GetColorU32(ImGuiCol_Text), lines[i].c_str());
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", entry.path.c_str());
        ImGui::PopID();
    }
    ImGui::PopID();
    ImGui::Spacing();
    return open_now;
}

void open_dialog(AppState& state, UiSession& session, UiRequests& requests) {
    if (!ImGui::BeginPopupModal(kOpenDialog, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    const float font = ImGui::GetFontSize();
    const float width = std::min(font * 40.0f, ImGui::GetIO().DisplaySize.x - font * 4.0f);
    const bool baseline = session.open_baseline;
    ImGui::TextUnformatted(baseline ? "Open a baseline to compare with: a scenario or a Hugging Face config.json"
                                    : "Open a scenario, a lesson, or a Hugging Face config.json:");
    ImGui::SetNextItemWidth(width);
    static bool refocus = false;  // after a refused Enter the field takes the keys again, to fix the path
    if (ImGui::IsWindowAppearing() || refocus) ImGui::SetKeyboardFocusHere();
    refocus = false;
    bool go = ImGui::InputText("##path", &session.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemEdited()) session.dialog_error.clear();  // the message was about the path as it was
    if (!session.dialog_error.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        error_text(session.dialog_error);
        ImGui::PopTextWrapPos();
    }
    ImGui::Spacing();
    go |= file_list("Shipped scenarios (read-only: Save makes a copy)", shipped_entries("scenarios"), session.path_input, width);
    if (!baseline) go |= file_list("Lessons (open one to present it; Esc leaves)", shipped_entries("lessons"), session.path_input, width);
    std::vector<ShippedEntry> recent;
    for (const std::string& path : state.recent_files) recent.push_back({path, {}});
    go |= file_list("Recent files", recent, session.path_input, width);
    ImGui::Separator();
    go |= ImGui::Button("Open", ImVec2(font * 6.0f, 0));
    ImGui::SameLine();
    const bool cancel = cancelled("Cancel", font * 6.0f);
    if (go) {
        // A refused path keeps the dialog open with the reason under the field, until the path changes.
        session.dialog_error = baseline ? open_baseline(state, session.path_input) : request_open(state, session, requests, session.path_input);
        if (baseline && session.dialog_error.empty()) state.status = "Comparing with the baseline " + state.baseline->name + " (Ctrl+P unpins)";
        if (session.dialog_error.empty()) ImGui::CloseCurrentPopup();
        else refocus = true;
    } else if (cancel) {
        session.dialog_error.clear();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void save_dialog(AppState& state, UiSession& session) {
    if (!ImGui::BeginPopupModal(kSaveDialog, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    const float font = ImGui::GetFontSize();
    const float width = std::min(font * 40.0f, ImGui::GetIO().DisplaySize.x - font * 4.0f);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (!session.save_reason.empty()) widgets::dim_text(session.save_reason);
    widgets::wrapped_text("Save the scenario as (JSON, only what differs from the defaults):");
    ImGui::PopTextWrapPos();
    const bool asking = !session.confirm_replace.empty();  // as the frame began: the Enter that asked does not answer
    if (asking) ImGui::BeginDisabled();
    ImGui::SetNextItemWidth(width);
    static bool refocus = false;  // after a refused Enter, or "Keep it", the field takes the keys again
    if (ImGui::IsWindowAppearing() || (refocus && !asking)) {
        ImGui::SetKeyboardFocusHere();
        refocus = false;
    }
    bool go = ImGui::InputText("##path", &session.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemEdited()) session.dialog_error.clear();
    if (asking) ImGui::EndDisabled();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (!session.dialog_error.empty()) error_text(session.dialog_error);
    if (asking) {
        ImGui::PushStyleColor(ImGuiCol_Text, widgets::color4(widgets::palette().warning));
        widgets::wrapped_text(session.confirm_replace);
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
        const bool replace = ImGui::Button("Replace", ImVec2(font * 6.0f, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ENTER, false);
        ImGui::SameLine();
        const bool keep = ImGui::Button("Keep it", ImVec2(font * 6.0f, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false);
        if (replace) {
            session.confirm_replace.clear();
            session.dialog_error = save_scenario(state, session.path_input);
            if (session.dialog_error.empty()) {
                state.status = "Saved " + session.path_input;
                ImGui::CloseCurrentPopup();
            }
        } else if (keep) {
            session.confirm_replace.clear();  // back to the path field: choose another name
            refocus = true;
        } else if (!session.dialog_error.empty()) {
            refocus = true;
        }
        ImGui::EndPopup();
        return;
    }
    ImGui::PopTextWrapPos();
    ImGui::Separator();
    go |= ImGui::Button("Save", ImVec2(font * 6.0f, 0));
    ImGui::SameLine();
    const bool cancel = cancelled("Cancel", font * 6.0f);
    if (go) {
        const SaveCheck check = check_save_as(session.path_input);
        if (check.verdict == SaveVerdict::ask_first) session.confirm_replace = check.reason;
        else if (check.verdict != SaveVerdict::write) session.dialog_error = check.reason;
        else {
            session.dialog_error = save_scenario(state, session.path_input);
            if (session.dialog_error.empty()) {
                state.status = "Saved " + session.path_input;
                ImGui::CloseCurrentPopup();
            }
        }
        refocus = !session.dialog_error.empty();
    } else if (cancel) {
        session.dialog_error.clear();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void unsaved_dialog(AppState& state, UiSession& session, UiRequests& requests) {
    if (!ImGui::BeginPopupModal(kUnsavedDialog, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    const float font = ImGui::GetFontSize();
    const std::string what = session.pending == PendingAction::quit ? "Quit" : "Open " + file_name(session.pending_path);
    ImGui::Text("%s has unsaved changes.", document_name(state).c_str());
    ImGui::Text("%s and discard them?", what.c_str());
    const bool can_save = check_save(state).verdict == SaveVerdict::write && !session.presentation.active;
    bool proceed = false;
    if (can_save && ImGui::Button("Save, then go on", ImVec2(font * 10.0f, 0))) {
        write_to(state, state.scenario_path);
        proceed = state.file_error.empty();
    }
    if (can_save) ImGui::SameLine();
    proceed |= ImGui::Button("Discard", ImVec2(font * 6.0f, 0));
    ImGui::SameLine();
    const bool cancel = cancelled("Cancel", font * 6.0f);
    if (proceed) {
        const PendingAction action = session.pending;
        session.pending = PendingAction::none;
        ImGui::CloseCurrentPopup();
        if (action == PendingAction::quit) requests.quit = true;
        else if (action == PendingAction::open) state.file_error = open_path(state, session, requests, session.pending_path);
    } else if (cancel) {
        session.pending = PendingAction::none;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void error_dialog(AppState& state) {
    if (!state.file_error.empty() && !ImGui::IsPopupOpen(kErrorDialog)) ImGui::OpenPopup(kErrorDialog);
    if (!ImGui::BeginPopupModal(kErrorDialog, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    error_text(state.file_error);
    ImGui::PopTextWrapPos();
    ImGui::TextUnformatted("The current scenario is unchanged.");
    // Stays until dismissed: the Enter that caused the error (in the frame the dialog appears) does not close it.
    if (confirmed("OK", ImGui::GetFontSize() * 6.0f) || (!ImGui::IsWindowAppearing() && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))) {
        state.file_error.clear();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void shortcuts_window(UiSession& session) {
    if (!session.show_shortcuts) return;
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 34.0f, 0), ImGuiCond_Appearing);
    if (ImGui::Begin("Shortcuts", &session.show_shortcuts, ImGuiWindowFlags_NoSavedSettings)) {
        if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg)) {
            for (const Shortcut& shortcut : kShortcuts) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(shortcut.keys);
                ImGui::TableNextColumn();
                widgets::wrapped_text(shortcut.action);
            }
            ImGui::EndTable();
        }
    }
    ImGui::End();
}

void dialogs(AppState& state, UiSession& session, UiRequests& requests) {
    if (session.open_dialog_request) {
        session.open_dialog_request = false;
        session.path_input = state.scenario_path.empty() ? state.imported_from : state.scenario_path;
        session.dialog_error.clear();
        ImGui::OpenPopup(kOpenDialog);
    }
    if (session.save_dialog_request) {
        session.save_dialog_request = false;
        session.dialog_error.clear();
        session.confirm_replace.clear();
        ImGui::OpenPopup(kSaveDialog);
    }
    if (session.pending != PendingAction::none && !ImGui::IsPopupOpen(kUnsavedDialog)) ImGui::OpenPopup(kUnsavedDialog);
    open_dialog(state, session, requests);
    save_dialog(state, session);
    unsaved_dialog(state, session, requests);
    error_dialog(state);
    shortcuts_window(session);
}

// First launch: how to begin, in one line above the panels.
void welcome_line(UiSession& session) {
    if (!session.welcome) return;
    const float font = ImGui::GetFontSize();
    const std::string text = "New here? Press F5 for the guided lesson. Example scenarios: File > Open lists them (" +
                             (std::filesystem::path(asset_directory()) / "scenarios").string() + ").";
    const float button = ImGui::CalcTextSize("Dismiss").x + 2.0f * ImGui::GetStyle().FramePadding.x;
    ImGui::PushStyleColor(ImGuiCol_Text, widgets::color4(widgets::palette().text));
    ImGui::TextUnformatted(widgets::fit_text(text, ImGui::GetContentRegionAvail().x - button - font, true).c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine(ImGui::GetContentRegionMax().x - button);
    if (ImGui::SmallButton("Dismiss")) session.welcome = false;
}

// The folded sidebar: a strip with the button that unfolds it.
void sidebar_strip(UiSession& session) {
    if (ImGui::ArrowButton("unfold", ImGuiDir_Right)) session.sidebar = SidebarMode::shown;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the scenario sidebar (Ctrl+B)");
}

const char* short_title(const widgets::PanelDef& panel) { return panel.tab_title ? panel.tab_title : panel.title; }

// Whether every visible panel's title (full or short) fits in `width` as a tab with its close button (ImGui's
// TabItemCalcSize: the label, the frame padding each side, the close button, and the spacing between tabs).
bool tab_titles_fit(const AppState& state, float width, bool short_titles) {
    const ImGuiStyle& style = ImGui::GetStyle();
    float needed = ImGui::GetFontSize() + style.ItemInnerSpacing.x;
    for (std::size_t i = 0; i < state.panels.size(); ++i) {
        if (!state.visible[i]) continue;
        const char* title = short_titles ? short_title(state.panels[i]) : state.panels[i].title;
        needed += ImGui::CalcTextSize(title).x + style.FramePadding.x * 2 + style.ItemInnerSpacing.x + ImGui::GetFontSize() +
                  style.ItemInnerSpacing.x;
    }
    return needed <= width;
}

// The panel bodies' child window: the panel scrolls in it when it is taller than the window.
void panel_body(AppState& state, int index, bool exporting, UiRequests& requests) {
    state.current_panel = index;
    ImGui::BeginChild("panel_body", ImVec2(0, 0), false);
    draw_panel_body(state, index, exporting, &requests);
    ImGui::EndChild();
}

// When even the short titles do not fit one row (a narrow window beside the sidebar, or zoomed): the tabs wrap onto as
// many rows as they need, each title whole, instead of shrinking to "Regim...". The full title shows on hover; the View
// menu hides and shows panels.
void wrapped_tabs(AppState& state, bool exporting, UiRequests& requests) {
    int selected = state.select_panel_request;
    if (selected < 0 || !state.visible[selected]) selected = state.current_panel;
    if (selected < 0 || selected >= static_cast<int>(state.panels.size()) || !state.visible[selected]) {
        selected = -1;
        for (std::size_t i = 0; i < state.panels.size() && selected < 0; ++i)
            if (state.visible[i]) selected = static_cast<int>(i);
    }
    if (selected < 0) return;
    const ImGuiStyle& style = ImGui::GetStyle();
    bool first = true;
    for (std::size_t i = 0; i < state.panels.size(); ++i) {
        if (!state.visible[i]) continue;
        const widgets::PanelDef& panel = state.panels[i];
        const char* title = short_title(panel);
        if (!first) widgets::same_line_if_fits(ImGui::CalcTextSize(title).x + style.FramePadding.x * 2, style.ItemInnerSpacing.x);
        first = false;
        const bool active = static_cast<int>(i) == selected;
        ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(active ? ImGuiCol_TabActive : ImGuiCol_Tab));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImGui::GetStyleColorVec4(ImGuiCol_TabHovered));
        ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImGui::GetStyleColorVec4(ImGuiCol_TabActive));
        const std::string label = std::string(title) + "###" + panel.name;
        if (ImGui::Button(label.c_str())) selected = static_cast<int>(i);
        ImGui::PopStyleColor(3);
        if (panel.tab_title && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", panel.title);
    }
    ImGui::Separator();
    panel_body(state, selected, exporting, requests);
}

}  // namespace

unsigned int dragged_item() { return ImGui::IsMouseDown(ImGuiMouseButton_Left) ? ImGui::GetActiveID() : 0; }

bool sidebar_folded(const UiSession& session, float window_width_em) {
    if (session.sidebar == SidebarMode::shown) return false;
    if (session.sidebar == SidebarMode::folded) return true;
    return window_width_em < kFoldSidebarBelowEm;
}

bool user_has_unsaved_changes(const AppState& state, const UiSession& session) {
    return !(user_scenario(state, session.presentation) == state.saved_scenario);
}

std::string window_title(const AppState& state, const UiSession& session) {
    if (session.presentation.active) return session.presentation.lesson.title + " - presentation - ShardScope";
    return (user_has_unsaved_changes(state, session) ? "*" : "") + document_name(state) + " - ShardScope";
}

std::string start_presentation(AppState& state, UiSession& session) {
    PresentationState& presentation = session.presentation;
    if (presentation.lesson.scenes.empty()) {
        try {
            presentation.lesson = load_lesson_file(default_lesson_path(), panel_name_list(state));
        } catch (const std::exception& error) {
            return error.what();
        }
    }
    session.welcome = false;
    return begin_presentation(state, presentation);
}

void draw_main_ui(AppState& state, UiSession& session, UiRequests& requests, bool exporting) {
    if (!exporting) keyboard(state, session, requests);
    for (const std::string& path : session.dropped_paths) {
        const std::string error = request_open(state, session, requests, path);
        if (!error.empty()) state.file_error = error;
    }
    session.dropped_paths.clear();
    if (session.quit_request) request_quit(state, session, requests);
    if (session.presentation.active) {
        draw_presentation(state, session.presentation, exporting);
        dialogs(state, session, requests);
        return;
    }
    menu_bar(state, session, requests);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float font = ImGui::GetFontSize();
    const bool folded = sidebar_folded(session, viewport->WorkSize.x / font);
    const float sidebar_em = std::clamp(viewport->WorkSize.x / font * kSidebarShare, kSidebarMinEm, kSidebarEm);
    const float sidebar_width = folded ? ImGui::GetFrameHeight() + 2.0f * ImGui::GetStyle().WindowPadding.x : std::floor(font * sidebar_em);
    const ImVec2 origin = viewport->WorkPos;
    const ImVec2 size = viewport->WorkSize;

    ImGui::SetNextWindowPos(origin);
    ImGui::SetNextWindowSize(ImVec2(sidebar_width, size.y));
    const ImGuiWindowFlags sidebar_flags = kFixedWindow | (folded ? ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar : 0);
    if (ImGui::Begin("Scenario", nullptr, sidebar_flags)) {
        if (folded) sidebar_strip(session);
        else {
            if (!exporting) {
                // Fold the sidebar from its own corner, on the first heading's line (a small button: one text line high).
                const ImVec2 start = ImGui::GetCursorPos();
                ImGui::SetCursorPos(ImVec2(ImGui::GetContentRegionMax().x - ImGui::CalcTextSize("<<").x - 2.0f * ImGui::GetStyle().FramePadding.x, start.y));
                if (ImGui::SmallButton("<<")) session.sidebar = SidebarMode::folded;
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fold the sidebar (Ctrl+B)");
                ImGui::SetCursorPos(start);
            }
            widgets::draw_sidebar(state.sidebar, state.scenario, state.report, state.text, state.feedback);
        }
    }
    ImGui::End();

    ImGui::SetNextWindowPos(ImVec2(origin.x + sidebar_width, origin.y));
    ImGui::SetNextWindowSize(ImVec2(size.x - sidebar_width, size.y));
    if (ImGui::Begin("Panels", nullptr, kFixedWindow | ImGuiWindowFlags_NoTitleBar)) {
        welcome_line(session);
        // Full titles when they fit on one row, else the short ones ("Stack", the full title on hover); tabs that still
        // do not fit shrink rather than scroll out of sight. The ID is the panel's name, so the label may change.
        const float tabs_width = ImGui::GetContentRegionAvail().x;
        const bool full_titles = tab_titles_fit(state, tabs_width, false);
        const bool one_row = full_titles || tab_titles_fit(state, tabs_width, true);
        if (!one_row) {
            wrapped_tabs(state, exporting, requests);
            session.tabs_wrapped = true;
        } else if (ImGui::BeginTabBar("panels", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyResizeDown)) {
            // Back from wrapped tabs: the tab bar shows the panel they showed.
            if (session.tabs_wrapped && state.select_panel_request < 0) state.select_panel_request = state.current_panel;
            session.tabs_wrapped = false;
            for (std::size_t i = 0; i < state.panels.size(); ++i) {
                if (!state.visible[i]) continue;
                bool open = true;
                const ImGuiTabItemFlags flags = state.select_panel_request == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
                const widgets::PanelDef& panel = state.panels[i];
                const bool shortened = !full_titles && panel.tab_title != nullptr;
                const std::string label = std::string(shortened ? panel.tab_title : panel.title) + "###" + panel.name;
                const bool selected = ImGui::BeginTabItem(label.c_str(), &open, flags);
                if (shortened && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", panel.title);
                if (selected) {
                    panel_body(state, static_cast<int>(i), exporting, requests);
                    ImGui::EndTabItem();
                }
                if (!open) state.visible[i] = false;
            }
            ImGui::EndTabBar();
        }
        state.select_panel_request = -1;
    }
    ImGui::End();
    dialogs(state, session, requests);
}

void draw_single_panel(AppState& state, int panel, bool exporting) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->Pos);
    ImGui::SetNextWindowSize(viewport->Size);
    if (ImGui::Begin(state.panels[panel].title, nullptr, kFixedWindow)) {
        draw_panel_body(state, panel, exporting);
    }
    ImGui::End();
}

}  // namespace app
