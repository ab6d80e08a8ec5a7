#include "fuzz/fuzz_entry.h"

namespace fuzz {

// A function-local list, so that entries registered from any translation unit's static initialisers find it built.
std::vector<Entry>& entries() {
    static std::vector<Entry> all;
    return all;
}

}  // namespace fuzz
