// The serving model's rules, each from its source: vLLM's KV-cache budget (gpu_memory_utilization 0.9 of HBM less the
// weights and a prefill's activations), PagedAttention's paging against TensorRT-LLM's reservation, a decode step reading
// the weights once for the whole batch, Megatron's two all-reduces per layer, the targets a batch must meet, the answer's
// fewest GPUs, and what a service no replica can meet is told (not a NaN).
#include "core/cost/report/evaluate.h"
#include "core/cost/serving/serving.h"
#include "core/cost/serving/serving_text.h"
#include "core/lessons/walls.h"
#include "core/model/errors.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

namespace {

core::Scenario scenario_from(const std::string& json) { return core::parse_scenario(json); }

std::string refusal(const std::string& json) {
    try {
        core::evaluate(core::parse_scenario(json));
    } catch (const core::InputError& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("vLLM's KV budget: 0.9 of an H100's HBM less Llama 3 70B's bf16 weights over TP 4 and one prefill's activations", "[serving]") {
    const core::Scenario scenario = core::default_scenario();
    const core::ReplicaMemory memory = core::replica_memory(scenario, {4, 1});
    const double hbm = scenario.cluster.gpu.hbm_bytes;
    REQUIRE(memory.usable_bytes == Approx(0.9 * hbm));
    const double params = core::count_params(scenario.model, scenario.model.default_seq_len).total;
    REQUIRE(memory.weight_bytes == Approx(2.0 * params / 4));
    REQUIRE(memory.kv_capacity_bytes == Approx(memory.usable_bytes - memory.weight_bytes - memory.activation_bytes));
    // K and V of 8 KV heads x 128 over TP 4 = 2 heads per GPU, 80 layers, bf16: 81,920 B per token.
    REQUIRE(memory.kv_bytes_per_token == Approx(80 * 2 * 2 * 128 * 2.0));
    // Paged as tokens come (PagedAttention): a sequence in flight holds its prompt and half its output.
    REQUIRE(memory.kv_bytes_per_sequence == Approx(memory.kv_bytes_per_token * (1024 + 128)));
    REQUIRE(memory.kv_batch == static_cast<int>(std::floor(memory.kv_capacity_bytes / memory.kv_bytes_per_sequence)));
    REQUIRE(memory.max_batch == std::min(memory.kv_batch, 256));  // vLLM's max_num_seqs
    REQUIRE(memory.fits);

    SECTION("TensorRT-LLM's GUARANTEED_NO_EVICT reserves the whole prompt and output: fewer sequences") {
        const core::Scenario reserved = scenario_from(R"({"serving": {"reserve_output_kv": true, "max_batch": 100000}})");
        const core::ReplicaMemory held = core::replica_memory(reserved, {4, 1});
        REQUIRE(held.kv_bytes_per_sequence == Approx(memory.kv_bytes_per_token * (1024 + 256)));
        REQUIRE(held.kv_batch < memory.kv_batch);
    }
    SECTION("TP 1 cannot hold 141 GB of bf16 weights on an 85 GB GPU; fp8 KV halves a token's bytes") {
        REQUIRE_FALSE(core::replica_memory(scenario, {1, 1}).fits);
        const core::Scenario fp8 = scenario_from(R"({"serving": {"kv_precision": "fp8"}})");
        REQUIRE(core::replica_memory(fp8, {4, 1}).kv_bytes_per_token == Approx(memory.kv_bytes_per_token / 2));
    }
}

TEST_CASE("A decode step reads the weights once for the whole batch: batch 64 costs far less than 64 steps of one", "[serving]") {
    const core::Scenario scenario = scenario_from(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1}})");
    const core::ServingPass one = core::decode_pass(scenario, {1, 1}, 1, 1024);
    const core::ServingPass many = core::decode_pass(scenario, {1, 1}, 64, 1024);
    REQUIRE(many.weight_bytes == Approx(one.weight_bytes));
    REQUIRE(many.kv_bytes == Approx(64 * one.kv_bytes));
    REQUIRE(many.seconds < 2.0 * one.seconds);
    // 16 GB of bf16 weights at the measured GEMV share of 4.8 TB/s bound batch 1: at least weights / (HBM x 0.915).
    REQUIRE(one.weight_seconds >= one.weight_bytes / (4.8e12 * 0.915));
    REQUIRE(one.weight_bytes == Approx(2.0 * (core::count_params(scenario.model, 8192).total - 128256.0 * 4096)).epsilon(0.01));

    SECTION("fp8 weights read half the bytes, int4 a quarter") {
        const core::Scenario fp8 = scenario_from(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1}, "serving": {"weight_precision": "fp8"}})");
        const core::Scenario int4 = scenario_from(R"({"model": {"preset": "llama3-8b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1}, "serving": {"weight_precision": "int4"}})");
        REQUIRE(core::decode_pass(fp8, {1, 1}, 1, 1024).weight_bytes == Approx(one.weight_bytes / 2));
        REQUIRE(core::decode_pass(int4, {1, 1}, 1, 1024).weight_bytes == Approx(one.weight_bytes / 4));
    }
    SECTION("without CUDA graphs every launch costs the host: a batch-1 step of the 1B waits on its launches") {
        const core::Scenario eager = scenario_from(R"({"model": {"preset": "llama3.2-1b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1}, "serving": {"cuda_graphs": false}})");
        const core::Scenario graphs = scenario_from(R"({"model": {"preset": "llama3.2-1b"}, "cluster": {"gpu": "h200-sxm", "gpus": 1}})");
        const core::ServingPass launched = core::decode_pass(eager, {1, 1}, 1, 1024);
        REQUIRE(launched.host_bound);
        REQUIRE(launched.seconds > 1.5 * core::decode_pass(graphs, {1, 1}, 1, 1024).seconds);
    }
}

