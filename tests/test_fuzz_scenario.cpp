// The fuzz test: a seeded generator drives parse_scenario + evaluate with malformed and extreme input (truncated
// JSON, huge and tiny numbers, wrong types, NaN and Infinity spelled out, deep nesting, every key of the real schema).
// Whatever comes in: no crash, no hang, only core::InputError is thrown, and no Report holds a NaN or an infinity
// (fuzz/checks.h, as the libFuzzer entries ask). Inputs that once failed live in fuzz/corpus/scenario/, replayed by
// fuzz/test_corpus.cpp through the libFuzzer entry.
#include "core/model/errors.h"
#include "core/cost/report/evaluate.h"
#include "core/model/scenario_json.h"
#include "fuzz/checks.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Checking one input.

// The Hugging Face config text the scenario's "model.hf_config" loads (core reads no files; the test hands it over).
std::string hf_config_text;
std::string load_hf_config(const std::string&) { return hf_config_text; }

// What became of one input: refused with an InputError, or evaluated; and what is wrong with that, if anything.
struct Outcome {
    bool evaluated = false;
    std::optional<std::string> problem;
};

Outcome outcome_of(const std::string& scenario_text) {
    Outcome outcome;
    outcome.problem = fuzz::problem_of([&] {
        const core::Scenario scenario = core::parse_scenario(scenario_text, load_hf_config);
        const core::Report report = core::evaluate(scenario);
        outcome.evaluated = true;
        return fuzz::report_problem(scenario, report);
    });
    return outcome;
}

// ---------------------------------------------------------------------------------------------------------------
// Generating input. Values are JSON text snippets, so NaN, Infinity and 1e999 can be spelled out as a user might.

// A seeded engine whose draws are the same on every standard library (std:: distributions are not).
class Random {
public:
    explicit Random(std::uint64_t seed) : engine_(seed) {}
    std::size_t below(std::size_t count) { return static_cast<std::size_t>(engine_() % count); }
    bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
    template <typename T> const T& pick(const std::vector<T>& items) { return items[below(items.size())]; }

private:
    std::mt19937_64 engine_;
};

using Snippets = std::vector<std::string>;

// One key of the real schema and values near its valid range (its bounds included: they are where NaNs hide).
struct SchemaKey {
    std::string section;
    std::string key;
    Snippets plausible;
};

const Snippets kBooleans = {"true", "false"};

