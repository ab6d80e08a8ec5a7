// Scenario files: invalid input refused with one line naming the field, defaults, and the JSON round trip.
#include "core/model/errors.h"
#include "core/cost/report/report_json.h"
#include "core/model/scenario_json.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

// The field an invalid scenario is refused for, or "(accepted)".
std::string refused_field(const std::string& json) {
    try {
        core::parse_scenario(json);
    } catch (const core::InputError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find('\n') == std::string::npos);          // one line
        CHECK(message.rfind(error.field() + ": ", 0) == 0);       // that starts with the field
        CHECK_FALSE(error.reason().empty());
        return error.field();
    }
    return "(accepted)";
}

std::string report_of(const core::Scenario& scenario) { return core::report_to_json(scenario, core::evaluate(scenario)); }

std::string llama_config_loader(const std::string& path) {
    if (path != "llama3-8b/config.json") throw std::runtime_error("no such file");
    return R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "tie_word_embeddings": false,
              "max_position_embeddings": 8192, "_name_or_path": "meta-llama/Meta-Llama-3-8B"})";
}

}  // namespace

TEST_CASE("Invalid scenarios: malformed JSON", "[scenario]") {
    REQUIRE(refused_field("{") == "scenario");
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-70b"},})") == "scenario");
    REQUIRE(refused_field("") == "scenario");
    REQUIRE(refused_field("[1, 2]") == "scenario");
}

TEST_CASE("Invalid scenarios: unknown keys, at any depth", "[scenario]") {
    REQUIRE(refused_field(R"({"bogus": 1})") == "bogus");
    REQUIRE(refused_field(R"({"train": {"seq_length": 2048}})") == "train.seq_length");
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-8b", "num_experts": 8}})") == "model.num_experts");
    REQUIRE(refused_field(R"({"cluster": {"gpu": {"name": "X", "tflops": 1}}})") == "cluster.gpu.tflops");
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-700b"}})") == "model.preset");
    REQUIRE(refused_field(R"({"cluster": {"gpu": "tpu-v5"}})") == "cluster.gpu");
    REQUIRE(refused_field(R"({"precision": {"recipe": "fp4-magic"}})") == "precision.recipe");
}

TEST_CASE("Invalid scenarios: wrong types", "[scenario]") {
    REQUIRE(refused_field(R"({"train": {"seq_len": "long"}})") == "train.seq_len");
    REQUIRE(refused_field(R"({"train": {"seq_len": 2048.5}})") == "train.seq_len");
    REQUIRE(refused_field(R"({"train": {"flash_attention": 1}})") == "train.flash_attention");
    REQUIRE(refused_field(R"({"train": {"recompute": "sometimes"}})") == "train.recompute");
    REQUIRE(refused_field(R"({"model": {"preset": 3}})") == "model.preset");
    REQUIRE(refused_field(R"({"train": "fast"})") == "train");
    REQUIRE(refused_field(R"({"cluster": {"gpus": 64.5}})") == "cluster.gpus");
    REQUIRE(refused_field(R"({"parallel": {"schedule": "zigzag"}})") == "parallel.schedule");
}

TEST_CASE("Invalid scenarios: zero or negative sizes", "[scenario]") {
    REQUIRE(refused_field(R"({"train": {"seq_len": 0}})") == "train.seq_len");
    REQUIRE(refused_field(R"({"train": {"micro_batch": -1}})") == "train.micro_batch");
    REQUIRE(refused_field(R"({"train": {"global_batch": 0}})") == "train.global_batch");
    REQUIRE(refused_field(R"({"train": {"tokens": -1e12}})") == "train.tokens");
    REQUIRE(refused_field(R"({"cluster": {"gpus": 0}})") == "cluster.gpus");
    REQUIRE(refused_field(R"({"cluster": {"gpus": -8}})") == "cluster.gpus");
    REQUIRE(refused_field(R"({"cluster": {"gpus_per_node": 0}})") == "cluster.gpus_per_node");
    REQUIRE(refused_field(R"({"cluster": {"gpu": {"name": "X", "hbm_bytes": -80e9}}})") == "cluster.gpu.hbm_bytes");
    REQUIRE(refused_field(R"({"model": {"params": 0}})") == "model.params");
    REQUIRE(refused_field(R"({"model": {"params": -70e9}})") == "model.params");
    REQUIRE(refused_field(R"({"model": {"layers": 0}})") == "model.layers");
    REQUIRE(refused_field(R"({"model": {"hidden": -5}})") == "model.hidden");
    REQUIRE(refused_field(R"({"parallel": {"tp": 0}})") == "parallel.tp");
    REQUIRE(refused_field(R"({"parallel": {"pp": -2}})") == "parallel.pp");
    REQUIRE(refused_field(R"({"parallel": {"virtual_stages": 0}})") == "parallel.virtual_stages");
    REQUIRE(refused_field(R"({"operations": {"gpu_mtbf_hours": 0}})") == "operations.gpu_mtbf_hours");
}

