#include "app/recipe_command.h"

#include "app/files.h"
#include "app/table.h"
#include "core/model/framework_recipe.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <utility>

namespace app {

namespace {

using Blocks = std::pair<const char*, const core::RecipeBlock*>;

std::vector<Blocks> blocks_of(const core::FrameworkRecipe& recipe) {
    return {{"embedding", &recipe.embedding}, {"layer", &recipe.layer}, {"head", &recipe.head}};
}

}  // namespace

int run_recipe(const std::string& path, RecipeFormat format) {
    const core::FrameworkRecipe recipe = core::parse_framework_recipe(read_text_file(path, "recipe"), path);
    if (format == RecipeFormat::json) {
        nlohmann::ordered_json json = {{"id", recipe.id}, {"name", recipe.name}, {"version", recipe.version}, {"source", recipe.source}};
        for (const auto& [name, block] : blocks_of(recipe)) {
            nlohmann::ordered_json ops = nlohmann::ordered_json::array();
            for (const core::RecipeOp& op : block->ops) {
                ops.push_back({{"name", op.name}, {"op", core::op_kind_name(op.kind)}, {"in", op.inputs}, {"out", op.output},
                               {"when", op.when}, {"source", op.source}});
            }
            json[name] = ops;
        }
        std::fputs((json.dump(2) + "\n").c_str(), stdout);
        return 0;
    }
    std::printf("%s (%s): %s\n", recipe.name.c_str(), recipe.version.c_str(), recipe.source.c_str());
    TextTable table;
    table.headers = {"block", "#", "name", "op", "when", "source"};
    table.right_aligned = {false, true, false, false, false, false};
    for (const auto& [name, block] : blocks_of(recipe)) {
        for (std::size_t i = 0; i < block->ops.size(); ++i) {
            const core::RecipeOp& op = block->ops[i];
            table.rows.push_back({name, std::to_string(i + 1), op.name, core::op_kind_name(op.kind), op.when.empty() ? "always" : op.when, op.source});
        }
    }
    std::fputs(table.render().c_str(), stdout);
    return 0;
}

}  // namespace app
