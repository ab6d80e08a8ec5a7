#include "widgets/draw_helpers.h"
#include "widgets/controls.h"

#include "core/cost/kernels/comm.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/model/format.h"
#include "widgets/clip_check.h"
#include "widgets/figure.h"
#include "widgets/palette.h"
#include "widgets/text_wrap.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>

namespace widgets {

std::string fitted_preview(const char* preview) {
    const float room = ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - 2.0f * ImGui::GetStyle().FramePadding.x;
    std::string shown = fit_text(preview, std::max(0.0f, room));
    if (shown != preview) note_combo_preview(shown);
    return shown;
}

namespace {
bool g_labels_above = false;
}  // namespace

void set_labels_above(bool above) { g_labels_above = above; }
bool labels_above() { return g_labels_above; }

// In figure mode (a clean exported figure) every control below draws nothing and returns false.
namespace {

// The label to hand the ImGui widget: `label` itself, or, with labels above, its visible part drawn on a line of its own
// and "##" + label, so the widget draws none beside itself.
std::string widget_label(const char* label) {
    const std::string whole(label);
    const std::size_t hidden = whole.find("##");
    if (!g_labels_above || hidden == 0) return whole;
    ImGui::TextUnformatted(whole.substr(0, hidden).c_str());
    return "##" + whole;
}

// A combo over items; each item is offered only if its edit is valid. Returns whether the scenario changed.
// explain(item), when given, attaches a hover note to each entry (what the catalog holds for it, and from where).
template <typename Item, typename Name, typename Same, typename EditOf, typename Explain = std::nullptr_t>
bool edit_combo(const char* label, const char* preview, const std::vector<Item>& items, Name name, Same same, EditOf edit_of,
                core::Scenario& scenario, EditFeedback& feedback, Explain explain = nullptr) {
    bool changed = false;
    const std::string shown_label = widget_label(label);
    if (ImGui::BeginCombo(shown_label.c_str(), fitted_preview(preview).c_str())) {
        for (const Item& item : items) {
            const bool selected = same(item);
            if (ImGui::Selectable(name(item), selected)) changed = apply_edit(edit_of(item), scenario, feedback, label);
            if constexpr (!std::is_same_v<Explain, std::nullptr_t>) explain(item);
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    draw_feedback(label, feedback);
    return changed;
}

// What a number field's text says: a whole number, or why not (naming what was typed).
struct TypedNumber {
    std::optional<long long> value;
    std::string problem;
};

std::string trimmed_text(const std::string& text) {
    std::string trimmed = text;
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
    return trimmed;
}

TypedNumber parse_whole_number(const std::string& text) {
    const std::string trimmed = trimmed_text(text);
    std::string digits;
    for (char c : trimmed) if (c != ',' && c != '_') digits += c;  // "16,384" reads as typed in the panels
    if (digits.empty()) return {std::nullopt, "type a whole number"};
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(digits.c_str(), &end, 10);
    if (end != digits.c_str() && *end == '\0') {
        if (errno == ERANGE) return {std::nullopt, trimmed + " is far out of range"};
        return {value, {}};
    }
    // "4e3" or "4096.0": a whole number written another way is that number; "1e30" is out of range, not "130".
    const double real = std::strtod(digits.c_str(), &end);
    if (end == digits.c_str() || *end != '\0') return {std::nullopt, "\"" + trimmed + "\" is not a whole number"};
    if (!std::isfinite(real) || std::fabs(real) >= 9.2e18) return {std::nullopt, trimmed + " is far out of range"};
    if (real != std::floor(real)) return {std::nullopt, trimmed + " is not a whole number"};
    return {static_cast<long long>(real), {}};
}

// A refusal of what was typed into `control`, shown under it (the field and the reason), the scenario unchanged.
void refuse_typed(const char* control, const std::string& problem, const core::Scenario& scenario, EditFeedback& feedback) {
    const std::string name = std::string(control).rfind("##", 0) == 0 ? std::string("value") : std::string(control);
    feedback.clear();
    feedback.control = control;
    feedback.control_id = ImGui::GetID(control);
    feedback.error = name + ": " + problem;
    feedback.after = scenario;
}

// The one number field being typed into (only one has the keys at a time), and its text so far.
struct NumberFieldEditing {
    ImGuiID id = 0;
    std::string text;
};
NumberFieldEditing g_editing;

// An integer field with - and + that step through valid values. What is typed applies on Enter or when the field loses
// focus (not at every keystroke: typing 2147483647 must not apply 21474 on the way); Escape restores the value.
template <typename Next, typename EditOf>
bool stepped_input(const char* label, int value, Next next, EditOf edit_of, core::Scenario& scenario, EditFeedback& feedback) {
    bool changed = false;
    const float button = ImGui::GetFrameHeight();
    const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::PushID(label);
    if (g_labels_above) ImGui::TextUnformatted(label);
    ImGui::SetNextItemWidth(std::max(button, ImGui::CalcItemWidth() - 2 * (button + spacing)));
    const ImGuiID id = ImGui::GetID("##value");
    std::string text = g_editing.id == id ? g_editing.text : std::to_string(value);
    // CharsScientific keeps the e of "1e30": the field refuses it whole rather than reading "130".
    ImGui::InputText("##value", &text, ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemActive()) {
        g_editing = {id, text};
    } else if (g_editing.id == id) {
        // Left the field this frame: Enter or focus elsewhere applies; Escape has already put the old text back.
        const bool escaped = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
        g_editing = {};
        if (!escaped && text != std::to_string(value)) {
            const TypedNumber typed = parse_whole_number(text);
            if (!typed.value) {
                refuse_typed(label, typed.problem, scenario, feedback);
            } else if (*typed.value != value) {
                const long long clamped = std::clamp<long long>(*typed.value, INT_MIN, INT_MAX);
                core::Edit edit = edit_of(static_cast<int>(clamped));
                // Beyond int, the refusal still names what was typed.
                if (clamped != *typed.value && edit.problem) {
                    const std::string shown = "got " + std::to_string(clamped);
                    std::string& reason = edit.problem->reason;
                    if (const std::size_t at = reason.find(shown); at != std::string::npos) reason.replace(at, shown.size(), "got " + std::to_string(*typed.value));
                }
                changed = apply_stepped_edit(edit, value, *typed.value, scenario, feedback, label);
            }
        }
    }
    // A value this control held earlier in its run, nearer than the next step, is the step back: + then - returns there.
    const auto step_to = [&](int direction) {
        long long target = next(direction);
        const bool same_run = feedback.control == label && feedback.control_id == ImGui::GetID(label) && feedback.after && *feedback.after == scenario;
        for (const EditFeedback::Stepped& held : feedback.run) {
            if (same_run && direction * (held.value - value) > 0 && direction * (held.value - target) < 0) target = held.value;
        }
        return static_cast<int>(target);
    };
    ImGui::SameLine(0, spacing);
    if (ImGui::Button("-", ImVec2(button, button))) {
        const int previous = step_to(-1);
        if (previous != value) changed = apply_stepped_edit(edit_of(previous), value, previous, scenario, feedback, label);
    }
    ImGui::SameLine(0, spacing);
    if (ImGui::Button("+", ImVec2(button, button))) {
        const int following = step_to(+1);
        if (following != value) changed = apply_stepped_edit(edit_of(following), value, following, scenario, feedback, label);
    }
    if (!g_labels_above) {
        ImGui::SameLine(0, spacing);
        ImGui::TextUnformatted(label);
    }
    draw_feedback(label, feedback);  // in the field's id scope, where its edits were recorded
    ImGui::PopID();
    return changed;
}

// The number fields' refusal of a value outside its range, one sentence for every field and slider.
std::string range_refusal(double min_value, double max_value, const std::string& typed) {
    return "must be between " + core::format_typed(min_value) + " and " + core::format_typed(max_value) + ", got " + typed;
}

// The slider Ctrl+click turned into a text field (one at a time), its text so far, and a refusal shown under a slider.
struct SliderTyping {
    ImGuiID id = 0;
    std::string text;
    bool took_keys = false;  // the field has had the keys: leaving it now applies
};
SliderTyping g_slider_typing;
struct SliderRefusal {
    ImGuiID id = 0;
    std::string text;
};
SliderRefusal g_slider_refusal;

// Draws the slider, or the field Ctrl+click made of it. Returns the text once the field is left with something new.
template <typename DrawSlider>
std::optional<std::string> slider_or_field(const char* label, const std::string& value_text, DrawSlider draw_slider, bool& slider_changed) {
    const ImGuiID id = ImGui::GetID(label);
    slider_changed = false;
    if (g_slider_typing.id != id) {
        slider_changed = draw_slider();
        // The click that starts typing is not a drag: the slider's value stays.
        if (ImGui::IsItemActivated() && ImGui::GetIO().KeyCtrl) {
            slider_changed = false;
            g_slider_typing = {id, value_text, false};
        }
        return std::nullopt;
    }
    if (!g_slider_typing.took_keys) ImGui::SetKeyboardFocusHere();
    std::string text = g_slider_typing.text;
    ImGui::PushID("typed");
    ImGui::InputText(label, &text, ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_EnterReturnsTrue);
    const bool active = ImGui::IsItemActive();
    ImGui::PopID();
    if (active) {
        g_slider_typing.text = text;
        g_slider_typing.took_keys = true;
        return std::nullopt;
    }
    if (!g_slider_typing.took_keys) return std::nullopt;  // the field takes the keys next frame
    const bool escaped = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    g_slider_typing = {};
    if (escaped || trimmed_text(text) == value_text) return std::nullopt;
    return trimmed_text(text);
}

// A refusal of what was typed into a slider, under it until the slider next changes.
void refuse_slider(const char* label, const std::string& problem) {
    const std::string name = std::string(label).substr(0, std::string(label).find("##"));
    g_slider_refusal = {ImGui::GetID(label), (name.empty() ? std::string("value") : name) + ": " + problem};
}
void draw_slider_refusal(const char* label, bool changed) {
    const ImGuiID id = ImGui::GetID(label);
    if (g_slider_refusal.id != id) return;
    if (changed) {
        g_slider_refusal = {};
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, color4(palette().warning));
    wrapped_textf("  Not applied: %s", g_slider_refusal.text.c_str());
    ImGui::PopStyleColor();
}

}  // namespace

bool slider_int(const char* label, int* value, int min_value, int max_value, const char* format, int flags) {
    bool changed = false;
    const std::optional<std::string> typed = slider_or_field(label, std::to_string(*value), [&] {
        return ImGui::SliderInt(label, value, min_value, max_value, format, flags | ImGuiSliderFlags_NoInput);
    }, changed);
    if (typed) {
        const TypedNumber number = parse_whole_number(*typed);
        if (!number.value) refuse_slider(label, number.problem);
        else if (*number.value < min_value || *number.value > max_value) refuse_slider(label, range_refusal(min_value, max_value, *typed));
        else {
            changed = *value != static_cast<int>(*number.value);
            *value = static_cast<int>(*number.value);
        }
    }
    draw_slider_refusal(label, changed);
    return changed;
}

namespace {

template <typename Real, typename DrawSlider>
bool real_slider(const char* label, Real* value, Real min_value, Real max_value, DrawSlider draw_slider) {
    bool changed = false;
    char shown[64];
    std::snprintf(shown, sizeof shown, "%g", static_cast<double>(*value));
    const std::optional<std::string> typed = slider_or_field(label, shown, draw_slider, changed);
    if (typed) {
        char* end = nullptr;
        const double number = std::strtod(typed->c_str(), &end);
        if (typed->empty() || end == typed->c_str() || *end != '\0') refuse_slider(label, "\"" + *typed + "\" is not a number");
        else if (!std::isfinite(number) || number < min_value || number > max_value) refuse_slider(label, range_refusal(min_value, max_value, *typed));
        else {
            changed = *value != static_cast<Real>(number);
            *value = static_cast<Real>(number);
        }
    }
    draw_slider_refusal(label, changed);
    return changed;
}

}  // namespace

bool slider_float(const char* label, float* value, float min_value, float max_value, const char* format, int flags) {
    return real_slider(label, value, min_value, max_value,
                       [&] { return ImGui::SliderFloat(label, value, min_value, max_value, format, flags | ImGuiSliderFlags_NoInput); });
}

bool slider_double(const char* label, double* value, double min_value, double max_value, const char* format, int flags) {
    return real_slider(label, value, min_value, max_value, [&] {
        return ImGui::SliderScalar(label, ImGuiDataType_Double, value, &min_value, &max_value, format, flags | ImGuiSliderFlags_NoInput);
    });
}

bool choice_slider(const char* label, int* index, const std::vector<int>& values, const char* shown, int flags) {
    if (values.empty()) return false;
    bool changed = false;
    const int last = static_cast<int>(values.size()) - 1;
    *index = std::clamp(*index, 0, last);
    const std::optional<std::string> typed = slider_or_field(label, std::to_string(values[static_cast<std::size_t>(*index)]), [&] {
        return ImGui::SliderInt(label, index, 0, last, shown, flags | ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoInput);
    }, changed);
    if (typed) {
        const TypedNumber number = parse_whole_number(*typed);
        const auto found = number.value ? std::find(values.begin(), values.end(), *number.value) : values.end();
        if (!number.value) refuse_slider(label, number.problem);
        else if (found == values.end()) {
            std::string allowed;
            for (std::size_t i = 0; i < values.size() && i < 24; ++i) allowed += (i ? ", " : "") + std::to_string(values[i]);
            if (values.size() > 24) allowed += ", ...";
            refuse_slider(label, "must be one of " + allowed + ", got " + *typed);
        } else {
            const int chosen = static_cast<int>(found - values.begin());
            changed = chosen != *index;
            *index = chosen;
        }
    }
    draw_slider_refusal(label, changed);
    return changed;
}

bool committed_number_input(const char* label, double& value, double min_value, double max_value, const char* format, std::string* problem) {
    if (figure_mode()) return false;
    char shown[64];
    std::snprintf(shown, sizeof shown, format, value);
    const ImGuiID id = ImGui::GetID(label);
    std::string text = g_editing.id == id ? g_editing.text : std::string(shown);
    ImGui::InputText(label, &text, ImGuiInputTextFlags_CharsScientific | ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemActive()) {
        g_editing = {id, text};
        return false;
    }
    if (g_editing.id != id) return false;
    g_editing = {};
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false) || text == shown) return false;
    const std::string trimmed = trimmed_text(text);
    char* end = nullptr;
    const double typed = std::strtod(trimmed.c_str(), &end);
    std::string refusal;
    if (trimmed.empty() || end == trimmed.c_str() || *end != '\0') refusal = "\"" + trimmed + "\" is not a number";
    else if (!std::isfinite(typed) || typed < min_value || typed > max_value) {
        refusal = range_refusal(min_value, max_value, trimmed);
    }
    if (!refusal.empty()) {  // the field shows the value again; the caller says why under the control
        if (problem) *problem = refusal;
        return false;
    }
    const bool changed = typed != value;
    value = typed;
    return changed;
}

bool apply_edit(const core::Edit& edit, core::Scenario& scenario, EditFeedback& feedback, const char* control) {
    feedback.clear();
    feedback.control = control;
    feedback.control_id = ImGui::GetID(control);  // this control, not another with the same label in another window
    if (!edit.ok()) {
        // The control the user moved names the refusal, not the file's key: the reason says what is at fault.
        const std::string name = std::string(control).rfind("##", 0) == 0 ? edit.problem->field : std::string(control, std::strcspn(control, "#"));
        feedback.error = name + ": " + edit.problem->reason;
        feedback.after = scenario;
        return false;
    }
    feedback.notes = edit.notes;
    const bool changed = !(edit.scenario == scenario);
    scenario = edit.scenario;
    feedback.after = scenario;
    return changed;
}

bool apply_stepped_edit(const core::Edit& edit, long long from, long long to, core::Scenario& scenario, EditFeedback& feedback,
                        const char* control) {
    const bool same_run = feedback.control == control && feedback.control_id == ImGui::GetID(control) && feedback.after && *feedback.after == scenario;
    std::vector<EditFeedback::Stepped> run = same_run ? std::move(feedback.run) : std::vector<EditFeedback::Stepped>{};
    for (std::size_t i = run.size(); i-- > 0;) {
        if (run[i].value != to) continue;
        std::vector<std::string> notes;
        for (std::size_t j = i; j < run.size(); ++j) {
            for (std::string note : run[j].notes) {  // "Global batch 512 -> 513: it must divide over DP 513", reversed
                if (const std::size_t reason = note.find(": "); reason != std::string::npos) note = note.substr(0, reason) + " (" + note.substr(reason + 2) + ")";
                notes.push_back("undone with it, " + note);
            }
        }
        feedback.clear();
        feedback.control = control;
        feedback.control_id = ImGui::GetID(control);
        feedback.notes = std::move(notes);
        const bool changed = !(run[i].before == scenario);
        scenario = run[i].before;
        feedback.after = scenario;
        run.resize(i);
        feedback.run = std::move(run);
        return changed;
    }
    const core::Scenario before = scenario;
    const bool changed = apply_edit(edit, scenario, feedback, control);
    if (changed) run.push_back({from, before, feedback.notes});
    feedback.run = std::move(run);
    return changed;
}

void expire_feedback(EditFeedback& feedback, const core::Scenario& now) {
    if (feedback.after && !(*feedback.after == now)) feedback.clear();
}

void draw_feedback(const char* control, const EditFeedback& feedback) {
    if (feedback.control != control || feedback.control_id != ImGui::GetID(control)) return;
    const Palette& colors = palette();
    for (const std::string& note : feedback.notes) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(colors.text_dim));
        wrapped_textf("  also: %s", note.c_str());
        ImGui::PopStyleColor();
    }
    if (!feedback.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, color4(colors.warning));
        wrapped_textf("  Not applied: %s", feedback.error.c_str());
        ImGui::PopStyleColor();
    }
}