TEST_CASE("Invalid scenarios: layouts that cannot be built", "[scenario]") {
    SECTION("TP must divide the attention heads (Llama 3 70B has 64)") {
        REQUIRE(refused_field(R"({"parallel": {"tp": 3}, "cluster": {"gpus": 3}})") == "parallel.tp");
        REQUIRE(refused_field(R"({"parallel": {"tp": 128}, "cluster": {"gpus": 128}})") == "parallel.tp");
    }
    SECTION("cluster.gpus must be divisible by tp x pp x cp") {
        REQUIRE(refused_field(R"({"parallel": {"tp": 8, "pp": 3}, "cluster": {"gpus": 64}})") == "cluster.gpus");
        REQUIRE(refused_field(R"({"parallel": {"tp": 8, "cp": 16}, "cluster": {"gpus": 64}})") == "cluster.gpus");
    }
    SECTION("an explicit dp must agree with cluster.gpus") {
        REQUIRE(refused_field(R"({"parallel": {"dp": 4, "tp": 8}, "cluster": {"gpus": 64}})") == "parallel.dp");
        REQUIRE(refused_field(R"({"parallel": {"dp": 8, "tp": 8}, "cluster": {"gpus": 64}})") == "(accepted)");
    }
    SECTION("the global batch must split into whole micro-batches") {
        REQUIRE(refused_field(R"({"train": {"global_batch": 100}})") == "train.global_batch");
    }
    SECTION("struct-built scenarios are checked the same way by evaluate()") {
        core::Scenario scenario = core::default_scenario();
        scenario.parallel.tp = 3;
        REQUIRE_THROWS_AS(core::evaluate(scenario), core::InputError);
        try {
            core::evaluate(scenario);
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "parallel.tp");
        }
    }
}

TEST_CASE("Invalid scenarios: the finetune section, each refusal naming its field", "[scenario][lora]") {
    const std::string hf = R"("model": {"preset": "llama3-8b"}, "train": {"framework": "hf-transformers", "micro_batch": 1, "global_batch": 1},
        "cluster": {"gpu": "h100-sxm", "gpus": 1}, )";
    const auto with = [&](const std::string& finetune) { return "{" + hf + R"("finetune": )" + finetune + "}"; };
    REQUIRE(refused_field(with(R"({"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"], "dropout": 0.05})")) == "(accepted)");
    REQUIRE(refused_field(with(R"({"method": "qlora", "targets": "all-linear", "double_quant": true, "adapter_dtype": "bf16"})")) == "(accepted)");
    REQUIRE(refused_field(with(R"({"method": "dora"})")) == "finetune.method");
    REQUIRE(refused_field(with(R"({"method": "lora", "rank": 0})")) == "finetune.rank");
    REQUIRE(refused_field(with(R"({"method": "lora", "rank": 2.5})")) == "finetune.rank");
    REQUIRE(refused_field(with(R"({"method": "lora", "alpha": -1})")) == "finetune.alpha");
    REQUIRE(refused_field(with(R"({"method": "lora", "alpha": 0})")) == "finetune.alpha");
    REQUIRE(refused_field(with(R"({"method": "lora", "dropout": 1})")) == "finetune.dropout");
    REQUIRE(refused_field(with(R"({"method": "lora", "targets": ["q_proj", "c_attn"]})")) == "finetune.targets");
    REQUIRE(refused_field(with(R"({"method": "lora", "targets": "everything"})")) == "finetune.targets");
    REQUIRE(refused_field(with(R"({"method": "lora", "targets": []})")) == "finetune.targets");
    REQUIRE(refused_field(with(R"({"method": "qlora", "base_bytes": 0.75})")) == "finetune.base_bytes");
    REQUIRE(refused_field(with(R"({"method": "qlora", "base_bytes": 2})")) == "finetune.base_bytes");
    REQUIRE(refused_field(with(R"({"method": "full", "base_bytes": 0.5})")) == "finetune.base_bytes");
    REQUIRE(refused_field(with(R"({"method": "lora", "adapter_dtype": "fp16"})")) == "finetune.adapter_dtype");
    REQUIRE(refused_field(with(R"({"method": "lora", "r": 16})")) == "finetune.r");
    REQUIRE(refused_field(with(R"("lora")")) == "finetune");
    // Adapters attach to named modules: Megatron's fused blocks name none.
    REQUIRE(refused_field(R"({"model": {"preset": "llama3-8b"}, "finetune": {"method": "lora"}})") == "finetune.method");
}

TEST_CASE("The finetune section round trip: written, read back, the same scenario", "[scenario][lora]") {
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"framework": "hf-transformers",
        "micro_batch": 1, "global_batch": 1}, "cluster": {"gpu": "h100-sxm", "gpus": 1},
        "finetune": {"method": "qlora", "rank": 64, "alpha": 16, "dropout": 0.1, "targets": ["q_proj", "down_proj"], "base_bytes": 1}})");
    REQUIRE(scenario.finetune.method == core::FinetuneMethod::qlora);
    REQUIRE(scenario.finetune.base_bytes == 1);
    const core::Scenario read_back = core::parse_scenario(core::scenario_to_json(scenario));
    REQUIRE(read_back.finetune == scenario.finetune);
    REQUIRE(report_of(read_back) == report_of(scenario));
    // QLoRA's base defaults to NF4 when the file names the method alone.
    REQUIRE(core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"framework": "hf-transformers", "micro_batch": 1,
        "global_batch": 1}, "cluster": {"gpu": "h100-sxm", "gpus": 1}, "finetune": {"method": "qlora"}})").finetune.base_bytes == 0.5);
}

