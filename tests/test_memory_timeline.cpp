// The memory timeline split by what holds it (core/cost/memory/timeline.h) and the timeline panel's figure built on it
// (core/cost/report/timeline_figure.h): on every shipped scenario, every lesson scene and the Hugging Face runs measured
// on one H200 (validation/runs.json), each point's parts add up to its allocated bytes, the state's parts are the stage's
// state, and the figure's peaks, bands and live rows are the report's.
#include "core/cost/kernels/pipeline_schedule.h"
#include "core/cost/kernels/recipe_ops.h"
#include "core/cost/report/evaluate.h"
#include "core/cost/report/explain.h"
#include "core/cost/report/stage_timelines.h"
#include "core/cost/report/timeline_figure.h"
#include "core/lessons/captions.h"
#include "core/model/format.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

nlohmann::json read_json(const std::string& path) {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/" + path);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return nlohmann::json::parse(text.str());
}

struct Named {
    std::string name;
    core::Scenario scenario;
};

// Every shipped scenario, every scene of the default lesson, and the Hugging Face runs measured on one H200.
std::vector<Named> every_scenario() {
    std::vector<Named> all;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/scenarios")) {
        if (entry.path().extension() != ".json") continue;
        all.push_back({entry.path().filename().string(), core_tests::shipped(entry.path().filename().string())});
    }
    // Each file kept while its entries are read: a range over a temporary's member would dangle.
    const nlohmann::json lesson = read_json("assets/lessons/default.json");
    const nlohmann::json runs = read_json("validation/runs.json");
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        all.push_back({"scene: " + scene.at("title").get<std::string>(), core::parse_scenario(scene.value("scenario", nlohmann::json::object()).dump())});
    }
    for (const nlohmann::json& run : runs.at("runs")) {
        if (run.value("family", "").rfind("hf-transformers", 0) != 0) continue;
        all.push_back({"run: " + run.at("id").get<std::string>(), core::parse_scenario(run.at("scenario").dump())});
    }
    return all;
}

// A bigger figure than the allocator rounds to: 512 B per tensor; a stage holds some thousands of tensors.
constexpr double kRoundingBytes = 8e6;
// The replay's tensors against the closed form's figure: within the rounding, or 4 % (GPT-2's replay holds 2-3.5 % more per
// state copy than its closed form, Qwen2.5's 0.03 % less: gaps not yet explained).
bool near_figure(double replay_bytes, double figure_bytes) {
    return std::fabs(replay_bytes - figure_bytes) <= std::max(kRoundingBytes, 0.04 * figure_bytes);
}

}  // namespace

TEST_CASE("Every shipped scenario, lesson scene and Hugging Face H200 run: at every point of every stage, weights + master + optimizer = "
          "state and state + grads + activations + transient = allocated, logits within the transient, no part negative",
          "[memory][timeline]") {
    int operator_timelines = 0, block_timelines = 0;
    for (const Named& named : every_scenario()) {
        INFO(named.name);
        const core::Report report = core::evaluate(named.scenario);
        std::vector<core::MemoryTimeline> timelines = {report.memory.timeline};
        if (report.layout.pp > 1) timelines = core::stage_memory_timelines(named.scenario, report);
        for (const core::MemoryTimeline& timeline : timelines) {
            INFO("stage " << timeline.stage);
            REQUIRE_FALSE(timeline.points.empty());
            (timeline.allocator_model ? operator_timelines : block_timelines) += 1;
            for (std::size_t i = 0; i < timeline.points.size(); ++i) {
                const core::TimelinePoint& p = timeline.points[i];
                INFO("point " << i << " (" << core::timeline_phase_name(p.phase) << ")");
                for (double part : {p.weights_bytes, p.master_bytes, p.optimizer_bytes, p.grads_bytes, p.activations_bytes, p.transient_bytes, p.logits_bytes}) {
                    REQUIRE(part >= 0);
                }
                REQUIRE(p.weights_bytes + p.master_bytes + p.optimizer_bytes == Approx(p.state_bytes).epsilon(1e-12));
                REQUIRE(p.state_bytes + p.grads_bytes + p.activations_bytes + p.transient_bytes == Approx(p.allocated_bytes).epsilon(1e-12));
                REQUIRE(p.logits_bytes <= p.transient_bytes * (1 + 1e-12));
                REQUIRE(p.reserved_bytes >= p.allocated_bytes * (1 - 1e-12));
            }
        }
    }
    // Both kinds are among them: the operator replays (pytorch-eager, Hugging Face) and the block recipes' staircases.
    CHECK(operator_timelines >= 10);
    CHECK(block_timelines >= 20);
}

