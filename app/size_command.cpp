#include "app/size_command.h"

#include "app/cost_command.h"
#include "app/plan_command.h"
#include "core/cost/search/sizing.h"
#include "core/model/format.h"
#include "core/model/layout.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace app {
namespace {

std::string layout_text(const core::Layout& l) {
    std::string text = core::layout_label(l) + ", mb " + std::to_string(l.micro_batch);
    if (l.recompute != core::Recompute::none) text += ", " + std::string(core::recompute_name(l.recompute)) + " recompute";
    if (l.pp > 1) {
        text += ", " + std::string(core::schedule_name(l.schedule));
        if (l.schedule == core::ScheduleKind::interleaved) text += " v" + std::to_string(l.virtual_stages);
    }
    return text;
}

std::string counts_text(const std::vector<int>& counts) {
    std::string text;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (i == 6 && counts.size() > 8) {
            text += ", ..., " + std::to_string(counts.back());
            break;
        }
        text += (i ? ", " : "") + std::to_string(counts[i]);
    }
    return text;
}

std::string padded(const std::string& text, std::size_t width) { return text.size() >= width ? text : text + std::string(width - text.size(), ' '); }

// Each row under its rank in the whole ranking; * marks the Pareto front. The layout column is as wide as its longest
// entry, so the columns after it stay aligned.
void print_table(const core::Sizing& sizing, const std::vector<std::size_t>& rows) {
    const std::string layout_header = "layout (fastest that fits)";
    std::size_t layout_width = layout_header.size();
    for (std::size_t index : rows) layout_width = std::max(layout_width, layout_text(sizing.rows[index].best.layout).size());
    std::printf("  %-4s %-14s %5s  %s %13s %11s %8s %7s\n", "#", "GPU", "GPUs", padded(layout_header, layout_width).c_str(), "time to train", "cost",
                "$/GPU-h", "MFU");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const core::SizingRow& row = sizing.rows[rows[i]];
        const std::string rank = std::to_string(rows[i] + 1) + (row.on_front ? "*" : "");
        const std::string flags = row.feasible() ? "" : !row.meets_deadline ? "  over the deadline" : "  over the budget";
        std::printf("  %-4s %-14s %5d  %s %13s %11s %8s %7s%s\n", rank.c_str(), row.gpu_name.c_str(), row.gpus,
                    padded(layout_text(row.best.layout), layout_width).c_str(), core::format_seconds(row.train_seconds).c_str(),
                    core::format_dollars(row.cost.total_dollars).c_str(), core::format_dollars(row.cost.dollars_per_gpu_hour).c_str(),
                    core::format_percent(row.best.estimate.mfu).c_str(), flags.c_str());
    }
}

}  // namespace

