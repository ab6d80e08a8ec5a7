#include "fuzz/checks.h"

#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/report_json.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fuzz {

std::vector<std::string> names_in(const core::Scenario& scenario) {
    return {scenario.model.name, scenario.cluster.gpu.name, scenario.cluster.scale_up.name, scenario.cluster.scale_out.name,
            scenario.precision.name};
}

// A plain scan: std::regex is slow in the sanitizer build.
bool spells_non_finite(std::string text, const std::vector<std::string>& names) {
    for (const std::string& name : names) {
        if (name.empty()) continue;
        for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at)) text.erase(at, name.size());
    }
    const auto is_letter = [&](std::size_t at) { return at < text.size() && std::isalpha(static_cast<unsigned char>(text[at])); };
    for (const char* word : {"nan", "inf"}) {
        for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
            if ((at == 0 || !is_letter(at - 1)) && !is_letter(at + 3)) return true;
        }
    }
    return false;
}

namespace {

// Every number finite (nlohmann writes NaN and infinity as null) and no string spelling one out.
std::optional<std::string> non_finite_in_json(const nlohmann::json& value, const std::string& path, const std::vector<std::string>& names) {
    // memory.timeline's points name no layer at a phase boundary: null there is a value, not NaN.
    const bool boundary_layer = path.size() > 6 && path.compare(path.size() - 6, 6, ".layer") == 0 && path.find(".timeline") != std::string::npos;
    if (value.is_null() && !boundary_layer) return path + " is null (NaN or infinity in the Report)";
    if (value.is_number_float() && !std::isfinite(value.get<double>())) return path + " is not finite";
    if (value.is_string() && spells_non_finite(value.get<std::string>(), names)) return path + " spells NaN or infinity: " + value.get<std::string>();
    if (value.is_object()) {
        for (auto item = value.begin(); item != value.end(); ++item) {
            if (auto problem = non_finite_in_json(item.value(), path + "." + item.key(), names)) return problem;
        }
    }
    if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (auto problem = non_finite_in_json(value[i], path + "[" + std::to_string(i) + "]", names)) return problem;
        }
    }
    return std::nullopt;
}

// The figures report_to_json leaves out but the panels draw: memory blocks, every formula explain() writes, the timeline.
std::optional<std::string> non_finite_in_panel_figures(const core::Scenario& scenario, const core::Report& report, const std::vector<std::string>& names) {
    const core::ReportText text = core::explain(scenario, report);
    for (std::size_t i = 0; i < report.memory.blocks.size(); ++i) {
        const core::MemoryBlock& block = report.memory.blocks[i];
        if (!std::isfinite(block.whole_bytes) || !std::isfinite(block.per_gpu_bytes)) return "memory block " + text.block_labels[i] + " is not finite";
        if (spells_non_finite(text.block_whole[i].formula + " " + text.block_per_gpu[i].formula, names)) return "memory block formula: " + text.block_per_gpu[i].formula;
    }
    for (const core::Explanation& formula : text.axis_formulas) {
        if (spells_non_finite(formula.formula, names)) return "comm formula: " + formula.formula;
    }
    for (const core::Explanation& kernel : text.kernels) {
        if (spells_non_finite(kernel.formula, names)) return "kernel formula: " + kernel.formula;
    }
    for (const core::TimelineOp& op : report.compute.layer_timeline) {
        if (!std::isfinite(op.start_seconds) || !std::isfinite(op.duration_seconds)) return "layer timeline op is not finite";
    }
    if (!std::isfinite(report.memory.headroom_bytes) || !std::isfinite(report.memory.per_gpu_over_hbm)) return "memory headroom is not finite";
    if (spells_non_finite(text.activations.formula, names)) return "activation formula: " + text.activations.formula;
    return std::nullopt;
}

}  // namespace

namespace {

struct ScratchDirectory {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("shardscope-fuzz-" + std::to_string(::getpid()));
    ScratchDirectory() { std::filesystem::create_directories(path); }
    ~ScratchDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

}  // namespace

std::string scratch_file(const std::string& name, std::string_view bytes) {
    static const ScratchDirectory directory;
    const std::filesystem::path path = directory.path / name;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file) throw std::runtime_error("fuzz: cannot write the scratch file " + path.string());
    return path.string();
}

std::optional<std::string> report_problem(const core::Scenario& scenario, const core::Report& report) {
    const std::string report_json = core::report_to_json(scenario, report);
    const std::vector<std::string> names = names_in(scenario);
    if (auto problem = non_finite_in_json(nlohmann::json::parse(report_json), "report", names)) return problem;
    if (auto problem = non_finite_in_panel_figures(scenario, report, names)) return problem;
    // The app re-reads what it saves: the written scenario must be accepted and evaluate to the same Report.
    const std::string written = core::scenario_to_json(scenario);
    try {
        const core::Scenario reread = core::parse_scenario(written);
        if (core::report_to_json(reread, core::evaluate(reread)) != report_json) return "scenario_to_json round trip changes the Report";
    } catch (const core::InputError& error) {
        return std::string("scenario_to_json wrote a scenario parse_scenario refuses: ") + error.what() + "\nwritten: " + written;
    }
    return std::nullopt;
}

}  // namespace fuzz
