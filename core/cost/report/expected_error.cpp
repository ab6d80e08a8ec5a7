#include "core/cost/report/expected_error.h"

#include "core/model/embedded_assets.h"
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
    const nlohmann::json& regimes = table().value("regimes", nlohmann::json::object());
    if (!regimes.is_object() || !regimes.contains(error.regime)) return error;
    const nlohmann::json& entry = regimes[error.regime];
    error.validated = true;
    error.runs = entry.value("runs", 0);
    error.mean_abs_error = entry.value("mean_abs_error", 0.0);
    error.signed_mean_error = entry.value("signed_mean_error", 0.0);
    return error;
}

MfuCeiling mfu_ceiling(const Scenario& scenario, bool fp8_gemms) {
    MfuCeiling ceiling;
    const std::string key = std::string(framework_name(scenario.train.framework)) + " / " + scenario.cluster.gpu.id + (fp8_gemms ? " / fp8" : "");
    const nlohmann::json& ceilings = table().value("mfu_ceilings", nlohmann::json::object());
    if (!ceilings.is_object() || !ceilings.contains(key)) return ceiling;
    ceiling.mfu = ceilings[key].value("mfu", 0.0);
    ceiling.run = ceilings[key].value("run", std::string());
    return ceiling;
}

double step_within_ceiling_seconds(double modelled_step_seconds, double model_flops_per_step, double peak_flops_per_s_all_gpus,
                                   double ceiling_mfu) {
    if (ceiling_mfu <= 0 || peak_flops_per_s_all_gpus <= 0) return modelled_step_seconds;
    return std::max(modelled_step_seconds, model_flops_per_step / (peak_flops_per_s_all_gpus * ceiling_mfu));
}

}  // namespace core