TEST_CASE("The default scenario: Llama 3 70B, 16 B per parameter, H100 SXM, 8 per node", "[scenario]") {
    const core::Scenario scenario = core::default_scenario();
    REQUIRE(scenario.model.id == "llama3-70b");
    REQUIRE(scenario.model.name == "Llama 3 70B");
    REQUIRE(scenario.precision.id == "bf16-mixed-adam");
    REQUIRE(scenario.precision.bytes_per_param() == 16);
    REQUIRE(scenario.cluster.gpu.id == "h100-sxm");
    REQUIRE(scenario.cluster.gpu.hbm_bytes == core_tests::h100_hbm_bytes);  // what CUDA gives a process: 80 GiB less the driver's share
    REQUIRE(scenario.cluster.gpu.bf16_flops_per_s == 989e12);
    REQUIRE(scenario.cluster.gpus_per_node == 8);
    REQUIRE(scenario.cluster.scale_up.id == "nvlink4");
    REQUIRE(scenario.cluster.scale_out.id == "ib-ndr");
    SECTION("an empty scenario file is the default, and the default writes back as {}") {
        REQUIRE(report_of(core::parse_scenario("{}")) == report_of(scenario));
        REQUIRE(core::scenario_to_json(scenario) == "{}\n");
    }
}

TEST_CASE("scenario_to_json round trip: parse(to_json(s)) evaluates to the same report", "[scenario]") {
    const char* files[] = {
        R"({"model": {"preset": "gpt3-175b"}, "train": {"seq_len": 2048, "global_batch": 64, "recompute": "selective",
            "sequence_parallel": true, "flash_attention": false}, "parallel": {"tp": 8, "pp": 8},
            "cluster": {"gpu": "a100-sxm", "gpus": 64, "scale_up_link": "nvlink3"}, "efficiency": {"step_seconds": 13.75}})",
        R"({"model": {"params": 7.5e9}, "parallel": {"dp": 64, "zero": 3}, "train": {"global_batch": 1024}})",
        R"({"model": {"name": "Tiny", "layers": 4, "hidden": 512, "heads": 8, "kv_heads": 2, "ffn_hidden": 1536, "vocab": 32000},
            "precision": {"weight_bytes": 2, "grad_bytes": 4, "master_bytes": 4, "optimizer_bytes": 2}, "cluster": {"gpus": 8}})",
        R"({"model": {"preset": "llama3-405b"}, "parallel": {"tp": 8, "pp": 16, "schedule": "interleaved", "virtual_stages": 2,
            "zero": 1}, "cluster": {"gpus": 16384, "gpu": {"name": "H100 at 1000", "bf16_flops_per_s": 1000e12, "hbm_bytes": 80e9}},
            "train": {"global_batch": 2048}, "efficiency": {"mfu": 0.41}})",
        R"({"precision": {"recipe": "megatron-distributed-optimizer"}, "parallel": {"tp": 4, "cp": 2},
            "cluster": {"gpus_per_node": 4, "gpus": 32, "scale_out_link": {"name": "slow", "bytes_per_s": 12.5e9, "latency_seconds": 1e-5}},
            "operations": {"gpu_mtbf_hours": 20000, "checkpoint_bytes_per_s": 20e9}, "serving": {"batch": 8}})",
    };
    for (const char* file : files) {
        INFO(file);
        const core::Scenario scenario = core::parse_scenario(file);
        const std::string written = core::scenario_to_json(scenario);
        INFO("written back as " << written);
        const core::Scenario reread = core::parse_scenario(written);
        REQUIRE(report_of(reread) == report_of(scenario));
        REQUIRE(core::scenario_to_json(reread) == written);
    }
}

TEST_CASE("model.hf_config goes through the loader core is given (core reads no files)", "[scenario]") {
    REQUIRE(refused_field(R"({"model": {"hf_config": "llama3-8b/config.json"}})") == "model.hf_config");
    const core::Scenario scenario = core::parse_scenario(R"({"model": {"hf_config": "llama3-8b/config.json"}})", llama_config_loader);
    REQUIRE(scenario.model.name == "meta-llama/Meta-Llama-3-8B");
    REQUIRE(core::evaluate(scenario).memory.params == 8030261248.0);
    REQUIRE_THROWS_AS(core::parse_scenario(R"({"model": {"hf_config": "missing.json"}})", llama_config_loader), core::InputError);
    SECTION("and the round trip keeps the architecture") {
        const core::Scenario reread = core::parse_scenario(core::scenario_to_json(scenario));
        REQUIRE(report_of(reread) == report_of(scenario));
    }
}
