#pragma once
// What breaks in a training cluster, how often and how the job recovers: a failure table per component, read from
// published interruption counts over an observed window (assets/failures.json) or from a scenario's own object.
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace core {

// The part that failed; the names a table may use.
enum class FailureComponent { gpu, hbm, interconnect, host, software, network_switch, storage, maintenance };
// What the job does about it.
enum class FailureRecovery {
    restart,   // restart the job on the same nodes from its last checkpoint
    replace,   // a node is swapped out: a spare (or the building's free pool) takes its place, then restart
    planned,   // planned maintenance: the job checkpoints first, so no work is lost, then restarts
    rollback,  // silent data corruption: caught detect_seconds after it began, roll back to a checkpoint before it
    drain,     // a slow host: the job runs slowdown slower for detect_seconds, then the host is replaced
};
// What the count scales with when the cluster differs from the observed one.
enum class FailureUnit { gpu, node, job };

struct FailureCause {
    std::string name;                   // "Faulty GPU", as the source names it
    FailureComponent component = FailureComponent::gpu;
    double count = 0;                   // interruptions observed over the table's window
    FailureUnit unit = FailureUnit::gpu;
    FailureRecovery recovery = FailureRecovery::restart;
    double detect_seconds = 0;          // rollback and drain: how long the fault runs before it is caught
    double slowdown = 0;                // drain: the share of the step a slow host costs while undetected
    std::string note;                   // where a figure beside the count comes from
    bool operator==(const FailureCause&) const = default;
};

struct FailureTable {
    std::string id = "custom";
    std::string name;
    std::string source;
    double observed_days = 1;           // the window the counts were observed over
    int observed_gpus = 1;              // the GPUs of the job observed
    int observed_gpus_per_node = 8;
    std::vector<FailureCause> causes;
    bool operator==(const FailureTable&) const = default;
};

const char* failure_component_name(FailureComponent);
const char* failure_recovery_name(FailureRecovery);
const char* failure_unit_name(FailureUnit);

// Interruptions per hour of wall time this cause gives a job of `gpus` GPUs in nodes of `gpus_per_node`: the
// observed count over the window, scaled by the GPUs (or nodes) held. Kokolis et al. 2024 (Meta's RSC clusters) find a
// job's failure rate grows in proportion to the GPUs it holds, which is what a per-GPU count assumes.
double failures_per_hour(const FailureTable&, const FailureCause&, int gpus, int gpus_per_node);
// Every cause together: 1 / the job's mean time between interruptions, per hour.
double failures_per_hour(const FailureTable&, int gpus, int gpus_per_node);

// A table as JSON: refused naming the field (path.causes[2].count) for a negative count, an unknown component or
// recovery, or a detection longer than the observed window.
FailureTable parse_failure_table(const nlohmann::json& object, const std::string& path);
// A failure table file (`shardscope run --failures FILE`); errors name `what` and the field.
FailureTable parse_failure_table_text(std::string_view text, const std::string& what);
nlohmann::json failure_table_json(const FailureTable&);

// assets/failures.json: published tables, by id.
const std::vector<FailureTable>& builtin_failure_tables();
const FailureTable* find_failure_table(std::string_view id);
// The table a scenario without one gets: every GPU fails on its own at 1 / gpu_mtbf_hours and the job restarts.
FailureTable failure_table_from_mtbf(double gpu_mtbf_hours);

}  // namespace core
