#include "core/cost/report/diff_report.h"

#include "core/cost/report/figure_text.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace core {
namespace {

using Json = nlohmann::ordered_json;

// ---- Inputs ----

// Every leaf of a scenario's fields by its dotted path; an object is walked, anything else (a catalog id, a number) is a leaf.
void collect_fields(const nlohmann::json& json, const std::string& path, std::map<std::string, const nlohmann::json*>& out,
                    std::vector<std::string>& order) {
    if (json.is_object()) {  // an empty section (no efficiency given) has no field
        for (auto field = json.begin(); field != json.end(); ++field) {
            collect_fields(*field, path.empty() ? field.key() : path + "." + field.key(), out, order);
        }
        return;
    }
    if (out.emplace(path, &json).second) order.push_back(path);
}

// The fields without the one at `path` ("parallel.dp"), as a file that leaves it out would read.
void erase_field(nlohmann::json& fields, const std::string& path) {
    nlohmann::json* parent = &fields;
    std::size_t start = 0;
    for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
        const std::string key = path.substr(start, dot - start);
        if (!parent->is_object() || !parent->contains(key)) return;
        parent = &(*parent)[key];
        start = dot + 1;
    }
    if (parent->is_object()) parent->erase(path.substr(start));
}

// One side's fields, and whether a file with some of them left out still reads as that side's scenario.
struct ReadBack {
    const nlohmann::json& fields;
    const Scenario& scenario;

    bool same_without(const std::vector<std::string>& paths) const {
        nlohmann::json fewer = fields;
        for (const std::string& path : paths) erase_field(fewer, path);
        try {
            Scenario read = parse_scenario(fewer.dump());
            read.serving.asked = scenario.serving.asked;  // the fields always hold a service; whether it is asked is not a field
            return read == scenario;
        } catch (const InputError&) {
            return false;
        }
    }
};

// ---- Figures ----

// What names an element of an array of objects, so a kernel is paired with the same kernel when recompute adds others.
constexpr const char* kIdentityKeys[] = {"name", "pass", "scope", "op", "stage", "phase", "layer", "microbatch"};

std::string element_identity(const Json& element) {
    if (!element.is_object()) return {};
    std::string identity;
    for (const char* key : kIdentityKeys) {
        if (!element.contains(key)) continue;
        const Json& value = element.at(key);
        identity += (identity.empty() ? "" : ",") + std::string(key) + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    }
    return identity;
}

// Each element's label within its array: its identity ("name=qkv,pass=forward"), "#2" for the second of the same
// identity, or its index where nothing names it.
std::vector<std::string> element_labels(const Json& array) {
    std::vector<std::string> labels;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < array.size(); ++i) {
        const std::string identity = element_identity(array[i]);
        if (identity.empty()) {
            labels.push_back(std::to_string(i));
            continue;
        }
        const int occurrence = ++seen[identity];
        labels.push_back(occurrence == 1 ? identity : identity + "#" + std::to_string(occurrence));
    }
    return labels;
}

// The last key of a path: "seconds" of "compute.kernels[name=qkv].seconds".
std::string_view last_key(std::string_view path) {
    const std::size_t dot = path.rfind('.');
    const std::size_t bracket = path.rfind(']');
    if (dot == std::string_view::npos || (bracket != std::string_view::npos && bracket > dot)) return path;
    return path.substr(dot + 1);
}

// A figure's unit from its key, or from an object holding it where the keys are names
// ("compute.breakdown_seconds.exposed_comm.dp"); an array's element ends the search.
FigureUnit unit_of_path(std::string_view path) {
    for (;;) {
        const std::string_view key = last_key(path);
        const FigureUnit unit = figure_unit_of_key(key);
        if (unit != FigureUnit::number || key.size() >= path.size()) return unit;
        path = path.substr(0, path.size() - key.size() - 1);
        if (path.empty() || path.back() == ']') return unit;
    }
}

struct Walker {
    DiffReport& out;

    void unpaired(const Json& json, const std::string& path, std::vector<UnpairedFigure>& list) {
        if (json.is_object()) {
            for (auto field = json.begin(); field != json.end(); ++field) unpaired(*field, path + "." + field.key(), list);
        } else if (json.is_array()) {
            const std::vector<std::string> labels = element_labels(json);
            for (std::size_t i = 0; i < json.size(); ++i) unpaired(json[i], path + "[" + labels[i] + "]", list);
        } else if (json.is_number()) {
            list.push_back({path, json.get<double>(), unit_of_path(path)});
        }
    }

