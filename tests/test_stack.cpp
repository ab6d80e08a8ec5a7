// The 16-byte stack (seed 000, "the 16-byte stack vs the HBM ceiling") through core::stack_frame and core::overshoot.
#include "core/cost/report/evaluate.h"
#include "core/model/format.h"
#include "core/model/hardware.h"
#include "core/lessons/stack_animation.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

core::Scenario scenario_from(const std::string& json) { return core::parse_scenario(json); }

const core::GpuSpec& catalog_gpu(const char* id) { return *core::builtin_hardware().find_gpu(id); }

std::vector<core::GpuCeiling> ceilings_for(const core::Scenario& scenario) {
    return core::gpu_ceilings(core::builtin_hardware(), scenario.cluster.gpu);
}

core::StackFrame final_frame(const core::Scenario& scenario, const core::Report& report, const std::vector<core::GpuCeiling>& ceilings) {
    return core::stack_frame(report.memory, core::explain(scenario, report), ceilings, core::stack_timeline(report.memory, ceilings).duration_seconds);
}

}  // namespace

TEST_CASE("Seed 000: 70B x 16 B = 1.12 TB of training state, 13.2x an H100's 85.0 GB", "[stack]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"params": 70e9}})");
    const core::Report report = core::evaluate(scenario);
    const core::StackFrame end = final_frame(scenario, report, ceilings_for(scenario));
    REQUIRE(end.params == Approx(70e9));
    REQUIRE(end.state_bytes == Approx(1.12e12));
    const core::Overshoot over = core::overshoot(end.state_bytes, catalog_gpu("h100-sxm"));
    REQUIRE(over.over);
    REQUIRE(over.gpus_worth == Approx(1.12e12 / core_tests::h100_hbm_bytes));
    REQUIRE(over.over_bytes == Approx(1.12e12 - core_tests::h100_hbm_bytes));
    REQUIRE(over.caption == "13.2x an H100 SXM");
}

TEST_CASE("Seed 000: the stack's categories in recipe order, 2 + 2 + 4 + 4 + 4 B per parameter, then activations and what the step "
          "holds beside them at its peak", "[stack]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"params": 70e9}})");
    const core::StackFrame end = final_frame(scenario, core::evaluate(scenario), ceilings_for(scenario));
    REQUIRE(end.layers.size() == 13);
    const char* labels[] = {"bf16 weight", "bf16 grad", "fp32 master", "Adam m", "Adam v", "activations"};
    const double bytes[] = {140e9, 140e9, 280e9, 280e9, 280e9};
    for (int i = 0; i < 5; ++i) {
        INFO(labels[i]);
        REQUIRE(end.layers[i].label == labels[i]);
        REQUIRE(end.layers[i].bytes == Approx(bytes[i]));
    }
    REQUIRE(end.layers[5].label == "activations");
    REQUIRE(end.layers[5].bytes > 0);
    REQUIRE(end.layers[4].index_within_kind == 1);  // Adam v: the optimizer's second shade
    REQUIRE(end.layers[2].formula == "fp32 master: 4 B x 70.0e9 = 280 GB");
    const core::MemoryKind peak_kinds[] = {core::MemoryKind::weight_copies, core::MemoryKind::gathered_weights, core::MemoryKind::logits,
                                           core::MemoryKind::backward_working_set, core::MemoryKind::workspace,
                                           core::MemoryKind::comm_buffers, core::MemoryKind::fragmentation};
    for (int i = 0; i < 7; ++i) REQUIRE(end.layers[6 + i].kind == peak_kinds[i]);
    REQUIRE(end.layers[8].label == "logits + loss");
    REQUIRE(end.layers[8].bytes > 0);  // one GPU runs the head and the loss
}

