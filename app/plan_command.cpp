#include "app/plan_command.h"

#include "core/cost/search/plan_rows.h"
#include "core/cost/search/planner.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace app {

constexpr int kMaxRows = 100000;
constexpr const char* kRankedBy =
    "modelled step time (compute + pipeline bubble + exposed communication); equal times: fewer GPUs per replica, then less memory";
constexpr const char* kFolded = "layouts that differ only in the interleaved schedule's virtual stages are one row, with the best v; "
                                "folded_virtual_stages lists the others found in the ranking";

nlohmann::ordered_json layout_json(const core::Layout& layout) {
    return {{"tp", layout.tp},
            {"pp", layout.pp},
            {"cp", layout.cp},
            {"dp", layout.dp},
            {"zero", layout.zero},
            {"micro_batch", layout.micro_batch},
            {"recompute", core::recompute_name(layout.recompute)},
            {"schedule", core::schedule_name(layout.schedule)},
            {"virtual_stages", layout.virtual_stages},
            {"sequence_parallel", layout.sequence_parallel},
            {"ep", layout.ep},
            {"etp", layout.etp}};
}

namespace {

// The ranking's columns, in order: the JSON entry flattened (its layout's keys inlined). The CSV header is this list.
const std::vector<std::string>& csv_columns() {
    static const std::vector<std::string> columns = {"rank", "tp", "pp", "cp", "dp", "zero", "micro_batch", "recompute", "schedule", "virtual_stages",
                                                     "sequence_parallel", "memory_per_gpu_bytes", "activations_bytes", "step_seconds", "compute_seconds",
                                                     "bubble_seconds", "exposed_comm_seconds", "mfu", "folded_virtual_stages", "ep", "etp"};
    return columns;
}

std::string list_text(const std::vector<int>& values, const char* separator) {
    std::string text;
    for (int value : values) text += (text.empty() ? "" : separator) + std::to_string(value);
    return text;
}

struct RankedPlan {
    core::Plan plan;
    std::vector<core::PlanRow> rows;
    double search_seconds = 0;
};

// Asks the planner for more layouts than rows, since folding merges some, until `top` rows remain or the planner has
// no more.
RankedPlan ranked_plan(const core::Scenario& scenario, int top) {
    RankedPlan ranked;
    core::PlanOptions options;
    options.top = std::min(kMaxRows, top * 4);
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        ranked.plan = core::plan_layouts(scenario, options);
        ranked.rows = core::fold_virtual_stages(ranked.plan.best);
        const bool planner_has_more = static_cast<int>(ranked.plan.best.size()) == options.top;
        if (static_cast<int>(ranked.rows.size()) >= top || !planner_has_more || options.top >= kMaxRows) break;
        options.top = std::min(kMaxRows, options.top * 4);
    }
    if (static_cast<int>(ranked.rows.size()) > top) ranked.rows.resize(top);
    ranked.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return ranked;
}

std::string plan_json(const core::Scenario& scenario, const RankedPlan& ranked) {
    nlohmann::ordered_json json;
    json["model"] = scenario.model.name;
    json["gpu"] = scenario.cluster.gpu.name;
    json["gpus"] = scenario.cluster.gpus;
    json["global_batch"] = scenario.train.global_batch;
    json["seq_len"] = scenario.train.seq_len;
    json["hbm_bytes"] = scenario.cluster.gpu.hbm_bytes;
    json["ranked_by"] = kRankedBy;
    json["layouts_considered"] = ranked.plan.layouts_considered;
    json["layouts_fitting"] = ranked.plan.layouts_fitting;
    json["search_seconds"] = ranked.search_seconds;
    json["folded"] = kFolded;
    nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < ranked.rows.size(); ++i) {
        const core::LayoutEstimate& estimate = ranked.rows[i].entry.estimate;
        ranking.push_back({{"rank", i + 1},
                           {"layout", layout_json(ranked.rows[i].entry.layout)},
                           {"memory_per_gpu_bytes", estimate.memory_per_gpu_bytes},
                           {"activations_bytes", estimate.activations_bytes},
                           {"step_seconds", estimate.step_seconds},
                           {"compute_seconds", estimate.compute_seconds},
                           {"bubble_seconds", estimate.bubble_seconds},
                           {"exposed_comm_seconds", estimate.exposed_comm_seconds},
                           {"mfu", estimate.mfu},
                           {"folded_virtual_stages", ranked.rows[i].folded_virtual_stages}});
    }
    json["ranking"] = ranking;
    return json.dump(2) + "\n";
}