    void pair(const Json& baseline, const Json& scenario, const std::string& path) {
        if (baseline.is_number() && scenario.is_number()) {
            FigureChange figure;
            figure.path = path;
            figure.baseline = baseline.get<double>();
            figure.scenario = scenario.get<double>();
            figure.unit = unit_of_path(path);
            figure.change = figure.scenario - figure.baseline;
            figure.changed = figure.scenario != figure.baseline;
            figure.relative_change = !figure.changed ? 0.0 : figure.baseline != 0 ? figure.change / std::fabs(figure.baseline) : std::nan("");
            figure.text = format_change_both(figure.baseline, figure.scenario, figure.unit);
            out.figures.push_back(std::move(figure));
            return;
        }
        if (baseline.is_boolean() && scenario.is_boolean()) {
            if (baseline != scenario) out.verdicts.push_back({path, baseline.get<bool>(), scenario.get<bool>()});
            return;
        }
        if (baseline.is_object() && scenario.is_object()) {
            for (auto field = baseline.begin(); field != baseline.end(); ++field) {
                const std::string child = path.empty() ? field.key() : path + "." + field.key();
                if (scenario.contains(field.key())) pair(*field, scenario.at(field.key()), child);
                else unpaired(*field, child, out.only_in_baseline);
            }
            for (auto field = scenario.begin(); field != scenario.end(); ++field) {
                if (!baseline.contains(field.key())) unpaired(*field, path.empty() ? field.key() : path + "." + field.key(), out.only_in_scenario);
            }
            return;
        }
        if (baseline.is_array() && scenario.is_array()) {
            const std::vector<std::string> baseline_labels = element_labels(baseline), scenario_labels = element_labels(scenario);
            std::map<std::string, std::size_t> scenario_index;
            for (std::size_t i = 0; i < scenario_labels.size(); ++i) scenario_index.emplace(scenario_labels[i], i);
            std::vector<bool> paired(scenario.size(), false);
            for (std::size_t i = 0; i < baseline.size(); ++i) {
                const std::string child = path + "[" + baseline_labels[i] + "]";
                const auto match = scenario_index.find(baseline_labels[i]);
                if (match == scenario_index.end()) {
                    unpaired(baseline[i], child, out.only_in_baseline);
                    continue;
                }
                paired[match->second] = true;
                pair(baseline[i], scenario[match->second], child);
            }
            for (std::size_t i = 0; i < scenario.size(); ++i) {
                if (!paired[i]) unpaired(scenario[i], path + "[" + scenario_labels[i] + "]", out.only_in_scenario);
            }
            return;
        }
        // Different kinds (a number beside null, as a boundary point's layer): a figure on one side only.
        unpaired(baseline, path, out.only_in_baseline);
        unpaired(scenario, path, out.only_in_scenario);
    }
};

Json parse_report(std::string_view text, const char* which) {
    Json json;
    try {
        json = Json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        throw InputError(which, std::string("is not a report's JSON: ") + error.what());
    }
    if (!json.is_object()) throw InputError(which, "is not a report's JSON object");
    return json;
}

// A leaf's JSON text back as JSON for diff --json: null where the side has no such field.
Json input_value(const std::string& text) { return text.empty() ? Json(nullptr) : Json::parse(text); }

Json number_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
    std::string row;
    for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? "," : "") + csv_field(fields[i]);
    return row + "\r\n";
}

std::string exact(double value) { return std::isfinite(value) ? Json(value).dump() : std::string(); }

}  // namespace

