// One way to edit a scenario (core/model/scenario_edits.h): every control of the sidebar, the stack panel, the
// configurator, the lesson player and the file import goes through these edits and offers only choices_of's values.
// For the default scenario and the shipped presets, every offered value of every control must give a scenario that
// validate_scenario accepts, and the edit must set what the control asked for.
#include "core/cost/report/evaluate.h"
#include "core/model/errors.h"
#include "core/model/hardware.h"
#include "core/model/model_json.h"
#include "core/model/model.h"
#include "core/model/precision.h"
#include "core/model/scenario_edits.h"
#include "core/model/scenario_json.h"

#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The shipped scenarios, read as the app reads them.
core::Scenario preset(const std::string& name) { return core_tests::shipped(name); }

// The default scenario, the shipped presets, a small model on one node where many values are refused, and a mixture
// of experts with EP across a pipeline.
std::vector<std::pair<std::string, core::Scenario>> starting_points() {
    return {
        {"default", core::default_scenario()},
        {"assets/scenarios/default.json", preset("default.json")},
        {"assets/scenarios/llama3-405b-16k.json", preset("llama3-405b-16k.json")},
        {"assets/scenarios/gpt3-175b-megatron.json", preset("gpt3-175b-megatron.json")},
        {"assets/scenarios/deepseek-v3.json", preset("deepseek-v3.json")},
        {"Mixtral 8x7B on 64 GPUs, TP 2, PP 4, EP 4", core::parse_scenario(R"({"model": {"preset": "mixtral-8x7b"},
            "train": {"seq_len": 4096, "global_batch": 256, "sequence_parallel": true}, "parallel": {"tp": 2, "pp": 4, "ep": 4},
            "cluster": {"gpus": 64}})")},
        {"Llama 3 8B on 8 GPUs", core::parse_scenario(R"({"model": {"preset": "llama3-8b"}, "train": {"seq_len": 4096, "global_batch": 16},
                                                          "cluster": {"gpu": "h100-sxm", "gpus": 8}})")},
    };
}

// An edit a control offered: it succeeded, and what it produced is a scenario the app can evaluate.
void require_valid(const core::Edit& edit, const std::string& what) {
    INFO(what);
    if (!edit.ok()) FAIL(edit.problem->field << ": " << edit.problem->reason);
    REQUIRE_NOTHROW(core::validate_scenario(edit.scenario));
}

}  // namespace

TEST_CASE("Scenario edits: every offered layout value (TP, PP, CP, DP, micro-batch, v, ZeRO) gives a valid scenario that has it",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        const core::Choices choices = core::choices_of(scenario);
        CHECK_FALSE(choices.tp.empty());
        CHECK_FALSE(choices.dp.empty());
        const auto check_axis = [&](core::LayoutAxis axis, const std::vector<int>& values, int core::Layout::*field, const char* label) {
            for (int value : values) {
                const core::Edit edit = core::with_axis(scenario, axis, value);
                require_valid(edit, std::string(label) + " = " + std::to_string(value));
                CHECK(core::layout_of(edit.scenario).*field == value);
            }
        };
        check_axis(core::LayoutAxis::tp, choices.tp, &core::Layout::tp, "tp");
        check_axis(core::LayoutAxis::pp, choices.pp, &core::Layout::pp, "pp");
        check_axis(core::LayoutAxis::cp, choices.cp, &core::Layout::cp, "cp");
        check_axis(core::LayoutAxis::dp, choices.dp, &core::Layout::dp, "dp");
        check_axis(core::LayoutAxis::micro_batch, choices.micro_batch, &core::Layout::micro_batch, "micro_batch");
        check_axis(core::LayoutAxis::virtual_stages, choices.virtual_stages, &core::Layout::virtual_stages, "virtual_stages");
        check_axis(core::LayoutAxis::ep, choices.ep, &core::Layout::ep, "ep");
        check_axis(core::LayoutAxis::etp, choices.etp, &core::Layout::etp, "etp");
        CHECK(choices.ep.size() == (scenario.model.is_moe() ? choices.ep.size() : 1u));
        for (int stage : choices.zero) {
            const core::Edit edit = core::with_zero(scenario, stage);
            require_valid(edit, "zero = " + std::to_string(stage));
            CHECK(edit.scenario.parallel.zero == stage);
        }
    }
}

