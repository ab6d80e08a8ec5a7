#pragma once
// The assets/*.json files as compiled into the binary (generated at build time), so core needs no file I/O.
#include <string_view>

namespace core {

// The text of assets/<name>, or an empty view when there is no such asset.
std::string_view embedded_asset(std::string_view name);

}  // namespace core