TEST_CASE("The operator replay's parts are what the stage holds: its weights, master copy and optimizer state at every point, every "
          "gradient after the backward, none after PyTorch's default zero_grad, the logits at the loss, no activations at the "
          "optimizer step", "[memory][timeline]") {
    int checked = 0;
    for (const Named& named : every_scenario()) {
        const core::Report report = core::evaluate(named.scenario);
        const core::MemoryTimeline& timeline = report.memory.timeline;
        if (!timeline.allocator_model) continue;
        INFO(named.name);
        const core::StageMemory& stage = report.memory.per_stage[report.memory.peak_stage];
        const core::TimelinePoint* optimizer = nullptr;
        const core::TimelinePoint* zero_grad = nullptr;
        const core::TimelinePoint* loss = nullptr;
        for (const core::TimelinePoint& p : timeline.points) {
            // Each parameter tensor's state rounded up to the allocator's 512 B blocks: the stage's figure, near enough.
            INFO("replayed weights " << p.weights_bytes << " B, master " << p.master_bytes << " B, optimizer " << p.optimizer_bytes
                                     << " B; the stage's " << stage.weights_bytes << ", " << stage.master_bytes << ", " << stage.optimizer_bytes);
            REQUIRE(near_figure(p.weights_bytes, stage.weights_bytes));
            REQUIRE(near_figure(p.master_bytes, stage.master_bytes));
            REQUIRE(near_figure(p.optimizer_bytes, stage.optimizer_bytes));
            if (p.phase == core::TimelinePhase::optimizer) optimizer = &p;
            if (p.phase == core::TimelinePhase::zero_grad) zero_grad = &p;
            if (p.phase == core::TimelinePhase::loss && !loss) loss = &p;
        }
        REQUIRE(optimizer);
        REQUIRE(zero_grad);
        // Every parameter's gradient at the optimizer step: the stack panel's gradient blocks (its peak falls in the backward).
        double grads_block_bytes = 0;
        for (const core::MemoryBlock& block : report.memory.blocks) {
            if (block.kind == core::MemoryKind::grads) grads_block_bytes += block.per_gpu_bytes;
        }
        CHECK(near_figure(optimizer->grads_bytes, grads_block_bytes));
        CHECK(optimizer->activations_bytes == 0);
        CHECK(optimizer->logits_bytes <= 2 * 512);  // loss scalars, one 512 B block each, which the training loop still holds
        if (named.scenario.train.zero_grad_set_to_none) CHECK(zero_grad->grads_bytes == 0);
        // The last stage computes the loss: its logits (vocabulary-wide, fp32 for the loss) are live there.
        if (stage.holds_head) {
            REQUIRE(loss);
            const double vocabulary_logits = static_cast<double>(named.scenario.train.micro_batch) * named.scenario.train.seq_len *
                                             named.scenario.model.vocab / report.layout.tp * 2.0;  // bf16 at the least
            CHECK(loss->logits_bytes >= vocabulary_logits);
        }
        ++checked;
    }
    CHECK(checked >= 10);
}