const std::vector<SchemaKey>& schema() {
    static const std::vector<SchemaKey> keys = {
        {"model", "preset", {"\"llama3-405b\"", "\"llama3-70b\"", "\"llama3-8b\"", "\"gpt2-124m\"", "\"gpt3-175b\"", "\"llama3.2-1b\"",
                             "\"megatron-1.7b\"", "\"mi300x\"", "\"\"", "\"mixtral-8x7b\"", "\"deepseek-v3\"", "\"qwen3-235b-a22b\"",
                             "\"llama4-maverick\""}},
        {"model", "experts", {"0", "1", "8", "256", "100000"}},
        {"model", "experts_per_token", {"0", "1", "2", "8", "100000"}},
        {"model", "expert_ffn_hidden", {"0", "1", "2048", "14336", "100000000"}},
        {"model", "shared_experts", {"0", "1", "2", "1000"}},
        {"model", "shared_ffn_hidden", {"0", "2048", "100000000"}},
        {"model", "first_dense_layers", {"0", "1", "3", "100000"}},
        {"model", "moe_layer_step", {"1", "2", "100000"}},
        {"model", "kv_lora_rank", {"0", "512", "10000000"}},
        {"model", "q_lora_rank", {"0", "1536"}},
        {"model", "qk_rope_head_dim", {"0", "64"}},
        {"model", "v_head_dim", {"0", "128"}},
        {"model", "head_dim", {"0", "64", "128", "100000"}},
        {"model", "params", {"1e6", "124e6", "7e9", "70e9", "405e9", "1e15", "999999", "1e16"}},
        {"model", "hf_config", {"\"config.json\""}},
        {"model", "layers", {"1", "2", "12", "32", "80", "126", "1000", "100000"}},
        {"model", "hidden", {"1", "64", "768", "4096", "16384", "10000000"}},
        {"model", "heads", {"1", "2", "8", "12", "64", "128", "100000"}},
        {"model", "kv_heads", {"1", "2", "8", "128"}},
        {"model", "ffn_hidden", {"1", "3072", "14336", "53248", "100000000"}},
        {"model", "vocab", {"1", "50257", "128256", "100000000"}},
        {"model", "positions", {"0", "1024", "100000000"}},
        {"model", "default_seq_len", {"1", "2048", "100000000"}},
        {"model", "gated_mlp", kBooleans},
        {"model", "tied_embeddings", kBooleans},
        {"model", "learned_positions", kBooleans},
        {"model", "bias", kBooleans},
        {"model", "name", {"\"x\"", "\"\"", "\"nan\"", "\"line\\nbreak\""}},
        {"train", "seq_len", {"1", "2", "2048", "8192", "131072", "10000000"}},
        {"train", "micro_batch", {"1", "2", "4", "16", "1000000"}},
        {"train", "global_batch", {"1", "16", "64", "512", "2048", "100000000"}},
        {"train", "tokens", {"1", "1e9", "15e12", "1e17"}},
        {"train", "recompute", {"\"none\"", "\"selective\"", "\"full\"", "\"some\""}},
        {"train", "sequence_parallel", kBooleans},
        {"train", "flash_attention", kBooleans},
        {"train", "attention", {"\"sdpa\"", "\"flash_attention_2\"", "\"eager\"", "\"flex_attention\"", "1"}},
        {"train", "deadline_days", {"0.001", "1", "90", "1e6"}},
        {"precision", "recipe", {"\"bf16-mixed-adam\"", "\"fp32-adam\"", "\"bf16-adam-no-master\"", "\"bf16-mixed-adam-8bit\"",
                                 "\"megatron-distributed-optimizer\"", "\"bf16-mixed-sgd-momentum\"", "\"x\""}},
        {"precision", "weight_bytes", {"0", "0.5", "2", "64"}},
        {"precision", "grad_bytes", {"0", "2", "4", "64"}},
        {"precision", "master_bytes", {"0", "4", "64"}},
        {"precision", "optimizer_bytes", {"0", "1e-300", "8", "64"}},
        {"parallel", "dp", {"1", "2", "8", "64", "128", "1024", "100000000"}},
        {"parallel", "tp", {"1", "2", "4", "8", "16", "64", "1000000"}},
        {"parallel", "pp", {"1", "2", "4", "8", "16", "126", "1024", "1000000"}},
        {"parallel", "cp", {"1", "2", "4", "16"}},
        {"parallel", "zero", {"0", "1", "2", "3"}},
        {"parallel", "schedule", {"\"naive\"", "\"gpipe\"", "\"1f1b\"", "\"interleaved\"", "\"zb-h1\"", "\"2f2b\""}},
        {"parallel", "virtual_stages", {"1", "2", "4", "8", "1024"}},
        {"parallel", "ep", {"1", "2", "8", "64", "256", "1000000"}},
        {"parallel", "etp", {"1", "2", "8", "1000000"}},
        {"moe", "load_imbalance", {"1", "1.3", "4", "1000"}},
        {"moe", "capacity_factor", {"0", "0.5", "1", "1.25", "1000"}},
        {"moe", "node_limit", {"0", "1", "4", "1000000"}},
        {"moe", "dispatch_bytes", {"0.5", "1", "2", "4"}},
        {"overlap", "ep_all_to_all", kBooleans},
        {"cluster", "gpu", {"\"h100-sxm\"", "\"a100-sxm\"", "\"b200\"", "\"mi300x\"", "\"h200-sxm\"", "\"tpu\"", "{}",
                            "{\"hbm_bytes\": 1e6, \"bf16_flops_per_s\": 1e9, \"hbm_bytes_per_s\": 1e6}",
                            "{\"hbm_bytes\": 1e15, \"bf16_flops_per_s\": 1e18, \"hbm_bytes_per_s\": 1e16, \"fp32_flops_per_s\": 0, \"fp8_flops_per_s\": 0}",
                            "{\"scale_up_link\": \"nowhere\"}", "{\"id\": \"\"}"}},
        {"cluster", "gpus_per_node", {"1", "4", "8", "72", "1024"}},
        {"cluster", "gpus", {"1", "8", "64", "1024", "16384", "100000000"}},
        {"cluster", "scale_up_link", {"\"nvlink3\"", "\"nvlink5\"", "\"ib-ndr\"", "\"x\"",
                                      "{\"bytes_per_s\": 1e6, \"latency_seconds\": 1}", "{\"bytes_per_s\": 1e15, \"latency_seconds\": 0}"}},
        {"cluster", "scale_out_link", {"\"ib-hdr\"", "\"infinity-fabric\"", "{\"bytes_per_s\": 1e6, \"latency_seconds\": 1}",
                                       "{\"bytes_per_s\": 1e15, \"latency_seconds\": 0}"}},
        {"efficiency", "mfu", {"1e-6", "0.4", "1"}},
        {"efficiency", "step_seconds", {"1e-9", "1", "1e9"}},
        {"overlap", "dp_grad_reduce", kBooleans},
        {"overlap", "dp_param_gather", kBooleans},
        {"overlap", "zero3_prefetch", kBooleans},
        {"overlap", "tp_comm", kBooleans},
        {"overlap", "cp_ring", kBooleans},
        {"overlap", "pp_p2p", kBooleans},
        {"train", "framework", {"\"megatron\"", "\"pytorch-eager\"", "\"hf-transformers\"", "\"jax\""}},
        {"train", "dropout", kBooleans},
        {"train", "gradient_accumulation_fusion", kBooleans},
        {"serving", "batch", {"1", "64", "1000000"}},
        {"serving", "context_tokens", {"1", "8192", "100000000"}},
        {"serving", "target_qps", {"1e-6", "10", "1e9"}},
        {"serving", "output_tokens", {"1", "256", "100000000"}},
        {"serving", "weight_bytes_per_param", {"0.125", "2", "8"}},
        {"serving", "kv_bytes_per_element", {"0.125", "2", "8"}},
        {"operations", "gpu_mtbf_hours", {"1e-3", "50000", "1e12"}},
        {"operations", "checkpoint_bytes_per_s", {"1e3", "100e9", "1e16"}},
        {"operations", "restart_seconds", {"0", "600", "1e9"}},
        {"operations", "dollars_per_gpu_hour", {"0", "2", "1e6"}},
        {"memory", "workspace_bytes", {"0", "67108864", "1e12"}},
        {"memory", "nccl_bytes_per_group", {"0", "688e6", "1e12"}},
        {"memory", "fragmentation", {"0", "0.059", "1"}},
        {"budget", "price", {"\"on-demand\"", "\"spot\"", "\"custom\"", "\"free\""}},
        {"budget", "setup_hours", {"0", "0.5", "1e5"}},
        {"budget", "dollars", {"0", "3", "1e12"}},
        {"finetune", "method", {"\"full\"", "\"lora\"", "\"qlora\"", "\"dora\""}},
        {"finetune", "rank", {"1", "16", "65536", "0"}},
        {"finetune", "alpha", {"0.5", "32", "1e6"}},
        {"finetune", "dropout", {"0", "0.1", "0.99"}},
        {"finetune", "targets", {"\"attention\"", "\"all-linear\"", "[\"q_proj\", \"v_proj\"]", "[\"down_proj\"]", "[\"wq\"]"}},
        {"finetune", "base_bytes", {"2", "1", "0.5", "0.25"}},
        {"finetune", "double_quant", kBooleans},
        {"finetune", "adapter_dtype", {"\"fp32\"", "\"bf16\""}},
    };
    return keys;
}

