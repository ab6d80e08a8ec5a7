// Parameter counts: Narayanan 2021 eq. 2 and Table 1 (published.md sec 3), and the published Llama 3 configs.
#include "core/model/model.h"
#include "core/model/model_json.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

struct Table1Row {
    const char* preset;
    double published_billions;
    long long heads, hidden, layers;
};
// Narayanan 2021 Table 1, V = 51200, s = 2048.
const Table1Row megatron_table1[] = {
    {"megatron-1.7b", 1.7, 24, 2304, 24},    {"megatron-3.6b", 3.6, 32, 3072, 30},    {"megatron-7.5b", 7.5, 32, 4096, 36},
    {"megatron-18.4b", 18.4, 48, 6144, 40},  {"megatron-39.1b", 39.1, 64, 8192, 48},  {"megatron-76.1b", 76.1, 80, 10240, 60},
    {"megatron-145.6b", 145.6, 96, 12288, 80},
};

// Eq. 2 expanded, in exact integers: 12 l h^2 + 13 l h + (V + s) h.
long long eq2_exact(long long layers, long long hidden, long long vocab, long long seq) {
    return 12 * layers * hidden * hidden + 13 * layers * hidden + (vocab + seq) * hidden;
}

}  // namespace

TEST_CASE("Narayanan 2021 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))", "[params]") {
    for (const Table1Row& row : megatron_table1) {
        INFO(row.preset);
        REQUIRE(core::megatron_eq2_params(static_cast<int>(row.layers), static_cast<int>(row.hidden), 51200, 2048) ==
                Approx(static_cast<double>(eq2_exact(row.layers, row.hidden, 51200, 2048))).epsilon(1e-13));
    }
}

TEST_CASE("Narayanan 2021 Table 1: the presets count eq. 2 plus the final LayerNorm (2h), exactly", "[params]") {
    for (const Table1Row& row : megatron_table1) {
        INFO(row.preset);
        const core::ModelSpec* model = core::find_model(row.preset);
        REQUIRE(model != nullptr);
        REQUIRE(model->layers == row.layers);
        REQUIRE(model->hidden == row.hidden);
        REQUIRE(model->heads == row.heads);
        REQUIRE(model->vocab == 51200);
        const core::ParamBreakdown counted = core::count_params(*model, 2048);
        // Eq. 2 leaves out the final LayerNorm's weight and bias; every other term matches to the parameter.
        REQUIRE(counted.final_norm == 2 * row.hidden);
        REQUIRE(counted.total - static_cast<double>(eq2_exact(row.layers, row.hidden, 51200, 2048)) == 2 * row.hidden);
    }
}

TEST_CASE("Narayanan 2021 Table 1: published sizes 1.7B ... 145.6B to their rounding", "[params]") {
    for (const Table1Row& row : megatron_table1) {
        const double billions = core::count_params(*core::find_model(row.preset), 2048).total / 1e9;
        INFO(row.preset << ": counted " << billions << "B");
        REQUIRE(std::abs(billions - row.published_billions) <= 0.05);  // the table gives one decimal
    }
}

TEST_CASE("GPT-3 175B (Brown et al. 2020): 96 layers, h 12288, V 51200 count 174.6B, published as 175B", "[params]") {
    const double params = core::count_params(*core::find_model("gpt3-175b"), 2048).total;
    REQUIRE(params == Approx(static_cast<double>(eq2_exact(96, 12288, 51200, 2048) + 2 * 12288)));
    REQUIRE(params / 1e9 == Approx(175).margin(0.5));
}

TEST_CASE("Llama 3 presets match the published configs: 8.03B, 70.55B, 405.85B", "[params]") {
    // Exact counts of the Hugging Face configs (GQA 8 KV heads, SwiGLU, RMSNorm, untied 128256-token embeddings).
    REQUIRE(core::count_params(*core::find_model("llama3-8b"), 8192).total == 8030261248.0);
    REQUIRE(core::count_params(*core::find_model("llama3-70b"), 8192).total == 70553706496.0);
    REQUIRE(core::count_params(*core::find_model("llama3-405b"), 8192).total == 405853388800.0);
    REQUIRE(core::count_params(*core::find_model("llama3-8b"), 8192).total / 1e9 == Approx(8.03).margin(0.005));
    REQUIRE(core::count_params(*core::find_model("llama3-70b"), 8192).total / 1e9 == Approx(70.55).margin(0.005));
    REQUIRE(core::count_params(*core::find_model("llama3-405b"), 8192).total / 1e9 == Approx(405.9).margin(0.05));
}

TEST_CASE("GPT-2 124M (Radford et al. 2019): the small preset counts 124.4M", "[params]") {
    // 12 layers, h 768, V 50257, 1024 learned positions, tied embeddings, LayerNorm and biases.
    REQUIRE(core::count_params(*core::find_model("gpt2-124m"), 1024).total == 124439808.0);
}

TEST_CASE("A Hugging Face LlamaConfig parses to the same count as the preset", "[params]") {
    const core::ModelSpec parsed = core::parse_hf_config(R"({"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80,
        "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256,
        "tie_word_embeddings": false, "max_position_embeddings": 8192})");
    REQUIRE(core::count_params(parsed, 8192).total == 70553706496.0);
}
