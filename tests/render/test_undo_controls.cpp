// Undo, redo and reset for every shared control (widgets/controls.h: the sidebar's, the stack panel's and the
// configurator's): each is driven as a user drives it (a click on a combo's entry, a slider, a checkbox, a -/+ button, a
// typed number), the app applies the edit as after a frame, then Undo must give back the scenario it started from byte for
// byte, Redo the edited one, and Reset to the file the start again. A drag across a slider is one step.
#include "app/app_state.h"
#include "app/input_queue.h"
#include "app/ui.h"
#include "core/model/hardware.h"
#include "core/model/model.h"
#include "core/model/precision.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "tests/render/headless_imgui.h"
#include "widgets/clip_check.h"
#include "widgets/controls.h"

#include <GLFW/glfw3.h>
#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr float kItemWidth = 400.0f;  // every control drawn at this width, alone, at the window's top left

void require_same(const core::Scenario& a, const core::Scenario& b) {
    REQUIRE(core::scenario_to_json(a) == core::scenario_to_json(b));
    REQUIRE(a == b);
}

core::Scenario parsed(const char* json) { return core::parse_scenario(json); }

using Control = std::function<void(core::Scenario&, widgets::EditFeedback&)>;

// The app around one control: a headless ImGui with GLFW's key map, the control in a window, the app's state applying
// each frame's edit (apply_scenario_edits, with the drag the mouse holds) as the window's loop does.
struct Harness {
    test_support::HeadlessImGui imgui{ImVec2(1280, 720)};
    app::InputQueue input;
    app::AppState state;
    Control control;

    Harness(const core::Scenario& start, Control drawn) : state(app::make_app_state(start)), control(std::move(drawn)) {
        ImGuiIO& io = ImGui::GetIO();
        io.DeltaTime = 1.0f / 60.0f;
        const std::pair<ImGuiKey_, int> keys[] = {{ImGuiKey_Tab, GLFW_KEY_TAB}, {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
                                                  {ImGuiKey_Enter, GLFW_KEY_ENTER}, {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
                                                  {ImGuiKey_A, GLFW_KEY_A}, {ImGuiKey_Delete, GLFW_KEY_DELETE}};
        for (const auto& [imgui_key, glfw_key] : keys) io.KeyMap[imgui_key] = glfw_key;
        input.mouse_move(1200, 700);
        frames(2);
    }

    std::vector<widgets::DrawnText> frame() {
        widgets::start_text_record();
        input.feed(ImGui::GetIO());
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(900, 600));
        ImGui::Begin("controls", nullptr, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove);
        ImGui::PushItemWidth(kItemWidth);
        control(state.scenario, state.feedback);
        ImGui::PopItemWidth();
        ImGui::End();
        const unsigned int dragging = app::dragged_item();
        ImGui::Render();
        app::apply_scenario_edits(state, dragging);
        return widgets::stop_text_record();
    }
    std::vector<widgets::DrawnText> frames(int count) {
        std::vector<widgets::DrawnText> texts;
        for (int i = 0; i < count; ++i) texts = frame();
        return texts;
    }
    // Where the control's first row is: its frame starts at the window padding.
    float row_y() const { return ImGui::GetStyle().WindowPadding.y + ImGui::GetFrameHeight() * 0.5f; }
    float x0() const { return ImGui::GetStyle().WindowPadding.x; }

    std::vector<widgets::DrawnText> click(float x, float y) {
        input.mouse_move(x, y);
        input.mouse_button(0, true);
        input.mouse_button(0, false);
        input.mouse_move(1200, 700);  // away again, so no tooltip or hover stays
        return frames(4);
    }
    // Clicks a combo at the top left open, then the entry whose text starts with `entry`.
    void pick(const std::string& entry, float combo_x = -1) {
        const std::vector<widgets::DrawnText> texts = click(combo_x >= 0 ? combo_x : x0() + kItemWidth * 0.5f, row_y());
        const widgets::DrawnText* found = nullptr;
        std::string seen;
        for (const widgets::DrawnText& text : texts) {
            seen += "[" + text.window + "] " + text.text + "\n";
            if (text.window != "controls" && text.text.rfind(entry, 0) == 0) found = &text;
        }
        INFO("entry " << entry << " among\n" << seen);
        REQUIRE(found);
        click((found->min.x + found->max.x) * 0.5f, (found->min.y + found->max.y) * 0.5f);
    }
    void slide_to(float fraction) { click(x0() + kItemWidth * fraction, row_y()); }
    void checkbox() { click(x0() + ImGui::GetFrameHeight() * 0.5f, row_y()); }
    // The -/+ field: the text field, then "-" and "+" one frame height wide.
    void stepped(int direction) {
        const float button = ImGui::GetFrameHeight();
        const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
        const float field = kItemWidth - 2 * (button + spacing);
        click(x0() + field + spacing + button * (direction < 0 ? 0.5f : 1.5f + spacing / button), row_y());
    }
    void type_into(float x, const std::string& text) {
        click(x, row_y());
        input.key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS);
        input.key(GLFW_KEY_A, GLFW_PRESS);
        input.key(GLFW_KEY_A, GLFW_RELEASE);
        input.key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE);
        frames(3);
        for (unsigned char c : text) input.character(c);
        frames(2);
        input.key(GLFW_KEY_ENTER, GLFW_PRESS);
        input.key(GLFW_KEY_ENTER, GLFW_RELEASE);
        frames(4);
    }
};