const core::Choices& choices_for(const core::Scenario& scenario) {
    static core::Scenario cached_scenario;
    static core::Choices cached;
    static bool filled = false;
    if (!filled || !(cached_scenario == scenario)) {
        cached = core::choices_of(scenario);
        cached_scenario = scenario;
        filled = true;
    }
    return cached;
}

bool model_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const std::string preview = scenario.model.is_bare_count() ? core::format_count(scenario.model.params_override) + " parameters (bare count)"
                                                               : scenario.model.name;
    return edit_combo(
        label, preview.c_str(), core::builtin_models(), [](const core::ModelSpec& model) { return model.name.c_str(); },
        [&](const core::ModelSpec& model) { return model.id == scenario.model.id; },
        [&](const core::ModelSpec& model) { return core::with_model(scenario, model); }, scenario, feedback);
}

bool precision_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool changed = false;
    const std::string shown_label = widget_label(label);
    if (ImGui::BeginCombo(shown_label.c_str(), fitted_preview(scenario.precision.name.c_str()).c_str())) {
        for (const core::PrecisionRecipe& recipe : core::builtin_recipes()) {
            if (ImGui::Selectable(recipe.name.c_str(), recipe.id == scenario.precision.id)) {
                changed = apply_edit(core::with_precision(scenario, recipe), scenario, feedback, label);
            }
            if (!recipe.source.empty()) explain_last_item(recipe.source);
        }
        ImGui::EndCombo();
    }
    draw_feedback(label, feedback);
    return changed;
}

