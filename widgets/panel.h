#pragma once
// The contract between the app and every panel: what a panel is handed each frame, and how panels are registered.
//
// A panel file (widgets/panel_<name>.cpp) holds a small state struct with commented defaults and a draw function,
// and exposes one factory `PanelDef make_<name>_panel()` that widgets/panels.cpp lists. The draw function:
//   - reads figures from ctx.report only (core computes them; a widget never does arithmetic on figures),
//   - may edit ctx.scenario (the app re-evaluates; an invalid edit is rolled back and shown as an error),
//   - reports its animation's timeline (ctx.playback.set_timeline), draws it at ctx.playback.t_seconds and never reads a
//     clock or writes t itself (a panel's own time slider scrubs),
//   - sizes everything in multiples of ImGui::GetFontSize().
#include "core/cost/report/diff_report.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report.h"
#include "core/model/scenario.h"
#include "widgets/controls.h"
#include "widgets/playback.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace widgets {

// Data the app loads from files on the panels' behalf (core reads no files).
struct SharedAssets {
    std::string measured_roofline_csv;  // assets/h100_measured_roofline.csv
};

// A kernel picked in one panel and highlighted in the others (the anatomy's click shows it on the roofline). Kept by what
// the kernel is, not by its index, so it survives a re-evaluation that changes the kernel list (TP 1 -> 8).
struct KernelSelection {
    bool active = false;
    core::KernelId id = core::KernelId::qkv;
    core::KernelPass pass = core::KernelPass::forward;
    core::KernelScope scope = core::KernelScope::layer;
    int occurrence = 0;              // the how-manieth kernel of this name, pass and scope (a layer has two norms)
};

// What a panel asks of the app, which acts after the frame (the app owns files; a panel never writes one).
struct PanelRequests {
    bool save_trace = false;         // "Save trace...": the scenario's modelled step as a Chrome trace (core/cost/report/trace.h)
};

// A pinned baseline: the scenario every panel draws the live one against, with ghost outlines, trails and
// labelled differences. Every difference's words come from core (ctx.baseline->comparison, core::compare_figure).
struct BaselineView {
    const core::Scenario* scenario;
    const core::Report* report;
    const core::ReportText* text;
    const core::Comparison* comparison;  // the headline figures of both, compared once per scenario revision
    const std::string* name;             // where the baseline came from ("llama.json as pinned")
    std::uint64_t revision;              // unique to this baseline: with scenario_revision, the key for a panel's caches
};

struct PanelContext {
    core::Scenario& scenario;        // edits are applied by the app after the frame
    const core::Report& report;      // evaluate(scenario) of the last valid scenario
    const core::ReportText& text;    // explain(scenario, report): labels, formulas and sources, built once per revision
    std::uint64_t scenario_revision; // bumped each time the app applies a new scenario: the cache key for derived data
    Playback& playback;
    const SharedAssets& assets;
    EditFeedback& feedback;          // what the last control edit changed besides itself, shown next to that control
    bool exporting = false;          // headless export: no tooltips, no hover-dependent layout
    KernelSelection* selection = nullptr;  // shared by every panel; null where nothing is shared
    PanelRequests* requests = nullptr;  // null where nothing can be asked (one panel alone, headless)
    const BaselineView* baseline = nullptr;  // null: no baseline pinned, one scenario
};

struct PanelDef {
    const char* name;                // "stack": the View menu and `export --panel` use it
    const char* title;               // "The memory stack"
    std::function<void(PanelContext&)> draw;
    const char* tab_title = nullptr;  // "Stack": the tab's label when the full titles do not fit the window (null: title)
};

// "Save trace": asks the app to write the scenario's modelled step as a Chrome trace (pipeline and anatomy panels).
void save_trace_button(PanelContext& ctx, float spacing);

// Every panel, in View-menu order: stack, timeline, walls, cube, serving, roofline, anatomy, ring, pipeline, configurator, alltoall, scaling, run.
std::vector<PanelDef> make_all_panels();

}  // namespace widgets
