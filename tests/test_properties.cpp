// Properties the model must keep for any valid input: sharding never adds memory per GPU, ZeRO stages
// order, and no NaN or infinity anywhere in the Report.
#include "core/cost/report/explain.h"
#include "core/cost/report/report_json.h"
#include "core/cost/kernels/flops.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include "core/model/scenario_edits.h"

#include <catch2/catch.hpp>

#include <cstring>

#include <cctype>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using core_tests::bare_params;

namespace {

core::Scenario layout(const char* preset, int dp, int tp, int pp, int cp, int zero, const std::string& extra = "") {
    const int gpus = dp * tp * pp * cp;
    return core::parse_scenario(std::string(R"({"model": {"preset": ")") + preset + R"("},
        "parallel": {"dp": )" + std::to_string(dp) + R"(, "tp": )" + std::to_string(tp) + R"(, "pp": )" + std::to_string(pp) +
                                R"(, "cp": )" + std::to_string(cp) + R"(, "zero": )" + std::to_string(zero) + "}" + extra +
                                R"(, "cluster": {"gpus": )" + std::to_string(gpus) + "}}");
}

double per_gpu_total(const core::Scenario& scenario) { return core::evaluate(scenario).memory.per_gpu.total_bytes; }

// Every figure of the Report, named, for the finiteness sweep.
std::vector<std::pair<std::string, double>> every_number(const core::Report& r) {
    const core::MemoryReport& m = r.memory;
    const core::ComputeReport& c = r.compute;
    const core::PipelineReport& p = r.pipeline;
    const core::ReliabilityReport& f = r.reliability;
    std::vector<std::pair<std::string, double>> numbers = {
        {"memory.params", m.params}, {"memory.params_per_gpu", m.params_per_gpu}, {"memory.bytes_per_param", m.bytes_per_param},
        {"memory.state_bytes", m.state_bytes}, {"per_gpu.weights", m.per_gpu.weights_bytes}, {"per_gpu.grads", m.per_gpu.grads_bytes},
        {"per_gpu.master", m.per_gpu.master_bytes}, {"per_gpu.optimizer", m.per_gpu.optimizer_bytes},
        {"per_gpu.activations", m.per_gpu.activations_bytes}, {"per_gpu.total", m.per_gpu.total_bytes},
        {"activations.bytes_per_layer", m.activations.bytes_per_layer}, {"activations.sbh", m.activations.sbh_coefficient},
        {"activations.scores", m.activations.attention_score_bytes}, {"activations.inflight", m.activations.inflight_microbatches},
        {"activations.first_stage", m.activations.first_stage_bytes}, {"memory.hbm", m.hbm_bytes}, {"memory.headroom", m.headroom_bytes},
        {"memory.state_gpus_worth", m.state_gpus_worth}, {"memory.per_gpu_over_hbm", m.per_gpu_over_hbm},
        {"memory.inference_weights", m.inference_weight_bytes}, {"memory.kv_per_token", m.kv_cache_bytes_per_token},
        {"memory.kv", m.kv_cache_bytes}, {"compute.tokens_per_step", c.tokens_per_step}, {"compute.flops_per_token", c.model_flops_per_token},
        {"compute.model_flops", c.model_flops_per_step}, {"compute.hardware_flops", c.hardware_flops_per_step},
        {"compute.six_n", c.six_n_flops_per_step}, {"compute.peak", c.peak_flops_per_s}, {"compute.compute_seconds", c.compute_seconds},
        {"compute.bubble_seconds", c.bubble_seconds}, {"compute.exposed_comm", c.exposed_comm_seconds}, {"compute.step", c.step_seconds},
        {"compute.mfu", c.mfu}, {"compute.hfu", c.hfu}, {"compute.achieved", c.achieved_flops_per_s_per_gpu}, {"compute.steps", c.steps},
        {"compute.train_seconds", c.train_seconds}, {"compute.gpu_hours", c.gpu_hours}, {"compute.cost", c.cost_dollars},
        {"comm.total", r.comm.total_seconds}, {"comm.exposed", r.comm.exposed_seconds}, {"pipeline.bubble_fraction", p.bubble_fraction},
        {"pipeline.bubble_overhead", p.bubble_overhead}, {"pipeline.closed_form", p.closed_form_bubble_overhead},
        {"pipeline.makespan", p.makespan_seconds}, {"roofline.ridge", r.roofline.ridge_flops_per_byte},
        {"reliability.mtbf", f.cluster_mtbf_seconds}, {"reliability.checkpoint_bytes", f.checkpoint_bytes},
        {"reliability.checkpoint_seconds", f.checkpoint_seconds}, {"reliability.young", f.young_interval_seconds},
        {"reliability.daly", f.daly_interval_seconds}, {"reliability.interval", f.interval_seconds},
        {"reliability.checkpoint_share", f.checkpoint_share}, {"reliability.rework_share", f.rework_share},
        {"reliability.restart_share", f.restart_share}, {"reliability.goodput", f.goodput}, {"reliability.wall", f.wall_seconds},
        {"reliability.failures", f.expected_failures},
    };
    for (const core::MemoryBlock& block : m.blocks) {
        const std::string kind = core::memory_kind_name(block.kind);
        numbers.push_back({"block " + kind + " bytes_per_param", block.bytes_per_param});
        numbers.push_back({"block " + kind + " whole", block.whole_bytes});
        numbers.push_back({"block " + kind + " per_gpu", block.per_gpu_bytes});
    }
    numbers.push_back({"per_gpu.peak", m.per_gpu.peak_bytes});
    for (const core::StageMemory& stage : m.per_stage) {
        numbers.push_back({"stage " + std::to_string(stage.stage) + " peak", stage.peak_bytes});
        numbers.push_back({"stage " + std::to_string(stage.stage) + " inflight", stage.inflight_microbatches});
    }
    for (const core::AxisComm& axis : r.comm.axes) {
        for (const auto& [name, value] : {std::pair<const char*, double>{"bus", axis.bus_bytes_per_s}, {"message", axis.message_bytes},
                                          {"bytes_per_gpu", axis.bytes_per_gpu}, {"seconds", axis.seconds},
                                          {"exposed", axis.exposed_seconds}, {"algbw", axis.algbw_bytes_per_s},
                                          {"busbw", axis.busbw_bytes_per_s}}) {
            numbers.push_back({std::string("comm.") + core::comm_axis_name(axis.axis) + "." + name, value});
        }
    }
    const core::StepBreakdown& parts = c.breakdown_seconds;
    numbers.push_back({"breakdown.gemm", parts.gemm_seconds});
    numbers.push_back({"breakdown.attention", parts.attention_seconds});
    numbers.push_back({"breakdown.elementwise", parts.elementwise_seconds});
    numbers.push_back({"breakdown.optimizer", parts.optimizer_seconds});
    numbers.push_back({"breakdown.bubble", parts.bubble_seconds});
    for (int axis = 0; axis < 4; ++axis) numbers.push_back({"breakdown.exposed_comm", parts.exposed_comm_seconds[axis]});
    for (const core::Kernel& kernel : c.kernels) {
        numbers.push_back({std::string("kernel ") + core::kernel_name(kernel.id) + " seconds", kernel.seconds});
        numbers.push_back({std::string("kernel ") + core::kernel_name(kernel.id) + " flops", kernel.flops});
        numbers.push_back({std::string("kernel ") + core::kernel_name(kernel.id) + " bytes", kernel.bytes});
    }
    return numbers;
}

std::vector<std::string> every_text(const core::Scenario& scenario, const core::Report& r) {
    const core::ReportText text = core::explain(scenario, r);
    std::vector<std::string> texts = {text.activations.formula, text.memory_verdict};
    for (const core::FigureText& figure : core::figure_list(text.figures)) {
        texts.push_back(figure.value);
        texts.push_back(figure.formula);
    }
    for (const core::Explanation& block : text.block_whole) texts.push_back(block.formula);
    for (const core::Explanation& block : text.block_per_gpu) texts.push_back(block.formula);
    for (const core::Explanation& axis : text.axis_formulas) texts.push_back(axis.formula);
    for (const core::Explanation& kernel : text.kernels) texts.push_back(kernel.formula);
    for (const std::string& warning : text.warnings) texts.push_back(warning);
    return texts;
}

// A printed NaN or infinity ("nan", "-nan", "inf", "infinity") as a word of its own; "InfiniBand" is fine.
bool mentions_non_number(const std::string& text) {
    std::string word;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char character = i < text.size() ? text[i] : ' ';
        if (std::isalpha(static_cast<unsigned char>(character))) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
            continue;
        }
        if (word == "nan" || word == "inf" || word == "infinity") return true;
        word.clear();
    }
    return false;
}