bool gpu_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return edit_combo(
        label, scenario.cluster.gpu.name.c_str(), core::builtin_hardware().gpus, [](const core::GpuSpec& gpu) { return gpu.name.c_str(); },
        [&](const core::GpuSpec& gpu) { return gpu.id == scenario.cluster.gpu.id; },
        [&](const core::GpuSpec& gpu) { return core::with_gpu(scenario, gpu); }, scenario, feedback,
        // The HBM a GPU shows is what CUDA gives a process (85.0 GB on an "80 GB" H100): the note says why, with its source.
        [](const core::GpuSpec& gpu) { explain_last_item(gpu.name + ": " + core::format_bytes(gpu.hbm_bytes) + " of HBM", gpu.source.c_str()); });
}

bool gpus_per_node_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const std::string preview = std::to_string(scenario.cluster.gpus_per_node);
    return edit_combo(
        label, preview.c_str(), choices_for(scenario).gpus_per_node, [](int n) { static std::string text; text = std::to_string(n); return text.c_str(); },
        [&](int n) { return n == scenario.cluster.gpus_per_node; }, [&](int n) { return core::with_gpus_per_node(scenario, n); }, scenario,
        feedback);
}

bool scale_out_link_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return edit_combo(
        label, scenario.cluster.scale_out.name.c_str(), core::scale_out_link_choices(), [](const core::LinkSpec& link) { return link.name.c_str(); },
        [&](const core::LinkSpec& link) { return link == scenario.cluster.scale_out; },
        [&](const core::LinkSpec& link) { return core::with_scale_out_link(scenario, link); }, scenario, feedback,
        [](const core::LinkSpec& link) { explain_last_item(core::scale_out_link_help(link), link.source.c_str()); });
}

