// Activation memory: Korthikanti et al. 2022 (arXiv 2205.05198) Table 2, sec 4.1 and eq. 5, published.md sec 2.
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include "core/cost/memory/memory.h"

#include <algorithm>
#include "core/model/layout.h"
#include "core/model/scenario_json.h"

using core_tests::megatron_a100;

namespace {

struct Shape {
    const char* preset;
    double s, h, a, layers;
};
// Korthikanti Table 3 / Table 5 shapes; s = 2048.
const Shape gpt22b{"megatron-22b", 2048, 6144, 64, 48};
const Shape gpt175b{"gpt3-175b", 2048, 12288, 96, 96};

// One layer, one micro-batch of b sequences, under the given TP degree and train options.
core::ActivationReport layer(const Shape& shape, int tp, int micro_batch, const std::string& train_options) {
    const std::string train = R"(, "micro_batch": )" + std::to_string(micro_batch) + train_options;
    const core::Scenario scenario = megatron_a100(shape.preset, tp, 1, tp, micro_batch, train);
    return core::activation_per_layer(scenario, core::layout_of(scenario));
}

}  // namespace

TEST_CASE("Korthikanti 2022 Table 2: bytes per layer for each configuration", "[activations]") {
    for (const Shape& shape : {gpt22b, gpt175b}) {
        for (int b : {1, 2}) {
            const double s = shape.s, h = shape.h, a = shape.a, t = 8;
            const double sbh = s * b * h;
            INFO(shape.preset << ", b = " << b);
            INFO("no parallelism: sbh (34 + 5as/h)");
            REQUIRE(layer(shape, 1, b, "").bytes_per_layer == Approx(sbh * (34 + 5 * a * s / h)));
            INFO("tensor parallel: sbh (10 + 24/t + 5as/(ht))");
            REQUIRE(layer(shape, 8, b, "").bytes_per_layer == Approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
            INFO("tensor + sequence parallel: sbh (34/t + 5as/(ht))");
            REQUIRE(layer(shape, 8, b, R"(, "sequence_parallel": true)").bytes_per_layer == Approx(sbh * (34 / t + 5 * a * s / (h * t))));
            INFO("tensor parallel + selective recompute: sbh (10 + 24/t)");
            REQUIRE(layer(shape, 8, b, R"(, "recompute": "selective")").bytes_per_layer == Approx(sbh * (10 + 24 / t)));
            INFO("tensor + sequence parallel + selective recompute: sbh 34/t");
            REQUIRE(layer(shape, 8, b, R"(, "sequence_parallel": true, "recompute": "selective")").bytes_per_layer == Approx(sbh * 34 / t));
            INFO("full recompute: sbh 2, TP or not");
            REQUIRE(layer(shape, 8, b, R"(, "recompute": "full")").bytes_per_layer == Approx(sbh * 2));
            REQUIRE(layer(shape, 1, b, R"(, "recompute": "full")").bytes_per_layer == Approx(sbh * 2));
        }
    }
}

TEST_CASE("Korthikanti 2022 sec 4.1: 34 = attention 11 + MLP 19 + layer norms 4, and what TP splits of each", "[activations]") {
    REQUIRE(11 + 19 + 4 == 34);
    REQUIRE(layer(gpt175b, 1, 1, R"(, "recompute": "selective")").sbh_coefficient == Approx(34));
    // Attention 11 = 3 outside TP (QKV input 2, dropout mask 1) + 8 inside; MLP 19 = 3 outside (input 2, mask 1) + 16 inside;
    // the two layer norms 4 stay outside: 10 + 24/t.
    for (int t : {2, 4, 8}) {
        const double attention = 3 + 8.0 / t, mlp = 3 + 16.0 / t, layer_norms = 4;
        REQUIRE(layer(gpt175b, t, 1, R"(, "recompute": "selective")").sbh_coefficient == Approx(attention + mlp + layer_norms));
    }
    SECTION("the MLP's 16 inside TP are its two 4h-wide tensors x 2 B: halving ffn_hidden drops 8 of them") {
        const std::string json = R"({"model": {"layers": 96, "hidden": 12288, "heads": 96, "ffn_hidden": 24576, "vocab": 51200,
            "gated_mlp": false, "tied_embeddings": true, "learned_positions": true, "bias": true},
            "train": {"seq_len": 2048, "global_batch": 64, "recompute": "selective", "dropout": true}, "cluster": {"gpus": 1}})";
        const core::Scenario scenario = core::parse_scenario(json);
        REQUIRE(core::activation_per_layer(scenario, core::layout_of(scenario)).sbh_coefficient == Approx(34 - 8));
    }
    SECTION("the attention term is 5 a s^2 b: softmax 2, dropout mask 1, dropout output 2 bytes per score") {
        const core::ActivationReport report = layer(gpt175b, 1, 1, "");
        REQUIRE(report.attention_score_bytes == Approx(5.0 * 96 * 2048.0 * 2048.0));
    }
}

