#include "core/cost/report/run_simulation.h"

#include "core/model/format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace core {
namespace {

// splitmix64 (Steele, Lea and Flood 2014): the same draws on every platform and standard library, which
// std::exponential_distribution does not promise.
struct Rng {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    double exponential(double rate) { return rate > 0 ? -std::log1p(-uniform()) / rate : std::numeric_limits<double>::infinity(); }
};

int pick_cause(Rng& rng, const RunPlan& plan) {
    double target = rng.uniform() * plan.rate_per_second;
    for (std::size_t i = 0; i < plan.cause_rate_per_second.size(); ++i) {
        target -= plan.cause_rate_per_second[i];
        if (target < 0) return static_cast<int>(i);
    }
    return static_cast<int>(plan.cause_rate_per_second.size()) - 1;
}

// A run that loses this many interruptions has stopped making progress: it ends unfinished rather than hang.
constexpr int kMostInterruptions = 2000000;

using MinHeap = std::priority_queue<double, std::vector<double>, std::greater<double>>;

class Recorder {
public:
    Recorder(RunResult& result, bool keep, double horizon) : result_(result), keep_(keep), horizon_(horizon) {}
    void add(double start, double end, RunActivity activity, int cause = -1) {
        end = std::min(end, horizon_);
        if (end <= start) return;
        result_.activity_seconds[static_cast<int>(activity)] += end - start;
        if (!keep_) return;
        if (!result_.segments.empty()) {
            RunSegment& last = result_.segments.back();
            if (last.activity == activity && last.cause == cause && last.end_seconds == start) {
                last.end_seconds = end;
                return;
            }
        }
        result_.segments.push_back({start, end, activity, cause});
    }
    // Training at a capacity below one: the replicas drained out of it are their own activity.
    void shift(RunActivity from, RunActivity to, double seconds) {
        result_.activity_seconds[static_cast<int>(from)] -= seconds;
        result_.activity_seconds[static_cast<int>(to)] += seconds;
    }

private:
    RunResult& result_;
    bool keep_;
    double horizon_;
};

}  // namespace

const char* run_activity_name(RunActivity activity) {
    switch (activity) {
        case RunActivity::training: return "training";
        case RunActivity::checkpoint: return "checkpoint stalls";
        case RunActivity::lost_work: return "lost work";
        case RunActivity::restart: return "restarts";
        case RunActivity::waiting: return "waiting for a node";
        case RunActivity::drained: return "drained replicas";
    }
    return "training";
}

RunPlan run_plan(const Scenario& scenario, const Report& report) {
    RunPlan plan;
    const ClusterSpec& cluster = scenario.cluster;
    const OperationsSpec& operations = scenario.operations;
    plan.table = scenario_failure_table(scenario);
    for (const FailureCause& cause : plan.table.causes) {
        plan.cause_rate_per_second.push_back(failures_per_hour(plan.table, cause, cluster.gpus, cluster.gpus_per_node) / 3600.0);
        plan.rate_per_second += plan.cause_rate_per_second.back();
    }
    plan.closed_form = report.reliability;
    const ReliabilityInputs inputs = reliability_inputs(scenario, report.reliability.checkpoint_bytes, report.compute.train_seconds);
    plan.train_seconds = report.compute.train_seconds;
    plan.interval_seconds = report.reliability.interval_seconds;
    plan.stall_seconds = report.reliability.checkpoint_seconds;
    plan.durable_lag_seconds = inputs.durable_lag_seconds;
    plan.restart_seconds = inputs.restart_seconds;
    plan.spare_nodes = operations.spare_nodes;
    plan.repair_seconds = operations.node_repair_hours * 3600.0;
    plan.elastic = operations.elastic;
    plan.replicas = std::max(1, scenario.parallel.dp);
    return plan;
}

