#include "core/model/failures.h"

#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/json_reader.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace core {
namespace {

struct Named {
    const char* name;
    int value;
};
constexpr Named kComponents[] = {{"gpu", int(FailureComponent::gpu)},          {"hbm", int(FailureComponent::hbm)},
                                 {"interconnect", int(FailureComponent::interconnect)}, {"host", int(FailureComponent::host)},
                                 {"software", int(FailureComponent::software)}, {"network_switch", int(FailureComponent::network_switch)},
                                 {"storage", int(FailureComponent::storage)},   {"maintenance", int(FailureComponent::maintenance)}};
constexpr Named kRecoveries[] = {{"restart", int(FailureRecovery::restart)},   {"replace", int(FailureRecovery::replace)},
                                 {"planned", int(FailureRecovery::planned)},   {"rollback", int(FailureRecovery::rollback)},
                                 {"drain", int(FailureRecovery::drain)}};
constexpr Named kUnits[] = {{"gpu", int(FailureUnit::gpu)}, {"node", int(FailureUnit::node)}, {"job", int(FailureUnit::job)}};

template <std::size_t N>
const char* name_of(const Named (&names)[N], int value) {
    for (const Named& named : names) {
        if (named.value == value) return named.name;
    }
    return "?";
}

template <std::size_t N>
std::string names_list(const Named (&names)[N]) {
    std::string list;
    for (const Named& named : names) list += (list.empty() ? "" : ", ") + std::string(named.name);
    return list;
}

template <std::size_t N>
int value_of(const Named (&names)[N], const std::string& name, const std::string& field) {
    for (const Named& named : names) {
        if (name == named.name) return named.value;
    }
    throw InputError(field, must_be_one_of(names_list(names), name));
}

FailureCause read_cause(const nlohmann::json& object, const std::string& path, double window_seconds) {
    JsonObjectReader reader(object, path);
    FailureCause cause;
    cause.name = reader.string("name").value_or("");
    if (cause.name.empty()) throw InputError(reader.field("name"), "is missing: every cause says what failed");
    const std::string component = reader.string("component").value_or("");
    cause.component = FailureComponent(value_of(kComponents, component, reader.field("component")));
    cause.count = reader.number("count", 0, 1e9).value_or(0);
    cause.unit = FailureUnit(value_of(kUnits, reader.string("unit").value_or("gpu"), reader.field("unit")));
    cause.recovery = FailureRecovery(value_of(kRecoveries, reader.string("recovery").value_or("restart"), reader.field("recovery")));
    cause.detect_seconds = reader.number("detect_seconds", 0, 1e12).value_or(0);
    // A fault caught only after the whole observed window was never caught in it.
    if (cause.detect_seconds > window_seconds) {
        throw InputError(reader.field("detect_seconds"), "a recovery of " + format_seconds(cause.detect_seconds) +
                                                             " is longer than the observed window of " + format_seconds(window_seconds));
    }
    cause.slowdown = reader.number("slowdown", 0, 1).value_or(0);
    cause.note = reader.string("note").value_or("");
    reader.reject_unknown_keys();
    return cause;
}

}  // namespace

const char* failure_component_name(FailureComponent component) { return name_of(kComponents, int(component)); }
const char* failure_recovery_name(FailureRecovery recovery) { return name_of(kRecoveries, int(recovery)); }
const char* failure_unit_name(FailureUnit unit) { return name_of(kUnits, int(unit)); }

double failures_per_hour(const FailureTable& table, const FailureCause& cause, int gpus, int gpus_per_node) {
    const double per_window_hour = cause.count / (table.observed_days * 24.0);
    switch (cause.unit) {
        case FailureUnit::gpu: return per_window_hour * gpus / table.observed_gpus;
        case FailureUnit::node: {
            const double observed_nodes = std::ceil(double(table.observed_gpus) / table.observed_gpus_per_node);
            return per_window_hour * std::ceil(double(gpus) / gpus_per_node) / observed_nodes;
        }
        case FailureUnit::job: return per_window_hour;
    }
    return 0;
}