std::vector<InputChange> input_changes(const Scenario& baseline, const Scenario& scenario) {
    const nlohmann::json baseline_fields = scenario_fields_json(baseline), scenario_fields = scenario_fields_json(scenario);
    std::map<std::string, const nlohmann::json*> baseline_leaves, scenario_leaves;
    std::vector<std::string> order, scenario_order;
    collect_fields(baseline_fields, "", baseline_leaves, order);
    collect_fields(scenario_fields, "", scenario_leaves, scenario_order);
    for (const std::string& path : scenario_order) {
        if (!baseline_leaves.count(path)) order.push_back(path);
    }
    std::stable_sort(order.begin(), order.end());  // the file's order: section, then field (as scenario_to_json writes them)
    std::vector<InputChange> changes;
    for (const std::string& path : order) {
        const auto from = baseline_leaves.find(path), to = scenario_leaves.find(path);
        const nlohmann::json* old_value = from == baseline_leaves.end() ? nullptr : from->second;
        const nlohmann::json* new_value = to == scenario_leaves.end() ? nullptr : to->second;
        if (old_value && new_value && *old_value == *new_value) continue;
        changes.push_back({path, old_value ? old_value->dump() : std::string(), new_value ? new_value->dump() : std::string(), false});
    }
    // A field follows when the parser settles it from the others on both sides: left out, the same scenarios are read.
    // Fields that settle each other (the GPU count and DP) are taken from the end of the file, so the earlier one (the
    // cluster's GPU count) is the one set and the later one (the layout's DP) follows.
    const ReadBack baseline_read{baseline_fields, baseline}, scenario_read{scenario_fields, scenario};
    std::vector<std::string> settled;
    for (auto change = changes.rbegin(); change != changes.rend(); ++change) {
        if (change->baseline.empty() || change->scenario.empty()) continue;
        settled.push_back(change->field);
        change->follows = baseline_read.same_without(settled) && scenario_read.same_without(settled);
        if (!change->follows) settled.pop_back();
    }
    std::stable_partition(changes.begin(), changes.end(), [](const InputChange& change) { return !change.follows; });
    return changes;
}

FigureUnit figure_unit_of_key(std::string_view key) {
    const auto has = [&](std::string_view part) { return key.find(part) != std::string_view::npos; };
    const auto ends = [&](std::string_view suffix) { return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix; };
    if (ends("bytes_per_s")) return FigureUnit::bandwidth;
    if (ends("flops_per_s")) return FigureUnit::flops_rate;
    if (has("flops_per_byte") || ends("_per_s") || has("_per_s_")) return FigureUnit::number;  // a ridge point; tokens per second (per GPU)
    if (has("bytes")) return FigureUnit::bytes;
    if (has("seconds")) return FigureUnit::seconds;
    if (has("dollars")) return FigureUnit::dollars;
    if (has("flops")) return FigureUnit::flops;
    if (key == "mfu" || key == "hfu" || key == "mfu_ceiling" || key == "goodput" || key == "efficiency" || has("fraction") || has("share") ||
        has("overhead") || has("error")) {
        return FigureUnit::fraction;
    }
    if (has("params") || has("tokens")) return FigureUnit::count;
    return FigureUnit::number;
}

DiffReport diff_reports(const Scenario& baseline, std::string_view baseline_report_json, const Scenario& scenario,
                        std::string_view scenario_report_json) {
    DiffReport report;
    report.inputs = input_changes(baseline, scenario);
    const Json baseline_json = parse_report(baseline_report_json, "baseline report");
    const Json scenario_json = parse_report(scenario_report_json, "scenario report");
    Walker{report}.pair(baseline_json, scenario_json, "");
    // The changed first, the largest relative change first (from zero counts as the largest); the rest in the report's order.
    const auto magnitude = [](const FigureChange& figure) {
        return std::isnan(figure.relative_change) ? HUGE_VAL : std::fabs(figure.relative_change);
    };
    std::stable_sort(report.figures.begin(), report.figures.end(), [&](const FigureChange& a, const FigureChange& b) {
        if (a.changed != b.changed) return a.changed;
        return a.changed && magnitude(a) > magnitude(b);
    });
    report.changed_figures = static_cast<int>(std::count_if(report.figures.begin(), report.figures.end(), [](const FigureChange& f) { return f.changed; }));
    return report;
}

namespace {

// The figures a reader looks for first, in the order the sidebar shows them.
constexpr const char* kHeadlineFigures[] = {
    "compute.step_seconds", "compute.mfu",          "memory.per_gpu.peak_bytes", "memory.per_gpu.total_bytes",
    "compute.train_days",   "compute.cost_dollars", "compute.tokens_per_step",
};

// The path with every array element's label replaced by "...": the rows one array's elements fold into.
std::string folded_path(const std::string& path) {
    std::string out;
    int depth = 0;
    for (const char c : path) {
        if (c == '[' && depth++ == 0) out += "[...";
        else if (c == ']' && --depth == 0) out += ']';
        else if (depth == 0) out += c;
    }
    return out;
}

}  // namespace