// Drives one control from `start`, then undoes, redoes and resets, comparing byte for byte.
void check_round_trip(const std::string& name, const core::Scenario& start, const Control& control, const std::function<void(Harness&)>& drive) {
    INFO("control: " << name);
    Harness ui(start, control);
    drive(ui);
    INFO("feedback: " << ui.state.feedback.error);
    const core::Scenario edited = ui.state.applied;
    REQUIRE_FALSE(edited == start);
    REQUIRE(ui.state.history.undo_steps() == 1);
    CHECK(ui.state.history.undo_name() == name);
    REQUIRE(app::undo_edit(ui.state));
    require_same(ui.state.applied, start);
    ui.frames(2);  // the control drawn again over the scenario undo gave back
    require_same(ui.state.applied, start);
    REQUIRE(app::redo_edit(ui.state));
    require_same(ui.state.applied, edited);
    REQUIRE(app::reset_to_file(ui.state));
    require_same(ui.state.applied, start);
    REQUIRE(app::undo_edit(ui.state));  // Reset is a step too
    require_same(ui.state.applied, edited);
}

core::Scenario mixtral() {
    return parsed(R"({"model": {"preset": "mixtral-8x7b"}, "train": {"seq_len": 4096, "global_batch": 256, "sequence_parallel": true},
                     "parallel": {"tp": 2, "pp": 4, "ep": 4}, "cluster": {"gpus": 64}})");
}

}  // namespace