// Numbers at and beyond every limit of double and int, and NaN / Infinity as people type them (not JSON, but seen).
const Snippets kExtremeNumbers = {
    "0", "-0", "-1", "0.5", "3.0", "1e-320", "4.9e-324", "1e-300", "1e300", "1.7976931348623157e308", "1e999", "-1e999",
    "2147483647", "2147483648", "-2147483649", "4294967297", "9007199254740993", "18446744073709551615",
    "99999999999999999999999", "100000001", "1.0000000001", "NaN", "nan", "Infinity", "-Infinity", "inf", "0x10", "01", "+1", ".5",
};

// Values of the wrong type for any key.
const Snippets kWrongTypes = {"\"8\"", "\"\"", "true", "null", "[]", "{}", "[1, 2]", "{\"a\": 1}", "\"\\u0000\"", "\"\\ud800\""};

std::string deeply_nested(Random& random) {
    static const std::vector<std::size_t> depths = {64, 1000, 20000};
    const std::size_t depth = random.pick(depths);
    if (random.chance(50)) return std::string(depth, '[') + std::string(depth, ']');
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += "{\"a\":";
    return text + "1" + std::string(depth, '}');
}

// Hostile values are anything; gentle ones stay near the valid range, so that they reach evaluate() with extreme figures.
std::string random_value(Random& random, const SchemaKey& key, bool hostile) {
    const std::size_t roll = random.below(100);
    if (!hostile) return roll < 85 ? random.pick(key.plausible) : random.pick(kExtremeNumbers);
    if (roll < 60) return random.pick(key.plausible);
    if (roll < 82) return random.pick(kExtremeNumbers);
    if (roll < 97) return random.pick(kWrongTypes);
    return deeply_nested(random);
}

