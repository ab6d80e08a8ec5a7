// torch.compile on the Hugging Face Llama recipe: each decoder layer compiled (layer.compile(), as torchtitan and torchtune
// compile their blocks), Inductor's fused norm, RoPE and SwiGLU kernels in place of the eager ops, against the compiled
// step measured on one H200 (measurements/h200_hf_host_probe.json "compiled"); the first step's compile time.
#include "core/cost/report/budget.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/figure_text.h"
#include "core/model/errors.h"
#include "core/model/framework_recipe.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

namespace {

nlohmann::json compiled_measurement() {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/measurements/h200_hf_host_probe.json");
    REQUIRE(file.good());
    const nlohmann::json rows = nlohmann::json::parse(file)["sections"]["compiled"];
    REQUIRE(rows.size() == 1);
    return rows[0];
}

core::Scenario llama_1b(bool compile, const std::string& framework = "hf-transformers") {
    return core::parse_scenario(R"({"model": {"preset": "llama3.2-1b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1, "gpus_per_node": 1},
        "train": {"framework": ")" + framework + R"(", "seq_len": 2048, "micro_batch": 4, "global_batch": 4, "compile": )" +
                                (compile ? "true" : "false") + R"(}, "precision": {"recipe": "bf16-pure-adamw"}})");
}

}  // namespace

TEST_CASE("h200_hf_host_probe.json compiled: Llama 3.2 1B, bf16, 4 x 2,048, each layer compiled: step within 10 % (131 ms "
          "measured), both peaks within 5 % (30.1 and 31.8 GB), the peak below the eager one", "[compile][measured]") {
    const nlohmann::json measured = compiled_measurement();
    const core::Report compiled = core::evaluate(llama_1b(true));
    const core::Report eager = core::evaluate(llama_1b(false));
    INFO("step " << compiled.compute.step_seconds * 1e3 << " ms against " << measured["step_seconds"].get<double>() * 1e3 << " ms; peak "
                 << compiled.memory.peak_allocated_bytes / 1e9 << " / " << compiled.memory.peak_reserved_bytes / 1e9 << " GB against "
                 << measured["peak_allocated"].get<double>() / 1e9 << " / " << measured["peak_reserved"].get<double>() / 1e9 << " GB");
    CHECK(std::abs(compiled.compute.step_seconds / measured["step_seconds"].get<double>() - 1.0) <= 0.10);
    CHECK(std::abs(compiled.memory.peak_allocated_bytes / measured["peak_allocated"].get<double>() - 1.0) <= 0.05);
    CHECK(std::abs(compiled.memory.peak_reserved_bytes / measured["peak_reserved"].get<double>() - 1.0) <= 0.05);
    // The measured eager run at the same shape peaked at 34.4 GB (h200_hf_probe.json): compiling saves the norms' fp32 copies.
    CHECK(compiled.memory.peak_allocated_bytes < eager.memory.peak_allocated_bytes);
    CHECK(compiled.compute.step_seconds < eager.compute.step_seconds);
}

TEST_CASE("h200_hf_host_probe.json compiled: the first step's 8.18 s of compilation is a figure, counted once in the time to "
          "train; off, or on a recipe without compiled kernels, it is none", "[compile]") {
    const nlohmann::json measured = compiled_measurement();
    const core::Scenario scenario = llama_1b(true);
    const core::Report report = core::evaluate(scenario);
    const double expected = measured["compile_seconds"].get<double>() - measured["step_seconds"].get<double>();
    CHECK(std::abs(report.compute.compile_seconds - expected) < 0.01);
    CHECK(report.compute.train_seconds == Approx(report.compute.steps * report.compute.step_seconds + report.compute.compile_seconds));
    const core::FigureTexts figures = core::figure_texts(scenario, report);
    CHECK(figures.compile_time.value == "8.18 s once");
    CHECK(figures.compile_time.formula.find("input_layernorm (compiled)") != std::string::npos);
    CHECK(core::evaluate(llama_1b(false)).compute.compile_seconds == 0);
    CHECK(core::evaluate(llama_1b(true, "torchtitan")).compute.compile_seconds == 0);
    CHECK(core::figure_texts(llama_1b(true, "torchtitan"), core::evaluate(llama_1b(true, "torchtitan"))).compile_time.value == "not in the recipe");
}

TEST_CASE("A recipe's compile section without its source, or with a negative time, is refused naming the field", "[compile][errors]") {
    const auto refused = [](const std::string& compile) {
        std::string text = R"({"id": "x", "source": "s", "compile": )" + compile + R"(,
            "embedding": {"input": "tokens", "output": "x", "ops": [{"name": "e", "op": "embedding", "in": ["tokens"], "out": "x", "shape": "t*h", "source": "s"}]},
            "layer": {"input": "x", "output": "x", "ops": [{"name": "v", "op": "view", "in": ["x"], "out": "y", "source": "s"}]},
            "head": {"input": "x", "output": "x", "ops": [{"name": "v", "op": "view", "in": ["x"], "out": "y", "source": "s"}]}})";
        try {
            core::parse_framework_recipe(text, "x.json");
        } catch (const core::InputError& error) {
            return error.field();
        }
        return std::string();
    };
    CHECK(refused(R"({"first_step_seconds": 8})") == "x.json: compile.source");
    CHECK(refused(R"({"first_step_seconds": -1, "source": "s"})") == "x.json: compile.first_step_seconds");
}