TEST_CASE("The timeline panel's figure is the report's: the heaviest stage's peaks and phases, the HBM line, the stack panel's blocks "
          "at the peak, and a pipeline's every stage", "[memory][timeline][panel]") {
    for (const std::string name : {"gpt2-124m-2x-rtx4090-spot.json", "llama3-405b-16k.json", "default.json"}) {
        INFO(name);
        const core::Scenario scenario = core_tests::shipped(name);
        const core::Report report = core::evaluate(scenario);
        const core::ReportText text = core::explain(scenario, report);
        const core::MemoryTimelineFigure figure = core::memory_timeline_figure(scenario, report, text);
        const core::MemoryTimeline& timeline = report.memory.timeline;
        const core::TimelineStageFigure& detail = figure.detail;
        CHECK(detail.stage == report.memory.peak_stage);
        CHECK(detail.points == static_cast<int>(timeline.points.size()));
        CHECK(detail.peak_allocated_bytes == timeline.peak_allocated_bytes);
        CHECK(detail.peak_reserved_bytes == timeline.peak_reserved_bytes);
        CHECK(figure.headline.find(core::format_bytes(timeline.peak_allocated_bytes) + " allocated, " + core::format_bytes(timeline.peak_reserved_bytes) +
                                   " reserved, " + core::timeline_peak_where(timeline)) != std::string::npos);
        CHECK(figure.hbm_label == "HBM " + core::format_bytes(report.memory.hbm_bytes));
        CHECK(figure.y_max_bytes >= report.memory.hbm_bytes);
        // The peak's point is drawn, and the stack there is the timeline's point: its parts, the slack, NCCL's buffers.
        const auto drawn = std::find(detail.x.begin(), detail.x.end(), static_cast<double>(timeline.peak_point));
        REQUIRE(drawn != detail.x.end());
        const std::size_t at = static_cast<std::size_t>(drawn - detail.x.begin());
        const core::TimelinePoint& peak = timeline.points[static_cast<std::size_t>(timeline.peak_point)];
        double top = 0;
        for (int part = 0; part < core::kTimelineParts; ++part) top += detail.part_bytes[part][at];
        const double outside = report.memory.per_stage[report.memory.peak_stage].comm_buffers_bytes;
        CHECK(top == Approx(peak.reserved_bytes + outside));
        CHECK(detail.part_bytes[static_cast<int>(core::TimelinePart::slack)][at] == Approx(peak.reserved_bytes - peak.allocated_bytes));
        CHECK(detail.part_bytes[static_cast<int>(core::TimelinePart::logits)][at] == peak.logits_bytes);
        CHECK(detail.x.size() <= 600);
        // The bands cover the step in order: its first point's phase to zero_grad, each band where the last ended.
        REQUIRE_FALSE(detail.bands.empty());
        CHECK(detail.bands.front().first_point == 0);
        CHECK(detail.bands.back().last_point == detail.points - 1);
        CHECK(detail.bands.back().label == "zero_grad");
        for (std::size_t i = 1; i < detail.bands.size(); ++i) {
            CHECK(detail.bands[i].first_point == detail.bands[i - 1].last_point + 1);
            CHECK(detail.bands[i].phase != detail.bands[i - 1].phase);
        }
        // What is live at the peak: the stack panel's blocks with its labels and bytes, the empty ones and the KV cache left out.
        std::size_t row = 0;
        for (std::size_t i = 0; i < report.memory.blocks.size(); ++i) {
            const core::MemoryBlock& block = report.memory.blocks[i];
            if (block.kind == core::MemoryKind::kv_cache || block.per_gpu_bytes <= 0) continue;
            REQUIRE(row < figure.live.size());
            CHECK(figure.live[row].label == text.block_labels[i]);
            CHECK(figure.live[row].value == core::format_bytes(block.per_gpu_bytes));
            CHECK(figure.live[row].part == core::timeline_part_of(block.kind));
            ++row;
        }
        CHECK(row == figure.live.size());
        CHECK(figure.live_total == text.figures.peak_memory.label + ": " + text.figures.peak_memory.value);
        // A pipeline: every stage, first to last, each from its own walk, the heaviest the report's.
        if (report.layout.pp > 1) {
            REQUIRE(figure.stages.size() == static_cast<std::size_t>(report.layout.pp));
            for (std::size_t s = 0; s < figure.stages.size(); ++s) {
                CHECK(figure.stages[s].stage == static_cast<int>(s));
                CHECK(figure.stages[s].heaviest == (static_cast<int>(s) == report.memory.peak_stage));
                CHECK(figure.stages[s].x.size() <= 120);
                CHECK(figure.y_max_bytes >= figure.stages[s].top_bytes);
            }
        } else {
            CHECK(figure.stages.empty());
        }
    }
}

