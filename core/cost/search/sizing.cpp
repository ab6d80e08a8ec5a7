// Sizing: one planner search per (GPU type, count), the fastest layout of each priced by the budget's formula, then
// ranked by cost and reduced to its Pareto front.
#include "core/cost/search/sizing.h"

#include "core/model/errors.h"
#include "core/model/model_json.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <exception>
#include <future>
#include <numeric>
#include <thread>
#include <tuple>

namespace core {

std::vector<int> sizing_gpu_counts(int max_gpus, int gpus_per_node) {
    std::vector<int> counts;
    const auto add = [&](long long count) {
        if (count <= gpus_per_node || count % gpus_per_node == 0) counts.push_back(static_cast<int>(count));
    };
    for (long long power = 1; power <= max_gpus; power *= 2) {
        add(power);
        if (power >= 2 && power * 3 / 2 <= max_gpus) add(power * 3 / 2);
    }
    return counts;
}

std::vector<std::size_t> pareto_front(const std::vector<double>& seconds, const std::vector<double>& dollars) {
    std::vector<std::size_t> order(seconds.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(seconds[a], dollars[a]) < std::tie(seconds[b], dollars[b]);
    });
    // Fastest first: a point joins the front when it is cheaper than every faster (or equally fast) point before it.
    std::vector<std::size_t> front;
    for (std::size_t index : order) {
        if (front.empty() || dollars[index] < dollars[front.back()]) front.push_back(index);
    }
    return front;
}

std::vector<std::size_t> cheapest_of_each_type(const Sizing& sizing) {
    std::vector<std::size_t> firsts;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < sizing.rows.size(); ++i) {
        if (std::find(seen.begin(), seen.end(), sizing.rows[i].gpu_id) != seen.end()) continue;
        seen.push_back(sizing.rows[i].gpu_id);
        firsts.push_back(i);
    }
    return firsts;
}

Scenario sized_scenario(const Scenario& scenario, const GpuSpec& gpu, int count, PriceBasis price) {
    Scenario sized = scenario;
    set_gpu(sized.cluster, gpu);
    sized.cluster.gpus = count;
    sized.parallel = ParallelSpec{};        // the planner chooses the layout
    sized.efficiency = EfficiencySpec{};    // modelled: an assumed MFU or a measured step belongs to another cluster
    sized.budget.price = price;
    apply_price_basis(sized);
    return sized;
}