void require_all_finite(const core::Scenario& scenario) {
    const core::Report report = core::evaluate(scenario);
    for (const auto& [name, value] : every_number(report)) {
        INFO(name << " = " << value);
        REQUIRE(std::isfinite(value));
        if (name != "memory.headroom") REQUIRE(value >= 0);  // headroom aside, no figure of the model is negative
    }
    for (const std::string& text : every_text(scenario, report)) {
        INFO(text);
        REQUIRE_FALSE(mentions_non_number(text));
    }
    // nlohmann writes NaN and inf as null; memory.timeline's points name no layer at a phase boundary (null, a value).
    std::string json = core::report_to_json(scenario, report);
    for (const char* boundary : {"\"layer\":null", "\"layer\": null"}) {
        for (auto at = json.find(boundary); at != std::string::npos; at = json.find(boundary)) json.erase(at, std::strlen(boundary));
    }
    REQUIRE(json.find("null") == std::string::npos);
    REQUIRE(report.memory.per_gpu.total_bytes > 0);
    REQUIRE(report.compute.step_seconds > 0);
    REQUIRE(report.compute.mfu > 0);
    REQUIRE(report.compute.mfu <= 1);
    REQUIRE(report.reliability.goodput <= 1);
}

}  // namespace

TEST_CASE("Property: memory per GPU never grows when dp grows under ZeRO >= 1", "[properties][memory]") {
    for (int zero : {1, 2, 3}) {
        for (int pp : {1, 4}) {
            double previous = INFINITY;
            for (int dp : {1, 2, 4, 8, 16, 32, 64}) {
                INFO("ZeRO-" << zero << ", pp " << pp << ", dp " << dp);
                const double total = per_gpu_total(layout("llama3-70b", dp, 8, pp, 1, zero));
                REQUIRE(total <= previous);
                previous = total;
            }
        }
    }
    SECTION("and, at ZeRO-0, stays the same: plain DP replicates everything") {
        REQUIRE(per_gpu_total(layout("llama3-70b", 64, 8, 1, 1, 0)) == Approx(per_gpu_total(layout("llama3-70b", 1, 8, 1, 1, 0))));
    }
}

