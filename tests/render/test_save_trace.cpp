// What the pipeline panel's "Save trace" and File > Save step trace do once the frame has asked: app::save_trace writes
// the scenario's trace atomically, says where, and leaves an existing file whole when it cannot write.
#include "app/trace_command.h"
#include "core/cost/report/evaluate.h"
#include "core/model/scenario.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

std::string read_all(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("Save trace writes the scenario's step as trace-event JSON and names the file", "[trace]") {
    const std::filesystem::path directory = std::filesystem::temp_directory_path() / "shardscope-save-trace-test";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);

    const std::string path = (directory / "step.trace.json").string();
    std::string summary;
    REQUIRE(app::save_trace(scenario, report, path, &summary).empty());
    CHECK(summary.rfind("Wrote " + path, 0) == 0);
    const nlohmann::json trace = nlohmann::json::parse(read_all(path));
    CHECK(trace["traceEvents"].size() > 100);
    CHECK(trace["otherData"]["step_seconds"].get<double>() == Approx(report.compute.modelled_step_seconds));
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

    // A directory that does not exist: an error naming the file, and the file of the same name elsewhere untouched.
    const std::string missing = (directory / "no" / "step.trace.json").string();
    const std::string error = app::save_trace(scenario, report, missing);
    CHECK(error.find("step.trace.json") != std::string::npos);
    CHECK(read_all(path).size() > 0);
    std::filesystem::remove_all(directory);
}