TEST_CASE("TP splits the weights and adds two all-reduces per layer on NVLink (Megatron-LM sec 3)", "[serving]") {
    const core::Scenario scenario = core::default_scenario();
    const core::ServingPass tp4 = core::decode_pass(scenario, {4, 1}, 8, 2048);
    const core::ServingPass tp8 = core::decode_pass(scenario, {8, 1}, 8, 2048);
    REQUIRE(tp8.weight_bytes == Approx(tp4.weight_bytes / 2).epsilon(0.01));
    REQUIRE(tp4.comm_seconds > 0);
    REQUIRE(tp8.comm_seconds > 0);
    REQUIRE(tp8.seconds < tp4.seconds);
    REQUIRE(core::decode_pass(scenario, {1, 1}, 8, 2048).comm_seconds == 0);
    // Each all-reduce costs at least one hop of NVLink 4's latency: 2 x 80 layers x 6.5 us.
    REQUIRE(tp8.comm_seconds >= 2 * 80 * 6.5e-6);
}

TEST_CASE("Replica shapes: TP 1, 2, 4, 8 inside a node; 405B's 812 GB of bf16 weights outgrow a node of H100s, so two stages", "[serving]") {
    const std::vector<core::ReplicaShape> shapes = core::replica_shapes(core::default_scenario());
    REQUIRE(shapes.size() == 4);
    for (int i = 0; i < 4; ++i) REQUIRE(shapes[static_cast<std::size_t>(i)] == core::ReplicaShape{1 << i, 1});
    const core::Scenario big = scenario_from(R"({"model": {"preset": "llama3-405b"}})");
    const std::vector<core::ReplicaShape> big_shapes = core::replica_shapes(big);
    REQUIRE(big_shapes.back() == core::ReplicaShape{8, 2});
    const core::Report report = core::evaluate(big);
    REQUIRE(report.serving.answer.shape == core::ReplicaShape{8, 2});
}