TEST_CASE("Property: memory per GPU never grows when tp grows", "[properties][memory]") {
    for (const char* train : {"", R"(, "train": {"sequence_parallel": true})", R"(, "train": {"recompute": "full"})"}) {
        for (int zero : {0, 3}) {
            double previous = INFINITY;
            for (int tp : {1, 2, 4, 8, 16, 32, 64}) {
                INFO("tp " << tp << ", ZeRO-" << zero << train);
                const double total = per_gpu_total(layout("llama3-70b", 2, tp, 1, 1, zero, train));
                REQUIRE(total < previous);
                previous = total;
            }
        }
    }
}

TEST_CASE("Property: memory per GPU never grows when pp grows (1F1B, GPipe; stages dividing the layers)", "[properties][memory]") {
    for (const char* schedule : {"1f1b", "gpipe"}) {
        for (const char* preset : {"llama3-70b", "gpt3-175b"}) {
            double previous = INFINITY;
            const int layers = core::find_model(preset)->layers;
            for (int pp = 1; pp <= 16; ++pp) {
                if (layers % pp != 0) continue;
                INFO(preset << ", " << schedule << ", pp " << pp);
                const std::string extra = R"(, "train": {"global_batch": 64})";
                core::Scenario scenario = layout(preset, 1, 8, pp, 1, 1, extra);
                scenario.parallel.schedule = core::parse_schedule_kind(schedule);
                const double total = per_gpu_total(scenario);
                REQUIRE(total <= previous);
                previous = total;
            }
        }
    }
}