TEST_CASE("Scenario edits: every offered schedule, recompute, sequence length and node size gives a valid scenario that has it",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        const core::Choices choices = core::choices_of(scenario);
        CHECK_FALSE(choices.schedules.empty());
        for (core::ScheduleKind kind : choices.schedules) {
            const core::Edit edit = core::with_schedule(scenario, kind);
            require_valid(edit, std::string("schedule ") + core::schedule_name(kind));
            CHECK(edit.scenario.parallel.schedule == kind);
        }
        for (core::Recompute recompute : choices.recomputes) {
            const core::Edit edit = core::with_recompute(scenario, recompute);
            require_valid(edit, std::string("recompute ") + core::recompute_name(recompute));
            CHECK(edit.scenario.train.recompute == recompute);
        }
        for (int seq_len : choices.seq_len) {
            const core::Edit edit = core::with_seq_len(scenario, seq_len);
            require_valid(edit, "seq_len " + std::to_string(seq_len));
            CHECK(edit.scenario.train.seq_len == seq_len);
        }
        CHECK(std::find(choices.seq_len.begin(), choices.seq_len.end(), scenario.train.seq_len) != choices.seq_len.end());
        for (int per_node : choices.gpus_per_node) {
            const core::Edit edit = core::with_gpus_per_node(scenario, per_node);
            require_valid(edit, "gpus_per_node " + std::to_string(per_node));
            CHECK(edit.scenario.cluster.gpus_per_node == per_node);
        }
        for (bool on : {false, true}) {
            if (on || choices.sequence_parallel_off) {
                require_valid(core::with_sequence_parallel(scenario, on), std::string("sequence_parallel ") + (on ? "on" : "off"));
            } else {
                CHECK_FALSE(core::with_sequence_parallel(scenario, on).ok());  // experts with TP: not offered, and refused
            }
            require_valid(core::with_attention(scenario, on ? core::AttentionImpl::sdpa : core::AttentionImpl::eager), std::string("attention ") + (on ? "sdpa" : "eager"));
            require_valid(core::with_compile(scenario, on), std::string("compile ") + (on ? "on" : "off"));
        }
    }
}

TEST_CASE("Scenario edits: every model, GPU and recipe of the catalogs can be chosen from any starting point, the rest follows",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        for (const core::ModelSpec& model : core::builtin_models()) {
            const core::Edit edit = core::with_model(scenario, model);
            require_valid(edit, "model " + model.id);
            CHECK(edit.scenario.model.id == model.id);
        }
        for (const core::GpuSpec& gpu : core::builtin_hardware().gpus) {
            const core::Edit edit = core::with_gpu(scenario, gpu);
            require_valid(edit, "gpu " + gpu.id);
            CHECK(edit.scenario.cluster.gpu.id == gpu.id);
        }
        for (const core::PrecisionRecipe& recipe : core::builtin_recipes()) {
            const core::Edit edit = core::with_precision(scenario, recipe);
            require_valid(edit, "recipe " + recipe.id);
            CHECK(edit.scenario.precision.id == recipe.id);
        }
        // The stack panel's size slider: a bare parameter count from 100M to 2T, its shape fitted to the layout.
        for (double params : {1e8, 1.3e9, 7e9, 70e9, 405e9, 2e12}) {
            const core::Edit edit = core::with_params(scenario, params);
            require_valid(edit, "params " + std::to_string(params));
            CHECK(core::evaluate(edit.scenario).memory.params == Approx(params).epsilon(0.02));
        }
    }
}