TEST_CASE("Llama 3 405B on 16,384 H100s (Dubey 2024 Table 4, interleaved 1F1B): each stage's timeline climbs to the micro-batch "
          "chunks Megatron's interleaved schedule keeps in flight on it, 2(p - d - 1) + (v - 1)p + 1, times its layers' activations",
          "[memory][timeline][pipeline]") {
    const core::Scenario scenario = core_tests::shipped("llama3-405b-16k.json");
    const core::Report report = core::evaluate(scenario);
    const std::vector<core::MemoryTimeline> stages = core::stage_memory_timelines(scenario, report);
    REQUIRE(stages.size() == 16);
    core::ScheduleParams params;
    params.kind = report.pipeline.schedule;
    params.stages = report.pipeline.stages;
    params.microbatches = report.pipeline.microbatches;
    params.virtual_chunks = report.pipeline.virtual_stages;
    REQUIRE(params.virtual_chunks > 1);
    const double per_layer = report.memory.activations.bytes_per_layer;
    for (std::size_t s = 0; s < stages.size(); ++s) {
        INFO("stage " << s);
        const int in_flight = core::closed_form_peak_inflight_on(params, static_cast<int>(s));
        const double chunk_layers = static_cast<double>(report.memory.per_stage[s].layers) / params.virtual_chunks;
        CHECK(core::timeline_most_activations_bytes(stages[s]) == Approx(in_flight * chunk_layers * per_layer).epsilon(0.1));
    }
}

TEST_CASE("The memory scenes' captions state the timeline panel's peaks and the most activations kept, checkpointing off and on",
          "[memory][timeline][captions]") {
    std::vector<double> activations;
    const nlohmann::json lesson = read_json("assets/lessons/default.json");  // kept: a range over a temporary's member would dangle
    for (const nlohmann::json& scene : lesson.at("scenes")) {
        if (scene.at("panel") != "timeline") continue;
        INFO(scene.at("title").get<std::string>());
        const core::Scenario scenario = core::parse_scenario(scene.value("scenario", nlohmann::json::object()).dump());
        const core::Report report = core::evaluate(scenario);
        const std::string caption = core::fill_caption(scene.at("caption").get<std::string>(), scenario, report);
        const core::MemoryTimeline& timeline = report.memory.timeline;
        CHECK(caption.find(core::format_bytes(timeline.peak_allocated_bytes)) != std::string::npos);
        CHECK(caption.find(core::format_bytes(timeline.peak_reserved_bytes)) != std::string::npos);
        CHECK(caption.find(core::timeline_peak_text(timeline)) != std::string::npos);
        CHECK(caption.find(core::format_bytes(core::timeline_most_activations_bytes(timeline))) != std::string::npos);
        CHECK(scenario.train.framework == core::Framework::hf_transformers);
        CHECK(report.layout.gpus == 1);
        CHECK(report.memory.fits);
        activations.push_back(core::timeline_most_activations_bytes(timeline));
    }
    // Without checkpointing, then with it: the second keeps each layer's input only.
    REQUIRE(activations.size() == 2);
    CHECK(activations[1] < activations[0] / 4);
}