TEST_CASE("Where pp may add memory, as the papers say: uneven stages and the interleaved factor", "[properties][memory]") {
    SECTION("80 layers on 6 stages: the first holds 14 layers x 6 micro-batches = 84 layers' worth, more than 80 on 5") {
        const core::Report five = core::evaluate(layout("llama3-70b", 1, 8, 5, 1, 1, R"(, "train": {"global_batch": 64})"));
        const core::Report six = core::evaluate(layout("llama3-70b", 1, 8, 6, 1, 1, R"(, "train": {"global_batch": 64})"));
        REQUIRE(six.memory.per_gpu.activations_bytes == Approx(five.memory.per_gpu.activations_bytes * 84 / 80));
    }
    SECTION("interleaved: L (1 + (p-1)/(p v)) layers' worth grows with p") {
        double previous = 0;
        for (int pp : {2, 4, 8}) {
            core::Scenario scenario = layout("llama3-70b", 1, 8, pp, 1, 1, R"(, "train": {"global_batch": 64})");
            scenario.parallel.schedule = core::ScheduleKind::interleaved;
            scenario.parallel.virtual_stages = 2;
            const double activations = core::evaluate(scenario).memory.per_gpu.activations_bytes;
            REQUIRE(activations > previous);
            previous = activations;
        }
    }
}

TEST_CASE("Property: memory per GPU never grows when cp grows", "[properties][memory]") {
    for (int zero : {0, 1, 3}) {
        for (const char* train : {"", R"(, "train": {"flash_attention": false})"}) {
            double previous = INFINITY;
            for (int cp : {1, 2, 4, 8, 16}) {
                INFO("cp " << cp << ", ZeRO-" << zero << train);
                const double total = per_gpu_total(layout("llama3-70b", 2, 8, 1, cp, zero, train));
                REQUIRE(total < previous);
                previous = total;
            }
        }
    }
}

TEST_CASE("Property: ZeRO-3 <= ZeRO-2 <= ZeRO-1 <= ZeRO-0 per GPU, for every recipe", "[properties][memory][zero]") {
    for (const core::PrecisionRecipe& recipe : core::builtin_recipes()) {
        for (int dp : {1, 2, 8, 64}) {
            INFO(recipe.id << ", dp " << dp);
            double previous = INFINITY;
            for (int zero : {0, 1, 2, 3}) {
                core::Scenario scenario = layout("llama3-8b", dp, 1, 1, 1, zero);
                scenario.precision = recipe;
                const double total = per_gpu_total(scenario);
                REQUIRE(total <= previous);
                if (dp == 1 && zero > 0) REQUIRE(total == Approx(previous));  // one rank: nothing to shard over
                previous = total;
            }
        }
    }
}

TEST_CASE("Property: no NaN or infinity anywhere, 1e6 to 1e13 parameters on 1 to 1e6 GPUs", "[properties]") {
    for (double params = 1e6; params <= 1e13; params *= 10) {
        for (int gpus = 1; gpus <= 1000000; gpus *= 10) {
            INFO(params << " parameters on " << gpus << " GPUs");
            require_all_finite(bare_params(params, gpus, 0, gpus));
            core::Scenario sharded = bare_params(params, gpus, 3, 2 * gpus);
            sharded.train.recompute = core::Recompute::full;
            require_all_finite(sharded);
        }
    }
    SECTION("and for presets across schedules and precisions") {
        for (const core::ModelSpec& model : core::builtin_models()) {
            INFO(model.id);
            core::Scenario scenario = core::default_scenario();
            scenario.model = model;
            scenario.parallel.pp = 2;
            scenario.train.global_batch = 64;
            scenario.cluster.gpus = 64;
            // Interleaved with the fewest chunks that split a stage's layers evenly, as the schedule control sets it.
            const core::Edit interleaved = core::with_schedule(scenario, core::ScheduleKind::interleaved);
            REQUIRE(interleaved.ok());
            require_all_finite(interleaved.scenario);
        }
    }
}

TEST_CASE("Property: without a pipeline nothing idles, to the last bit", "[properties][pipeline]") {
    const core::Report report = core::evaluate(core::default_scenario());
    REQUIRE(report.pipeline.bubble_fraction == 0);
    REQUIRE(report.pipeline.bubble_overhead == 0);
    REQUIRE(report.compute.bubble_seconds == 0);
}
