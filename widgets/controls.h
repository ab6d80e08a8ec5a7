#pragma once
// The scenario's controls, shared by the sidebar, the stack panel and the configurator. Every one edits through
// core/model/scenario_edits.h, offers only values that give a valid scenario, and shows what its edit changed
// (or why it was refused) right under itself until another control edits.
#include "core/model/scenario.h"
#include "core/model/scenario_edits.h"

#include <optional>
#include <string>
#include <vector>

namespace widgets {

// Where the controls below put their labels: beside them (ImGui's way, the default) or each on its own line above its
// control, which then takes the item width whole (a narrow sidebar: "Llama 3 70B" whole, not "Llama 3..."). Checkboxes
// keep theirs beside. The label still names the control (its feedback, its undo step).
void set_labels_above(bool above);
bool labels_above();

// A combo's preview as it fits the next combo's box (left of its arrow button): shortened with an ellipsis, never cut
// mid-letter. Set the item width first.
std::string fitted_preview(const char* preview);

// What the last control's edit changed besides its own field, or why it was refused. Shown under that control only (the
// same label elsewhere is another control), and only while the scenario is still the one the edit left.
struct EditFeedback {
    std::string control;              // the label of the control that made the edit
    std::vector<std::string> notes;   // "TP 8 -> 4: it must divide the 12 attention heads"
    std::string error;                // a refused edit: the field and the reason
    unsigned int control_id = 0;      // ImGui's id of that control: where the message is drawn
    std::optional<core::Scenario> after;  // the scenario the edit left; once it differs, the message is no longer true
    // A stepped control's run of edits (nothing else edited between them): the value it held before each edit, the
    // scenario then, and what that edit changed besides the value. Going back to one of those values brings that
    // scenario back, side changes and all: GPUs 4,096 -> 4,104 -> 4,096 leaves the batch at 512, not 1,024.
    struct Stepped {
        long long value = 0;
        core::Scenario before;
        std::vector<std::string> notes;
    };
    std::vector<Stepped> run;

