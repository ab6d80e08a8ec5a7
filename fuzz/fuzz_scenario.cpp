// libFuzzer target (clang -fsanitize=fuzzer): the scenario parser and evaluate() on arbitrary bytes. Anything but
// core::InputError escaping, a crash, or a NaN / infinity in the Report aborts, and libFuzzer keeps the input.
// Run: fuzz_scenario -max_total_time=60 NEW_DIR tests/fuzz assets/scenarios (libFuzzer writes what it finds into the first
// directory: keep that one outside the repository; a failing input goes into tests/fuzz/ by hand, with its regression test).
// An input may carry a Hugging Face config after a line "---": that is what "model.hf_config" loads.
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/report_json.h"
#include "core/model/scenario_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string hf_config_text;
std::string load_hf_config(const std::string&) { return hf_config_text; }

// nlohmann writes NaN and infinity as null: a null anywhere in report_to_json is a non-finite figure.
bool all_finite(const nlohmann::json& value) {
    if (value.is_null()) return false;
    if (value.is_number_float()) return std::isfinite(value.get<double>());
    if (value.is_structured()) {
        for (const nlohmann::json& item : value) if (!all_finite(item)) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t separator = input.find("\n---\n");
    const std::string scenario_text = input.substr(0, separator);
    hf_config_text = separator == std::string::npos ? "{}" : input.substr(separator + 5);
    try {
        const core::Report report = core::evaluate(core::parse_scenario(scenario_text, load_hf_config));
        if (!all_finite(nlohmann::json::parse(core::report_to_json(report)))) {
            std::fprintf(stderr, "non-finite figure in the Report\n");
            std::abort();
        }
    } catch (const core::InputError&) {
        // refused with the field named: what invalid input should get
    } catch (const std::exception& error) {
        std::fprintf(stderr, "threw something other than core::InputError: %s\n", error.what());
        std::abort();
    }
    return 0;
}