DiffTable diff_table(const DiffReport& report) {
    DiffTable table;
    struct Fold {
        std::string path;
        int changed = 0, points = 0;
        const FigureChange* largest = nullptr;
    };
    std::vector<Fold> folds;
    const auto fold_of = [&](const std::string& path) -> Fold& {
        for (Fold& fold : folds) if (fold.path == path) return fold;
        folds.push_back({path});
        return folds.back();
    };
    for (const FigureChange& figure : report.figures) {
        if (figure.path.find('[') != std::string::npos) ++fold_of(folded_path(figure.path)).points;
    }
    std::vector<DiffTableRow> headline(std::size(kHeadlineFigures));
    for (int i = 0; i < report.changed_figures; ++i) {
        const FigureChange& figure = report.figures[i];
        const std::string baseline = format_in(figure.baseline, figure.unit), scenario = format_in(figure.scenario, figure.unit);
        if (baseline == scenario) {
            ++table.below_precision;
            continue;
        }
        ++table.listed;
        if (figure.path.find('[') != std::string::npos) {
            Fold& fold = fold_of(folded_path(figure.path));
            ++fold.changed;
            if (!fold.largest) fold.largest = &figure;  // the figures come largest relative change first
            continue;
        }
        const DiffTableRow row{figure.path, baseline, scenario, figure.text};
        const auto named = std::find(std::begin(kHeadlineFigures), std::end(kHeadlineFigures), figure.path);
        if (named != std::end(kHeadlineFigures)) headline[named - std::begin(kHeadlineFigures)] = row;
        else table.figures.push_back(row);
    }
    for (DiffTableRow& row : headline) {
        if (!row.figure.empty()) table.headline.push_back(std::move(row));
    }
    // Folds in the order their largest change ranks: the report's figures are sorted that way already.
    for (int i = 0; i < report.changed_figures; ++i) {
        const FigureChange& figure = report.figures[i];
        if (figure.path.find('[') == std::string::npos) continue;
        Fold& fold = fold_of(folded_path(figure.path));
        if (fold.largest != &figure) continue;
        const std::string element = figure.path.substr(figure.path.find('['), figure.path.rfind(']') - figure.path.find('[') + 1);
        table.folded.push_back({fold.path + " (" + format_grouped(fold.changed) + " of " + format_grouped(fold.points) + " changed)", "-", "-",
                                "largest at " + element + ": " + format_in(figure.baseline, figure.unit) + " -> " +
                                    format_in(figure.scenario, figure.unit) + ", " + figure.text});
    }
    return table;
}

std::string diff_to_json(const DiffReport& report, const std::string& baseline_name, const std::string& scenario_name) {
    Json json;
    json["baseline"] = baseline_name;
    json["scenario"] = scenario_name;
    json["no_change"] = report.no_change();
    Json inputs = Json::array();
    for (const InputChange& input : report.inputs) {
        inputs.push_back({{"field", input.field}, {"baseline", input_value(input.baseline)}, {"scenario", input_value(input.scenario)},
                          {"follows", input.follows}});
    }
    json["inputs"] = inputs;
    json["figures_compared"] = report.figures.size();
    json["figures_changed"] = report.changed_figures;
    Json figures = Json::array();
    for (const FigureChange& figure : report.figures) {
        figures.push_back({{"path", figure.path}, {"baseline", figure.baseline}, {"scenario", figure.scenario}, {"change", figure.change},
                           {"relative_change", number_or_null(figure.relative_change)}, {"changed", figure.changed}, {"text", figure.text}});
    }
    json["figures"] = figures;
    Json verdicts = Json::array();
    for (const VerdictChange& verdict : report.verdicts) {
        verdicts.push_back({{"path", verdict.path}, {"baseline", verdict.baseline}, {"scenario", verdict.scenario}});
    }
    json["verdicts"] = verdicts;
    for (const auto& [key, list] : {std::pair<const char*, const std::vector<UnpairedFigure>*>{"only_in_baseline", &report.only_in_baseline},
                                    {"only_in_scenario", &report.only_in_scenario}}) {
        Json entries = Json::array();
        for (const UnpairedFigure& figure : *list) entries.push_back({{"path", figure.path}, {"value", figure.value}, {"text", format_in(figure.value, figure.unit)}});
        json[key] = entries;
    }
    return json.dump(2) + "\n";
}