TEST_CASE("Seed 000: Llama 3 70B overshoots an H100 and a B200; Llama 3.2 1B fits an H100", "[stack]") {
    const core::Report big = core::evaluate(scenario_from(R"({"model": {"preset": "llama3-70b"}})"));
    const core::Report small = core::evaluate(scenario_from(R"({"model": {"preset": "llama3.2-1b"}})"));
    const core::GpuSpec& h100 = catalog_gpu("h100-sxm");
    // 64 GPUs without ZeRO: every GPU holds the whole state, 16 B x 70.6e9 = 1.13 TB.
    REQUIRE(core::overshoot(big.memory.per_gpu.total_bytes, h100).over);
    REQUIRE(core::overshoot(big.memory.state_bytes, h100).gpus_worth == Approx(16.0 * 70.55e9 / core_tests::h100_hbm_bytes).epsilon(0.001));
    REQUIRE(core::overshoot(big.memory.state_bytes, catalog_gpu("b200")).over);
    const core::Overshoot fits = core::overshoot(small.memory.per_gpu.total_bytes, h100);
    REQUIRE_FALSE(fits.over);
    REQUIRE(fits.over_bytes == 0);
    REQUIRE(fits.caption == "fits: " + core::format_percent(fits.gpus_worth) + " of an H100 SXM");
    // The whole 1B column (state + one micro-batch's activations) stays under the lowest ceiling too.
    const core::Scenario small_scenario = scenario_from(R"({"model": {"preset": "llama3.2-1b"}})");
    REQUIRE(final_frame(small_scenario, small, ceilings_for(small_scenario)).crossed.empty());
}

TEST_CASE("Shazeer & Stern 2018: Adafactor removes Adam's m and v bytes; dropping the master removes 4 B", "[stack]") {
    const core::Scenario adam = scenario_from(R"({"model": {"params": 70e9}})");
    const core::Scenario adafactor = scenario_from(R"({"model": {"params": 70e9}, "precision": {"recipe": "bf16-mixed-adafactor"}})");
    const core::Scenario no_master = scenario_from(R"({"model": {"params": 70e9}, "precision": {"recipe": "bf16-adam-no-master"}})");
    const core::StackFrame with_adam = final_frame(adam, core::evaluate(adam), ceilings_for(adam));
    const core::StackFrame with_adafactor = final_frame(adafactor, core::evaluate(adafactor), ceilings_for(adafactor));
    const core::StackFrame without_master = final_frame(no_master, core::evaluate(no_master), ceilings_for(no_master));
    for (const core::StackLayer& layer : with_adafactor.layers) {
        INFO(layer.label);
        REQUIRE(layer.label.find("Adam") == std::string::npos);
        if (layer.kind == core::MemoryKind::optimizer) REQUIRE(layer.bytes == 0);  // the factored second moment, O(rows + cols)
    }
    REQUIRE(with_adafactor.state_bytes == Approx(8.0 * 70e9));  // 2 + 2 + 4
    REQUIRE(with_adam.state_bytes - with_adafactor.state_bytes == Approx(8.0 * 70e9));
    REQUIRE(without_master.state_bytes == Approx(12.0 * 70e9));  // seed 003's 2 + 2 + 4 + 4
}

TEST_CASE("HBM ceilings from the catalog, as CUDA gives them: A100, H100 and H800 share 85.0 GB, H200 150 GB, B200 192 GB, "
          "MI300X 206 GB", "[stack]") {
    const std::vector<core::GpuCeiling> ceilings = core::gpu_ceilings(core::builtin_hardware(), catalog_gpu("h100-sxm"));
    REQUIRE(ceilings.size() == 4);
    // 84,987,740,160 B (A100, deviceQuery) and 85,017,493,504 B (H100, measured): 0.04 % apart, one line at the H100's.
    REQUIRE(ceilings[0].hbm_bytes == core_tests::h100_hbm_bytes);
    REQUIRE(ceilings[0].gpu_names == "A100 SXM 80GB / H100 SXM / H800 SXM");
    REQUIRE(ceilings[0].short_names == "A100 / H100 / H800");
    REQUIRE(ceilings[0].selected);
    REQUIRE(ceilings[1].hbm_bytes == 143156.0 * 1048576);  // H200: torch total_memory 143,156 MiB
    REQUIRE_FALSE(ceilings[1].selected);
    REQUIRE(ceilings[2].gpu_names == "B200");
    REQUIRE(ceilings[3].gpu_names == "MI300X");  // 191.98 GiB: AMD's 192 GB are GiB, NVIDIA's B200 gives 178.35 GiB
    // Selected, the A100 draws the shared line at its own bytes, so the line is where its verdict is.
    const std::vector<core::GpuCeiling> from_a100 = core::gpu_ceilings(core::builtin_hardware(), catalog_gpu("a100-sxm"));
    REQUIRE(from_a100[0].gpu_names == "A100 SXM 80GB / H100 SXM / H800 SXM");
    REQUIRE(from_a100[0].hbm_bytes == catalog_gpu("a100-sxm").hbm_bytes);

    core::GpuSpec custom = catalog_gpu("h100-sxm");
    custom.id = "custom";
    custom.name = "Custom 24GB";
    custom.hbm_bytes = 24e9;
    const std::vector<core::GpuCeiling> with_custom = core::gpu_ceilings(core::builtin_hardware(), custom);
    REQUIRE(with_custom.size() == 6);  // 24 GB, then the NVLink GPUs above it: A100 40GB, 85, 150, 192, 206 GB
    REQUIRE(with_custom[0].gpu_names == "Custom 24GB");
    REQUIRE(with_custom[0].selected);
}