// Numbers exact (they read back as the JSON's), booleans and names as the JSON writes them, lists space-separated.
std::string plan_csv(const RankedPlan& ranked) {
    std::string out = csv_record(csv_columns());
    for (std::size_t i = 0; i < ranked.rows.size(); ++i) {
        const core::Layout& layout = ranked.rows[i].entry.layout;
        const core::LayoutEstimate& estimate = ranked.rows[i].entry.estimate;
        out += csv_record({std::to_string(i + 1), std::to_string(layout.tp), std::to_string(layout.pp), std::to_string(layout.cp), std::to_string(layout.dp),
                           std::to_string(layout.zero), std::to_string(layout.micro_batch), core::recompute_name(layout.recompute),
                           core::schedule_name(layout.schedule), std::to_string(layout.virtual_stages), layout.sequence_parallel ? "true" : "false",
                           exact_number(estimate.memory_per_gpu_bytes), exact_number(estimate.activations_bytes), exact_number(estimate.step_seconds),
                           exact_number(estimate.compute_seconds), exact_number(estimate.bubble_seconds), exact_number(estimate.exposed_comm_seconds),
                           exact_number(estimate.mfu), list_text(ranked.rows[i].folded_virtual_stages, " "), std::to_string(layout.ep),
                           std::to_string(layout.etp)});
    }
    return out;
}

std::string plan_table(const core::Scenario& scenario, const RankedPlan& ranked) {
    std::string out = scenario.model.name + " on " + std::to_string(scenario.cluster.gpus) + " x " + scenario.cluster.gpu.name + ", global batch " +
                      std::to_string(scenario.train.global_batch) + " x " + std::to_string(scenario.train.seq_len) + " tokens, " +
                      core::format_bytes(scenario.cluster.gpu.hbm_bytes) + " HBM per GPU\n";
    const std::string searched = std::to_string(ranked.plan.layouts_considered) + " considered, searched in " + core::format_seconds(ranked.search_seconds);
    if (ranked.rows.empty()) return out + "No layout fits (" + searched + ").\n";
    out += "The " + std::to_string(ranked.rows.size()) + " fastest of " + std::to_string(ranked.plan.layouts_fitting) + " layouts that fit (" +
           searched + "), by " + kRankedBy + ".\n\n";
    TextTable table;
    table.headers = {"rank", "TP", "PP", "CP", "DP", "ZeRO", "micro-batch", "recompute", "schedule", "SP", "memory/GPU", "activations", "step", "compute",
                     "bubble", "exposed comm", "MFU", "folded v"};
    table.right_aligned = {true, true, true, true, true, true, true, false, false, false, true, true, true, true, true, true, true, false};
    const bool experts = scenario.model.is_moe();  // the EP column only where the planner searches it
    if (experts) {
        table.headers.insert(table.headers.begin() + 5, "EP");
        table.right_aligned.insert(table.right_aligned.begin() + 5, true);
    }
    bool any_folded = false;
    for (std::size_t i = 0; i < ranked.rows.size(); ++i) {
        const core::Layout& layout = ranked.rows[i].entry.layout;
        const core::LayoutEstimate& estimate = ranked.rows[i].entry.estimate;
        std::string schedule = core::schedule_name(layout.schedule);
        if (layout.schedule == core::ScheduleKind::interleaved) schedule += " v" + std::to_string(layout.virtual_stages);
        any_folded = any_folded || !ranked.rows[i].folded_virtual_stages.empty();
        table.rows.push_back({std::to_string(i + 1), std::to_string(layout.tp), std::to_string(layout.pp), std::to_string(layout.cp), std::to_string(layout.dp),
                              std::to_string(layout.zero), std::to_string(layout.micro_batch), core::recompute_name(layout.recompute), schedule,
                              layout.sequence_parallel ? "yes" : "no", core::format_bytes(estimate.memory_per_gpu_bytes),
                              core::format_bytes(estimate.activations_bytes), core::format_seconds(estimate.step_seconds),
                              core::format_seconds(estimate.compute_seconds), core::format_seconds(estimate.bubble_seconds),
                              core::format_seconds(estimate.exposed_comm_seconds), core::format_percent(estimate.mfu),
                              ranked.rows[i].folded_virtual_stages.empty() ? "" : "v" + list_text(ranked.rows[i].folded_virtual_stages, ", v")});
        if (experts) table.rows.back().insert(table.rows.back().begin() + 5, std::to_string(layout.ep));
    }
    out += table.render();
    if (any_folded) out += "\nFolded: interleaved layouts that differ only in v are one row, with the best v; \"folded v\" lists the others.\n";
    out += std::string(core::kUnitConvention) + ". --json or --csv for scripts.\n";
    return out;
}

}  // namespace

int run_plan(const core::Scenario& scenario, const PlanCommandOptions& options) {
    const RankedPlan ranked = ranked_plan(scenario, options.top);
    const std::string text = options.format == OutputFormat::csv     ? plan_csv(ranked)
                             : options.format == OutputFormat::table ? plan_table(scenario, ranked)
                                                                     : plan_json(scenario, ranked);
    std::fputs(text.c_str(), stdout);
    if (ranked.rows.empty()) {
        std::fprintf(stderr, "shardscope: plan: no layout fits in %s of HBM per GPU\n", core::format_bytes(scenario.cluster.gpu.hbm_bytes).c_str());
        return kNothingFits;
    }
    return 0;
}

}  // namespace app