// A scenario as section -> key -> value snippet, serialised in that order.
using ScenarioText = std::map<std::string, std::map<std::string, std::string>>;

std::string serialise(const ScenarioText& scenario) {
    std::string text = "{";
    for (const auto& [section, keys] : scenario) {
        if (text.size() > 1) text += ", ";
        text += "\"" + section + "\": {";
        bool first = true;
        for (const auto& [key, value] : keys) {
            text += (first ? "\"" : ", \"") + key + "\": " + value;
            first = false;
        }
        text += "}";
    }
    return text + "}";
}

// Valid starting points, so that after a few mutations many inputs still reach evaluate().
const std::vector<ScenarioText>& base_scenarios() {
    static const std::vector<ScenarioText> bases = {
        {},
        {{"model", {{"preset", "\"llama3-405b\""}}},
         {"train", {{"global_batch", "2048"}, {"sequence_parallel", "true"}}},
         {"parallel", {{"tp", "8"}, {"pp", "16"}, {"zero", "1"}}},
         {"cluster", {{"gpus", "16384"}}}},
        {{"model", {{"preset", "\"gpt3-175b\""}}},
         {"train", {{"seq_len", "2048"}, {"global_batch", "64"}, {"recompute", "\"selective\""}, {"flash_attention", "false"}}},
         {"parallel", {{"tp", "8"}, {"pp", "8"}, {"schedule", "\"interleaved\""}, {"virtual_stages", "2"}}},
         {"cluster", {{"gpu", "\"a100-sxm\""}, {"gpus", "64"}}}},
        {{"model", {{"params", "7e9"}}}, {"parallel", {{"dp", "8"}, {"zero", "3"}}}, {"train", {{"global_batch", "64"}}}},
        {{"model", {{"hf_config", "\"config.json\""}}}, {"cluster", {{"gpus", "8"}}}, {"train", {{"seq_len", "4096"}, {"global_batch", "16"}}}},
        {{"model", {{"preset", "\"llama3-8b\""}}},
         {"train", {{"framework", "\"hf-transformers\""}, {"micro_batch", "1"}, {"global_batch", "4"}, {"recompute", "\"full\""}}},
         {"cluster", {{"gpu", "\"rtx-4090\""}, {"gpus", "1"}}},
         {"finetune", {{"method", "\"qlora\""}, {"rank", "16"}, {"alpha", "32"}, {"targets", "\"all-linear\""}, {"double_quant", "true"}}}},
    };
    return bases;
}

// A Hugging Face config: Llama 3 8B's, with some values replaced.
std::string random_hf_config(Random& random) {
    std::map<std::string, std::string> config = {
        {"hidden_size", "4096"}, {"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
        {"vocab_size", "128256"}, {"intermediate_size", "14336"}, {"max_position_embeddings", "8192"},
        {"tie_word_embeddings", "false"}, {"model_type", "\"llama\""}};
    const std::vector<std::string> keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                                           "vocab_size", "intermediate_size", "max_position_embeddings", "tie_word_embeddings",
                                           "model_type", "n_embd", "n_layer", "n_head", "n_positions", "n_inner", "_name_or_path",
                                           "num_local_experts", "num_experts_per_tok", "n_routed_experts", "moe_intermediate_size",
                                           "kv_lora_rank", "qk_rope_head_dim", "v_head_dim", "num_experts", "head_dim", "first_k_dense_replace",
                                           "decoder_sparse_step", "mlp_only_layers", "expert_capacity"};
    const Snippets plausible = {"1", "2", "8", "64", "4096", "2147483647", "\"gpt2\"", "true", "\"mixtral\"", "\"deepseek_v3\"",
                                "\"qwen3_moe\"", "[]", "[0]"};
    const std::size_t changes = 1 + random.below(3);
    for (std::size_t i = 0; i < changes; ++i) {
        const std::string& key = random.pick(keys);
        if (random.chance(15)) config.erase(key);
        else config[key] = random.chance(50) ? random.pick(plausible) : random.pick(random.chance(70) ? kExtremeNumbers : kWrongTypes);
    }
    std::string text = "{";
    for (const auto& [key, value] : config) text += (text.size() > 1 ? ", \"" : "\"") + key + "\": " + value;
    return text + "}";
}