TEST_CASE("The answer: the fewest GPUs whose replicas carry the rate within TTFT and TPOT, each at the batch its share needs", "[serving]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Report report = core::evaluate(scenario);
    const core::ServingAnswer& answer = report.serving.answer;
    REQUIRE(answer.verdict == core::ServingVerdict::meets);
    const core::ServingCurves curves = core::serving_curves(scenario, report.serving);
    for (const core::ServingShapeRow& row : curves.shapes) {
        if (row.meets) CHECK(row.gpus >= answer.gpus);
    }
    CHECK(answer.point.tpot_seconds <= scenario.serving.tpot_ms * 1e-3);
    CHECK(answer.point.ttft_seconds <= scenario.serving.ttft_ms * 1e-3);
    // Each replica carries its share of the rate at its batch, and one sequence fewer would not do.
    const double share = scenario.serving.target_qps / answer.replicas;
    CHECK(answer.point.replica_queries_per_s >= share * (1 - 1e-9));
    CHECK(core::serving_point(scenario, answer.shape, answer.point.batch - 1).replica_queries_per_s < share);
    // Cost: the GPUs at the scenario's price over the output tokens served.
    CHECK(answer.dollars_per_million_tokens == Approx(answer.gpus * scenario.operations.dollars_per_gpu_hour / (10.0 * 256 * 3600) * 1e6));
    // The quoted pass: a prompt of context_tokens, and batch x context_tokens decode, on the answer's shape.
    CHECK(report.serving.quoted_shape == answer.shape);
    CHECK(report.serving.prefill_tokens_per_s == Approx(8192 / core::prefill_pass(scenario, answer.shape, 1, 8192).seconds));
    CHECK(report.serving.decode_step_seconds == Approx(core::decode_pass(scenario, answer.shape, 1, 8192).seconds));
    CHECK(report.serving.replica_tokens_per_s == Approx(1 / report.serving.decode_step_seconds));
}

TEST_CASE("A TPOT no batch can meet is answered with the shortfall and a GPU that meets it, never a NaN", "[serving]") {
    const core::Scenario scenario = scenario_from(R"({"serving": {"tpot_ms": 8}})");
    const core::Report report = core::evaluate(scenario);
    const core::ServingAnswer& answer = report.serving.answer;
    REQUIRE(answer.verdict == core::ServingVerdict::latency);
    REQUIRE(answer.tpot_missed);
    REQUIRE(answer.best_tpot_seconds > 8e-3);
    REQUIRE(answer.best_shape == core::ReplicaShape{8, 1});  // the widest TP a node allows is the fastest
    REQUIRE(std::isinf(report.serving.fraction));
    const core::ServingText text = core::serving_text(scenario, report.serving);
    CHECK(text.answer.find("misses TPOT") != std::string::npos);
    CHECK(text.shortfall.find("A wider TP would need more GPUs than a node's 8.") != std::string::npos);
    // A faster GPU from the catalog meets it (B200: 8 TB/s of HBM), and the text says how many of it.
    REQUIRE_FALSE(answer.alternative_gpu.empty());
    CHECK(answer.alternative_tpot_seconds <= 8e-3);
    CHECK(text.shortfall.find(answer.alternative_gpu + " meets it: ") != std::string::npos);
    for (const std::string& piece : {text.answer, text.shortfall}) {
        CHECK(piece.find("nan") == std::string::npos);
        CHECK(piece.find("inf") == std::string::npos);
    }

    SECTION("a target nothing in the catalog meets says so") {
        const core::Scenario impossible = scenario_from(R"({"serving": {"tpot_ms": 0.01}})");
        const core::Report impossible_report = core::evaluate(impossible);
        REQUIRE(impossible_report.serving.answer.alternative_gpu.empty());
        CHECK(core::serving_text(impossible, impossible_report.serving).shortfall.find("No GPU in the catalog meets it") != std::string::npos);
    }
    SECTION("a TTFT shorter than the prompt's prefill") {
        const core::Scenario slow = scenario_from(R"({"serving": {"ttft_ms": 1, "prompt_tokens": 32768}})");
        const core::ServingAnswer& missed = core::evaluate(slow).serving.answer;
        REQUIRE(missed.verdict == core::ServingVerdict::latency);
        REQUIRE(missed.ttft_missed);
        REQUIRE(missed.best_ttft_seconds > 1e-3);
    }
}