bool fabric_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return edit_combo(
        label, scenario.cluster.fabric.name.c_str(), core::builtin_hardware().fabrics, [](const core::FabricSpec& fabric) { return fabric.name.c_str(); },
        [&](const core::FabricSpec& fabric) { return fabric == scenario.cluster.fabric; },
        [&](const core::FabricSpec& fabric) { return core::with_fabric(scenario, fabric); }, scenario, feedback,
        [](const core::FabricSpec& fabric) { explain_last_item(core::fabric_help(fabric), fabric.source.c_str()); });
}

bool zero3_engine_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    static const std::vector<core::ShardingEngine> engines = {core::ShardingEngine::coalesced, core::ShardingEngine::deepspeed_0_4};
    return edit_combo(
        label, core::sharding_engine_label(scenario.parallel.zero3_engine), engines, [](core::ShardingEngine engine) { return core::sharding_engine_label(engine); },
        [&](core::ShardingEngine engine) { return engine == scenario.parallel.zero3_engine; },
        [&](core::ShardingEngine engine) { return core::with_zero3_engine(scenario, engine); }, scenario, feedback,
        [](core::ShardingEngine engine) { explain_last_item(core::sharding_engine_help(engine), core::zero3_engine_rules(engine).source); });
}

bool straggler_sliders(const char* share_label, const char* slowdown_label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const core::ClusterSpec& cluster = scenario.cluster;
    float share_percent = static_cast<float>(cluster.straggler_share * 100.0);
    float slowdown_percent = static_cast<float>(cluster.straggler_slowdown * 100.0);
    bool changed = false;
    if (slider_float(widget_label(share_label).c_str(), &share_percent, 0.0f, 10.0f, "%.1f %%", ImGuiSliderFlags_AlwaysClamp)) {
        changed = apply_edit(core::with_stragglers(scenario, share_percent / 100.0, cluster.straggler_slowdown), scenario, feedback, share_label);
    }
    explain_last_item(core::kStragglerShareHelp.text, core::kStragglerShareHelp.source);
    draw_feedback(share_label, feedback);
    if (slider_float(widget_label(slowdown_label).c_str(), &slowdown_percent, 0.0f, 100.0f, "+%.0f %%", ImGuiSliderFlags_AlwaysClamp)) {
        changed = apply_edit(core::with_stragglers(scenario, cluster.straggler_share, slowdown_percent / 100.0), scenario, feedback, slowdown_label);
    }
    explain_last_item(core::kStragglerSlowdownHelp.text, core::kStragglerSlowdownHelp.source);
    draw_feedback(slowdown_label, feedback);
    return changed;
}