// Damage at the text level: truncation, a byte dropped, swapped or inserted, a slice repeated.
std::string damage_text(Random& random, std::string text) {
    if (text.empty()) return text;
    static const char kAlphabet[] = "{}[]\",:0123456789eE.+-\\ ntfu\x00\xff";  // NUL and 0xff too: sized explicitly
    static const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
    const std::size_t at = random.below(text.size());
    switch (random.below(5)) {
        case 0: return text.substr(0, at);
        case 1: return text.erase(at, 1);
        case 2: text[at] = alphabet[random.below(alphabet.size())]; return text;
        case 3: return text.insert(at, 1, alphabet[random.below(alphabet.size())]);
        default: return text.insert(at, text.substr(at, random.below(text.size() - at) + 1));
    }
}

// One input: a base scenario with a few keys set or removed. Half the inputs are gentle (plausible values only, to reach
// evaluate()); the other half also get wrong types, stray keys and sections, deep nesting and damaged text.
std::string random_scenario_text(Random& random) {
    const bool hostile = random.chance(50);
    ScenarioText scenario = random.pick(base_scenarios());
    const std::size_t changes = 1 + random.below(hostile ? 6 : 3);
    for (std::size_t i = 0; i < changes; ++i) {
        const SchemaKey& key = random.pick(schema());
        if (random.chance(10)) scenario[key.section].erase(key.key);
        else scenario[key.section][key.key] = random_value(random, key, hostile);
    }
    if (!hostile) return serialise(scenario);
    if (random.chance(10)) scenario[random.pick(schema()).section]["no_such_key"] = "1";
    if (random.chance(5)) scenario["no_such_section"]["a"] = "1";
    if (random.chance(5)) scenario["_comment"]["deep"] = deeply_nested(random);
    std::string text = serialise(scenario);
    if (random.chance(5)) text = random.pick(kExtremeNumbers);  // a scenario that is not an object at all
    if (random.chance(30)) text = damage_text(random, text);
    return text;
}

std::size_t environment_count(const char* name, std::size_t fallback) {
    const char* value = std::getenv(name);
    return value ? static_cast<std::size_t>(std::strtoull(value, nullptr, 10)) : fallback;
}

std::string quoted_for_report(const std::string& text) {
    return text.size() > 2000 ? text.substr(0, 2000) + "... (" + std::to_string(text.size()) + " bytes)" : text;
}

}  // namespace

// SHARDSCOPE_FUZZ_CASES and SHARDSCOPE_FUZZ_SEED run a longer or different search locally; CI runs the fixed seed.
TEST_CASE("Fuzz: random scenarios from the real schema never crash, throw only InputError, report no NaN or inf",
          "[fuzz]") {
    const std::uint64_t seed = environment_count("SHARDSCOPE_FUZZ_SEED", 20240610);
    const std::size_t cases = environment_count("SHARDSCOPE_FUZZ_CASES", 3000);
    Random random(seed);
    std::size_t evaluated = 0;
    std::size_t failures = 0;
    for (std::size_t i = 0; i < cases; ++i) {
        hf_config_text = random_hf_config(random);
        const std::string text = random_scenario_text(random);
        const Outcome outcome = outcome_of(text);
        evaluated += outcome.evaluated;
        if (outcome.problem) {
            ++failures;
            if (failures <= 5) {  // the first few, each with the input that reproduces it
                FAIL_CHECK("seed " << seed << " case " << i << ": " << *outcome.problem << "\nscenario: " << quoted_for_report(text)
                                   << "\nhf_config: " << hf_config_text);
            }
        }
    }
    REQUIRE(failures == 0);
    // The generator must keep reaching evaluate(), or the search only exercises the parser's refusals.
    REQUIRE(evaluated >= cases / 5);
}

TEST_CASE("Fuzz: malformed JSON text is refused as InputError naming the scenario", "[fuzz]") {
    const std::vector<std::string> malformed = {
        "", "{", "}", "{\"model\": ", "{\"model\": {\"preset\": \"llama3-70b\"}", "{\"train\": {\"seq_len\": NaN}}",
        "{\"train\": {\"tokens\": Infinity}}", "{\"train\": {\"tokens\": -Infinity}}", "{\"cluster\": {\"gpus\": 0x40}}",
        "{\"cluster\": {\"gpus\": 064}}", "{'model': {}}", "{\"model\": {},}", std::string("{\"a\"\0:1}", 8), "\xff\xfe{}",
    };
    for (const std::string& text : malformed) {
        INFO(quoted_for_report(text));
        try {
            core::parse_scenario(text);
            FAIL("accepted malformed JSON");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "scenario");
            REQUIRE_THAT(error.reason(), Catch::Matchers::StartsWith("malformed JSON"));
        }
    }
}