TEST_CASE("Overshoot captions read with the right article: an H100, a B200, an MI300X", "[stack]") {
    REQUIRE(core::with_article("H100 SXM") == "an H100 SXM");
    REQUIRE(core::with_article("A100 SXM 80GB") == "an A100 SXM 80GB");
    REQUIRE(core::with_article("B200") == "a B200");
    REQUIRE(core::with_article("MI300X") == "an MI300X");
    REQUIRE(core::with_article("Gaudi 3") == "a Gaudi 3");
}

TEST_CASE("Seed 000 animation: the stack at t = 0 is the bf16 weight alone, the end is the Report's whole column", "[stack][animation]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3-70b"}})");
    const core::Report report = core::evaluate(scenario);
    const std::vector<core::GpuCeiling> ceilings = ceilings_for(scenario);
    const core::StackTimeline timeline = core::stack_timeline(report.memory, ceilings);
    // Built where 16 B x N fills 3/4 of the lowest ceiling (the H100's 85.0 GB): N = 3.99e9.
    REQUIRE(timeline.start_params == Approx(0.75 * core_tests::h100_hbm_bytes / 16.0));
    REQUIRE(timeline.final_params == report.memory.params);
    double beside_state = 0;
    for (const core::MemoryBlock& block : report.memory.blocks) if (!core::is_training_state(block.kind)) beside_state += block.whole_bytes;
    REQUIRE(timeline.final_total_bytes == Approx(report.memory.state_bytes + beside_state));
    REQUIRE(timeline.grow_seconds > 0);

    const core::StackFrame start = core::stack_frame(report.memory, core::explain(scenario, report), ceilings, 0.0);
    REQUIRE(start.phase == core::StackPhase::build);
    REQUIRE(start.layers[0].bytes == Approx(2.0 * timeline.start_params));
    for (std::size_t i = 1; i < start.layers.size(); ++i) REQUIRE(start.layers[i].bytes == 0);
    REQUIRE(start.crossed.empty());

    const core::StackFrame end = core::stack_frame(report.memory, core::explain(scenario, report), ceilings, timeline.duration_seconds);
    REQUIRE(end.phase == core::StackPhase::hold);
    REQUIRE(end.params == report.memory.params);
    for (std::size_t i = 0; i < end.layers.size(); ++i) {
        REQUIRE(end.layers[i].bytes == report.memory.blocks[i].whole_bytes);
        REQUIRE(end.layers[i].formula == core::explain(scenario, report).block_whole[i].formula);
    }
    REQUIRE(end.total_bytes > start.total_bytes);
    REQUIRE(end.crossed.size() == 4);  // past 85.0, 150, 192 and 206 GB
}

