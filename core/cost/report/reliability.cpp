#include "core/cost/report/reliability.h"

#include "core/model/errors.h"
#include "core/model/format.h"

#include "core/model/failures.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace core {

double cluster_mtbf_seconds(double gpu_mtbf_seconds, double gpus) { return gpu_mtbf_seconds / gpus; }

double checkpoint_seconds(double checkpoint_bytes, double bytes_per_s) { return checkpoint_bytes / bytes_per_s; }

double young_interval_seconds(double checkpoint_seconds, double mtbf_seconds) {
    return std::sqrt(2.0 * checkpoint_seconds * mtbf_seconds);
}

double daly_interval_seconds(double checkpoint_seconds, double mtbf_seconds) {
    const double delta = checkpoint_seconds;
    if (delta >= 2.0 * mtbf_seconds) return mtbf_seconds;  // checkpoints cost more than failures: checkpoint once per MTBF
    const double ratio = delta / (2.0 * mtbf_seconds);
    return std::sqrt(2.0 * delta * mtbf_seconds) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - delta;
}

namespace {

struct Shares {
    double checkpoint = 0, rework = 0, restart = 0, goodput = 0;
};

// The header's model: failures cost a restart plus half a cycle each; the rest of the time splits into work and checkpoints.
Shares shares_of(double interval, double checkpoint, double mtbf, double restart, const ReliabilityInputs* inputs = nullptr) {
    Shares shares;
    const double cycle = interval + checkpoint;
    // Unplanned interruptions lose half a cycle and the background write's lag; planned ones none.
    const double rework = inputs ? (1.0 - inputs->planned_share) * (cycle / 2.0 + inputs->durable_lag_seconds) + inputs->extra_loss_seconds
                                 : cycle / 2.0;
    const double loss_per_failure = restart + rework;
    const double lost = loss_per_failure / mtbf;
    if (lost >= 1.0) {  // a failure arrives before a cycle and a restart complete: no progress
        shares.rework = rework / loss_per_failure;
        shares.restart = restart / loss_per_failure;
        return shares;
    }
    const double working = 1.0 - lost;
    const double work_share_of_cycle = cycle > 0 ? interval / cycle : 1.0;  // free checkpoints: all of it is work
    shares.goodput = working * work_share_of_cycle;
    shares.checkpoint = working - shares.goodput;
    shares.rework = rework / mtbf;
    shares.restart = restart / mtbf;
    return shares;
}

void require(bool ok, const char* field, const std::string& reason, double value) {
    if (!ok || !std::isfinite(value)) throw InputError(std::string("reliability.") + field, reason + ", got " + format_number(value));
}

}  // namespace

double expected_goodput(double interval_seconds, double checkpoint_seconds, double mtbf_seconds, double restart_seconds) {
    return shares_of(interval_seconds, checkpoint_seconds, mtbf_seconds, restart_seconds).goodput;
}

ReliabilityReport reliability(const ReliabilityInputs& inputs) {
    require_positive("reliability.gpu_mtbf_seconds", inputs.gpu_mtbf_seconds);
    require(inputs.gpus >= 1, "gpus", "must be >= 1", inputs.gpus);
    require_non_negative("reliability.checkpoint_bytes", inputs.checkpoint_bytes);
    require_positive("reliability.checkpoint_bytes_per_s", inputs.checkpoint_bytes_per_s);
    require_non_negative("reliability.restart_seconds", inputs.restart_seconds);
    require(inputs.interval_seconds >= 0, "interval_seconds", "must be >= 0 (0 = Daly's optimum)", inputs.interval_seconds);
    require_non_negative("reliability.train_seconds", inputs.train_seconds);

    ReliabilityReport report;
    report.cluster_mtbf_seconds = cluster_mtbf_seconds(inputs.gpu_mtbf_seconds, inputs.gpus);
    report.checkpoint_bytes = inputs.checkpoint_bytes;
    report.checkpoint_seconds = inputs.checkpoint_stall_seconds >= 0 ? inputs.checkpoint_stall_seconds
                                                                      : checkpoint_seconds(inputs.checkpoint_bytes, inputs.checkpoint_bytes_per_s);
    report.young_interval_seconds = young_interval_seconds(report.checkpoint_seconds, report.cluster_mtbf_seconds);
    report.daly_interval_seconds = daly_interval_seconds(report.checkpoint_seconds, report.cluster_mtbf_seconds);
    report.interval_seconds = inputs.interval_seconds > 0 ? inputs.interval_seconds : report.daly_interval_seconds;
    // One background write at a time (DCP's async_save waits for the previous one): the interval is at least the write.
    report.interval_seconds = std::max(report.interval_seconds, inputs.durable_lag_seconds);

    const Shares shares = shares_of(report.interval_seconds, report.checkpoint_seconds, report.cluster_mtbf_seconds, inputs.restart_seconds, &inputs);
    report.checkpoint_share = shares.checkpoint;
    report.rework_share = shares.rework;
    report.restart_share = shares.restart;
    report.goodput = shares.goodput;
    report.makes_progress = shares.goodput > 0;
    if (report.makes_progress) {
        report.wall_seconds = inputs.train_seconds / shares.goodput;
        report.expected_failures = report.wall_seconds / report.cluster_mtbf_seconds;
    }
    return report;
}

