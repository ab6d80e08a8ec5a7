#include "core/cost/report/reliability.h"

#include "core/model/errors.h"
#include "core/model/format.h"

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
Shares shares_of(double interval, double checkpoint, double mtbf, double restart) {
    Shares shares;
    const double cycle = interval + checkpoint;
    const double loss_per_failure = restart + cycle / 2.0;
    const double lost = loss_per_failure / mtbf;
    if (lost >= 1.0) {  // a failure arrives before a cycle and a restart complete: no progress
        shares.rework = (cycle / 2.0) / loss_per_failure;
        shares.restart = restart / loss_per_failure;
        return shares;
    }
    const double working = 1.0 - lost;
    const double work_share_of_cycle = cycle > 0 ? interval / cycle : 1.0;  // free checkpoints: all of it is work
    shares.goodput = working * work_share_of_cycle;
    shares.checkpoint = working - shares.goodput;
    shares.rework = (cycle / 2.0) / mtbf;
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
    report.checkpoint_seconds = checkpoint_seconds(inputs.checkpoint_bytes, inputs.checkpoint_bytes_per_s);
    report.young_interval_seconds = young_interval_seconds(report.checkpoint_seconds, report.cluster_mtbf_seconds);
    report.daly_interval_seconds = daly_interval_seconds(report.checkpoint_seconds, report.cluster_mtbf_seconds);
    report.interval_seconds = inputs.interval_seconds > 0 ? inputs.interval_seconds : report.daly_interval_seconds;

    const Shares shares = shares_of(report.interval_seconds, report.checkpoint_seconds, report.cluster_mtbf_seconds, inputs.restart_seconds);
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

}  // namespace core
