// The fuzz corpus replayed through the fuzz entries themselves: every seed and every input that once failed, in
// fuzz/corpus/NAME/, must be refused naming its field or read into finite figures, as under libFuzzer.
#include "fuzz/fuzz_entry.h"

#include "core/model/errors.h"
#include "core/model/model_json.h"
#include "core/model/scenario_json.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifdef SHARDSCOPE_FUZZ_WITH_WIDGETS
#include "widgets/panel.h"
#endif

namespace fuzz {
const std::vector<std::string>& lesson_panel_names();
}

namespace {

const std::filesystem::path corpus_root = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "fuzz" / "corpus";

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

const fuzz::Entry& entry_named(const std::string& name) {
    const auto& all = fuzz::entries();
    const auto found = std::find_if(all.begin(), all.end(), [&](const fuzz::Entry& entry) { return entry.name == name; });
    REQUIRE(found != all.end());
    return *found;
}

// What the entry says of one corpus file; empty when it is read cleanly.
std::string problem_with(const std::string& entry, const std::string& file) {
    return entry_named(entry).check(read_bytes(corpus_root / entry / file)).value_or("");
}

}  // namespace

TEST_CASE("Fuzz corpus: every file of fuzz/corpus/NAME/ is refused naming its field or read into finite figures by entry NAME", "[fuzz]") {
    REQUIRE(!fuzz::entries().empty());
    for (const fuzz::Entry& entry : fuzz::entries()) {
        const std::filesystem::path directory = corpus_root / entry.name;
        INFO("entry " << entry.name);
        REQUIRE(std::filesystem::is_directory(directory));  // every entry has a seed corpus
        std::size_t replayed = 0;
        for (const auto& file : std::filesystem::directory_iterator(directory)) {
            INFO(file.path().filename().string());
            CHECK(entry.check(read_bytes(file.path())).value_or("") == "");
            ++replayed;
        }
        REQUIRE(replayed > 0);
    }
}

// Found by fuzz_scenario: the GPT-3 scenario with 1f1b and "scale_up_link": "nvlink4" on its A100s. scenario_to_json
// left the link out because the default scenario's H100 uses NVLink 4, and the file was read back on the A100's own
// NVLink 3: TP's bus bandwidth fell from 268 to 148 GB/s and the step grew by 9 %.
TEST_CASE("Fuzz finding, scenario: an A100 on NVLink 4 is saved with its link and reads back to the same report", "[fuzz]") {
    REQUIRE(problem_with("scenario", "a100_on_nvlink4_round_trip") == "");
    const core::Scenario scenario = core::parse_scenario(R"({"cluster": {"gpu": "a100-sxm", "scale_up_link": "nvlink4"}})");
    REQUIRE(core::parse_scenario(core::scenario_to_json(scenario)).cluster.scale_up.id == "nvlink4");
    // and a GPU on its own link writes none
    REQUIRE(core::scenario_to_json(core::parse_scenario(R"({"cluster": {"gpu": "a100-sxm"}})")) == "{\n  \"cluster\": {\n    \"gpu\": \"a100-sxm\"\n  }\n}\n");
}

// Found by fuzz_scenario: a top-level key "" was refused as ": unknown key", naming no field.
TEST_CASE("Fuzz finding, scenario: an empty key is refused naming it", "[fuzz]") {
    REQUIRE(problem_with("scenario", "empty_key_unnamed") == "");
    for (const auto& [text, field] : {std::pair{R"({"": 1})", R"("")"}, std::pair{R"({"train": {"": 1}})", R"(train."")"}}) {
        INFO(text);
        try {
            core::parse_scenario(text);
            FAIL("accepted an empty key");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == field);
            REQUIRE(error.reason() == "unknown key");
        }
    }
}

// Found by fuzz_hf_config: a config.json with "n_embd": 71618432 was read, and its scenario written back with a hidden
// width the scenario reader refuses (at most 10,000,000). The Hugging Face keys are now held to the range of the model
// field they are read into, named by their own key.
TEST_CASE("Fuzz finding, hf_config: a width beyond the scenario's range is refused naming the config's key", "[fuzz]") {
    // The corpus file itself, read by core (the entry that opens it as a file is built with the app only).
    for (const std::string& config : {read_bytes(corpus_root / "hf_config" / "hidden_beyond_scenario_range"),
                                      std::string(R"({"model_type": "gpt2", "n_embd": 71618432, "n_head": 1, "n_layer": 1, "vocab_size": 8})")}) {
        try {
            core::parse_hf_config(config);
            FAIL("accepted a hidden width of 71,618,432");
        } catch (const core::InputError& error) {
            REQUIRE(error.field() == "model.hf_config.n_embd");
            REQUIRE(error.reason() == "must be between 1 and 10000000, got 71618432");
        }
    }
    // and a config at the range's edge reads back through the scenario reader to the same width
    const core::ModelSpec widest = core::parse_hf_config(R"({"model_type": "gpt2", "n_embd": 10000000, "n_head": 1, "n_layer": 1, "vocab_size": 8})");
    core::Scenario scenario = core::default_scenario();
    scenario.model = widest;
    REQUIRE(core::parse_scenario(core::scenario_to_json(scenario)).model.hidden == 10000000);
}

#ifdef SHARDSCOPE_FUZZ_WITH_WIDGETS
TEST_CASE("Fuzz entry lesson: the panels a scene may name are the app's panels", "[fuzz]") {
    std::vector<std::string> app_names;
    for (const widgets::PanelDef& panel : widgets::make_all_panels()) app_names.emplace_back(panel.name);
    REQUIRE(fuzz::lesson_panel_names() == app_names);
}
#endif