std::string diff_to_csv(const DiffReport& report) {
    std::string csv = csv_row({"kind", "path", "baseline", "scenario", "change", "relative_change", "text"});
    for (const InputChange& input : report.inputs) {
        csv += csv_row({input.follows ? "input_follows" : "input", input.field, input.baseline, input.scenario, "", "", ""});
    }
    for (const FigureChange& figure : report.figures) {
        csv += csv_row({figure.changed ? "figure_changed" : "figure", figure.path, exact(figure.baseline), exact(figure.scenario),
                        exact(figure.change), exact(figure.relative_change), figure.text});
    }
    for (const VerdictChange& verdict : report.verdicts) {
        csv += csv_row({"verdict", verdict.path, verdict.baseline ? "true" : "false", verdict.scenario ? "true" : "false", "", "", ""});
    }
    for (const UnpairedFigure& figure : report.only_in_baseline) csv += csv_row({"only_in_baseline", figure.path, exact(figure.value), "", "", "", ""});
    for (const UnpairedFigure& figure : report.only_in_scenario) csv += csv_row({"only_in_scenario", figure.path, "", exact(figure.value), "", "", ""});
    return csv;
}

FigureComparison compare_figure(const std::string& label, double baseline, double scenario, FigureUnit unit) {
    FigureComparison figure;
    figure.label = label;
    figure.baseline_value = format_in(baseline, unit);
    figure.value = format_in(scenario, unit);
    figure.change = format_change_both(baseline, scenario, unit);
    figure.direction = scenario > baseline ? 1 : scenario < baseline ? -1 : 0;
    figure.against = figure.direction == 0 ? figure.baseline_value + ", as the baseline" : figure.change + " against " + figure.baseline_value;
    figure.baseline_number = baseline;
    figure.number = scenario;
    figure.unit = unit;
    return figure;
}

std::vector<KernelMove> kernel_moves(const Report& baseline, const Report& report) {
    const std::vector<KernelPoint> before = kernel_points(baseline), after = kernel_points(report);
    const std::vector<Kernel>& old_kernels = baseline.compute.kernels;
    const std::vector<Kernel>& kernels = report.compute.kernels;
    std::vector<KernelMove> moves;
    for (const KernelPoint& point : after) {
        const Kernel& kernel = kernels[point.kernel];
        const int partner = find_kernel(old_kernels, kernel.id, kernel.pass, kernel.scope, kernel_occurrence(kernels, point.kernel));
        if (partner < 0) continue;
        const auto old_point = std::find_if(before.begin(), before.end(), [&](const KernelPoint& other) { return other.kernel == partner; });
        if (old_point != before.end()) moves.push_back({*old_point, point});
    }
    return moves;
}