TEST_CASE("Scenario edits: the GPU and batch '+' and '-' step to the next value the edit accepts, never to a refused one",
          "[scenario_edits]") {
    for (const auto& [name, scenario] : starting_points()) {
        INFO(name);
        for (int direction : {+1, -1}) {
            const int gpus = core::next_gpus(scenario, direction);
            if (gpus != scenario.cluster.gpus) {
                require_valid(core::with_gpus(scenario, gpus), "gpus " + std::to_string(gpus));
                CHECK((direction > 0 ? gpus > scenario.cluster.gpus : gpus < scenario.cluster.gpus));
            }
            const int batch = core::next_global_batch(scenario, direction);
            if (batch != scenario.train.global_batch) {
                require_valid(core::with_global_batch(scenario, batch), "global_batch " + std::to_string(batch));
                CHECK((direction > 0 ? batch > scenario.train.global_batch : batch < scenario.train.global_batch));
            }
        }
        CHECK(core::next_gpus(scenario, +1) > scenario.cluster.gpus);  // there is always a bigger cluster
    }
    // The first version's bug: "+" stepped by 8 and every press was refused when TP x PP = 32. Now it steps by a replica.
    core::Scenario wide = core::default_scenario();
    wide = core::with_axis(wide, core::LayoutAxis::tp, 8).scenario;
    wide = core::with_axis(wide, core::LayoutAxis::pp, 4).scenario;
    REQUIRE(wide.parallel.tp * wide.parallel.pp == 32);
    const int next = core::next_gpus(wide, +1);
    CHECK(next % 32 == 0);
    require_valid(core::with_gpus(wide, next), "gpus after tp 8 pp 4");
}

TEST_CASE("Scenario edits: an edit no control offers is refused with the field named, and the scenario is unchanged",
          "[scenario_edits]") {
    const core::Scenario scenario = core::default_scenario();
    const core::Edit three = core::with_axis(scenario, core::LayoutAxis::tp, 3);  // 3 does not divide Llama 3 70B's 64 heads
    REQUIRE_FALSE(three.ok());
    CHECK(three.problem->field == "parallel.tp");
    const core::Choices choices = core::choices_of(scenario);
    CHECK(std::find(choices.tp.begin(), choices.tp.end(), 3) == choices.tp.end());
    const core::Edit zero_gpus = core::with_gpus(scenario, 0);
    REQUIRE_FALSE(zero_gpus.ok());
    CHECK(zero_gpus.problem->field == "cluster.gpus");
    CHECK_FALSE(core::with_zero(scenario, 4).ok());
}

TEST_CASE("Scenario edits, experts: EP offers the divisors of E that fold over the stage; a dense model offers EP 1 alone",
          "[scenario_edits][moe]") {
    const core::Scenario deepseek = preset("deepseek-v3.json");  // 2,048 GPUs, PP 16: a stage of 128
    const core::Choices choices = core::choices_of(deepseek);
    CHECK(choices.ep == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128});  // 256 would need a stage of 256 GPUs
    const core::Edit too_wide = core::with_axis(deepseek, core::LayoutAxis::ep, 256);
    REQUIRE_FALSE(too_wide.ok());
    CHECK(too_wide.problem->field == "parallel.ep");
    CHECK(core::choices_of(core::default_scenario()).ep == std::vector<int>{1});
    CHECK_FALSE(core::with_axis(core::default_scenario(), core::LayoutAxis::ep, 2).ok());
    // EP keeps the GPU count and DP.
    const core::Edit ep8 = core::with_axis(deepseek, core::LayoutAxis::ep, 8);
    require_valid(ep8, "ep 8");
    CHECK(ep8.scenario.cluster.gpus == 2048);
    CHECK(core::data_parallel_degree(ep8.scenario) == 128);
}