RunResult simulate_run(const RunPlan& plan, std::uint64_t seed, double window_seconds, bool keep_segments) {
    RunResult result;
    result.interruptions_by_cause.assign(plan.table.causes.size(), 0);
    const double horizon = window_seconds > 0 ? window_seconds : std::numeric_limits<double>::infinity();
    Recorder record(result, keep_segments, horizon);
    Rng rng{seed};

    // Checkpoints every interval; no interval (a free checkpoint) is one every second, so a failure loses next to nothing.
    const double interval = plan.interval_seconds > 0 ? plan.interval_seconds : 1.0;
    const double stall = plan.stall_seconds;
    const double cycle = interval + stall;
    double t = 0, work = 0;
    int free_spares = plan.spare_nodes.value_or(0);
    MinHeap spares_back, replicas_back;  // when repaired nodes return: to the spares, or (elastic) to the job
    int drained = 0;
    double next_failure = rng.exponential(plan.rate_per_second);

    // Wall time e of training from a segment's start: its work at capacity, its work's wall time and its stalls.
    const auto training_wall = [&](double elapsed) {
        const double cycles = std::floor(elapsed / cycle);
        return cycles * interval + std::min(elapsed - cycles * cycle, interval);
    };
    const auto record_training = [&](double start, double elapsed, double capacity) {
        const double working = training_wall(elapsed);
        record.add(start, start + elapsed, RunActivity::training);
        const double shown = std::min(start + elapsed, horizon) - start;  // the window may cut the segment
        const double shown_working = shown > 0 ? training_wall(shown) : 0;
        record.shift(RunActivity::training, RunActivity::checkpoint, std::max(0.0, shown - shown_working));
        record.shift(RunActivity::training, RunActivity::drained, shown_working * (1.0 - capacity));
        return working * capacity;
    };
    const auto interrupt = [&](int cause) {
        ++result.interruptions;
        ++result.interruptions_by_cause[cause];
    };
    // The node-level half of a recovery: a spare, a replica fewer, or a wait for a node back from repair.
    const auto replace_node = [&](int cause) {
        const FailureRecovery recovery = plan.table.causes[cause].recovery;
        if (recovery != FailureRecovery::replace && recovery != FailureRecovery::drain) return;
        if (!plan.spare_nodes) return;  // the building's free pool swaps a node at once
        if (free_spares > 0) {
            --free_spares;
            spares_back.push(t + plan.repair_seconds);
            return;
        }
        if (plan.elastic && drained < plan.replicas - 1) {
            ++drained;
            replicas_back.push(t + plan.repair_seconds);
            return;
        }
        double back = t + plan.repair_seconds;  // the failed node itself, repaired
        if (!spares_back.empty()) {
            back = std::min(back, spares_back.top());
            spares_back.pop();
            spares_back.push(t + plan.repair_seconds);
        }
        record.add(t, back, RunActivity::waiting, cause);
        t = back;
    };

    while (t < horizon && result.interruptions < kMostInterruptions) {
        while (!spares_back.empty() && spares_back.top() <= t) spares_back.pop(), ++free_spares;
        while (!replicas_back.empty() && replicas_back.top() <= t) replicas_back.pop(), --drained;  // rejoin at the restart
        const double capacity = static_cast<double>(plan.replicas - drained) / plan.replicas;
        const double remaining = plan.train_seconds - work;
        const double finish = t + remaining / capacity + std::floor(remaining / (interval * capacity)) * stall;
        if (next_failure >= std::min(finish, horizon)) {
            const double end = std::min(finish, horizon);
            const double done = record_training(t, end - t, capacity);
            if (finish <= horizon) {
                work = plan.train_seconds;
                result.finished = true;
            } else {
                work += done;
            }
            t = end;
            break;
        }

        // A failure in this segment: what survives is the training up to the last checkpoint it can fall back to.
        const double elapsed = next_failure - t;
        int cause = pick_cause(rng, plan);
        const FailureCause& what = plan.table.causes[cause];
        double kept = 0;
        if (what.recovery == FailureRecovery::planned) {
            kept = elapsed;  // the job checkpoints before it stops
        } else {
            const double caught_from = what.recovery == FailureRecovery::rollback ? elapsed - what.detect_seconds : elapsed;
            kept = caught_from > plan.durable_lag_seconds ? std::floor((caught_from - plan.durable_lag_seconds) / cycle) * cycle : 0;
        }
        double gained = record_training(t, kept, capacity);
        if (what.recovery == FailureRecovery::drain) {  // the slow host held every step back until it was caught
            const double slow = std::min(what.detect_seconds, training_wall(kept)) * what.slowdown * capacity;
            gained -= slow;
            record.shift(RunActivity::training, RunActivity::lost_work, std::min(slow, std::max(0.0, std::min(t + kept, horizon) - t)));
        }
        work += gained;
        record.add(t + kept, next_failure, RunActivity::lost_work, cause);
        t = next_failure;
        interrupt(cause);

        // Recover; a failure during the restart starts the restart again.
        for (;;) {
            replace_node(cause);
            const double restart = plan.restart_seconds + (plan.table.causes[cause].recovery == FailureRecovery::planned ? stall : 0);
            const double during = t + rng.exponential(plan.rate_per_second);
            if (during >= t + restart || t >= horizon || result.interruptions >= kMostInterruptions) {
                record.add(t, t + restart, RunActivity::restart, cause);
                t += restart;
                next_failure = during;
                break;
            }
            record.add(t, during, RunActivity::restart, cause);
            t = during;
            cause = pick_cause(rng, plan);
            interrupt(cause);
        }
        // Interruptions after the window are not the window's.
        if (t > horizon && next_failure > horizon) break;
    }
    result.wall_seconds = std::min(t, horizon);
    result.work_seconds = std::min(work, plan.train_seconds);
    result.goodput = result.wall_seconds > 0 ? result.work_seconds / result.wall_seconds : 0;
    return result;
}