Comparison compare_scenarios(const Scenario& baseline, const Report& baseline_report, const Scenario& scenario, const Report& report) {
    Comparison comparison;
    comparison.inputs = input_changes(baseline, scenario);
    for (const InputChange& input : comparison.inputs) {
        comparison.inputs_text += (comparison.inputs_text.empty() ? "" : ", ") + input.field + " " + (input.baseline.empty() ? "(none)" : input.baseline) +
                                  " -> " + (input.scenario.empty() ? "(none)" : input.scenario) + (input.follows ? " (follows)" : "");
    }
    if (comparison.inputs_text.empty()) comparison.inputs_text = "no input differs";
    // The labels every panel gives these figures (core/cost/report/figure_text.h).
    const FigureTexts words = figure_texts(scenario, report);
    const auto compare = [](const FigureText& text, double from, double to, FigureUnit unit) { return compare_figure(text.label, from, to, unit); };
    const MemoryReport& old_memory = baseline_report.memory;
    const MemoryReport& memory = report.memory;
    comparison.peak_memory = compare(words.peak_memory, old_memory.per_gpu.peak_bytes, memory.per_gpu.peak_bytes, FigureUnit::bytes);
    comparison.state_memory = compare(words.training_state, old_memory.state_bytes, memory.state_bytes, FigureUnit::bytes);
    comparison.activations = compare_figure("Activations per GPU", old_memory.per_gpu.activations_bytes, memory.per_gpu.activations_bytes, FigureUnit::bytes);
    const ComputeReport& old_compute = baseline_report.compute;
    const ComputeReport& compute = report.compute;
    comparison.step_time = compare(words.step_time, old_compute.step_seconds, compute.step_seconds, FigureUnit::seconds);
    comparison.compute_time = compare(words.compute_time, old_compute.compute_seconds, compute.compute_seconds, FigureUnit::seconds);
    comparison.bubble_time = compare(words.bubble_time, old_compute.bubble_seconds, compute.bubble_seconds, FigureUnit::seconds);
    comparison.exposed_comm_time = compare(words.exposed_comm_time, old_compute.exposed_comm_seconds, compute.exposed_comm_seconds, FigureUnit::seconds);
    comparison.mfu = compare(words.mfu, old_compute.mfu, compute.mfu, FigureUnit::fraction);
    comparison.time_to_train = compare(words.time_to_train, old_compute.train_seconds, compute.train_seconds, FigureUnit::seconds);
    comparison.training_cost = compare(words.training_cost, old_compute.cost_dollars, compute.cost_dollars, FigureUnit::dollars);
    comparison.goodput = compare(words.goodput, baseline_report.reliability.goodput, report.reliability.goodput, FigureUnit::fraction);
    const auto joined = [](std::initializer_list<const FigureComparison*> figures) {
        std::string text;
        for (const FigureComparison* figure : figures) text += (text.empty() ? "" : "; ") + figure->label + " " + figure->change;
        return text;
    };
    comparison.headline = "Against the baseline: " + joined({&comparison.peak_memory, &comparison.step_time, &comparison.mfu});
    comparison.step_text = joined({&comparison.step_time, &comparison.mfu, &comparison.time_to_train, &comparison.training_cost});
    comparison.run_text = joined({&comparison.goodput, &comparison.time_to_train});

    // Each axis's time per step: compared where both have it, on one side only said so.
    for (CommAxis axis : {CommAxis::tp, CommAxis::cp, CommAxis::pp, CommAxis::dp, CommAxis::ep}) {
        const auto find = [axis](const Report& side) -> const AxisComm* {
            for (const AxisComm& comm : side.comm.axes) {
                if (comm.axis == axis) return &comm;
            }
            return nullptr;
        };
        const AxisComm* before = find(baseline_report);
        const AxisComm* after = find(report);
        if (!before && !after) continue;
        std::string name = comm_axis_name(axis);
        for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        std::string text = name + " ";
        if (before && after) text += compare_figure(name, before->seconds, after->seconds, FigureUnit::seconds).change;
        else if (after) text += format_seconds(after->seconds) + " per step, new";
        else text += "none (" + format_seconds(before->seconds) + " per step in the baseline)";
        comparison.comm_text += (comparison.comm_text.empty() ? "" : "; ") + text;
    }
    const ServingReport& old_serving = baseline_report.serving;
    const ServingReport& serving = report.serving;
    const bool both_meet = old_serving.answer.verdict == ServingVerdict::meets && serving.answer.verdict == ServingVerdict::meets;
    std::vector<FigureComparison> serving_figures;
    if (both_meet) {
        serving_figures.push_back(compare_figure("Serving GPUs", old_serving.answer.gpus, serving.answer.gpus, FigureUnit::number));
        serving_figures.push_back(compare_figure("Cost per million tokens", old_serving.answer.dollars_per_million_tokens,
                                                 serving.answer.dollars_per_million_tokens, FigureUnit::dollars));
    }
    serving_figures.push_back(compare_figure("Decode step", old_serving.decode_step_seconds, serving.decode_step_seconds, FigureUnit::seconds));
    serving_figures.push_back(compare_figure("Prefill", old_serving.prefill_seconds, serving.prefill_seconds, FigureUnit::seconds));
    for (const FigureComparison& figure : serving_figures) {
        comparison.serving_text += (comparison.serving_text.empty() ? "" : "; ") + figure.label + " " + figure.change;
    }
    if (!both_meet) comparison.serving_text += "; no GPU count to compare: a service is unmet on one side";
    if (baseline_report.moe.has_experts && report.moe.has_experts) {
        const MoeReport& old_moe = baseline_report.moe;
        const MoeReport& moe = report.moe;
        const FigureComparison dispatch = compare_figure("Dispatch per layer", old_moe.dispatch_bytes_per_layer, moe.dispatch_bytes_per_layer, FigureUnit::bytes);
        const FigureComparison forward = compare_figure("All-to-all forward per layer", old_moe.all_to_all_forward_seconds_per_layer,
                                                        moe.all_to_all_forward_seconds_per_layer, FigureUnit::seconds);
        const FigureComparison exposed = compare_figure("exposed", old_moe.all_to_all_exposed_seconds_per_layer,
                                                        moe.all_to_all_exposed_seconds_per_layer, FigureUnit::seconds);
        comparison.moe_text = joined({&dispatch, &forward, &exposed});
    } else {
        comparison.moe_text = std::string("no all-to-all to compare: ") +
                              (baseline_report.moe.has_experts ? "the scenario has no experts"
                               : report.moe.has_experts        ? "the baseline has no experts"
                                                               : "neither has experts");
    }
    return comparison;
}

}  // namespace core