TEST_CASE("Scenario edits, experts: what follows a model, a layout or a switch, with a note saying why", "[scenario_edits][moe]") {
    // A dense model after DeepSeek-V3: EP goes back to 1.
    const core::Edit dense = core::with_model(preset("deepseek-v3.json"), *core::find_model("llama3-70b"));
    require_valid(dense, "llama3-70b after deepseek-v3");
    CHECK(dense.scenario.parallel.ep == 1);
    CHECK(std::any_of(dense.notes.begin(), dense.notes.end(), [](const std::string& note) { return note.find("EP 64 -> 1") == 0; }));
    // Mixtral at TP 8 without sequence parallelism: it is switched on (Megatron-Core needs it), and switching it off is refused.
    core::Scenario tp8 = core::with_axis(core::default_scenario(), core::LayoutAxis::tp, 8).scenario;
    const core::Edit mixtral = core::with_model(tp8, *core::find_model("mixtral-8x7b"));
    require_valid(mixtral, "mixtral at tp 8");
    CHECK(mixtral.scenario.train.sequence_parallel);
    const core::Edit off = core::with_sequence_parallel(mixtral.scenario, false);
    REQUIRE_FALSE(off.ok());
    CHECK(off.problem->field == "train.sequence_parallel");
    // PP that leaves a stage too few GPUs for EP moves EP down to the largest that folds.
    const core::Scenario one_tp = core::with_model(core::default_scenario(), *core::find_model("mixtral-8x7b")).scenario;
    const core::Scenario wide_ep = core::with_axis(one_tp, core::LayoutAxis::ep, 8).scenario;
    REQUIRE(wide_ep.parallel.ep == 8);
    const core::Edit deep = core::with_axis(wide_ep, core::LayoutAxis::pp, 16);  // 64 GPUs in PP 16 leave a stage of 4
    require_valid(deep, "pp 16");
    CHECK(deep.scenario.parallel.ep == 4);
    CHECK(std::any_of(deep.notes.begin(), deep.notes.end(), [](const std::string& note) { return note.find("EP 8 -> 4") == 0; }));
    // The imbalance, capacity and node-limit controls: in range applied, out of range refused by field.
    require_valid(core::with_load_imbalance(mixtral.scenario, 1.5), "imbalance 1.5");
    CHECK(core::with_load_imbalance(mixtral.scenario, 1.5).scenario.moe.load_imbalance == 1.5);
    CHECK(core::with_load_imbalance(mixtral.scenario, 0.5).problem->field == "moe.load_imbalance");
    CHECK(core::with_capacity_factor(mixtral.scenario, 0.5).problem->field == "moe.capacity_factor");
    require_valid(core::with_capacity_factor(mixtral.scenario, 1.25), "capacity 1.25");
    CHECK(core::with_node_limit(mixtral.scenario, -1).problem->field == "moe.node_limit");
    // One range for a file and an edit: what a scenario file may hold, the control may set, and no more.
    const std::string mixtral_json = core::scenario_to_json(mixtral.scenario);
    for (const char* key : {"load_imbalance", "capacity_factor"}) {
        INFO(key);
        const auto with_value = [&](double value) {
            nlohmann::json json = nlohmann::json::parse(mixtral_json);
            json["moe"][key] = value;
            return json.dump();
        };
        CHECK_NOTHROW(core::parse_scenario(with_value(20)));
        CHECK_THROWS_AS(core::parse_scenario(with_value(1001)), core::InputError);
    }
    require_valid(core::with_load_imbalance(mixtral.scenario, 20), "imbalance 20, as a file may hold");
    require_valid(core::with_capacity_factor(mixtral.scenario, 20), "capacity 20, as a file may hold");
    CHECK(core::with_load_imbalance(mixtral.scenario, 1001).problem->field == "moe.load_imbalance");
    CHECK(core::with_capacity_factor(mixtral.scenario, 1001).problem->field == "moe.capacity_factor");
    CHECK(core::with_ep_overlap(mixtral.scenario, true).scenario.overlap.ep_all_to_all);
}