namespace {

RunSpread spread_of(std::vector<double> values) {
    RunSpread spread;
    if (values.empty()) return spread;
    std::sort(values.begin(), values.end());
    // Linear interpolation between the closest ranks (numpy's default percentile).
    const auto at = [&](double q) {
        const double position = q * (values.size() - 1);
        const std::size_t low = static_cast<std::size_t>(std::floor(position));
        const std::size_t high = std::min(low + 1, values.size() - 1);
        return values[low] + (values[high] - values[low]) * (position - low);
    };
    spread.p10 = at(0.1);
    spread.p50 = at(0.5);
    spread.p90 = at(0.9);
    double sum = 0;
    for (double value : values) sum += value;
    spread.mean = sum / values.size();
    return spread;
}

}  // namespace

RunDistribution simulate_runs(const RunPlan& plan, std::uint64_t seed, int runs, double window_seconds) {
    RunDistribution distribution;
    distribution.runs = std::max(0, runs);
    distribution.mean_interruptions_by_cause.assign(plan.table.causes.size(), 0.0);
    std::vector<double> days, interruptions, goodput;
    for (int run = 0; run < distribution.runs; ++run) {
        const RunResult result = simulate_run(plan, seed + static_cast<std::uint64_t>(run), window_seconds);
        days.push_back(result.wall_seconds / 86400.0);
        interruptions.push_back(result.interruptions);
        goodput.push_back(result.goodput);
        for (std::size_t i = 0; i < result.interruptions_by_cause.size(); ++i) {
            distribution.mean_interruptions_by_cause[i] += result.interruptions_by_cause[i] / static_cast<double>(distribution.runs);
        }
    }
    distribution.wall_days = spread_of(days);
    distribution.interruptions = spread_of(interruptions);
    distribution.goodput = spread_of(goodput);
    return distribution;
}

std::vector<RunDay> run_days(const RunResult& result) {
    std::vector<RunDay> days(static_cast<std::size_t>(std::ceil(result.wall_seconds / 86400.0)));
    // Training segments carry their stalls and drained replicas in the run's own proportions.
    const double training_total = result.activity_seconds[0] + result.activity_seconds[1] + result.activity_seconds[5];
    const double shares[3] = {training_total > 0 ? result.activity_seconds[0] / training_total : 1,
                              training_total > 0 ? result.activity_seconds[1] / training_total : 0,
                              training_total > 0 ? result.activity_seconds[5] / training_total : 0};
    for (const RunSegment& segment : result.segments) {
        for (double start = segment.start_seconds; start < segment.end_seconds;) {
            const std::size_t day = static_cast<std::size_t>(start / 86400.0);
            if (day >= days.size()) break;
            const double end = std::min(segment.end_seconds, (day + 1) * 86400.0);
            const double share = (end - start) / 86400.0;
            if (segment.activity == RunActivity::training) {
                days[day].activity_share[0] += share * shares[0];
                days[day].activity_share[1] += share * shares[1];
                days[day].activity_share[5] += share * shares[2];
            } else {
                days[day].activity_share[static_cast<int>(segment.activity)] += share;
            }
            start = end;
        }
    }
    return days;
}

std::vector<double> expected_interruptions(const RunPlan& plan, double wall_seconds) {
    std::vector<double> expected;
    for (double rate : plan.cause_rate_per_second) expected.push_back(rate * wall_seconds);
    return expected;
}