bool gpus_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return stepped_input(
        label, scenario.cluster.gpus, [&](int direction) { return core::next_gpus(scenario, direction); },
        [&](int gpus) { return core::with_gpus(scenario, gpus); }, scenario, feedback);
}

bool global_batch_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return stepped_input(
        label, scenario.train.global_batch, [&](int direction) { return core::next_global_batch(scenario, direction); },
        [&](int batch) { return core::with_global_batch(scenario, batch); }, scenario, feedback);
}

bool axis_slider(const char* label, core::Scenario& scenario, core::LayoutAxis axis, EditFeedback& feedback, const std::string& help) {
    if (figure_mode()) return false;
    const core::Choices& choices = choices_for(scenario);
    const core::Layout now = core::layout_of(scenario);
    int current = 0;
    const std::vector<int>* values = nullptr;
    switch (axis) {
        case core::LayoutAxis::tp: values = &choices.tp; current = now.tp; break;
        case core::LayoutAxis::pp: values = &choices.pp; current = now.pp; break;
        case core::LayoutAxis::cp: values = &choices.cp; current = now.cp; break;
        case core::LayoutAxis::dp: values = &choices.dp; current = now.dp; break;
        case core::LayoutAxis::micro_batch: values = &choices.micro_batch; current = now.micro_batch; break;
        case core::LayoutAxis::virtual_stages: values = &choices.virtual_stages; current = now.virtual_stages; break;
        case core::LayoutAxis::ep: values = &choices.ep; current = now.ep; break;
        case core::LayoutAxis::etp: values = &choices.etp; current = now.etp; break;
    }
    bool changed = false;
    const std::string shown_label = widget_label(label);
    if (values->empty()) {
        ImGui::BeginDisabled();
        int shown = current;
        ImGui::SliderInt(shown_label.c_str(), &shown, current, current);
        ImGui::EndDisabled();
    } else {
        int index = core::nearest_choice_index(*values, current);
        const std::string shown = std::to_string(current);  // the slider prints the value, not the index
        if (choice_slider(shown_label.c_str(), &index, *values, shown.c_str()) && (*values)[index] != current) {
            changed = apply_stepped_edit(core::with_axis(scenario, axis, (*values)[index]), current, (*values)[index], scenario, feedback, label);
        }
    }
    std::string allowed;
    for (std::size_t i = 0; values && i < values->size() && i < 24; ++i) allowed += (i ? ", " : "") + std::to_string((*values)[i]);
    if (values && values->size() > 24) allowed += ", ...";
    explain_last_item(help + (allowed.empty() ? "" : " Allowed: " + allowed + "."));
    draw_feedback(label, feedback);
    return changed;
}

bool zero_slider(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    int stage = scenario.parallel.zero;
    bool changed = false;
    if (slider_int(widget_label(label).c_str(), &stage, 0, 3, "stage %d", ImGuiSliderFlags_AlwaysClamp) && stage != scenario.parallel.zero) {
        changed = apply_edit(core::with_zero(scenario, stage), scenario, feedback, label);
    }
    explain_last_item("ZeRO-1 shards the optimizer state over the data-parallel ranks, ZeRO-2 also the gradients, ZeRO-3 also the weights.",
                      "Rajbhandari et al. 2019");
    draw_feedback(label, feedback);
    return changed;
}

bool recompute_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const bool changed = edit_combo(
        label, core::recompute_name(scenario.train.recompute), choices_for(scenario).recomputes,
        [](core::Recompute recompute) { return core::recompute_name(recompute); },
        [&](core::Recompute recompute) { return recompute == scenario.train.recompute; },
        [&](core::Recompute recompute) { return core::with_recompute(scenario, recompute); }, scenario, feedback);
    return changed;
}

bool schedule_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    return edit_combo(
        label, core::schedule_name(scenario.parallel.schedule), choices_for(scenario).schedules,
        [](core::ScheduleKind kind) { return core::schedule_name(kind); }, [&](core::ScheduleKind kind) { return kind == scenario.parallel.schedule; },
        [&](core::ScheduleKind kind) { return core::with_schedule(scenario, kind); }, scenario, feedback);
}

bool seq_len_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const std::string preview = std::to_string(scenario.train.seq_len);
    return edit_combo(
        label, preview.c_str(), choices_for(scenario).seq_len, [](int s) { static std::string text; text = std::to_string(s); return text.c_str(); },
        [&](int s) { return s == scenario.train.seq_len; }, [&](int s) { return core::with_seq_len(scenario, s); }, scenario, feedback);
}

bool sequence_parallel_checkbox(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool on = scenario.train.sequence_parallel;
    bool changed = false;
    const bool locked = on && !choices_for(scenario).sequence_parallel_off;  // experts under TP need it
    ImGui::BeginDisabled(locked);
    if (ImGui::Checkbox(label, &on)) changed = apply_edit(core::with_sequence_parallel(scenario, on), scenario, feedback, label);
    ImGui::EndDisabled();
    if (locked) explain_last_item("On: a model with experts under TP needs sequence parallelism (Megatron-Core).");
    draw_feedback(label, feedback);
    return changed;
}

bool load_imbalance_slider(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    float imbalance = static_cast<float>(scenario.moe.load_imbalance);
    bool changed = false;
    if (slider_float(widget_label(label).c_str(), &imbalance, 1.0f, 4.0f, "%.2fx", ImGuiSliderFlags_AlwaysClamp) &&
        static_cast<double>(imbalance) != scenario.moe.load_imbalance) {
        changed = apply_edit(core::with_load_imbalance(scenario, imbalance), scenario, feedback, label);
    }
    explain_last_item("Tokens the busiest GPU's experts receive over the mean: without dropping, every MoE layer waits for it "
                      "(its expert GEMMs, its all-to-all and its activations grow by this factor).",
                      "moe.md; Lepikhin et al. 2020 (GShard)");
    draw_feedback(label, feedback);
    return changed;
}