FailureTable scenario_failure_table(const Scenario& scenario) {
    return scenario.operations.failures ? *scenario.operations.failures : failure_table_from_mtbf(scenario.operations.gpu_mtbf_hours);
}

double checkpoint_load_seconds(const Scenario& scenario, double checkpoint_bytes) {
    const OperationsSpec& operations = scenario.operations;
    if (operations.checkpoint_mode == CheckpointMode::in_memory) {
        return checkpoint_bytes / scenario.cluster.gpus / scenario.cluster.scale_out.bytes_per_s;  // each rank's shard from its peer
    }
    return checkpoint_bytes / operations.checkpoint_bytes_per_s;
}

ReliabilityInputs reliability_inputs(const Scenario& scenario, double checkpoint_bytes, double train_seconds) {
    const OperationsSpec& operations = scenario.operations;
    const ClusterSpec& cluster = scenario.cluster;
    ReliabilityInputs inputs;
    inputs.gpus = cluster.gpus;
    inputs.gpu_mtbf_seconds = operations.gpu_mtbf_hours * 3600.0;
    if (operations.failures) {
        const FailureTable& table = *operations.failures;
        const double per_hour = failures_per_hour(table, cluster.gpus, cluster.gpus_per_node);
        // The job's MTBF is the table's; the per-GPU figure is what gives it over this many GPUs.
        inputs.gpu_mtbf_seconds = per_hour > 0 ? cluster.gpus * 3600.0 / per_hour : 1e300;
        double planned = 0, extra = 0;
        for (const FailureCause& cause : table.causes) {
            const double share = per_hour > 0 ? failures_per_hour(table, cause, cluster.gpus, cluster.gpus_per_node) / per_hour : 0;
            if (cause.recovery == FailureRecovery::planned) planned += share;
            if (cause.recovery == FailureRecovery::rollback) extra += share * cause.detect_seconds;
            if (cause.recovery == FailureRecovery::drain) extra += share * cause.detect_seconds * cause.slowdown;
        }
        inputs.planned_share = planned;
        inputs.extra_loss_seconds = extra;
    }
    inputs.checkpoint_bytes = checkpoint_bytes;
    inputs.checkpoint_bytes_per_s = operations.checkpoint_bytes_per_s;
    const double shard_bytes = checkpoint_bytes / cluster.gpus;
    switch (operations.checkpoint_mode) {
        case CheckpointMode::sync: break;
        case CheckpointMode::async:
            inputs.checkpoint_stall_seconds = shard_bytes / operations.host_copy_bytes_per_s;
            inputs.durable_lag_seconds = checkpoint_bytes / operations.checkpoint_bytes_per_s;
            break;
        case CheckpointMode::in_memory:
            inputs.checkpoint_stall_seconds = shard_bytes / operations.host_copy_bytes_per_s;
            inputs.durable_lag_seconds = shard_bytes / cluster.scale_out.bytes_per_s;
            break;
    }
    inputs.restart_seconds = operations.restart_seconds + checkpoint_load_seconds(scenario, checkpoint_bytes);
    inputs.interval_seconds = operations.checkpoint_interval_seconds;
    inputs.train_seconds = train_seconds;
    return inputs;
}

}  // namespace core
