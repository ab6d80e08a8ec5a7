// libFuzzer's entry point for the one fuzz entry linked beside it: a problem aborts, and libFuzzer keeps the input.
#include "fuzz/fuzz_entry.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (fuzz::entries().size() != 1) {
        std::fprintf(stderr, "a libFuzzer binary holds exactly one fuzz entry, this one %zu\n", fuzz::entries().size());
        std::abort();
    }
    const fuzz::Entry& entry = fuzz::entries().front();
    if (const auto problem = entry.check(std::string_view(reinterpret_cast<const char*>(data), size))) {
        std::fprintf(stderr, "fuzz_%s: %s\n", entry.name, problem->c_str());
        std::abort();
    }
    return 0;
}