    void clear() { *this = {}; }
};

// Clears the feedback once the scenario is no longer the one its edit left (another edit, a file, a lesson scene).
void expire_feedback(EditFeedback& feedback, const core::Scenario& now);

// Applies an edit made by the control labelled `control`: the scenario changes only when the edit is valid.
// Returns whether the scenario changed.
bool apply_edit(const core::Edit& edit, core::Scenario& scenario, EditFeedback& feedback, const char* control);

// An edit that moves a stepped control's value from `from` to `to` (the GPU count, the global batch, a layout slider):
// as apply_edit, except that a value the control held earlier in its run of edits brings the scenario of that moment
// back instead of settling again, so a -/+ pair leaves the scenario as it was.
bool apply_stepped_edit(const core::Edit& edit, long long from, long long to, core::Scenario& scenario, EditFeedback& feedback,
                        const char* control);

// The notes or the error of the last edit, if `control` made it; call right after drawing the control.
void draw_feedback(const char* control, const EditFeedback& feedback);

// A number field that applies what was typed on Enter or when it loses focus; Escape restores. What it cannot hold (not a
// number, outside [min, max]) is refused: the field shows the value again and *problem, if given, says why.
// Returns true when it changed value.
bool committed_number_input(const char* label, double& value, double min_value, double max_value, const char* format = "%.2f",
                            std::string* problem = nullptr);

// ImGui's sliders, with Ctrl+click typing done as the number fields do it: the text is read whole ("1e30" is 1e30, not
// "130"), applied on Enter or when the field loses focus, and a value the slider cannot hold is refused under it in the
// number fields' words ("must be between 1 and 128, got 1e30"), never clamped. A choice slider's typed text is a value,
// not the index the slider runs over, and must be one of the values. Each returns whether the value changed.
bool slider_int(const char* label, int* value, int min_value, int max_value, const char* format = "%d", int flags = 0);
bool slider_float(const char* label, float* value, float min_value, float max_value, const char* format = "%.3f", int flags = 0);
bool slider_double(const char* label, double* value, double min_value, double max_value, const char* format, int flags = 0);
bool choice_slider(const char* label, int* index, const std::vector<int>& values, const char* shown, int flags = 0);

bool model_combo(const char* label, core::Scenario&, EditFeedback&);
bool precision_combo(const char* label, core::Scenario&, EditFeedback&);
bool gpu_combo(const char* label, core::Scenario&, EditFeedback&);
bool gpus_per_node_combo(const char* label, core::Scenario&, EditFeedback&);
bool scale_out_link_combo(const char* label, core::Scenario&, EditFeedback&);  // the link between nodes
bool fabric_combo(const char* label, core::Scenario&, EditFeedback&);          // how the nodes are joined
bool zero3_engine_combo(const char* label, core::Scenario&, EditFeedback&);    // parallel.zero3_engine
// cluster.straggler_share and straggler_slowdown, in percent: the slow machines a synchronous step waits for.
bool straggler_sliders(const char* share_label, const char* slowdown_label, core::Scenario&, EditFeedback&);
// The GPU count: - and + step to the previous / next count that holds the layout; a typed count applies on Enter or when
// the field loses focus, Escape puts the value back, and a refusal names what was typed.
bool gpus_input(const char* label, core::Scenario&, EditFeedback&);
// The global batch: - and + step to the previous / next multiple of DP x micro-batch; typed values as for the GPU count.
bool global_batch_input(const char* label, core::Scenario&, EditFeedback&);
// A slider over the values the axis may take (core::choices_of); help is the hover explanation.
bool axis_slider(const char* label, core::Scenario&, core::LayoutAxis, EditFeedback&, const std::string& help);
bool zero_slider(const char* label, core::Scenario&, EditFeedback&);
// A long run's operations (the run panel): the failure table, how checkpoints are taken, the restart, spares and
// repairs, elastic shrinking. Each edits through core/model/scenario_edits.h and is undone like any other edit.
bool failure_table_combo(const char* label, core::Scenario&, EditFeedback&);
bool checkpoint_mode_combo(const char* label, core::Scenario&, EditFeedback&);
bool checkpoint_interval_input(const char* label, core::Scenario&, EditFeedback&);  // minutes; 0: Daly's optimum
bool restart_input(const char* label, core::Scenario&, EditFeedback&);              // minutes
bool spare_nodes_input(const char* label, core::Scenario&, EditFeedback&);          // a pool checkbox, or a count
bool repair_hours_input(const char* label, core::Scenario&, EditFeedback&);
bool elastic_checkbox(const char* label, core::Scenario&, EditFeedback&);
bool window_days_input(const char* label, core::Scenario&, EditFeedback&);          // 0: the whole run
bool run_seed_input(const char* label, core::Scenario&, EditFeedback&);
bool recompute_combo(const char* label, core::Scenario&, EditFeedback&);
bool schedule_combo(const char* label, core::Scenario&, EditFeedback&);
bool seq_len_combo(const char* label, core::Scenario&, EditFeedback&);
bool sequence_parallel_checkbox(const char* label, core::Scenario&, EditFeedback&);
bool attention_combo(const char* label, core::Scenario&, EditFeedback&);  // train.attention, or the recipe's line
// torch.compile, where the scenario's recipe describes its compiled kernels (else the recipe's line in its place).
bool compile_checkbox(const char* label, core::Scenario&, EditFeedback&);
bool edge_stages_checkbox(const char* label, core::Scenario&, EditFeedback&);
// Mixtures of experts: the busiest GPU's load over the mean, node-limited routing, and the all-to-all overlap switch.
bool load_imbalance_slider(const char* label, core::Scenario&, EditFeedback&);
bool node_limit_slider(const char* label, core::Scenario&, EditFeedback&);
bool ep_overlap_checkbox(const char* label, core::Scenario&, EditFeedback&);
bool framework_combo(const char* label, core::Scenario&, EditFeedback&);       // megatron or pytorch-eager
bool fragmentation_slider(const char* label, core::Scenario&, EditFeedback&);  // memory.fragmentation, in percent
// Full fine-tune, LoRA or QLoRA, and the adapters' rank (shown only while adapters are trained).
bool finetune_combo(const char* label, core::Scenario&, EditFeedback&);
bool lora_rank_slider(const char* label, core::Scenario&, EditFeedback&);

// What a GPU-hour costs: the GPU's catalog price, on-demand or spot (dated, with its source), or a typed one (custom).
bool price_controls(const char* label, core::Scenario&, EditFeedback&);
// Setup hours billed besides training, and the budget the estimate is held to (the checkbox turns the guard on).
bool setup_hours_input(const char* label, core::Scenario&, EditFeedback&);
bool budget_input(const char* label, core::Scenario&, EditFeedback&);

// core::choices_of for the scenario, computed once per distinct scenario (controls ask every frame).
const core::Choices& choices_for(const core::Scenario&);

}  // namespace widgets