TEST_CASE("Lengths, rates and targets must be positive: refused with the field named", "[serving]") {
    CHECK(refusal(R"({"serving": {"prompt_tokens": 0}})").rfind("serving.prompt_tokens", 0) == 0);
    CHECK(refusal(R"({"serving": {"output_tokens": -5}})").rfind("serving.output_tokens", 0) == 0);
    CHECK(refusal(R"({"serving": {"target_qps": 0}})").rfind("serving.target_qps", 0) == 0);
    CHECK(refusal(R"({"serving": {"ttft_ms": -1}})").rfind("serving.ttft_ms", 0) == 0);
    CHECK(refusal(R"({"serving": {"tpot_ms": 0}})").rfind("serving.tpot_ms", 0) == 0);
    CHECK(refusal(R"({"serving": {"batch": 0}})").rfind("serving.batch", 0) == 0);
    CHECK(refusal(R"({"serving": {"gpus": -1}})").rfind("serving.gpus", 0) == 0);
    CHECK(refusal(R"({"serving": {"memory_utilization": 0}})").rfind("serving.memory_utilization", 0) == 0);
    // The older byte fields keep working where a serving kernel exists for them, and name themselves where none does.
    CHECK(refusal(R"({"serving": {"weight_bytes_per_param": 1, "kv_bytes_per_element": 1}})").empty());
    CHECK(refusal(R"({"serving": {"weight_bytes_per_param": 3}})").rfind("serving.weight_bytes_per_param", 0) == 0);
    CHECK(refusal(R"({"serving": {"weight_precision": "fp6"}})").rfind("serving.weight_precision", 0) == 0);
    CHECK(refusal(R"({"serving": {"weight_precision": "fp8", "weight_bytes_per_param": 1}})").rfind("serving.weight_precision", 0) == 0);
    CHECK(refusal(R"({"serving": {"runtime": "tgi"}})").rfind("serving.runtime", 0) == 0);
    // Set in code rather than read from a file, the same rules hold.
    core::Scenario scenario = core::default_scenario();
    scenario.serving.prompt_tokens = 0;
    CHECK_THROWS_AS(core::serving_report(scenario), core::InputError);
}

TEST_CASE("Scenario files: the serving fields write back and read the same; a file naming the old fields still reads", "[serving][scenario]") {
    const core::Scenario scenario = scenario_from(R"({"serving": {"target_qps": 3, "prompt_tokens": 4096, "output_tokens": 512, "ttft_ms": 500,
        "tpot_ms": 40, "weight_precision": "int4", "kv_precision": "fp8", "runtime": "pytorch", "cuda_graphs": false, "max_batch": 64,
        "prefill_chunk_tokens": 2048, "reserve_output_kv": true, "memory_utilization": 0.8, "gpus": 16, "batch": 4, "context_tokens": 2048}})");
    REQUIRE(scenario.serving.weight_bytes_per_param == 0.5);
    REQUIRE(scenario.serving.kv_bytes_per_element == 1);
    REQUIRE(core::parse_scenario(core::scenario_to_json(scenario)).serving == scenario.serving);
    const core::Scenario old = scenario_from(R"({"serving": {"batch": 8, "context_tokens": 4096, "target_qps": 2, "output_tokens": 128,
        "weight_bytes_per_param": 2, "kv_bytes_per_element": 2}})");
    REQUIRE(old.serving.batch == 8);
    REQUIRE(old.serving.prompt_tokens == core::ServingSpec{}.prompt_tokens);
    REQUIRE(core::evaluate(old).serving.answer.verdict == core::ServingVerdict::meets);
}
