#pragma once
// `shardscope recipe FILE [--json|--table]`: reads a framework recipe file (the format of assets/frameworks/*.json) as
// the model reads its own, and prints its ops block by block, each with the line of the framework it cites; a file with
// an unknown op, a missing source or a size that is not a finite number > 0 is refused naming the file, the op and the
// field (exit status 2).
#include <string>

namespace app {

enum class RecipeFormat { json, table };
int run_recipe(const std::string& path, RecipeFormat);

}  // namespace app