bool node_limit_slider(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    int nodes = scenario.moe.node_limit;
    bool changed = false;
    const std::string shown = nodes == 0 ? std::string("any") : core::format_counted(nodes, "node", "nodes");
    if (slider_int(widget_label(label).c_str(), &nodes, 0, 16, shown.c_str(), ImGuiSliderFlags_AlwaysClamp) && nodes != scenario.moe.node_limit) {
        changed = apply_edit(core::with_node_limit(scenario, nodes), scenario, feedback, label);
    }
    explain_last_item("Node-limited routing: each token's experts on at most this many nodes, one InfiniBand copy per node, "
                      "fanned out over NVLink there (0: any node).",
                      "DeepSeek-V3, arXiv 2412.19437 sec 2.1.2 and 3.2.2");
    draw_feedback(label, feedback);
    return changed;
}

bool ep_overlap_checkbox(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool on = scenario.overlap.ep_all_to_all;
    bool changed = false;
    if (ImGui::Checkbox(label, &on)) changed = apply_edit(core::with_ep_overlap(scenario, on), scenario, feedback, label);
    explain_last_item("Each MoE layer's dispatch and combine behind another micro-batch's compute, holding the SMs that drive them; "
                      "off, the layer waits for them.",
                      "DeepSeek-V3 sec 3.2.1 (DualPipe); Megatron-Core --overlap-moe-expert-parallel-comm");
    draw_feedback(label, feedback);
    return changed;
}

bool edge_stages_checkbox(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool on = scenario.train.embedding_and_loss_as_layers;
    bool changed = false;
    const bool locked = !on && !choices_for(scenario).embedding_and_loss_as_layers_on;
    ImGui::BeginDisabled(locked);
    if (ImGui::Checkbox(label, &on)) changed = apply_edit(core::with_embedding_and_loss_as_layers(scenario, on), scenario, feedback, label);
    ImGui::EndDisabled();
    explain_last_item(locked ? "Off: DualPipe and DualPipeV hold both ends of the model on one device, so their stages stay whole."
                             : "The embedding and the loss each take a layer's place: the first and the last pipeline stage hold one "
                               "layer fewer, so the stages balance.",
                      "Dubey et al. 2024 (Llama 3) sec 3.3.2; Megatron-LM --account-for-embedding/loss-in-pipeline-split");
    draw_feedback(label, feedback);
    return changed;
}

namespace {

// A field the scenario's recipe decides itself: its line in the control's place, with the reason on hover; false otherwise.
bool recipe_sets(const char* label, const core::Scenario& scenario, std::string_view field) {
    const std::optional<core::RecipeSetField> set = core::set_by_recipe(scenario, field);
    if (!set) return false;
    dim_text(std::string(label) + ": " + set->shown);
    explain_last_item(set->why, set->source);
    return true;
}

// A switch of the training section a recipe may decide itself (`field`): the recipe's line, or the checkbox and its edit.
bool recipe_switch(const char* label, core::Scenario& scenario, std::string_view field, bool on, core::Edit (*edit)(const core::Scenario&, bool),
                   const char* help, EditFeedback& feedback) {
    if (figure_mode()) return false;
    if (recipe_sets(label, scenario, field)) return false;
    bool changed = false;
    if (ImGui::Checkbox(label, &on)) changed = apply_edit(edit(scenario, on), scenario, feedback, label);
    if (help) explain_last_item(help);
    draw_feedback(label, feedback);
    return changed;
}

}  // namespace

bool compile_checkbox(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    return recipe_switch(label, scenario, "train.compile", scenario.train.compile, core::with_compile,
                         "torch.compile: each layer's pointwise ops fused into Inductor's kernels (one per norm, RoPE and SwiGLU; "
                         "torchtune's loss chunked without an fp32 copy of the logits). The first step compiles once.",
                         feedback);
}

bool attention_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    if (recipe_sets(label, scenario, "train.attention")) return false;
    const std::vector<core::AttentionChoice> choices = core::attention_choices(scenario);
    const auto current = std::find_if(choices.begin(), choices.end(), [&](const core::AttentionChoice& c) { return c.impl == scenario.train.attention; });
    const bool changed = edit_combo(
        label, current != choices.end() ? current->shown : core::attention_impl_name(scenario.train.attention), choices,
        [](const core::AttentionChoice& choice) { return choice.shown; },
        [&](const core::AttentionChoice& choice) { return choice.impl == scenario.train.attention; },
        [&](const core::AttentionChoice& choice) { return core::with_attention(scenario, choice.impl); }, scenario, feedback);
    explain_last_item("Fused attention (SDPA, FlashAttention) never writes the s x s scores; eager attention computes them, the mask, "
                      "the softmax and the context as separate ops and keeps the softmax's output and its bf16 copy for the backward.",
                      "Dao et al. 2022 (FlashAttention); transformers' eager_attention_forward");
    return changed;
}

bool framework_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    static const std::vector<core::Framework> frameworks(std::begin(core::kFrameworks), std::end(core::kFrameworks));
    return edit_combo(
        label, core::framework_name(scenario.train.framework), frameworks, [](core::Framework framework) { return core::framework_name(framework); },
        [&](core::Framework framework) { return framework == scenario.train.framework; },
        [&](core::Framework framework) { return core::with_framework(scenario, framework); }, scenario, feedback);
}

bool finetune_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    static const std::vector<core::FinetuneMethod> methods(std::begin(core::kFinetuneMethods), std::end(core::kFinetuneMethods));
    const bool changed = edit_combo(
        label, core::finetune_method_name(scenario.finetune.method), methods, [](core::FinetuneMethod method) { return core::finetune_method_name(method); },
        [&](core::FinetuneMethod method) { return method == scenario.finetune.method; },
        [&](core::FinetuneMethod method) { return core::with_finetune_method(scenario, method); }, scenario, feedback);
    explain_last_item("full trains every weight (weights, gradients and Adam's state for each); lora freezes the base in bf16 and trains "
                      "rank-r adapters beside its linears; qlora freezes the base in 4-bit NF4. The activations for the backward stay.",
                      "Hu et al. 2021 (LoRA); Dettmers et al. 2023 (QLoRA); Hugging Face PEFT and bitsandbytes");
    return changed;
}

