#include "app/trace_command.h"

#include "app/files.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/trace.h"
#include "core/model/format.h"

#include <cstdio>
#include <exception>

namespace app {
namespace {

std::string describe(const core::StepTrace& trace, const std::string& path) {
    const char* unit = trace.detail == core::TraceDetail::kernels ? "kernel" : trace.detail == core::TraceDetail::layers ? "layer pass" : "pipeline op";
    return "Wrote " + path + ": " + std::to_string(trace.stage_names.size()) + (trace.stage_names.size() == 1 ? " stage, " : " stages, ") +
           std::to_string(trace.slices.size()) + " slices (compute: one per " + unit + "), step " + core::format_seconds(trace.step_seconds) +
           ". Open it in Perfetto (ui.perfetto.dev) or chrome://tracing.";
}

}  // namespace

std::string save_trace(const core::Scenario& scenario, const core::Report& report, const std::string& path, std::string* summary) {
    try {
        const core::StepTrace trace = core::step_trace(scenario, report);
        const std::string json = core::trace_to_json(scenario, report, trace);
        write_file_atomic(path, json.data(), json.size());
        if (summary) *summary = describe(trace, path);
    } catch (const std::exception& error) {
        return error.what();
    }
    return {};
}

int run_trace(const core::Scenario& scenario, const std::string& out_path) {
    const core::Report report = core::evaluate(scenario);
    const core::StepTrace trace = core::step_trace(scenario, report);  // InputError: the caller exits with 2
    const std::string json = core::trace_to_json(scenario, report, trace);
    if (out_path.empty()) {
        std::fwrite(json.data(), 1, json.size(), stdout);
        return 0;
    }
    try {
        write_file_atomic(out_path, json.data(), json.size());
    } catch (const std::exception& error) {
        std::fprintf(stderr, "shardscope: --out: %s\n", error.what());
        return 1;
    }
    std::printf("%s\n", describe(trace, out_path).c_str());
    return 0;
}

}  // namespace app