double failures_per_hour(const FailureTable& table, int gpus, int gpus_per_node) {
    double total = 0;
    for (const FailureCause& cause : table.causes) total += failures_per_hour(table, cause, gpus, gpus_per_node);
    return total;
}

FailureTable parse_failure_table(const nlohmann::json& object, const std::string& path) {
    if (!object.is_object()) throw InputError(path, "must be a failure table object");
    JsonObjectReader reader(object, path);
    FailureTable table;
    table.id = reader.string("id").value_or("custom");
    table.name = reader.string("name").value_or(table.id);
    table.source = reader.string("source").value_or("");
    table.observed_days = reader.number("observed_days", 1e-3, 1e5).value_or(table.observed_days);
    table.observed_gpus = static_cast<int>(reader.integer("observed_gpus", 1, 100000000).value_or(table.observed_gpus));
    table.observed_gpus_per_node = static_cast<int>(reader.integer("observed_gpus_per_node", 1, 4096).value_or(table.observed_gpus_per_node));
    if (!reader.has("causes")) throw InputError(reader.field("causes"), "is missing: a table lists what fails");
    const nlohmann::json& causes = reader.raw("causes");
    if (!causes.is_array() || causes.empty()) throw InputError(reader.field("causes"), "must be a non-empty array of causes");
    for (std::size_t i = 0; i < causes.size(); ++i) {
        table.causes.push_back(read_cause(causes[i], reader.field("causes") + "[" + std::to_string(i) + "]", table.observed_days * 86400.0));
    }
    reader.reject_unknown_keys();
    return table;
}

FailureTable parse_failure_table_text(std::string_view text, const std::string& what) {
    return parse_failure_table(parse_json_text(text, what), what);
}

nlohmann::json failure_table_json(const FailureTable& table) {
    nlohmann::json json = {{"id", table.id}, {"name", table.name}, {"source", table.source}, {"observed_days", table.observed_days},
                           {"observed_gpus", table.observed_gpus}, {"observed_gpus_per_node", table.observed_gpus_per_node}};
    json["causes"] = nlohmann::json::array();
    for (const FailureCause& cause : table.causes) {
        nlohmann::json entry = {{"name", cause.name}, {"component", failure_component_name(cause.component)}, {"count", cause.count},
                                {"unit", failure_unit_name(cause.unit)}, {"recovery", failure_recovery_name(cause.recovery)}};
        if (cause.detect_seconds > 0) entry["detect_seconds"] = cause.detect_seconds;
        if (cause.slowdown > 0) entry["slowdown"] = cause.slowdown;
        if (!cause.note.empty()) entry["note"] = cause.note;
        json["causes"].push_back(entry);
    }
    return json;
}

const std::vector<FailureTable>& builtin_failure_tables() {
    static const std::vector<FailureTable> tables = [] {
        const nlohmann::json root = parse_json_text(embedded_asset("failures.json"), "failures");
        JsonObjectReader reader(root, "failures");
        std::vector<FailureTable> out;
        const nlohmann::json& list = reader.raw("tables");
        for (std::size_t i = 0; i < list.size(); ++i) out.push_back(parse_failure_table(list[i], "failures.tables[" + std::to_string(i) + "]"));
        reader.reject_unknown_keys();
        return out;
    }();
    return tables;
}

const FailureTable* find_failure_table(std::string_view id) {
    for (const FailureTable& table : builtin_failure_tables()) {
        if (table.id == id) return &table;
    }
    return nullptr;
}

FailureTable failure_table_from_mtbf(double gpu_mtbf_hours) {
    FailureTable table;
    table.id = "gpu-mtbf";
    table.name = "Every GPU alone, " + format_grouped(gpu_mtbf_hours) + " h MTBF each";
    table.source = "The scenario's mean time between failures of one GPU (operations.gpu_mtbf_hours); the job restarts after any of them";
    table.observed_days = gpu_mtbf_hours / 24.0;  // one failure per GPU over one MTBF
    table.observed_gpus = 1;
    table.causes.push_back({"Any GPU failure", FailureComponent::gpu, 1.0, FailureUnit::gpu, FailureRecovery::restart, 0, 0, ""});
    return table;
}

}  // namespace core
