#include "core/cost/report/expected_error.h"

#include "core/model/embedded_assets.h"
#include "core/model/framework_recipe.h"
#include "core/model/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace core {

namespace {

const nlohmann::json& table() {
    static const nlohmann::json parsed = [] {
        const std::string_view text = embedded_asset("expected_error.json");
        return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
    }();
    return parsed;
}

// The table's section by name, or an empty object: found in place (json::value would copy the whole section per call).
const nlohmann::json& section(const char* name) {
    static const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json& root = table();
    if (!root.is_object()) return empty;
    const auto found = root.find(name);
    return found != root.end() && found->is_object() ? *found : empty;
}

}  // namespace

const char* gpu_generation(std::string_view id) {
    if (id.rfind("a100", 0) == 0 || id == "rtx-3090" || id == "a10g") return "Ampere";
    if (id == "rtx-4090" || id == "l4" || id == "l40s") return "Ada";
    if (id.rfind("h100", 0) == 0 || id.rfind("h200", 0) == 0 || id.rfind("h800", 0) == 0) return "Hopper";
    if (id.rfind("b200", 0) == 0 || id.rfind("gb", 0) == 0) return "Blackwell";
    if (id.rfind("mi300", 0) == 0) return "CDNA 3";
    return "other";
}

Regime regime_of(const Scenario& scenario) {
    Regime regime;
    regime.framework = framework_name(scenario.train.framework);
    regime.generation = gpu_generation(scenario.cluster.gpu.id);
    const int gpus = scenario.cluster.gpus;
    regime.scale = gpus == 1 ? "1 GPU" : gpus <= scenario.cluster.gpus_per_node ? "1 node" : gpus <= 256 ? "up to 256 GPUs" : "over 256 GPUs";
    return regime;
}

ExpectedError expected_error(const Scenario& scenario) {
    ExpectedError error;
    error.regime = regime_of(scenario).name();
    const nlohmann::json& regimes = section("regimes");
    const auto found = regimes.find(error.regime);
    if (found == regimes.end()) return error;
    const nlohmann::json& entry = *found;
    error.validated = true;
    error.runs = entry.value("runs", 0);
    error.mean_abs_error = entry.value("mean_abs_error", 0.0);
    error.signed_mean_error = entry.value("signed_mean_error", 0.0);
    return error;
}

std::string mfu_ceiling_key(const Scenario& scenario, bool fp8_gemms) {
    const bool compiled = scenario.train.compile && framework_recipe_of(scenario).describes_compile;
    return std::string(framework_name(scenario.train.framework)) + " / " + scenario.cluster.gpu.id + (fp8_gemms ? " / fp8" : "") +
           (compiled ? " / compile" : "");
}

MfuCeiling mfu_ceiling(const Scenario& scenario, bool fp8_gemms) {
    MfuCeiling ceiling;
    const nlohmann::json& ceilings = section("mfu_ceilings");
    const auto found = ceilings.find(mfu_ceiling_key(scenario, fp8_gemms));
    if (found == ceilings.end()) return ceiling;
    ceiling.mfu = found->value("mfu", 0.0);
    ceiling.run = found->value("run", std::string());
    return ceiling;
}

double step_within_ceiling_seconds(double modelled_step_seconds, double model_flops_per_step, double peak_flops_per_s_all_gpus,
                                   double ceiling_mfu) {
    if (ceiling_mfu <= 0 || peak_flops_per_s_all_gpus <= 0) return modelled_step_seconds;
    return std::max(modelled_step_seconds, model_flops_per_step / (peak_flops_per_s_all_gpus * ceiling_mfu));
}

}  // namespace core