TEST_CASE("measurements/h200_hf_probe.json training marks: the timeline's allocated bytes at the end of the forward (the last "
          "layer's hook), after the backward and after zero_grad within 10 % of the measured curve on all 15 Hugging Face runs",
          "[memory][timeline][validation]") {
    const nlohmann::json probe = read_json("measurements/h200_hf_probe.json");
    const nlohmann::json runs = read_json("validation/runs.json");
    int checked = 0;
    for (const nlohmann::json& measured : probe.at("sections").at("training")) {
        // validation/runs.json names each run as the probe wrote it: h200-MODEL-RECIPE-ckpt|nockpt-bBATCH-sSEQ.
        const std::string id = "h200-" + measured.at("model").get<std::string>() + "-" + measured.at("recipe").get<std::string>() + "-" +
                               (measured.at("checkpointing").get<bool>() ? "ckpt" : "nockpt") + "-b" + std::to_string(measured.at("batch").get<int>()) +
                               "-s" + std::to_string(measured.at("seq").get<int>());
        const auto run = std::find_if(runs.at("runs").begin(), runs.at("runs").end(), [&](const nlohmann::json& r) { return r.at("id") == id; });
        REQUIRE(run != runs.at("runs").end());
        const int layers = measured.at("layers").get<int>();
        double forward_end = 0, after_backward = 0, after_zero_grad = 0;
        for (const nlohmann::json& mark : measured.at("marks")) {
            const std::string phase = mark.at("phase").get<std::string>();
            const double allocated = mark.at("allocated").get<double>();
            if (phase == "forward" && mark.at("layer") == layers - 1) forward_end = allocated;
            if (phase == "backward_end") after_backward = allocated;
            if (phase == "zero_grad") after_zero_grad = allocated;
        }
        REQUIRE(forward_end > 0);
        REQUIRE(after_backward > 0);
        REQUIRE(after_zero_grad > 0);

        const core::Report report = core::evaluate(core::parse_scenario(run->at("scenario").dump()));
        const std::vector<core::TimelinePoint>& points = report.memory.timeline.points;
        double model_forward_end = 0, model_after_backward = 0, model_after_zero_grad = 0;
        for (const core::TimelinePoint& point : points) {  // the last point of each: the step's own, after the warm-up's
            if (point.phase == core::TimelinePhase::forward && point.layer == layers - 1) model_forward_end = point.allocated_bytes;
            if (point.phase == core::TimelinePhase::backward) model_after_backward = point.allocated_bytes;
            if (point.phase == core::TimelinePhase::zero_grad) model_after_zero_grad = point.allocated_bytes;
        }
        INFO(id << ": end of forward " << model_forward_end << " B vs " << forward_end << " B measured, after backward " << model_after_backward
                << " vs " << after_backward << ", after zero_grad " << model_after_zero_grad << " vs " << after_zero_grad);
        CHECK(model_forward_end == Approx(forward_end).epsilon(0.10));
        CHECK(model_after_backward == Approx(after_backward).epsilon(0.10));
        CHECK(model_after_zero_grad == Approx(after_zero_grad).epsilon(0.10));
        ++checked;
    }
    CHECK(checked == 15);
}

TEST_CASE("1F1B's staircase (Narayanan et al. 2021 sec 2.2, Fig. 4): Llama 3 405B at twice the global batch, 32 micro-batches on 16 "
          "stages, walks each stage's in-flight micro-batches forward, then one backward and one forward per remaining micro-batch, then "
          "the cool-down; the plot names the run once",
          "[memory][timeline][pipeline]") {
    core::Scenario scenario = core_tests::shipped("llama3-405b-16k.json");
    scenario.train.global_batch *= 2;
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.pipeline.microbatches == 32);
    const std::vector<core::MemoryTimeline> stages = core::stage_memory_timelines(scenario, report);
    for (std::size_t s = 0; s < stages.size(); ++s) {
        INFO("stage " << s);
        // The order of micro-batches as the points run: a forward starts a micro-batch's layers at layer 0, a backward at its last.
        std::vector<char> passes;
        int forwards = 0, backwards = 0;
        const std::vector<core::TimelinePoint>& points = stages[s].points;
        for (std::size_t i = 0; i < points.size(); ++i) {
            const core::TimelinePoint& point = points[i];
            const bool starts = i == 0 || points[i - 1].phase != point.phase || points[i - 1].microbatch != point.microbatch;
            if (!starts) continue;
            if (point.phase == core::TimelinePhase::forward) passes.push_back('F'), ++forwards;
            if (point.phase == core::TimelinePhase::backward) passes.push_back('B'), ++backwards;
        }
        CHECK(forwards == 32);
        CHECK(backwards == 32);
        const int warm_up = static_cast<int>(std::find(passes.begin(), passes.end(), 'B') - passes.begin());
        const int in_flight = static_cast<int>(std::ceil(report.memory.per_stage[s].inflight_microbatches - 1e-9));
        CHECK(warm_up == std::min(32, in_flight));
        // The steady state alternates: never two forwards in a row after the first backward.
        const std::string order(passes.begin(), passes.end());
        CHECK(order.find("FF", warm_up) == std::string::npos);
    }
    const auto steady = [](const core::TimelineStageFigure& stage) {
        return std::count_if(stage.bands.begin(), stage.bands.end(), [](const core::TimelineBand& band) { return band.label == "1F1B steady state"; });
    };
    const core::MemoryTimelineFigure figure = core::memory_timeline_figure(scenario, report, core::explain(scenario, report));
    CHECK(steady(figure.detail) == 1);
    // One GPU accumulating gradients over micro-batches runs each whole, one after another: no pipeline, no steady state.
    const core::Scenario one_gpu = core_tests::shipped("llama3-8b-qlora-rtx4090.json");
    const core::Report one_report = core::evaluate(one_gpu);
    REQUIRE(one_report.pipeline.microbatches > 1);
    CHECK(steady(core::memory_timeline_figure(one_gpu, one_report, core::explain(one_gpu, one_report)).detail) == 0);
}