int run_size(const core::Scenario& scenario, const SizeCommandOptions& options) {
    core::SizingOptions sizing_options;
    sizing_options.price = scenario.budget.price == core::PriceBasis::spot ? core::PriceBasis::spot : core::PriceBasis::on_demand;
    sizing_options.max_gpus = options.max_gpus;
    sizing_options.gpu_ids = options.gpu_types;
    const double deadline_days = options.deadline_days.value_or(scenario.train.deadline_days);
    sizing_options.deadline_seconds = deadline_days * 86400.0;
    sizing_options.budget_dollars = options.budget_dollars ? options.budget_dollars : scenario.budget.budget_dollars;
    const auto start = std::chrono::steady_clock::now();
    const core::Sizing sizing = core::size_cluster(scenario, sizing_options);
    const double search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string budget_text = sizing_options.budget_dollars ? core::format_dollars(*sizing_options.budget_dollars) : std::string("none");

    if (options.json) {
        nlohmann::ordered_json json;
        json["model"] = scenario.model.name;
        json["method"] = core::finetune_method_name(scenario.finetune.method);
        if (core::trains_adapters(scenario.finetune)) json["finetune"] = core::adapter_phrase(scenario.finetune);
        json["tokens"] = scenario.train.tokens;
        json["global_batch"] = scenario.train.global_batch;
        json["seq_len"] = scenario.train.seq_len;
        json["deadline_seconds"] = *sizing_options.deadline_seconds;
        if (sizing_options.budget_dollars) json["budget_dollars"] = *sizing_options.budget_dollars;
        json["price"] = core::price_basis_name(sizing_options.price);
        json["setup_hours"] = scenario.budget.setup_hours;
        json["ranked_by"] = "cost to train = GPUs x price per GPU-hour x (time to train + setup); feasible rows (deadline, budget) first";
        json["gpu_types"] = sizing.gpu_ids;
        json["gpu_counts"] = sizing.gpu_counts;
        json["skipped"] = sizing.skipped;
        json["searches"] = sizing.searches;
        json["layouts_considered"] = sizing.layouts_considered;
        json["feasible_rows"] = sizing.feasible_rows;
        json["search_seconds"] = search_seconds;
        nlohmann::ordered_json ranking = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < sizing.rows.size() && static_cast<int>(i) < options.top; ++i) {
            const core::SizingRow& row = sizing.rows[i];
            ranking.push_back({{"rank", i + 1}, {"gpu", row.gpu_id}, {"gpu_name", row.gpu_name}, {"gpus", row.gpus},
                               {"layout", layout_json(row.best.layout)}, {"step_seconds", row.best.estimate.step_seconds},
                               {"mfu", row.best.estimate.mfu}, {"memory_per_gpu_bytes", row.best.estimate.memory_per_gpu_bytes},
                               {"train_seconds", row.train_seconds}, {"train_days", row.train_seconds / 86400.0},
                               {"dollars_per_gpu_hour", row.cost.dollars_per_gpu_hour}, {"total_dollars", row.cost.total_dollars},
                               {"meets_deadline", row.meets_deadline}, {"within_budget", row.within_budget}, {"on_front", row.on_front}});
        }
        json["ranking"] = ranking;
        nlohmann::ordered_json front = nlohmann::ordered_json::array();
        for (std::size_t index : sizing.front) {
            const core::SizingRow& row = sizing.rows[index];
            front.push_back({{"rank", index + 1}, {"gpu", row.gpu_id}, {"gpus", row.gpus}, {"train_seconds", row.train_seconds},
                             {"total_dollars", row.cost.total_dollars}, {"feasible", row.feasible()}});
        }
        json["front"] = front;
        nlohmann::ordered_json per_type = nlohmann::ordered_json::array();
        for (std::size_t index : core::cheapest_of_each_type(sizing)) per_type.push_back({{"gpu", sizing.rows[index].gpu_id}, {"rank", index + 1}});
        json["cheapest_of_each_type"] = per_type;
        std::fputs((json.dump(2) + "\n").c_str(), stdout);
    } else {
        const std::string adapters = core::adapter_phrase(scenario.finetune);
        const std::string what = adapters.empty() ? "train " + scenario.model.name : "fine-tune " + scenario.model.name + " with " + adapters;
        std::printf("The cheapest way to %s on %s tokens within %s (budget: %s), at %s prices with %s of setup:\n\n", what.c_str(), core::format_count(scenario.train.tokens).c_str(), core::format_seconds(*sizing_options.deadline_seconds).c_str(),
                    budget_text.c_str(), core::price_basis_name(sizing_options.price), core::format_seconds(scenario.budget.setup_hours * 3600.0).c_str());
        std::vector<std::size_t> top;
        for (std::size_t i = 0; i < sizing.rows.size() && static_cast<int>(i) < options.top; ++i) top.push_back(i);
        print_table(sizing, top);
        std::printf("\nThe cheapest cluster of each GPU type:\n\n");
        print_table(sizing, core::cheapest_of_each_type(sizing));
        std::printf("\nPareto front of cost against time (* above: no other cluster is both cheaper and faster), fastest first:\n\n");
        print_table(sizing, sizing.front);
        std::printf("\nCost = GPUs x price per GPU-hour x (time to train + setup). Tried %zu GPU types x %s GPUs (powers of two and\n"
                    "1.5 times them, whole nodes beyond one), each with the planner's fastest layout that fits: %lld searches, %s\n"
                    "layouts, %.2f s; %d of %zu clusters that fit meet the deadline and budget.\n",
                    sizing.gpu_ids.size(), counts_text(sizing.gpu_counts).c_str(), static_cast<long long>(sizing.searches),
                    core::format_count(static_cast<double>(sizing.layouts_considered)).c_str(), search_seconds, sizing.feasible_rows,
                    sizing.rows.size());
        for (const std::string& skipped : sizing.skipped) std::printf("Left out: %s.\n", skipped.c_str());
    }
    if (sizing.feasible_rows > 0) return 0;
    std::fprintf(stderr, "shardscope: plan --size: no cluster of up to %s trains it within %s%s\n", core::format_counted(options.max_gpus, "GPU", "GPUs").c_str(),
                 core::format_seconds(*sizing_options.deadline_seconds).c_str(),
                 sizing_options.budget_dollars ? (" and " + budget_text).c_str() : "");
    return kOverBudget;
}

}  // namespace app
