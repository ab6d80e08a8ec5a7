#pragma once
// The GLSL of shaders/ as compiled into the binary (generated at build time by cmake/embed_assets.cmake).
#include <string_view>

namespace widgets {

// The text of shaders/<name>, or an empty view when there is no such shader.
std::string_view embedded_shader(std::string_view name);

}  // namespace widgets
