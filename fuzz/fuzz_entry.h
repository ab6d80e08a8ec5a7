#pragma once
// A fuzz entry: one kind of file the app reads, as a function from the file's bytes to what is wrong with how it was
// read. The same function runs under libFuzzer (fuzz/libfuzzer_main.cpp, one entry per binary) and in the Catch2 replay
// of fuzz/corpus/NAME/ (fuzz/test_corpus.cpp, every entry in one binary).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

// Nothing (the input was refused with a core::InputError naming its field, or read into something whose every figure
// is finite), or one line saying what went wrong: another exception, an unnamed refusal, a NaN or an infinity.
using Check = std::optional<std::string> (*)(std::string_view input);

struct Entry {
    const char* name;  // "scenario": its binary is fuzz_scenario, its corpus fuzz/corpus/scenario/
    Check check;
};

// Every entry linked into this binary, in no particular order.
std::vector<Entry>& entries();

struct Registration {
    Registration(const char* name, Check check) { entries().push_back({name, check}); }
};

}  // namespace fuzz

// In an entry's source: SHARDSCOPE_FUZZ_ENTRY(scenario, scenario_problem); scenario_problem is a Check.
#define SHARDSCOPE_FUZZ_ENTRY(NAME, CHECK) static const ::fuzz::Registration fuzz_entry_##NAME(#NAME, CHECK)