TEST_CASE("Korthikanti 2022 sec 4.1 without dropout (Llama's training): the two masks leave (8 + 24/t), and of the 5 a s^2 b the "
          "dropout mask and output, so the softmax output alone stays: 2 a s^2 b", "[activations]") {
    // Sec 4.1: softmax output 2 a s^2 b (kept for its backward), dropout mask a s^2 b, dropout output 2 a s^2 b (the input
    // of the product with V). Without dropout the product with V reads the softmax output itself.
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "gpt3-175b"}, "train": {"seq_len": 2048, "global_batch": 64,
        "flash_attention": false, "dropout": false}, "parallel": {"tp": 8, "pp": 8}, "cluster": {"gpus": 64}})");
    const core::ActivationReport report = core::activation_per_layer(scenario, core::layout_of(scenario));
    REQUIRE(report.sbh_coefficient == Approx(8 + 24.0 / 8));
    REQUIRE(report.attention_score_bytes == Approx(2.0 * 96 * 2048.0 * 2048.0 / 8));
}

TEST_CASE("Flash attention never stores the s x s scores: the 5as/h term drops, nothing else", "[activations]") {
    const core::ActivationReport flash = layer(gpt175b, 8, 1, R"(, "flash_attention": true)");
    const core::ActivationReport plain = layer(gpt175b, 8, 1, "");
    const double sbh = 2048.0 * 12288;
    REQUIRE(flash.attention_score_bytes == 0);
    REQUIRE(plain.attention_score_bytes == Approx(5.0 * 96 * 2048.0 * 2048.0 / 8));
    REQUIRE(flash.bytes_per_layer == Approx(sbh * (10 + 24.0 / 8)));
    REQUIRE(plain.bytes_per_layer - flash.bytes_per_layer == Approx(plain.attention_score_bytes));
}

TEST_CASE("Korthikanti 2022 eq. 5: under 1F1B the first stage holds L x one layer's activations", "[activations][pipeline]") {
    // 175B, t = 8, p = 8, 64 micro-batches: p in flight x L/p layers = L layers; with SP + selective, 34 sbh L / t.
    const core::Report report =
        core::evaluate(megatron_a100("gpt3-175b", 8, 8, 64, 64, R"(, "sequence_parallel": true, "recompute": "selective")"));
    const double per_layer = 2048.0 * 12288 * 34 / 8;
    REQUIRE(report.memory.activations.bytes_per_layer == Approx(per_layer));
    REQUIRE(report.memory.activations.layers_on_first_stage == 12);
    REQUIRE(report.memory.activations.inflight_microbatches == Approx(8));
    REQUIRE(report.memory.per_gpu.activations_bytes == Approx(96 * per_layer));
}

TEST_CASE("Korthikanti 2022, pipeline memory: interleaving multiplies the first stage by (1 + (p-1)/(p m))", "[activations][pipeline]") {
    // m in this factor counts the interleaved model chunks per device (our virtual_stages), not micro-batches:
    // Megatron's warm-up keeps 2(p-1) + (v-1)p + 1 chunk-micro-batches of L/(p v) layers on device 0, i.e. L (1 + (p-1)/(p v)).
    const double p = 8, per_layer = 2048.0 * 12288 * 34 / 8, layers = 96;
    for (int v : {2, 3, 4}) {
        INFO("virtual stages " << v);
        core::Scenario scenario = megatron_a100("gpt3-175b", 8, 8, 64, 64, R"(, "sequence_parallel": true, "recompute": "selective")");
        scenario.parallel.schedule = core::ScheduleKind::interleaved;
        scenario.parallel.virtual_stages = v;
        const core::Report report = core::evaluate(scenario);
        REQUIRE(report.memory.per_gpu.activations_bytes == Approx(layers * per_layer * (1 + (p - 1) / (p * v))));
    }
}

