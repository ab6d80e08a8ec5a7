#include "core/model/finetune.h"

#include "core/model/errors.h"
#include "core/model/format.h"
#include "core/model/framework_recipe.h"
#include "core/model/scenario.h"

#include <cmath>

namespace core {

std::string adapter_phrase(const FinetuneSpec& finetune) {
    if (finetune.method == FinetuneMethod::full) return "";
    const std::string rank = " rank " + std::to_string(finetune.rank);
    if (finetune.method == FinetuneMethod::lora) return "LoRA" + rank;
    return "QLoRA" + rank + " (" + base_format_name(finetune) + " base)";
}

const char* base_format_name(const FinetuneSpec& finetune) { return finetune.base_bytes == 2 ? "bf16" : finetune.base_bytes == 1 ? "int8" : "NF4"; }

const char* finetune_method_name(FinetuneMethod method) {
    switch (method) {
        case FinetuneMethod::full: return "full";
        case FinetuneMethod::lora: return "lora";
        case FinetuneMethod::qlora: return "qlora";
    }
    return "?";
}

bool finetune_method_from_name(std::string_view name, FinetuneMethod& method) {
    for (FinetuneMethod candidate : kFinetuneMethods) {
        if (name == finetune_method_name(candidate)) {
            method = candidate;
            return true;
        }
    }
    return false;
}

const char* adapter_dtype_name(AdapterDtype dtype) { return dtype == AdapterDtype::fp32 ? "fp32" : "bf16"; }

double adapter_dtype_bytes(AdapterDtype dtype) { return dtype == AdapterDtype::fp32 ? 4.0 : 2.0; }

double default_base_bytes(FinetuneMethod method) { return method == FinetuneMethod::qlora ? 0.5 : 2.0; }

double frozen_linear_bytes(double out_features, double in_features, const FinetuneSpec& finetune) {
    const double params = out_features * in_features;
    if (finetune.base_bytes >= 2) return 2.0 * params;
    if (finetune.base_bytes >= 1) return params + 4.0 * out_features;  // CB int8 and SCB fp32 per row
    const double blocks = std::ceil(params / 64.0);
    if (!finetune.double_quant) return params / 2.0 + 4.0 * blocks;
    return params / 2.0 + blocks + 4.0 * std::ceil(blocks / 256.0);
}

namespace {

// PEFT's default targets by what the weight is: the query and value projections (a fused QKV projection holds both).
bool peft_default_role(WeightRole role) { return role == WeightRole::q || role == WeightRole::v || role == WeightRole::qkv; }

bool attention_role(WeightRole role) {
    return role == WeightRole::q || role == WeightRole::k || role == WeightRole::v || role == WeightRole::qkv || role == WeightRole::o;
}

// PEFT's match: the whole name, or its end after a dot (tuners_utils.py:1933).
bool module_name_matches(std::string_view module, std::string_view target) {
    if (module == target) return true;
    return module.size() > target.size() && module.substr(module.size() - target.size()) == target &&
           module[module.size() - target.size() - 1] == '.';
}

}  // namespace

bool lora_targets_op(const FinetuneSpec& finetune, const RecipeOp& op) {
    if (op.kind != OpKind::linear || op.weight == WeightRole::head || op.weight == WeightRole::none) return false;
    switch (finetune.targets) {
        case LoraTargets::peft_default: return peft_default_role(op.weight);
        case LoraTargets::attention: return attention_role(op.weight);
        case LoraTargets::all_linear: return true;
        case LoraTargets::modules:
            for (const std::string& name : finetune.target_modules) {
                if (module_name_matches(op.name, name)) return true;
            }
            return false;
    }
    return false;
}

void validate_finetune(const Scenario& scenario) {
    const FinetuneSpec& finetune = scenario.finetune;
    if (finetune.rank < 1 || finetune.rank > 65536) {
        throw InputError("finetune.rank", "must be a whole number from 1 to 65536, got " + std::to_string(finetune.rank));
    }
    if (!(finetune.alpha > 0 && finetune.alpha <= 1e6)) throw InputError("finetune.alpha", "must be above 0 and at most 1e6, got " + format_typed(finetune.alpha));
    if (!(finetune.dropout >= 0 && finetune.dropout < 1)) throw InputError("finetune.dropout", "must be from 0 to below 1, got " + format_typed(finetune.dropout));
    const double base = finetune.base_bytes;
    if (!(base == 2 || base == 1 || base == 0.5)) {
        throw InputError("finetune.base_bytes", "must be 2 (bf16), 1 (int8) or 0.5 (NF4), got " + format_typed(base));
    }
    if (!trains_adapters(finetune)) {
        if (base != 2) throw InputError("finetune.base_bytes", "a full fine-tune trains every weight in its recipe's precision: base_bytes is for lora and qlora");
        return;
    }
    if (finetune.method == FinetuneMethod::qlora && base == 2) {
        throw InputError("finetune.base_bytes", "QLoRA quantizes the frozen base: 0.5 (NF4) or 1 (int8), got 2 (use method lora for a bf16 base)");
    }
    const FrameworkRecipe& recipe = framework_recipe_of(scenario);
    const auto names_modules = [](const FrameworkRecipe& layer_of) { return !layer_of.layer.ops.empty() && !is_block_op(layer_of.layer.ops.front().kind); };
    if (!names_modules(recipe)) {
        std::string usable;  // the frameworks whose recipes name their linears, from the recipes themselves
        for (Framework framework : kFrameworks) {
            Scenario probe = scenario;
            probe.train.framework = framework;
            if (names_modules(framework_recipe_of(probe))) usable += std::string(usable.empty() ? "" : ", ") + framework_name(framework);
        }
        throw InputError("finetune.method", std::string("adapters attach to named linear modules, and ") + framework_name(scenario.train.framework) +
                                                "'s recipe runs its layer as fused blocks with no module names: use " + usable);
    }
    if (finetune.targets == LoraTargets::modules) {
        if (finetune.target_modules.empty()) throw InputError("finetune.targets", "names no module");
        for (const std::string& name : finetune.target_modules) {
            FinetuneSpec one = finetune;
            one.target_modules = {name};
            bool found = false;
            std::string linears;
            for (const RecipeOp& op : recipe.layer.ops) {
                if (op.kind != OpKind::linear) continue;
                found = found || lora_targets_op(one, op);
                linears += (linears.empty() ? "" : ", ") + op.name;
            }
            if (!found) {
                throw InputError("finetune.targets", "no linear module \"" + name + "\" in a layer of " + recipe.id + " (its linears: " + linears + ")");
            }
        }
    }
    bool any = false;
    for (const RecipeOp& op : recipe.layer.ops) any = any || lora_targets_op(finetune, op);
    if (!any) throw InputError("finetune.targets", "matches no linear of " + recipe.id + "'s layer");
}

}  // namespace core