Sizing size_cluster(const Scenario& scenario, const SizingOptions& options) {
    if (options.price == PriceBasis::custom) throw InputError("budget.price", "sizing compares catalog prices: use on-demand or spot");
    if (options.max_gpus < 1 || options.max_gpus > 1000000) {
        throw InputError("size.max_gpus", must_be_between("1", "1,000,000", std::to_string(options.max_gpus)));
    }
    validate_model_shape(scenario.model, "model");
    Sizing sizing;
    sizing.gpu_counts = sizing_gpu_counts(options.max_gpus, scenario.cluster.gpus_per_node);
    const HardwareCatalog& catalog = builtin_hardware();
    std::vector<const GpuSpec*> gpus;
    if (options.gpu_ids.empty()) {
        for (const GpuSpec& gpu : catalog.gpus) {
            if (gpu.price.dollars_per_hour(options.price) > 0) gpus.push_back(&gpu);
            else sizing.skipped.push_back(gpu.name + ": no " + price_basis_name(options.price) + " price in the catalog");
        }
    } else {
        for (const std::string& id : options.gpu_ids) {
            const GpuSpec* gpu = catalog.find_gpu(id);
            if (!gpu) throw InputError("size.gpus", not_in_catalog("GPU", id));
            if (!(gpu->price.dollars_per_hour(options.price) > 0)) {
                throw InputError("size.gpus", gpu->name + " has no " + price_basis_name(options.price) + " price in the catalog");
            }
            gpus.push_back(gpu);
        }
    }

    // One planner search per (type, count), the types shared out over the cores (the planner is pure); each type's rows
    // are kept apart and joined in catalog order, so the result does not depend on which thread finished first.
    std::vector<std::vector<SizingRow>> rows_of(gpus.size());
    std::vector<std::int64_t> considered_of(gpus.size(), 0), searches_of(gpus.size(), 0);
    const auto search_type = [&](std::size_t type) {
        const GpuSpec& gpu = *gpus[type];
        PlanOptions plan_options;
        plan_options.top = 1;  // for a fixed count the fastest layout is also the cheapest: cost grows with time
        plan_options.max_tp = scenario.cluster.gpus_per_node;  // TP inside a node, as every published layout keeps it
        double best_seconds = INFINITY;
        int without_gain = 0;
        for (int count : sizing.gpu_counts) {
            // Two counts in a row that train no faster than a smaller one: more GPUs only add cost from here.
            if (without_gain >= 2) break;
            const Scenario sized = sized_scenario(scenario, gpu, count, options.price);
            const Plan plan = plan_layouts(sized, plan_options);
            ++searches_of[type];
            considered_of[type] += plan.layouts_considered;
            if (plan.best.empty()) continue;  // nothing fits (or no layout divides the batch) on this many
            SizingRow row;
            row.gpu_id = gpu.id;
            row.gpu_name = gpu.name;
            row.gpus = count;
            row.best = plan.best.front();
            row.train_seconds = time_to_train_seconds(sized, row.best.estimate.step_seconds);
            row.cost = budget_report(sized, count, row.train_seconds);
            row.meets_deadline = !options.deadline_seconds || row.train_seconds <= *options.deadline_seconds;
            row.within_budget = !options.budget_dollars || row.cost.total_dollars <= *options.budget_dollars;
            without_gain = row.train_seconds < best_seconds ? 0 : without_gain + 1;
            best_seconds = std::min(best_seconds, row.train_seconds);
            rows_of[type].push_back(row);
        }
    };
    const std::size_t workers = std::min<std::size_t>(gpus.size(), std::max(1u, options.threads > 0 ? static_cast<unsigned>(options.threads)
                                                                                                     : std::thread::hardware_concurrency()));
    std::atomic<std::size_t> next_type{0};
    std::vector<std::future<void>> running;
    std::exception_ptr failure;
    if (workers == 1) {
        for (std::size_t type = 0; type < gpus.size(); ++type) search_type(type);  // on the caller's thread
    }
    for (std::size_t w = 0; workers > 1 && w < workers; ++w) {
        running.push_back(std::async(std::launch::async, [&]() {
            for (std::size_t type = next_type++; type < gpus.size(); type = next_type++) search_type(type);
        }));
    }
    for (std::future<void>& worker : running) {
        try {
            worker.get();
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
    for (std::size_t type = 0; type < gpus.size(); ++type) {
        sizing.gpu_ids.push_back(gpus[type]->id);
        sizing.rows.insert(sizing.rows.end(), rows_of[type].begin(), rows_of[type].end());
        sizing.layouts_considered += considered_of[type];
        sizing.searches += searches_of[type];
    }

    std::stable_sort(sizing.rows.begin(), sizing.rows.end(), [](const SizingRow& a, const SizingRow& b) {
        return std::make_tuple(!a.feasible(), a.cost.total_dollars, a.train_seconds) <
               std::make_tuple(!b.feasible(), b.cost.total_dollars, b.train_seconds);
    });
    std::vector<double> seconds, dollars;
    for (const SizingRow& row : sizing.rows) {
        seconds.push_back(row.train_seconds);
        dollars.push_back(row.cost.total_dollars);
        sizing.feasible_rows += row.feasible() ? 1 : 0;
    }
    sizing.front = pareto_front(seconds, dollars);
    for (std::size_t index : sizing.front) sizing.rows[index].on_front = true;
    return sizing;
}

}  // namespace core