TEST_CASE("A Llama 3.1 8B config.json imports at the scenario's 8,192 tokens, not its 131,072-token context window; GPT-2's "
          "1,024 learned positions cut a longer sequence; the name is the architecture and the size",
          "[scenario_edits][hf_config]") {
    // meta-llama/Llama-3.1-8B's config.json, the keys the import reads.
    const core::ModelSpec llama = core::parse_hf_config(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 131072, "num_attention_heads": 32,
        "num_hidden_layers": 32, "num_key_value_heads": 8, "tie_word_embeddings": false, "vocab_size": 128256,
        "attention_dropout": 0.0, "hidden_act": "silu", "rms_norm_eps": 1e-05})");
    CHECK(llama.name == "LlamaForCausalLM 8.03 B");
    CHECK(llama.default_seq_len == 131072);  // the window, kept as the limit
    const core::Edit imported = core::with_imported_model(core::default_scenario(), llama);
    REQUIRE(imported.ok());
    CHECK(imported.scenario.train.seq_len == 8192);
    CHECK(imported.notes.empty());
    // The window taken for the training length gave 584 GB of activations per GPU; at 8,192 tokens, 36.5 GB.
    const core::Edit as_trained = core::with_model(core::default_scenario(), llama);
    REQUIRE(as_trained.ok());
    INFO("at 131,072 tokens: " << core::evaluate(as_trained.scenario).memory.per_gpu.activations_bytes / 1e9 << " GB");
    CHECK(core::evaluate(imported.scenario).memory.per_gpu.activations_bytes / 1e9 == Approx(36.5).margin(0.05));

    // openai-community/gpt2: 1,024 learned positions; a scenario at 8,192 tokens comes down to them, and says so.
    const core::ModelSpec gpt2 = core::parse_hf_config(R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
        "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257,
        "activation_function": "gelu_new", "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1, "layer_norm_epsilon": 1e-05})");
    const core::Edit small = core::with_imported_model(core::default_scenario(), gpt2);
    REQUIRE(small.ok());
    CHECK(small.scenario.train.seq_len == 1024);
    REQUIRE(small.notes.size() == 1);
    CHECK(small.notes.front() == "Sequence length 8192 -> 1024: the model's context window (max_position_embeddings)");
    CHECK(gpt2.name == "GPT2LMHeadModel 124 M");
    // A name the config gives is the name.
    CHECK(core::parse_hf_config(R"({"_name_or_path": "meta-llama/Llama-3.1-8B", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "vocab_size": 128256})").name == "meta-llama/Llama-3.1-8B");
}

TEST_CASE("Scenario edits: '+' on 64 GPUs steps to the next DP the DP slider offers, not to 65 with the batch bumped", "[scenario_edits]") {
    const core::Scenario scenario = core::default_scenario();
    REQUIRE(scenario.cluster.gpus == 64);
    const core::Choices choices = core::choices_of(scenario);
    for (int direction : {+1, -1}) {
        const int gpus = core::next_gpus(scenario, direction);
        const long long replica = core::gpus_per_replica(scenario.parallel);
        INFO("direction " << direction << ": " << gpus << " GPUs");
        REQUIRE(gpus % replica == 0);
        CHECK(std::find(choices.dp.begin(), choices.dp.end(), static_cast<int>(gpus / replica)) != choices.dp.end());
        const core::Edit edit = core::with_gpus(scenario, gpus);
        REQUIRE(edit.ok());
        CHECK(edit.scenario.train.global_batch == scenario.train.global_batch);  // the batch is held, as DP's tooltip says
    }
    CHECK(core::next_gpus(scenario, +1) != 65);
}

TEST_CASE("The stack's Size slider on a Hugging Face fine-tune scales the model's own shape; a bare count would leave the "
          "op-by-op recipe nothing to run", "[edits]") {
    const core::Scenario qlora = core_tests::shipped("llama3-8b-qlora-rtx4090.json");
    REQUIRE(qlora.train.framework == core::Framework::hf_transformers);
    // A bare parameter count is refused by the framework: what the slider used to send.
    const core::Edit bare = core::with_params(qlora, 4e9);
    REQUIRE_FALSE(bare.ok());
    CHECK(bare.problem->field == "train.framework");
    // The shape scaled keeps the family's head size and KV groups, and the framework runs it.
    const core::Edit scaled = core::with_model_scaled(qlora, 4e9);
    REQUIRE(scaled.ok());
    CHECK(scaled.scenario.train.framework == core::Framework::hf_transformers);
    CHECK(scaled.scenario.model.head_dim() == qlora.model.head_dim());
    CHECK(scaled.scenario.model.heads / scaled.scenario.model.kv_heads == qlora.model.heads / qlora.model.kv_heads);
    CHECK(core::count_params(scaled.scenario.model, scaled.scenario.train.seq_len).total == Approx(4e9).epsilon(0.1));
    CHECK(core::evaluate(scaled.scenario).memory.per_gpu.peak_bytes > 0);
}