TEST_CASE("Every shared control's edit is undone, redone and reset byte for byte: combos, sliders, checkboxes, -/+ and typed fields",
          "[undo][controls]") {
    using S = core::Scenario;
    using F = widgets::EditFeedback;
    const S start = core::default_scenario();
    const S pp4 = parsed(R"({"parallel": {"tp": 2, "pp": 4}})");
    const S interleaved = parsed(R"({"parallel": {"tp": 2, "pp": 4, "schedule": "interleaved", "virtual_stages": 2}})");

    check_round_trip("Model", start, [](S& s, F& f) { widgets::model_combo("Model", s, f); },
                     [](Harness& ui) { ui.pick(core::find_model("llama3-405b")->name); });
    check_round_trip("Precision", start, [](S& s, F& f) { widgets::precision_combo("Precision", s, f); },
                     [](Harness& ui) { ui.pick(core::find_recipe("megatron-distributed-optimizer")->name); });
    check_round_trip("GPU", start, [](S& s, F& f) { widgets::gpu_combo("GPU", s, f); },
                     [](Harness& ui) { ui.pick(core::builtin_hardware().find_gpu("h200-sxm")->name); });
    check_round_trip("GPUs per node", start, [](S& s, F& f) { widgets::gpus_per_node_combo("GPUs per node", s, f); },
                     [](Harness& ui) { ui.pick("4"); });
    check_round_trip("GPUs", start, [](S& s, F& f) { widgets::gpus_input("GPUs", s, f); }, [](Harness& ui) { ui.stepped(+1); });
    check_round_trip("GPUs", start, [](S& s, F& f) { widgets::gpus_input("GPUs", s, f); },
                     [](Harness& ui) { ui.type_into(ui.x0() + 20, "512"); });
    check_round_trip("Global batch", start, [](S& s, F& f) { widgets::global_batch_input("Global batch", s, f); },
                     [](Harness& ui) { ui.stepped(-1); });
    // Each slider moved to a value its scenario does not have: DP down (it is 64), the others up.
    for (const auto& [label, axis, fraction] : std::vector<std::tuple<const char*, core::LayoutAxis, float>>{
             {"TP", core::LayoutAxis::tp, 0.6f}, {"PP", core::LayoutAxis::pp, 0.6f}, {"CP", core::LayoutAxis::cp, 0.6f},
             {"DP", core::LayoutAxis::dp, 0.02f}, {"Micro-batch", core::LayoutAxis::micro_batch, 0.6f}}) {
        check_round_trip(label, start, [label = label, axis = axis](S& s, F& f) { widgets::axis_slider(label, s, axis, f, "help"); },
                         [fraction = fraction](Harness& ui) { ui.slide_to(fraction); });
    }
    check_round_trip("Virtual stages", interleaved,
                     [](S& s, F& f) { widgets::axis_slider("Virtual stages", s, core::LayoutAxis::virtual_stages, f, "help"); },
                     [](Harness& ui) { ui.slide_to(0.02f); });
    check_round_trip("ZeRO stage", start, [](S& s, F& f) { widgets::zero_slider("ZeRO stage", s, f); }, [](Harness& ui) { ui.slide_to(0.9f); });
    check_round_trip("Schedule", pp4, [](S& s, F& f) { widgets::schedule_combo("Schedule", s, f); },
                     [](Harness& ui) { ui.pick(core::schedule_name(core::ScheduleKind::gpipe)); });
    check_round_trip("Recompute", start, [](S& s, F& f) { widgets::recompute_combo("Recompute", s, f); }, [](Harness& ui) { ui.pick("full"); });
    check_round_trip("Sequence length", start, [](S& s, F& f) { widgets::seq_len_combo("Sequence length", s, f); },
                     [](Harness& ui) { ui.pick("16384"); });
    check_round_trip("Sequence parallel", pp4, [](S& s, F& f) { widgets::sequence_parallel_checkbox("Sequence parallel", s, f); },
                     [](Harness& ui) { ui.checkbox(); });
    check_round_trip("Attention", start, [](S& s, F& f) { widgets::attention_combo("Attention", s, f); },
                     [](Harness& ui) { ui.pick("unfused"); });
    const S torchtune = parsed(R"({"model": {"preset": "llama3-8b"}, "train": {"framework": "torchtune", "seq_len": 2048, "global_batch": 8},
                                   "cluster": {"gpus": 8}})");
    check_round_trip("torch.compile", torchtune, [](S& s, F& f) { widgets::compile_checkbox("torch.compile", s, f); },
                     [](Harness& ui) { ui.checkbox(); });
    check_round_trip("Balance edge stages", pp4, [](S& s, F& f) { widgets::edge_stages_checkbox("Balance edge stages", s, f); },
                     [](Harness& ui) { ui.checkbox(); });
    check_round_trip("Framework", start, [](S& s, F& f) { widgets::framework_combo("Framework", s, f); },
                     [](Harness& ui) { ui.pick("pytorch-eager"); });
    check_round_trip("Fragmentation", start, [](S& s, F& f) { widgets::fragmentation_slider("Fragmentation", s, f); },
                     [](Harness& ui) { ui.slide_to(0.5f); });
    check_round_trip("$ / GPU-h", start, [](S& s, F& f) { widgets::price_controls("$ / GPU-h", s, f); },
                     [](Harness& ui) { ui.pick("spot", ui.x0() + ImGui::GetFontSize() * 3.0f); });
    check_round_trip("$ / GPU-h", start, [](S& s, F& f) { widgets::price_controls("$ / GPU-h", s, f); },
                     [](Harness& ui) { ui.type_into(ui.x0() + ImGui::GetFontSize() * 10.0f, "3.25"); });
    check_round_trip("Setup (h)", start, [](S& s, F& f) { widgets::setup_hours_input("Setup (h)", s, f); },
                     [](Harness& ui) { ui.type_into(ui.x0() + 40, "2"); });
    check_round_trip("Budget ($)", start, [](S& s, F& f) { widgets::budget_input("Budget ($)", s, f); }, [](Harness& ui) { ui.checkbox(); });
    // A model with experts: EP, ETP, the imbalance, node-limited routing and the all-to-all overlap.
    const S moe = mixtral();
    // EP 4 -> 1, ETP 1 -> its largest.
    for (const auto& [label, axis, fraction] : std::vector<std::tuple<const char*, core::LayoutAxis, float>>{
             {"EP", core::LayoutAxis::ep, 0.02f}, {"ETP", core::LayoutAxis::etp, 0.99f}}) {
        check_round_trip(label, moe, [label = label, axis = axis](S& s, F& f) { widgets::axis_slider(label, s, axis, f, "help"); },
                         [fraction = fraction](Harness& ui) { ui.slide_to(fraction); });
    }
    check_round_trip("Imbalance", moe, [](S& s, F& f) { widgets::load_imbalance_slider("Imbalance", s, f); }, [](Harness& ui) { ui.slide_to(0.5f); });
    check_round_trip("Node limit", moe, [](S& s, F& f) { widgets::node_limit_slider("Node limit", s, f); }, [](Harness& ui) { ui.slide_to(0.3f); });
    check_round_trip("Overlap all-to-all", moe, [](S& s, F& f) { widgets::ep_overlap_checkbox("Overlap all-to-all", s, f); },
                     [](Harness& ui) { ui.checkbox(); });
    // A fine-tune: the method (Megatron's default scenario becomes hf-transformers with LoRA) and the adapters' rank.
    const S llama8b = parsed(R"({"model": {"preset": "llama3-8b"}, "train": {"seq_len": 2048, "global_batch": 8, "framework": "hf-transformers"},
                                "cluster": {"gpu": "h100-sxm", "gpus": 1, "gpus_per_node": 1}})");
    check_round_trip("Fine-tune", llama8b, [](S& s, F& f) { widgets::finetune_combo("Fine-tune", s, f); }, [](Harness& ui) { ui.pick("lora"); });
    check_round_trip("Fine-tune", start, [](S& s, F& f) { widgets::finetune_combo("Fine-tune", s, f); }, [](Harness& ui) { ui.pick("qlora"); });
    S lora = llama8b;
    lora.finetune.method = core::FinetuneMethod::lora;
    check_round_trip("LoRA rank", lora, [](S& s, F& f) { widgets::lora_rank_slider("LoRA rank", s, f); }, [](Harness& ui) { ui.slide_to(0.9f); });
}