std::string run_sentence(const RunPlan& plan, const RunResult& run, const RunDistribution& spread, double window_seconds) {
    int planned = 0;
    for (std::size_t i = 0; i < plan.table.causes.size(); ++i) {
        if (plan.table.causes[i].recovery == FailureRecovery::planned) planned += run.interruptions_by_cause[i];
    }
    const std::string interruptions = format_grouped(run.interruptions) + (run.interruptions == 1 ? " interruption" : " interruptions") +
                                      (planned > 0 ? " (" + format_grouped(planned) + " planned)" : "");
    const std::string closed = plan.closed_form.makes_progress ? " (closed form " + format_percent(plan.closed_form.goodput) + ")" : "";
    std::string sentence;
    if (window_seconds > 0) {
        sentence = "Over " + format_seconds(run.wall_seconds) + " of the run: " + interruptions + ", goodput " + format_percent(run.goodput) + closed + ".";
    } else if (run.finished) {
        sentence = "The run takes " + format_seconds(run.wall_seconds) + " for " + format_seconds(plan.train_seconds) + " of training: " +
                   interruptions + ", goodput " + format_percent(run.goodput) + closed + ".";
    } else {
        return "The run makes no progress: failures every " + format_seconds(plan.rate_per_second > 0 ? 1.0 / plan.rate_per_second : 0) +
               " come faster than a checkpoint interval and a restart of " + format_seconds(plan.restart_seconds) + ".";
    }
    if (spread.runs > 1) {
        sentence += " Over " + format_grouped(spread.runs) + " seeded runs: median " + format_grouped(std::round(spread.interruptions.p50)) +
                    " interruptions (p10-p90 " + format_grouped(std::round(spread.interruptions.p10)) + "-" +
                    format_grouped(std::round(spread.interruptions.p90)) + ")";
        if (window_seconds <= 0) {
            sentence += ", wall time " + format_seconds(spread.wall_days.p10 * 86400.0) + " at p10 and " + format_seconds(spread.wall_days.p90 * 86400.0) + " at p90";
        }
        sentence += ".";
    }
    return sentence;
}

std::vector<RunFigure> run_figures(const RunPlan& plan, const RunResult& run, const RunDistribution& spread) {
    std::vector<RunFigure> figures;
    figures.push_back({"Goodput", format_percent(run.goodput) +
                                      (plan.closed_form.makes_progress ? " (closed form " + format_percent(plan.closed_form.goodput) + ")" : "")});
    figures.push_back({"Interruptions", format_grouped(run.interruptions) +
                                            (spread.runs > 1 ? " (median " + format_grouped(std::round(spread.interruptions.p50)) + " of " +
                                                                   format_grouped(spread.runs) + " runs)"
                                                             : "")});
    figures.push_back({"Job MTBF", format_seconds(plan.rate_per_second > 0 ? 1.0 / plan.rate_per_second : 0)});
    figures.push_back({"Checkpoint", "every " + format_seconds(plan.interval_seconds) + ", " + format_seconds(plan.stall_seconds) + " stall" +
                                         (plan.durable_lag_seconds > 0 ? ", safe " + format_seconds(plan.durable_lag_seconds) + " later" : "")});
    figures.push_back({"Restart", format_seconds(plan.restart_seconds) + " with loading"});
    for (int activity = 1; activity < kRunActivities; ++activity) {
        if (run.activity_seconds[activity] <= 0) continue;
        std::string label = run_activity_name(static_cast<RunActivity>(activity));
        label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
        figures.push_back({label, format_seconds(run.activity_seconds[activity])});
    }
    std::vector<std::size_t> order(plan.table.causes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return run.interruptions_by_cause[a] > run.interruptions_by_cause[b]; });
    for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i) {
        if (run.interruptions_by_cause[order[i]] == 0) break;
        figures.push_back({plan.table.causes[order[i]].name, format_counted(run.interruptions_by_cause[order[i]], "interruption", "interruptions")});
    }
    return figures;
}

RunView run_view(const Scenario& scenario, const Report& report, int runs) {
    RunView view;
    const std::uint64_t seed = static_cast<std::uint64_t>(scenario.operations.run_seed);
    const double window_seconds = scenario.operations.window_days * 86400.0;
    view.plan = run_plan(scenario, report);
    view.run = simulate_run(view.plan, seed, window_seconds, true);
    view.spread = simulate_runs(view.plan, seed, runs, window_seconds);
    view.days = run_days(view.run);
    view.sentence = run_sentence(view.plan, view.run, view.spread, window_seconds);
    view.figures = run_figures(view.plan, view.run, view.spread);
    return view;
}

std::vector<RunDay> binned_days(const std::vector<RunDay>& days, int days_per_bin) {
    if (days_per_bin <= 1) return days;
    std::vector<RunDay> bins((days.size() + days_per_bin - 1) / days_per_bin);
    for (std::size_t day = 0; day < days.size(); ++day) {
        const std::size_t bin = day / days_per_bin;
        const double in_bin = static_cast<double>(std::min<std::size_t>(days_per_bin, days.size() - bin * days_per_bin));  // the last bin may be short
        for (int activity = 0; activity < kRunActivities; ++activity) {
            bins[bin].activity_share[activity] += days[day].activity_share[activity] / in_bin;
        }
    }
    return bins;
}

}  // namespace core