bool lora_rank_slider(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode() || !core::trains_adapters(scenario.finetune)) return false;
    static const std::vector<int> ranks(std::begin(core::kLoraRankChoices), std::end(core::kLoraRankChoices));
    const int current = scenario.finetune.rank;
    int index = core::nearest_choice_index(ranks, current);
    const std::string shown = std::to_string(current);  // the slider prints the rank, not the index
    bool changed = false;
    if (choice_slider(widget_label(label).c_str(), &index, ranks, shown.c_str()) && ranks[index] != current) {
        changed = apply_edit(core::with_lora_rank(scenario, ranks[index]), scenario, feedback, label);
    }
    explain_last_item("The adapters' rank r: each adapted linear of in x out gains r x (in + out) trainable parameters.",
                      "Hu et al. 2021 (LoRA); PEFT LoraConfig r (default 8)");
    draw_feedback(label, feedback);
    return changed;
}

bool fragmentation_slider(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (recipe_sets(label, scenario, "memory.fragmentation")) return false;
    float percent = static_cast<float>(scenario.memory.fragmentation * 100.0);
    bool changed = false;
    if (slider_float(widget_label(label).c_str(), &percent, 0.0f, 30.0f, "%.1f %%", ImGuiSliderFlags_AlwaysClamp)) {
        changed = apply_edit(core::with_fragmentation(scenario, percent / 100.0), scenario, feedback, label);
    }
    draw_feedback(label, feedback);
    return changed;
}

bool price_controls(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) {  // a document states the price, it offers no control
        dim_text(core::format_dollars(scenario.operations.dollars_per_gpu_hour) + " per GPU-hour (" + core::price_basis_name(scenario.budget.price) + ")");
        return false;
    }
    const float font = ImGui::GetFontSize();
    bool changed = false;
    const core::GpuPrice& price = scenario.cluster.gpu.price;
    ImGui::PushID(label);
    const float width = ImGui::CalcItemWidth();  // the combo and the price share the item width
    ImGui::SetNextItemWidth(font * 7.5f);
    if (ImGui::BeginCombo("##basis", core::price_basis_name(scenario.budget.price))) {
        for (core::PriceBasis basis : {core::PriceBasis::on_demand, core::PriceBasis::spot, core::PriceBasis::custom}) {
            const double dollars = price.dollars_per_hour(basis);
            const std::string item = std::string(core::price_basis_name(basis)) + (dollars > 0 ? " " + core::format_dollars(dollars) : "");
            if (ImGui::Selectable(item.c_str(), basis == scenario.budget.price)) {
                changed = apply_edit(core::with_price_basis(scenario, basis), scenario, feedback, label);
            }
        }
        ImGui::EndCombo();
    }
    explain_last_item(price.source.empty() ? std::string("No catalog price for this GPU: type your own.")
                                           : "Catalog price (" + price.date + "): " + price.source + ". Typing a price makes it custom.");
    ImGui::SameLine(0, font * 0.3f);
    double dollars = scenario.operations.dollars_per_gpu_hour;
    ImGui::SetNextItemWidth(std::max(font * 3.0f, width - font * 7.8f));
    std::string problem;
    if (committed_number_input("##dollars", dollars, 0.0, 1e6, "%.2f", &problem)) {
        changed = apply_edit(core::with_dollars_per_gpu_hour(scenario, dollars), scenario, feedback, label);
    }
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
    // In the control's id scope, where its edits were recorded.
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    draw_feedback(label, feedback);
    ImGui::PopID();
    return changed;
}

bool setup_hours_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    double hours = scenario.budget.setup_hours;
    bool changed = false;
    std::string problem;
    if (committed_number_input(label, hours, 0.0, 1e5, "%.2f", &problem)) {
        changed = apply_edit(core::with_setup_hours(scenario, hours), scenario, feedback, label);
    }
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    explain_last_item("Billed but not training: provisioning the machines, downloading data, compiling, warming up. A guess to edit.");
    draw_feedback(label, feedback);
    return changed;
}

bool failure_table_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const std::optional<core::FailureTable>& current = scenario.operations.failures;
    const std::string alone = core::failure_table_from_mtbf(scenario.operations.gpu_mtbf_hours).name;
    const std::string preview = current ? current->name : alone;
    bool changed = false;
    if (ImGui::BeginCombo(label, fitted_preview(preview.c_str()).c_str())) {
        if (ImGui::Selectable(alone.c_str(), !current)) changed = apply_edit(core::with_failure_table(scenario, std::nullopt), scenario, feedback, label);
        for (const core::FailureTable& table : core::builtin_failure_tables()) {
            if (ImGui::Selectable(table.name.c_str(), current && current->id == table.id)) {
                changed = apply_edit(core::with_failure_table(scenario, table), scenario, feedback, label);
            }
        }
        ImGui::EndCombo();
    }
    explain_last_item(current ? current->source : core::failure_table_from_mtbf(scenario.operations.gpu_mtbf_hours).source);
    draw_feedback(label, feedback);
    return changed;
}

bool checkpoint_mode_combo(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool changed = false;
    if (ImGui::BeginCombo(label, core::checkpoint_mode_name(scenario.operations.checkpoint_mode))) {
        for (core::CheckpointMode mode : {core::CheckpointMode::sync, core::CheckpointMode::async, core::CheckpointMode::in_memory}) {
            if (ImGui::Selectable(core::checkpoint_mode_name(mode), mode == scenario.operations.checkpoint_mode)) {
                changed = apply_edit(core::with_checkpoint_mode(scenario, mode), scenario, feedback, label);
            }
        }
        ImGui::EndCombo();
    }
    explain_last_item("sync: the step waits for the whole write. async: it waits for a copy to host memory (PyTorch DCP "
                      "async_save) and the write runs behind it. in-memory: a peer's CPU memory holds the copy (Gemini, SOSP 2023).");
    draw_feedback(label, feedback);
    return changed;
}