TEST_CASE("Fuzz: JSON nested deeper than 64 levels is refused before copying it can overflow the stack", "[fuzz]") {
    // 100,000 nested objects in a custom GPU crashed parse_scenario (SIGSEGV): read_cluster copies the object recursively.
    const std::string nested_objects = [] {
        std::string text;
        for (int level = 0; level < 200000; ++level) text += "{\"a\":";
        return text + "1" + std::string(200000, '}');
    }();
    const std::string nested_arrays = std::string(200000, '[') + std::string(200000, ']');
    for (const std::string& scenario : {R"({"cluster": {"gpu": {"id": "x", "source": )" + nested_objects + "}}}",
                                        R"({"cluster": {"scale_out_link": {"id": "x", "source": )" + nested_arrays + "}}}",
                                        R"({"_about": )" + nested_arrays + "}", nested_objects}) {
        try {
            core::parse_scenario(scenario);
            FAIL("accepted 200,000 levels of nesting");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "scenario");
            REQUIRE(error.reason() == "nested deeper than 64 levels");
        }
    }
    // A comment nested a few levels deep is still fine.
    REQUIRE(core::parse_scenario(R"({"_about": [[[["deep enough"]]]]})").cluster.gpus == 64);
}

TEST_CASE("Fuzz: a Hugging Face config with 2^31 - 1 layers is refused, not overflowed in int arithmetic", "[fuzz]") {
    const char* scenario = R"({"model": {"hf_config": "config.json"}, "cluster": {"gpus": 8}, "train": {"global_batch": 16}})";
    struct Case {
        std::string config, field, reason;
    };
    // Each key is held to the range of the model field it is read into, before any cast to int.
    const std::vector<Case> cases = {
        {R"({"hidden_size": 4096, "num_hidden_layers": 2147483647, "num_attention_heads": 32, "vocab_size": 128256})",
         "model.hf_config.num_hidden_layers", "must be between 1 and 100000, got 2147483647"},
        {R"({"hidden_size": 9999999999, "num_hidden_layers": 32, "num_attention_heads": 1, "vocab_size": 128256})",
         "model.hf_config.hidden_size", "must be between 1 and 10000000, got 9999999999"},
    };
    for (const auto& [config, field, reason] : cases) {
        hf_config_text = config;
        try {
            core::parse_scenario(scenario, load_hf_config);
            FAIL("accepted " << config);
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == field);
            REQUIRE(error.reason() == reason);
        }
    }
    hf_config_text = R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 128256})";
    REQUIRE(core::parse_scenario(scenario, load_hf_config).model.layers == 32);
}

TEST_CASE("Fuzz: a number beyond double (1e999) is malformed JSON, not an uncaught nlohmann out_of_range", "[fuzz]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"train": {"tokens": 1e999}})", "1e999"},
        {R"({"parallel": {"tp": -1e999}})", "-1e999"},
        {R"({"_note": 1e400})", "1e400"},
    };
    for (const auto& [text, number] : cases) {
        INFO(text);
        try {
            core::parse_scenario(text);
            FAIL("accepted a number beyond double");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "scenario");
            REQUIRE(error.reason() == "malformed JSON: number overflow parsing '" + number + "'");
        }
    }
}

TEST_CASE("Fuzz: numbers beyond int and below a range are refused naming the field", "[fuzz]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"cluster": {"gpus": 2147483648}})", "cluster.gpus"},
        {R"({"cluster": {"gpus": 18446744073709551615}})", "cluster.gpus"},
        {R"({"parallel": {"tp": -2147483649}})", "parallel.tp"},
        {R"({"train": {"global_batch": 4.5}})", "train.global_batch"},
        {R"({"operations": {"gpu_mtbf_hours": 4.9e-324}})", "operations.gpu_mtbf_hours"},
    };
    for (const auto& [text, field] : cases) {
        INFO(text);
        try {
            core::parse_scenario(text);
            FAIL("accepted an out-of-range number");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == field);
        }
    }
}
