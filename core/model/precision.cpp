#include "core/model/precision.h"

#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"

#include <algorithm>

namespace core {

const char* state_kind_name(StateKind kind) {
    switch (kind) {
        case StateKind::weights: return "weights";
        case StateKind::grads: return "grads";
        case StateKind::master: return "master";
        case StateKind::optimizer: return "optimizer";
    }
    return "?";
}

double PrecisionRecipe::bytes_per_param() const {
    double total = 0;
    for (const StateComponent& component : components) total += component.bytes_per_param;
    return total;
}

double PrecisionRecipe::bytes_per_param(StateKind kind) const {
    double total = 0;
    for (const StateComponent& component : components) if (component.kind == kind) total += component.bytes_per_param;
    return total;
}

double PrecisionRecipe::grad_comm_bytes_per_param() const {
    double widest = 0;
    for (const StateComponent& component : components) if (component.kind == StateKind::grads) widest = std::max(widest, component.bytes_per_param);
    return widest;
}

double PrecisionRecipe::weight_comm_bytes_per_param() const {
    if (gather_bytes > 0) return gather_bytes;  // cast to the compute dtype before the all-gather (FSDP2 mixed precision)
    for (const StateComponent& component : components) if (component.kind == StateKind::weights) return component.bytes_per_param;
    return 0;
}

double PrecisionRecipe::saved_gemm_input_bytes() const { return gemm_input_bytes > 0 ? gemm_input_bytes : compute_bytes; }

double PrecisionRecipe::linear_gemm_bytes() const { return gemm_bytes > 0 ? gemm_bytes : compute_bytes; }

namespace {

StateKind parse_kind(const std::string& text, const std::string& field) {
    if (text == "weights") return StateKind::weights;
    if (text == "grads") return StateKind::grads;
    if (text == "master") return StateKind::master;
    if (text == "optimizer") return StateKind::optimizer;
    throw InputError(field, "must be weights, grads, master or optimizer, got \"" + text + "\"");
}

}  // namespace

std::vector<PrecisionRecipe> parse_recipes(std::string_view json_text) {
    const nlohmann::json root = parse_json_text(json_text, "recipes");
    JsonObjectReader reader(root, "recipes");
    std::vector<PrecisionRecipe> recipes;
    const nlohmann::json& list = reader.raw("recipes");
    if (!list.is_array()) throw InputError("recipes.recipes", kMustBeArray);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = "recipes[" + std::to_string(i) + "]";
        JsonObjectReader item(list[i], path);
        PrecisionRecipe recipe;
        recipe.id = item.string("id").value_or("");
        recipe.name = item.string("name").value_or(recipe.id);
        recipe.source = item.string("source").value_or("");
        recipe.sharded_optimizer = item.boolean("sharded_optimizer").value_or(false);
        recipe.compute_bytes = item.number("compute_bytes", 1, 8).value_or(recipe.compute_bytes);
        recipe.gemm_input_bytes = item.number("gemm_input_bytes", 0.5, 8).value_or(recipe.gemm_input_bytes);
        recipe.gemm_bytes = item.number("gemm_bytes", 1, 8).value_or(recipe.gemm_bytes);
        recipe.weight_copy_bytes = item.number("weight_copy_bytes", 0, 8).value_or(recipe.weight_copy_bytes);
        recipe.gather_bytes = item.number("gather_bytes", 0.5, 8).value_or(recipe.gather_bytes);
        recipe.comm_bucket_bytes = item.number("comm_bucket_bytes", 0, 1e12).value_or(recipe.comm_bucket_bytes);
        const nlohmann::json& components = item.raw("components");
        for (std::size_t c = 0; c < components.size(); ++c) {
            JsonObjectReader component_reader(components[c], path + ".components[" + std::to_string(c) + "]");
            StateComponent component;
            component.label = component_reader.string("label").value_or("");
            component.kind = parse_kind(component_reader.string("kind").value_or(""), component_reader.field("kind"));
            component.bytes_per_param = component_reader.number("bytes", 0, 64).value_or(0);
            component_reader.reject_unknown_keys();
            recipe.components.push_back(component);
        }
        item.reject_unknown_keys();
        recipes.push_back(recipe);
    }
    reader.reject_unknown_keys();
    return recipes;
}

const std::vector<PrecisionRecipe>& builtin_recipes() {
    static const std::vector<PrecisionRecipe> recipes = parse_recipes(embedded_asset("recipes.json"));
    return recipes;
}

const PrecisionRecipe* find_recipe(std::string_view id) {
    for (const PrecisionRecipe& recipe : builtin_recipes()) if (recipe.id == id) return &recipe;
    return nullptr;
}

}  // namespace core