TEST_CASE("Narayanan 2021 sec 2.2.1: GPipe keeps all m micro-batches in flight, 1F1B at most p", "[activations][pipeline]") {
    core::Scenario scenario = megatron_a100("gpt3-175b", 8, 8, 64, 64, R"(, "recompute": "selective")");
    scenario.parallel.schedule = core::ScheduleKind::gpipe;
    const core::Report gpipe = core::evaluate(scenario);
    REQUIRE(gpipe.memory.activations.inflight_microbatches == Approx(64));
    REQUIRE(gpipe.memory.per_gpu.activations_bytes == Approx(12 * 64 * gpipe.memory.activations.bytes_per_layer));
    SECTION("with fewer micro-batches than stages 1F1B holds only m") {
        const core::Report few = core::evaluate(megatron_a100("gpt3-175b", 8, 8, 64, 4, R"(, "recompute": "selective")"));
        REQUIRE(few.memory.activations.inflight_microbatches == Approx(4));
    }
}

TEST_CASE("The heaviest pipeline stage holds ceil(L / p) layers", "[activations][pipeline]") {
    const auto most = [](int layers, int pp) { return core::PipelineSplit{layers, pp, false}.most_layers(); };
    REQUIRE(most(96, 8) == 12);
    REQUIRE(most(80, 3) == 27);
    REQUIRE(most(126, 16) == 8);
    REQUIRE(most(5, 5) == 1);
    // 80 over 3: 27, 27, 26, the first stages taking the remainder.
    const core::PipelineSplit uneven{80, 3, false};
    REQUIRE((uneven.layers_on(0) == 27 && uneven.layers_on(1) == 27 && uneven.layers_on(2) == 26));
    REQUIRE((uneven.first_layer_of(1) == 27 && uneven.first_layer_of(2) == 54));
}

TEST_CASE("Dubey 2024 sec 3.3.2: with the embedding and the loss as layers, Llama 3 405B's first and last of 16 stages hold 7 "
          "layers, the 14 others 8", "[activations][pipeline]") {
    // "we reduce one Transformer layer each from the first and the last stages": 126 layers + 2 = 128 places over 16.
    const core::PipelineSplit split{126, 16, true};
    REQUIRE(split.places() == 128);
    REQUIRE(split.layers_on(0) == 7);
    REQUIRE(split.layers_on(15) == 7);
    int total = 0;
    for (int stage = 0; stage < 16; ++stage) {
        if (stage > 0 && stage < 15) REQUIRE(split.layers_on(stage) == 8);
        REQUIRE(split.first_layer_of(stage) == total);  // the stages tile the layers, none left out or twice
        total += split.layers_on(stage);
    }
    REQUIRE(total == 126);
    REQUIRE(split.most_layers() == 8);
    REQUIRE(split.busiest_places() == 8);  // 4 chunks of 2 places: the first holds the embedding and one layer
    // One stage has no edges to trade; two stages each give one up.
    REQUIRE(core::PipelineSplit{126, 1, true}.layers_on(0) == 126);
    const core::PipelineSplit two{126, 2, true};
    REQUIRE((two.layers_on(0) == 63 && two.layers_on(1) == 63 && two.most_layers() == 63));
}

TEST_CASE("The stack's activation block is one micro-batch unsharded: Table 2's no-parallelism row x L, whatever the layout", "[activations]") {
    const double sbh = 2048.0 * 12288, a = 96, s = 2048, h = 12288;
    for (int tp : {1, 8}) {
        INFO("tp " << tp);
        const core::Report report = core::evaluate(megatron_a100("gpt3-175b", tp, 8, 8 * tp, 64));
        const auto found = std::find_if(report.memory.blocks.begin(), report.memory.blocks.end(),
                                        [](const core::MemoryBlock& block) { return block.kind == core::MemoryKind::activations; });
        REQUIRE(found != report.memory.blocks.end());
        const core::MemoryBlock& activations = *found;
        REQUIRE(activations.whole_bytes == Approx(96 * sbh * (34 + 5 * a * s / h)));
    }
}