// A typed number of the run panel: applied on Enter through its edit (value in the field's unit), refused like the others.
static bool operations_number_input(const char* label, double shown, double max_shown, const char* format, const char* help,
                             const std::function<core::Edit(double)>& edit_of, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool changed = false;
    std::string problem;
    if (committed_number_input(label, shown, 0.0, max_shown, format, &problem)) changed = apply_edit(edit_of(shown), scenario, feedback, label);
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    explain_last_item(help);
    draw_feedback(label, feedback);
    return changed;
}

bool checkpoint_interval_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    return operations_number_input(label, scenario.operations.checkpoint_interval_seconds / 60.0, 1e9 / 60.0, "%.1f",
                                   "Minutes of training between checkpoints; 0 takes Daly's optimum for the checkpoint's cost and the MTBF.",
                                   [&](double minutes) { return core::with_checkpoint_interval(scenario, minutes * 60.0); }, scenario, feedback);
}

bool restart_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    return operations_number_input(label, scenario.operations.restart_seconds / 60.0, 1e9 / 60.0, "%.1f",
                                   "Minutes to detect a failure, reschedule the job and initialise NCCL; loading the checkpoint is added from its size.",
                                   [&](double minutes) { return core::with_restart_seconds(scenario, minutes * 60.0); }, scenario, feedback);
}

bool spare_nodes_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const float font = ImGui::GetFontSize();
    bool changed = false;
    ImGui::PushID(label);
    bool pool = !scenario.operations.spare_nodes.has_value();
    if (ImGui::Checkbox("free pool", &pool)) {
        changed = apply_edit(core::with_spare_nodes(scenario, pool ? std::nullopt : std::optional<int>(8)), scenario, feedback, label);
    }
    explain_last_item("Checked: the building has free nodes and swaps a failed one at once. Unchecked: only the hot spares below.");
    ImGui::SameLine(0, font * 0.3f);
    ImGui::BeginDisabled(pool);
    double nodes = scenario.operations.spare_nodes.value_or(0);
    ImGui::SetNextItemWidth(std::max(font * 3.0f, ImGui::CalcItemWidth() - ImGui::CalcTextSize("free pool").x - ImGui::GetFrameHeight() - font));
    std::string problem;
    if (committed_number_input("##spares", nodes, 0.0, 100000.0, "%.0f", &problem) && !pool) {
        if (nodes != static_cast<int>(nodes)) {
            problem = "must be a whole number of nodes, got " + core::format_typed(nodes);
        } else {
            changed = apply_edit(core::with_spare_nodes(scenario, static_cast<int>(nodes)), scenario, feedback, label);
        }
    }
    ImGui::EndDisabled();
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    draw_feedback(label, feedback);
    ImGui::PopID();
    return changed;
}

bool repair_hours_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    return operations_number_input(label, scenario.operations.node_repair_hours, 1e6, "%.1f",
                                   "Hours until a replaced node is back among the spares. A guess to edit.",
                                   [&](double hours) { return core::with_node_repair_hours(scenario, hours); }, scenario, feedback);
}

bool elastic_checkbox(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    bool on = scenario.operations.elastic;
    bool changed = false;
    if (ImGui::Checkbox(label, &on)) changed = apply_edit(core::with_elastic(scenario, on), scenario, feedback, label);
    explain_last_item("Without a spare, go on with one data-parallel replica fewer until the node is back, instead of waiting.");
    draw_feedback(label, feedback);
    return changed;
}

bool window_days_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    return operations_number_input(label, scenario.operations.window_days, 1e5, "%.0f",
                                   "0: the whole run. Above 0: the first days of wall time, as Llama 3 reports a 54-day snapshot.",
                                   [&](double days) { return core::with_window_days(scenario, days); }, scenario, feedback);
}

bool run_seed_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    double seed = scenario.operations.run_seed;
    bool changed = false;
    std::string problem;
    if (committed_number_input(label, seed, 1.0, 1e9, "%.0f", &problem)) {
        if (seed != std::floor(seed)) {
            problem = "must be a whole number, got " + core::format_typed(seed);
        } else {
            changed = apply_edit(core::with_run_seed(scenario, static_cast<long long>(seed)), scenario, feedback, label);
        }
    }
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    explain_last_item("The same seed draws the same run; the spread takes this seed and the 99 after it.");
    draw_feedback(label, feedback);
    return changed;
}

bool budget_input(const char* label, core::Scenario& scenario, EditFeedback& feedback) {
    if (figure_mode()) return false;
    const float font = ImGui::GetFontSize();
    bool changed = false;
    ImGui::PushID(label);
    const float width = ImGui::CalcItemWidth();  // the checkbox and the amount share the item width
    bool guarded = scenario.budget.budget_dollars.has_value();
    if (ImGui::Checkbox("##on", &guarded)) {
        const std::optional<double> dollars = guarded ? std::optional<double>(scenario.budget.budget_dollars.value_or(100.0)) : std::nullopt;
        changed = apply_edit(core::with_budget_dollars(scenario, dollars), scenario, feedback, label);
    }
    explain_last_item("Hold the estimate to a ceiling: `shardscope cost` exits with status 3 above it.");
    ImGui::SameLine(0, font * 0.3f);
    ImGui::BeginDisabled(!guarded);
    double dollars = scenario.budget.budget_dollars.value_or(0.0);
    ImGui::SetNextItemWidth(std::max(font * 3.0f, width - ImGui::GetFrameHeight() - font * 0.3f));
    std::string problem;
    if (committed_number_input("##dollars", dollars, 0.0, 1e12, "%.2f", &problem) && guarded) {
        changed = apply_edit(core::with_budget_dollars(scenario, dollars), scenario, feedback, label);
    }
    ImGui::EndDisabled();
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
    if (!problem.empty()) refuse_typed(label, problem, scenario, feedback);
    draw_feedback(label, feedback);  // in the control's id scope, where its edits were recorded
    ImGui::PopID();
    return changed;
}

}  // namespace widgets