// The sidebar's Network and Fabric controls: every link that joins nodes (none of NVLink or PCIe, which join a node's
// GPUs) and every catalog fabric; a fabric whose NIC is faster than the link is refused as a file naming it is.
TEST_CASE("Scenario edits: Network offers the links between nodes, Fabric the catalog's fabrics; a NIC faster than its link is refused",
          "[edits][network]") {
    std::vector<std::string> offered;
    for (const core::LinkSpec& link : core::scale_out_link_choices()) offered.push_back(link.id);
    CHECK(offered == std::vector<std::string>{"ib-ndr", "ib-hdr", "runpod-global-networking"});

    const core::Scenario start = core::default_scenario();
    for (const core::LinkSpec& link : core::scale_out_link_choices()) {
        INFO(link.id);
        const core::Edit edit = core::with_scale_out_link(start, link);
        REQUIRE(edit.ok());
        CHECK(edit.scenario.cluster.scale_out == link);
        CHECK(core::parse_scenario(core::scenario_to_json(edit.scenario)).cluster == edit.scenario.cluster);
    }
    for (const core::FabricSpec& fabric : core::builtin_hardware().fabrics) {
        INFO(fabric.id);
        const core::Edit edit = core::with_fabric(start, fabric);
        REQUIRE(edit.ok());  // every catalog fabric's NIC is at most InfiniBand NDR's 50 GB/s
        CHECK(edit.scenario.cluster.fabric == fabric);
    }
    // Llama 3's 400 Gb/s RoCE NICs on InfiniBand HDR's 200 Gb/s link: refused, the scenario unchanged.
    const core::Edit hdr = core::with_scale_out_link(start, *core::builtin_hardware().find_link("ib-hdr"));
    REQUIRE(hdr.ok());
    const core::Edit meta = core::with_fabric(hdr.scenario, *core::builtin_hardware().find_fabric("meta-24k-roce"));
    REQUIRE_FALSE(meta.ok());
    CHECK(meta.problem->field == "cluster.fabric.nic_bytes_per_s");
    CHECK(meta.scenario == hdr.scenario);
    CHECK(core::fabric_help(*core::builtin_hardware().find_fabric("meta-24k-roce")) ==
          "Meta 24K RoCE (Llama 3): 8 NICs a machine of 50.0 GB/s, pods of 3,072 GPUs, 1:7 between pods");
    CHECK(core::scale_out_link_help(*core::builtin_hardware().find_link("runpod-global-networking")) == "RunPod pods (100 Mb/s): 12.5 MB/s a NIC each way");
}

// MegaScale (Jiang et al. 2024, arXiv 2402.15627): about 0.5 % of hosts (sec 5.1) about 10 % slower (sec 6.3), the
// defaults; the sidebar's sliders move them, and the ZeRO-3 engine combo picks DeepSpeed's 2021 engine.
TEST_CASE("Scenario edits: the straggler sliders move the wait for the slowest machine; the ZeRO-3 engine is an edit",
          "[edits][network]") {
    const core::Scenario start = core::default_scenario();  // 64 H100s on 8 machines
    REQUIRE(start.cluster.straggler_share == 0.005);
    const double wait = core::evaluate(start).compute.breakdown_seconds.straggler_seconds;
    CHECK(wait > 0);
    const core::Edit none = core::with_stragglers(start, 0, 0.10);
    REQUIRE(none.ok());
    CHECK(core::evaluate(none.scenario).compute.breakdown_seconds.straggler_seconds == 0);
    const core::Edit slower = core::with_stragglers(start, 0.005, 0.20);
    REQUIRE(slower.ok());
    CHECK(core::evaluate(slower.scenario).compute.breakdown_seconds.straggler_seconds == Approx(2 * wait));  // linear in the slowdown
    const core::Edit too_many = core::with_stragglers(start, 1.5, 0.10);
    REQUIRE_FALSE(too_many.ok());
    CHECK(too_many.problem->field == "cluster.straggler_share");
    const core::Edit too_slow = core::with_stragglers(start, 0.005, 11);
    REQUIRE_FALSE(too_slow.ok());
    CHECK(too_slow.problem->field == "cluster.straggler_slowdown");

    const core::Edit engine = core::with_zero3_engine(start, core::ShardingEngine::deepspeed_0_4);
    REQUIRE(engine.ok());
    CHECK(engine.scenario.parallel.zero3_engine == core::ShardingEngine::deepspeed_0_4);
    CHECK(core::parse_scenario(core::scenario_to_json(engine.scenario)).parallel == engine.scenario.parallel);
}