TEST_CASE("Pinning, unpinning and opening a baseline are undo steps: Ctrl+Z gives back the baseline as it was, Ctrl+Shift+Z the change",
          "[undo][baseline]") {
    const core::Scenario start = core::default_scenario();
    Harness ui(start, [](core::Scenario&, widgets::EditFeedback&) {});
    REQUIRE_FALSE(ui.state.baseline.has_value());
    app::toggle_baseline(ui.state);  // pin
    REQUIRE(ui.state.baseline.has_value());
    CHECK(ui.state.history.undo_name() == "Pin as baseline");
    REQUIRE(app::undo_edit(ui.state));
    CHECK_FALSE(ui.state.baseline.has_value());
    REQUIRE(app::redo_edit(ui.state));
    REQUIRE(ui.state.baseline.has_value());
    require_same(ui.state.baseline->scenario, start);
    // An edit after the pin, then the unpin: undoing the unpin pins the same baseline again, not the edited scenario.
    const core::Edit edit = core::with_recompute(ui.state.applied, core::Recompute::full);
    REQUIRE(edit.ok());
    ui.state.scenario = edit.scenario;
    app::apply_scenario_edits(ui.state);
    app::toggle_baseline(ui.state);  // unpin
    REQUIRE_FALSE(ui.state.baseline.has_value());
    CHECK(ui.state.history.undo_name() == "Unpin baseline");
    REQUIRE(app::undo_edit(ui.state));
    REQUIRE(ui.state.baseline.has_value());
    require_same(ui.state.baseline->scenario, start);
    CHECK(ui.state.applied.train.recompute == core::Recompute::full);  // the scenario stayed as edited
    REQUIRE(app::undo_edit(ui.state));  // the recompute edit
    CHECK(ui.state.applied.train.recompute == start.train.recompute);
    CHECK(ui.state.baseline.has_value());
}