// The controls the stack and the sidebar replace with a line: a field an operator recipe decides itself is one that moves
// none of its figures, and on a block recipe the same field moves them.
TEST_CASE("Recipe-set fields: attention and fragmentation change nothing where an operator recipe decides them, which the report says, and change the figures elsewhere", "[memory][timeline]") {
    for (const core::Framework framework : core::kFrameworks) {
        const std::string name = core::framework_name(framework);
        INFO(name);
        const core::Scenario scenario = core::parse_scenario(
            R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h100-sxm", "gpus": 8, "gpus_per_node": 8},
                "parallel": {"tp": 8}, "train": {"seq_len": 2048, "global_batch": 8, "framework": ")" + name + R"("}})");
        const core::Report base = core::evaluate(scenario);
        core::Scenario eager = scenario;
        eager.train.attention = core::AttentionImpl::eager;
        core::Scenario fragmented = scenario;
        fragmented.memory.fragmentation = 0.25;
        const core::Report without_flash = core::evaluate(eager), with_allowance = core::evaluate(fragmented);
        const bool attention_set = core::set_by_recipe(scenario, "train.attention").has_value();
        const bool fragmentation_set = core::set_by_recipe(scenario, "memory.fragmentation").has_value();
        // Hugging Face's recipes describe eager attention (transformers' eager_attention_forward); the other operator recipes call SDPA only.
        CHECK(attention_set == (core::runs_operator_recipe(scenario) && !core::framework_recipe_of(scenario).describes_eager_attention));
        CHECK(fragmentation_set == core::runs_operator_recipe(scenario));
        CHECK((without_flash.compute.step_seconds == base.compute.step_seconds) == attention_set);
        CHECK((with_allowance.memory.per_gpu.peak_bytes == base.memory.per_gpu.peak_bytes) == fragmentation_set);
        // Where the field changes nothing, the report says so, naming it; where it changes the figures, no such warning.
        const auto says_unchanged = [&](const core::Scenario& edited, const core::Report& report, const std::string& field) {
            const core::ReportText text = core::explain(edited, report);
            return std::any_of(text.warnings.begin(), text.warnings.end(),
                               [&](const std::string& warning) { return warning.rfind("Setting " + field + " changes nothing for " + name + ": ", 0) == 0; });
        };
        CHECK(says_unchanged(eager, without_flash, "train.attention") == attention_set);
        CHECK(says_unchanged(fragmented, with_allowance, "memory.fragmentation") == fragmentation_set);
        CHECK_FALSE(says_unchanged(scenario, base, "train.attention"));
        CHECK_FALSE(says_unchanged(scenario, base, "memory.fragmentation"));
    }
}

