#pragma once
// Two scenarios compared, a baseline and the scenario: the inputs that differ first (the fields of the scenario file,
// with their old and new values), then every figure of the two reports paired, with its absolute and relative change.
// `shardscope diff` prints the whole DiffReport; the panels draw a Comparison of the headline figures against a pinned
// baseline. Every change is written by core/model/format.h's format_change_both, so a delta reads the same everywhere.
#include "core/cost/report/anatomy.h"
#include "core/cost/report/report.h"
#include "core/model/format.h"
#include "core/model/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace core {

// One field of the scenario file that differs, its values as the file writes them (JSON text: 8, "selective", "h200";
// empty where one side has no such field, as a custom model's layers beside a preset).
struct InputChange {
    std::string field;           // "parallel.tp"
    std::string baseline;        // "8"
    std::string scenario;        // "4"
    bool follows = false;        // settled by the parser from the other fields on both sides (DP from the GPUs and TP x PP x CP)
};

// The fields that differ: those set first, each in the file's order, then those that follow from them. A field added to
// the scenario file is compared with no change here (scenario_fields_json writes it).
std::vector<InputChange> input_changes(const Scenario& baseline, const Scenario& scenario);

// One numeric figure both reports have, paired by its path in the report's JSON.
struct FigureChange {
    std::string path;            // "compute.step_seconds", "compute.kernels[name=qkv,pass=forward,scope=layer].seconds"
    double baseline = 0;
    double scenario = 0;
    FigureUnit unit = FigureUnit::number;  // from the key's name, which carries the unit (step_seconds, peak_bytes)
    bool changed = false;
    double change = 0;           // scenario - baseline
    double relative_change = 0;  // change / |baseline|; 0 when unchanged, NaN where the baseline is 0 and the scenario is not
    std::string text;            // "+0.410 s, +7.0 %", "no change"
};

// A yes-or-no figure that flipped (memory.fits, walls.time.over).
struct VerdictChange {
    std::string path;
    bool baseline = false;
    bool scenario = false;
};

// A numeric figure only one report has: an axis of degree 1 on the other side, a kernel only recompute runs.
struct UnpairedFigure {
    std::string path;
    double value = 0;
    FigureUnit unit = FigureUnit::number;
};

struct DiffReport {
    std::vector<InputChange> inputs;
    std::vector<FigureChange> figures;        // every figure both reports have: the changed ones first, largest relative change first
    std::vector<VerdictChange> verdicts;      // in the report's order
    std::vector<UnpairedFigure> only_in_baseline, only_in_scenario;
    int changed_figures = 0;                  // the first changed_figures of `figures`
    bool no_change() const {
        return inputs.empty() && changed_figures == 0 && verdicts.empty() && only_in_baseline.empty() && only_in_scenario.empty();
    }
};

// Compares the scenarios' inputs and pairs every numeric leaf of the two reports' JSON texts (what `eval --json` prints
// for each) by its path: objects by key, arrays of objects by what names an element (its name, pass, scope, op, stage,
// phase, layer and micro-batch, and the how-manieth of that name), other arrays by index. Words (formulas, verdict
// sentences) are left out: they follow the figures. Throws InputError if a text is not a JSON object.
DiffReport diff_reports(const Scenario& baseline, std::string_view baseline_report_json, const Scenario& scenario,
                        std::string_view scenario_report_json);

// How `shardscope diff` reads a DiffReport to a person: the headline figures first (step time, MFU, the peak per GPU,
// time and cost to train), then each other changed figure, then each array's changed elements folded into one row
// (a timeline's 300 points are one row, their largest change named); a change too small to show at the display
// precision ("51.0 s -> 51.0 s") is counted, not listed. --json and --csv keep every figure.
struct DiffTableRow {
    std::string figure;    // "compute.step_seconds", "memory.timeline[...].allocated_bytes (296 of 300 points)"
    std::string baseline;  // "51.0 s"; "-" for a folded row
    std::string scenario;
    std::string change;    // "+0.410 s, +7.0 %"; a folded row's largest: "largest at [layer 3 forward]: +1.20 GB, +12.0 %"
};
struct DiffTable {
    std::vector<DiffTableRow> headline, figures, folded;
    int below_precision = 0;  // changed figures whose two values print the same
    int listed = 0;           // changed figures the rows stand for
};
DiffTable diff_table(const DiffReport&);

// The unit a figure's key names: *_bytes, *_seconds, *_dollars, flops, bytes_per_s, mfu, *_fraction, *_share ...
FigureUnit figure_unit_of_key(std::string_view key);

// The DiffReport as `shardscope diff --json` prints it, and as CSV (kind, path, baseline, scenario, change, relative change).
std::string diff_to_json(const DiffReport&, const std::string& baseline_name, const std::string& scenario_name);
std::string diff_to_csv(const DiffReport&);

// ---- Against a pinned baseline: the headline figures for the panels ----

// One headline figure on both sides and the change between them, written once for every panel that shows it.
struct FigureComparison {
    std::string label;           // "Step time"
    std::string baseline_value;  // "13.4 s"
    std::string value;           // "14.0 s"
    std::string change;          // "+0.600 s, +4.5 %", or "no change"
    std::string against;         // "+0.600 s, +4.5 % against 13.4 s", or "13.4 s, as the baseline"
    int direction = 0;           // the sign of the change: -1, 0 or +1 (a marker's shape says it, never its colour alone)
    double baseline_number = 0;  // the figures themselves, for a ghost outline's length
    double number = 0;
    FigureUnit unit = FigureUnit::number;
};

struct Comparison {
    std::vector<InputChange> inputs;
    std::string inputs_text;     // "parallel.tp 8 -> 4, parallel.dp 8 -> 16 (follows)", or "no input differs"
    FigureComparison peak_memory, state_memory, activations, step_time, compute_time, bubble_time, exposed_comm_time, mfu,
        time_to_train, training_cost, goodput;
    std::string headline;        // "Against the baseline: Peak per GPU -18.2 GB, -23.1 %; Step time +0.600 s, +4.5 %; MFU -1.2 pp"
    std::string step_text;       // "Step time +0.600 s, +4.5 %; MFU -1.2 pp; Time to train ...; Training cost ..."
    std::string run_text;        // "Goodput +0.1 pp; Time to train ..."
    std::string comm_text;       // each parallel axis's communication per step: "DP +0.2 s, +25 %; TP 2.35 s, new"; "" with none
    std::string serving_text;    // "Serving GPUs +8, +12.5 %; Decode step ...; Prefill ..."
    std::string moe_text;        // the all-to-all per MoE layer where both are mixtures of experts; else which has no experts
};

Comparison compare_scenarios(const Scenario& baseline, const Report& baseline_report, const Scenario& scenario, const Report& report);
// A kernel of the scenario on the roofline and where the same kernel (name, pass, scope and occurrence) sat in the
// baseline: the roofline draws the trail between them. Kernels the baseline lacks are left out.
struct KernelMove {
    KernelPoint baseline;
    KernelPoint scenario;
};
std::vector<KernelMove> kernel_moves(const Report& baseline, const Report& report);

// One figure of each side compared: what every other delta on screen is written with (a block, a kernel, a wall).
FigureComparison compare_figure(const std::string& label, double baseline, double scenario, FigureUnit unit);

}  // namespace core
