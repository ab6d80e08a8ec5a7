// Fuzz entry "recipe": a framework recipe file as `shardscope recipe` reads it (core::parse_framework_recipe). Refused
// naming the file, the op and the field, or read into a recipe whose every op names its source and whose sizes are finite.
#include "fuzz/checks.h"
#include "fuzz/fuzz_entry.h"

#include "core/model/framework_recipe.h"

#include <cmath>

namespace {

std::optional<std::string> block_problem(const core::RecipeBlock& block, const char* name) {
    for (const core::RecipeOp& op : block.ops) {
        if (op.name.empty()) return std::string(name) + ": an op without a name was accepted";
        if (op.source.empty()) return std::string(name) + ": op " + op.name + " was accepted without its source";
        if (op.has_shape && (!std::isfinite(op.shape.factor) || op.shape.factor <= 0)) {
            return std::string(name) + ": op " + op.name + " was accepted with the size factor " + std::to_string(op.shape.factor);
        }
    }
    return std::nullopt;
}

std::optional<std::string> recipe_problem(std::string_view input) {
    return fuzz::problem_of([&]() -> std::optional<std::string> {
        const core::FrameworkRecipe recipe = core::parse_framework_recipe(input, "recipe.json");
        if (recipe.source.empty()) return "a recipe without its source was accepted";
        for (const auto& [block, name] : {std::pair{&recipe.embedding, "embedding"}, std::pair{&recipe.layer, "layer"}, std::pair{&recipe.head, "head"}}) {
            if (auto problem = block_problem(*block, name)) return problem;
        }
        return std::nullopt;
    });
}

}  // namespace

SHARDSCOPE_FUZZ_ENTRY(recipe, recipe_problem);