// torchtitan's Llama 3 8B on 8 H100s under FSDP2, one sequence of 8,192 tokens each: each block's gradients, whole when
// its backward makes them, are reduce-scattered as it ends (FSDP2's post-backward hook), so at the optimizer step each
// GPU holds an eighth of them (fp32: 8.03e9 x 4 B / 8 = 4.02 GB), and the stack's peak is the replay's.
TEST_CASE("FSDP2 reduce-scatters each block's gradients as its backward ends: the replay holds their shard, and the stack's peak is the replay's", "[memory][timeline][zero]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-8b"},
        "train": {"seq_len": 8192, "micro_batch": 1, "global_batch": 8, "framework": "torchtitan", "recompute": "full", "dropout": false},
        "precision": {"recipe": "pytorch-fsdp2-mixed"}, "parallel": {"zero": 3}, "cluster": {"gpu": "h100-sxm", "gpus": 8, "gpus_per_node": 8}})");
    const core::Report report = core::evaluate(scenario);
    const core::MemoryTimeline& timeline = report.memory.timeline;
    const auto optimizer = std::find_if(timeline.points.begin(), timeline.points.end(),
                                        [](const core::TimelinePoint& p) { return p.phase == core::TimelinePhase::optimizer; });
    REQUIRE(optimizer != timeline.points.end());
    const double shard_bytes = 8.03e9 * 4.0 / 8.0;
    CHECK(optimizer->grads_bytes == Approx(shard_bytes).epsilon(0.01));
    CHECK(optimizer->grads_bytes < 0.2 * 8.03e9 * 4.0);  // not the whole model's gradients
    // The stack's peak: what the replay's allocator reserved at its peak, with NCCL's buffers beside it.
    CHECK(report.memory.per_gpu.peak_bytes == Approx(report.memory.peak_reserved_bytes + report.memory.per_gpu.comm_buffers_bytes).epsilon(1e-6));
}

TEST_CASE("Every shipped scenario, lesson scene and Hugging Face H200 run: the curve reaches the allocated peak it is marked with, "
          "and a peak inside an op is a point of its own, labelled", "[memory][timeline]") {
    for (const Named& named : every_scenario()) {
        INFO(named.name);
        const core::Report report = core::evaluate(named.scenario);
        const core::MemoryTimeline& timeline = report.memory.timeline;
        REQUIRE_FALSE(timeline.points.empty());
        double highest = 0;
        for (const core::TimelinePoint& point : timeline.points) highest = std::max(highest, point.allocated_bytes);
        // The warm-up step can hold more than the recorded one only by what the allocator rounds; never a curve below its peak.
        CHECK(highest == Approx(timeline.peak_allocated_bytes).epsilon(0.002));
        const core::TimelinePoint& peak = timeline.points.at(static_cast<std::size_t>(timeline.peak_point));
        CHECK(peak.allocated_bytes == highest);
        if (peak.inside_op) CHECK(core::timeline_peak_text(timeline).rfind("inside ", 0) == 0);
    }
}

TEST_CASE("Llama 3 8B QLoRA on one RTX 4090: its peak falls inside an op, and the curve and memory's table reach it", "[memory][timeline][qlora]") {
    const core::Scenario scenario = core_tests::shipped("llama3-8b-qlora-rtx4090.json");
    const core::Report report = core::evaluate(scenario);
    const core::MemoryTimeline& timeline = report.memory.timeline;
    const core::TimelinePoint& peak = timeline.points.at(static_cast<std::size_t>(timeline.peak_point));
    CHECK(peak.inside_op);
    CHECK(peak.allocated_bytes == Approx(timeline.peak_allocated_bytes).epsilon(0.002));
    const core::MemoryTimelineFigure figure = core::memory_timeline_figure(scenario, report, core::explain(scenario, report));
    const double drawn_most = *std::max_element(figure.detail.allocated_bytes.begin(), figure.detail.allocated_bytes.end());
    CHECK(drawn_most == Approx(figure.detail.peak_allocated_bytes).epsilon(0.002));
}