TEST_CASE("Seed 000 animation: monotonic in t, one category per step, then past each ceiling in turn", "[stack][animation]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3-70b"}})");
    const core::Report report = core::evaluate(scenario);
    const std::vector<core::GpuCeiling> ceilings = ceilings_for(scenario);
    const core::StackTimeline timeline = core::stack_timeline(report.memory, ceilings);

    // Each step adds exactly one fully grown category.
    for (int step = 0; step < 6; ++step) {
        const core::StackFrame frame = core::stack_frame(report.memory, core::explain(scenario, report), ceilings, step * timeline.step_seconds);
        INFO("step " << step);
        REQUIRE(frame.appearing == step);
        for (int i = 0; i < 6; ++i) REQUIRE(frame.layers[i].shown == (i <= step ? 1.0 : 0.0));
    }

    core::StackFrame previous = core::stack_frame(report.memory, core::explain(scenario, report), ceilings, 0.0);
    std::size_t most_crossed = 0;
    const int samples = 400;
    for (int i = 1; i <= samples; ++i) {
        const double t = timeline.duration_seconds * i / samples;
        const core::StackFrame frame = core::stack_frame(report.memory, core::explain(scenario, report), ceilings, t);
        INFO("t = " << t);
        REQUIRE(frame.params >= previous.params * (1 - 1e-12));
        REQUIRE(frame.total_bytes >= previous.total_bytes * (1 - 1e-12));
        for (std::size_t layer = 0; layer < frame.layers.size(); ++layer)
            REQUIRE(frame.layers[layer].bytes >= previous.layers[layer].bytes * (1 - 1e-12));
        REQUIRE(frame.crossed.size() >= previous.crossed.size());
        REQUIRE(frame.crossed.size() <= previous.crossed.size() + 1);  // the ceilings are passed one at a time
        most_crossed = std::max(most_crossed, frame.crossed.size());
        previous = frame;
    }
    REQUIRE(most_crossed == 4);  // 85.0, 150, 192 and 206 GB
    // Beyond the end the stack stays as it is.
    REQUIRE(core::stack_frame(report.memory, core::explain(scenario, report), ceilings, 1e6).total_bytes == previous.total_bytes);
}

TEST_CASE("Seed 000 animation: a model smaller than the build size is built at its own size and does not grow", "[stack][animation]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3.2-1b"}})");
    const core::Report report = core::evaluate(scenario);
    const std::vector<core::GpuCeiling> ceilings = ceilings_for(scenario);
    const core::StackTimeline timeline = core::stack_timeline(report.memory, ceilings);
    REQUIRE(timeline.start_params == report.memory.params);
    REQUIRE(timeline.grow_seconds == 0);
    REQUIRE(core::stack_frame(report.memory, core::explain(scenario, report), ceilings, 0.0).total_bytes <
            core::stack_frame(report.memory, core::explain(scenario, report), ceilings, timeline.duration_seconds).total_bytes);
}

TEST_CASE("A 314M model on 64 GPUs: one GPU's peak stands above the whole model by DP's NCCL buckets, and the stack says so",
          "[stack]") {
    core::Scenario scenario = core_tests::shipped("default.json");
    const core::Edit sized = core::with_params(scenario, 3.14e8);
    REQUIRE(sized.ok());
    scenario = sized.scenario;
    const core::Report report = core::evaluate(scenario);
    REQUIRE(report.layout.dp == 64);
    const std::vector<core::GpuCeiling> ceilings = core::gpu_ceilings(core::builtin_hardware(), scenario.cluster.gpu);
    const double whole_bytes = core::stack_timeline(report.memory, ceilings).final_total_bytes;
    const core::PerGpuMemory& per_gpu = report.memory.per_gpu;
    REQUIRE(per_gpu.peak_bytes > whole_bytes);  // every replica holds the whole model, and buckets for its all-reduce
    CHECK(per_gpu.peak_bytes - whole_bytes == Approx(per_gpu.comm_buffers_bytes).epsilon(0.01));
    const std::vector<std::string> text = core::above_whole_model_text(per_gpu, whole_bytes);
    REQUIRE(text.size() == 2);
    CHECK(text[0] == "above the whole model: " + core::format_bytes(per_gpu.comm_buffers_bytes) + " of NCCL buckets one GPU alone would not need");
    // On one GPU there is nothing to explain.
    const core::Edit single = core::with_gpus(scenario, 1);
    REQUIRE(single.ok());
    const core::Scenario& alone = single.scenario;
    const core::Report one = core::evaluate(alone);
    CHECK(core::above_whole_model_text(one.memory.per_gpu, core::stack_timeline(one.memory, ceilings).final_total_bytes).empty());
}