TEST_CASE("A drag across the TP slider (1 up to 64 while held, through the divisors of the 64 heads) is one undo step, back to TP 1",
          "[undo][controls]") {
    const core::Scenario start = core::default_scenario();
    Harness ui(start, [](core::Scenario& s, widgets::EditFeedback& f) { widgets::axis_slider("TP", s, core::LayoutAxis::tp, f, "help"); });
    const float y = ui.row_y();
    ui.input.mouse_move(ui.x0() + 2, y);
    ui.frames(2);
    ui.input.mouse_button(0, true);
    ui.frames(2);
    std::vector<int> seen;
    for (float fraction : {0.3f, 0.5f, 0.75f, 0.99f}) {
        ui.input.mouse_move(ui.x0() + kItemWidth * fraction, y);
        ui.frames(2);
        seen.push_back(ui.state.applied.parallel.tp);
    }
    ui.input.mouse_button(0, false);
    ui.frames(3);
    CHECK(seen.front() < seen.back());
    CHECK(ui.state.applied.parallel.tp == 64);
    REQUIRE(ui.state.history.undo_steps() == 1);
    REQUIRE(app::undo_edit(ui.state));
    require_same(ui.state.applied, start);
}

TEST_CASE("A refused typed value replaces an earlier refusal: one message, the latest", "[undo][controls]") {
    Harness ui(core::default_scenario(), [](core::Scenario& s, widgets::EditFeedback& f) {
        widgets::gpus_input("GPUs", s, f);
        widgets::setup_hours_input("Setup (h)", s, f);
    });
    ui.type_into(ui.x0() + 20, "0");
    CHECK(ui.state.feedback.error == "GPUs: must be between 1 and 100,000,000, got 0");
    // The setup field's row: below the GPU count and its message.
    const std::vector<widgets::DrawnText> texts = ui.frames(1);
    const auto setup = std::find_if(texts.begin(), texts.end(), [](const widgets::DrawnText& text) { return text.text == "Setup (h)"; });
    REQUIRE(setup != texts.end());
    ui.input.mouse_move(ui.x0() + 40, (setup->min.y + setup->max.y) * 0.5f);
    ui.input.mouse_button(0, true);
    ui.input.mouse_button(0, false);
    ui.frames(3);
    for (unsigned char c : std::string("2e5")) ui.input.character(c);
    ui.frames(2);
    ui.input.key(GLFW_KEY_ENTER, GLFW_PRESS);
    ui.input.key(GLFW_KEY_ENTER, GLFW_RELEASE);
    ui.frames(3);
    CHECK(ui.state.feedback.control == "Setup (h)");
    CHECK(ui.state.feedback.error == "Setup (h): must be between 0 and 100000, got 2e5");
}
