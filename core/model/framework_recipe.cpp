#include "core/model/framework_recipe.h"

#include "core/model/embedded_assets.h"
#include "core/model/errors.h"
#include "core/model/json_reader.h"
#include "core/model/scenario.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

namespace core {

namespace {

constexpr std::pair<OpKind, const char*> kOpNames[] = {
    {OpKind::view, "view"}, {OpKind::slice, "slice"}, {OpKind::cast, "cast"}, {OpKind::copy, "copy"}, {OpKind::add, "add"}, {OpKind::mul, "mul"},
    {OpKind::add_scalar, "add_scalar"}, {OpKind::mul_scalar, "mul_scalar"}, {OpKind::pow_scalar, "pow_scalar"},
    {OpKind::rsqrt, "rsqrt"}, {OpKind::tanh, "tanh"}, {OpKind::neg, "neg"}, {OpKind::silu, "silu"}, {OpKind::gelu, "gelu"},
    {OpKind::mean, "mean"}, {OpKind::cat, "cat"}, {OpKind::linear, "linear"}, {OpKind::sdpa, "sdpa"},
    {OpKind::attention_scores, "attention_scores"}, {OpKind::attention_context, "attention_context"}, {OpKind::softmax, "softmax"},
    {OpKind::where, "where"},
    {OpKind::dropout, "dropout"}, {OpKind::layer_norm, "layer_norm"}, {OpKind::rms_norm, "rms_norm"},
    {OpKind::embedding, "embedding"}, {OpKind::log_softmax, "log_softmax"}, {OpKind::nll_loss, "nll_loss"},
    {OpKind::gather_sequence, "gather_sequence"}, {OpKind::scatter_sequence, "scatter_sequence"},
    {OpKind::fused_norm, "fused_norm"}, {OpKind::fused_rope, "fused_rope"}, {OpKind::fused_swiglu, "fused_swiglu"},
    {OpKind::fused_bias_gelu, "fused_bias_gelu"}, {OpKind::fused_residual_dropout, "fused_residual_dropout"},
    {OpKind::fused_cross_entropy, "fused_cross_entropy"}, {OpKind::chunked_cross_entropy, "chunked_cross_entropy"}, {OpKind::block_norm, "block_norm"}, {OpKind::block_qkv, "block_qkv"},
    {OpKind::block_attention, "block_attention"}, {OpKind::block_head_transpose, "block_head_transpose"},
    {OpKind::block_out_proj, "block_out_proj"}, {OpKind::block_residual, "block_residual"}, {OpKind::block_mlp, "block_mlp"},
    {OpKind::block_embedding, "block_embedding"}, {OpKind::block_final_norm, "block_final_norm"},
    {OpKind::block_logits, "block_logits"}, {OpKind::block_loss, "block_loss"},
};
static_assert(std::size(kOpNames) == static_cast<std::size_t>(OpKind::block_loss) + 1, "every op kind has its name");

constexpr std::pair<WeightRole, const char*> kWeightNames[] = {
    {WeightRole::q, "q"}, {WeightRole::k, "k"}, {WeightRole::v, "v"}, {WeightRole::qkv, "qkv"}, {WeightRole::o, "o"},
    {WeightRole::gate, "gate"}, {WeightRole::up, "up"}, {WeightRole::gate_up, "gate_up"}, {WeightRole::down, "down"},
    {WeightRole::fc1, "fc1"}, {WeightRole::fc2, "fc2"}, {WeightRole::head, "head"}, {WeightRole::norm, "norm"},
    {WeightRole::lora_a, "lora_a"}, {WeightRole::lora_b, "lora_b"}, {WeightRole::none, "none"},
};

constexpr std::pair<DtypeRule, const char*> kDtypeNames[] = {
    {DtypeRule::infer, "infer"}, {DtypeRule::fp32, "fp32"}, {DtypeRule::bf16, "bf16"}, {DtypeRule::compute, "compute"},
    {DtypeRule::param, "param"}, {DtypeRule::stream, "stream"}, {DtypeRule::mask, "mask"}, {DtypeRule::index, "index"},
    {DtypeRule::adapter, "adapter"},
};

template <class Enum, std::size_t N>
bool lookup(const std::pair<Enum, const char*> (&table)[N], std::string_view name, Enum& out) {
    for (const auto& [value, text] : table) {
        if (name == text) {
            out = value;
            return true;
        }
    }
    return false;
}

// The sizes a shape may name (framework_recipe.h ShapeExpr).
constexpr std::string_view kShapeSymbols = "tnhqkdagfvsSb";

// The conditions an op may carry, each on the model or the run (core/cost/kernels/recipe_ops.cpp decides them).
const std::set<std::string, std::less<>>& known_conditions() {
    static const std::set<std::string, std::less<>> conditions = {
        "gated", "bias", "dropout", "autocast", "learned_positions", "tied_embeddings", "gqa", "sequence_parallel", "rope", "compile",
        "eager_attention"};
    return conditions;
}

std::string where(const std::string& file, const std::string& block, std::size_t index, const std::string& op) {
    return file + ": " + block + " op " + std::to_string(index + 1) + (op.empty() ? "" : " (" + op + ")");
}

RecipeOp parse_op(const nlohmann::json& item, const std::string& file, const std::string& block, std::size_t index) {
    RecipeOp op;
    const std::string at = where(file, block, index, item.is_object() && item.contains("name") && item["name"].is_string()
                                                         ? item["name"].get<std::string>() : "");
    if (!item.is_object()) throw InputError(at, kMustBeJsonObject);
    JsonObjectReader reader(item, at);
    op.name = reader.string("name").value_or("");
    if (op.name.empty()) throw InputError(at + ": name", "missing: every op names the framework's module or call");
    const std::string kind = reader.string("op").value_or("");
    if (!op_kind_from_name(kind, op.kind)) throw InputError(at + ": op", "unknown op \"" + kind + "\"");
    op.source = reader.string("source").value_or("");
    if (op.source.empty()) throw InputError(at + ": source", "missing: every op cites the line of the framework it was read from");
    if (reader.has("in")) {
        const nlohmann::json& inputs = reader.raw("in");
        const auto is_name = [](const nlohmann::json& input) { return input.is_string() && !input.get<std::string>().empty(); };
        if (!inputs.is_array() || !std::all_of(inputs.begin(), inputs.end(), is_name))
            throw InputError(at + ": in", "must be a list of tensor names");
        for (const nlohmann::json& input : inputs) op.inputs.push_back(input.get<std::string>());
    }
    op.output = reader.string("out").value_or("");
    if (auto shape = reader.string("shape")) {
        std::string error;
        if (!parse_shape(*shape, op.shape, error)) throw InputError(at + ": shape", error);
        op.has_shape = true;
    }
    if (auto dtype = reader.string("dtype")) {
        if (!lookup(kDtypeNames, *dtype, op.dtype)) throw InputError(at + ": dtype", "unknown dtype \"" + *dtype + "\"");
        if (op.dtype == DtypeRule::adapter) throw InputError(at + ": dtype", "adapter is LoRA's, which adds its ops itself");
    }
    if (auto weight = reader.string("weight")) {
        if (!lookup(kWeightNames, *weight, op.weight)) throw InputError(at + ": weight", "unknown weight \"" + *weight + "\"");
        if (op.weight == WeightRole::lora_a || op.weight == WeightRole::lora_b) throw InputError(at + ": weight", "LoRA adds its adapters itself");
    }
    op.bias = reader.boolean("bias").value_or(false);
    op.backend = reader.string("backend").value_or("");
    if (!op.backend.empty() && op.backend != "cudnn" && op.backend != "flash" && op.backend != "triton") {
        throw InputError(at + ": backend", "must be cudnn, flash or triton, got \"" + op.backend + "\"");
    }
    if (op.kind == OpKind::sdpa && op.backend.empty()) throw InputError(at + ": backend", "missing: the kernel SDPA dispatches to");
    op.recompute_selective = reader.boolean("recompute_selective").value_or(false);
    op.when = reader.string("when").value_or("");
    // A condition, or several joined by '&' that must all hold ("eager_attention&gqa"), each negated by a leading '!'.
    for (std::string_view rest = op.when; !rest.empty();) {
        const std::size_t amp = rest.find('&');
        std::string_view term = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (!term.empty() && term[0] == '!') term.remove_prefix(1);
        const bool dangling = amp != std::string_view::npos && rest.empty();  // "gqa&": a join with nothing after it
        if (dangling || !known_conditions().count(term)) throw InputError(at + ": when", "unknown condition \"" + op.when + "\"");
    }
    reader.reject_unknown_keys();
    if (!is_block_op(op.kind)) {
        if (op.output.empty() && op.kind != OpKind::nll_loss) throw InputError(at + ": out", "missing: the tensor the op writes");
        if (op.inputs.empty()) throw InputError(at + ": in", "missing: the tensors the op reads");
        if (op.kind == OpKind::linear && op.weight == WeightRole::none) throw InputError(at + ": weight", "missing: a linear names its weight");
    }
    return op;
}

RecipeBlock parse_block(const nlohmann::json& object, const std::string& file, const std::string& name) {
    RecipeBlock block;
    if (!object.is_object()) throw InputError(file + ": " + name, kMustBeJsonObject);
    JsonObjectReader reader(object, file + ": " + name);
    block.input = reader.string("input").value_or("");
    block.output = reader.string("output").value_or("");
    if (!reader.has("ops")) throw InputError(file + ": " + name + ".ops", "missing");
    const nlohmann::json& ops = reader.raw("ops");
    if (!ops.is_array() || ops.empty()) throw InputError(file + ": " + name + ".ops", "must be a non-empty list of ops");
    for (std::size_t i = 0; i < ops.size(); ++i) block.ops.push_back(parse_op(ops[i], file, name, i));
    reader.reject_unknown_keys();
    if (is_block_op(block.ops.front().kind)) return block;  // block ops name no tensors: the builder wires them
    // Every input is the block's input, a tensor an earlier op wrote, or a constant the framework holds.
    std::set<std::string, std::less<>> known = {block.input, "cos", "sin", "freqs", "positions", "tokens", "labels", "causal_mask",
                                                "causal_bias"};
    for (std::size_t i = 0; i < block.ops.size(); ++i) {
        const RecipeOp& op = block.ops[i];
        for (const std::string& input : op.inputs) {
            if (!known.count(input)) throw InputError(where(file, name, i, op.name) + ": in", "reads \"" + input + "\", which no earlier op writes");
        }
        if (!op.output.empty()) known.insert(op.output);
    }
    if (!block.output.empty() && !known.count(block.output)) {
        throw InputError(file + ": " + name + ".output", "\"" + block.output + "\" is written by no op");
    }
    return block;
}

}  // namespace

const char* op_kind_name(OpKind kind) {
    for (const auto& [value, text] : kOpNames) {
        if (value == kind) return text;
    }
    return "?";
}

bool op_kind_from_name(std::string_view name, OpKind& kind) { return lookup(kOpNames, name, kind); }

bool is_block_op(OpKind kind) { return kind >= OpKind::block_norm; }

const char* weight_role_name(WeightRole role) {
    for (const auto& [value, text] : kWeightNames) {
        if (value == role) return text;
    }
    return "?";
}

bool parse_shape(std::string_view text, ShapeExpr& shape, std::string& error) {
    shape = ShapeExpr{};
    std::size_t i = 0;
    bool expect_term = true;
    bool divide = false;
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ') {
            ++i;
            continue;
        }
        if (expect_term) {
            if (std::isdigit(static_cast<unsigned char>(c))) {
                std::size_t end = i;
                while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
                const double number = std::strtod(std::string(text.substr(i, end - i)).c_str(), nullptr);
                if (!(number > 0) || !std::isfinite(number)) {
                    error = "a size must be a finite number > 0, got " + std::string(text.substr(i, end - i));
                    return false;
                }
                shape.factor = divide ? shape.factor / number : shape.factor * number;
                i = end;
            } else if (kShapeSymbols.find(c) != std::string_view::npos) {
                if (divide) {
                    error = "only a number may divide a shape, got \"/" + std::string(1, c) + "\"";
                    return false;
                }
                shape.symbols.push_back(c);
                ++i;
            } else {
                error = std::string("unknown size '") + c + "' (sizes: t n h q k d a g f v s S b, or a number > 0)";
                return false;
            }
            expect_term = false;
        } else {
            if (c != '*' && c != '/') {
                error = std::string("expected * or /, got '") + c + "'";
                return false;
            }
            divide = c == '/';
            expect_term = true;
            ++i;
        }
    }
    if (expect_term) {
        error = "a shape is a product of sizes, such as \"n*h\"";
        return false;
    }
    if (!(shape.factor > 0) || !std::isfinite(shape.factor)) {
        error = "its numbers multiply to " + std::to_string(shape.factor) + ": a size must be a finite number > 0";
        return false;
    }
    return true;
}

FrameworkRecipe parse_framework_recipe(std::string_view json_text, const std::string& file) {
    const nlohmann::json root = parse_json_text(json_text, file);
    if (!root.is_object()) throw InputError(file, kMustBeJsonObject);
    JsonObjectReader reader(root, file);
    FrameworkRecipe recipe;
    recipe.id = reader.string("id").value_or("");
    if (recipe.id.empty()) throw InputError(file + ": id", "missing");
    recipe.name = reader.string("name").value_or(recipe.id);
    recipe.version = reader.string("version").value_or("");
    recipe.source = reader.string("source").value_or("");
    if (recipe.source.empty()) throw InputError(file + ": source", "missing: the implementation the ops were read from");
    reader.string("_about");
    if (reader.has("host")) {
        const nlohmann::json& host = reader.raw("host");
        JsonObjectReader host_reader(host, file + ": host");
        recipe.host_seconds_per_launch = host_reader.number("seconds_per_launch", 0, 1).value_or(recipe.host_seconds_per_launch);
        recipe.host_seconds_per_recompute_launch =
            host_reader.number("seconds_per_recompute_launch", 0, 1).value_or(recipe.host_seconds_per_launch);
        recipe.host_source = host_reader.string("source").value_or("");
        if (recipe.host_source.empty()) throw InputError(file + ": host.source", "missing: where the host's cost was measured");
        host_reader.reject_unknown_keys();
    }
    recipe.fused_elementwise = reader.boolean("fused_elementwise").value_or(false);
    recipe.persistent_grads = reader.boolean("persistent_grads").value_or(false);
    if (reader.has("lora")) {
        const nlohmann::json& lora = reader.raw("lora");
        if (!lora.is_object()) throw InputError(file + ": lora", kMustBeJsonObject);
        JsonObjectReader lora_reader(lora, file + ": lora");
        const std::string style = lora_reader.string("style").value_or("");
        if (style == "peft") recipe.lora_style = LoraStyle::peft;
        else if (style == "fused_post_dropout") recipe.lora_style = LoraStyle::fused_post_dropout;
        else throw InputError(file + ": lora.style", "must be peft or fused_post_dropout, got \"" + style + "\"");
        if (lora_reader.string("source").value_or("").empty()) throw InputError(file + ": lora.source", "missing: the framework's LoRA module");
        lora_reader.reject_unknown_keys();
    }
    if (reader.has("compile")) {
        const nlohmann::json& compile = reader.raw("compile");
        if (!compile.is_object()) throw InputError(file + ": compile", kMustBeJsonObject);
        JsonObjectReader compile_reader(compile, file + ": compile");
        recipe.compile_seconds = compile_reader.number("first_step_seconds", 0, 86400).value_or(0);
        recipe.compile_source = compile_reader.string("source").value_or("");
        if (recipe.compile_source.empty()) throw InputError(file + ": compile.source", "missing: where the compile time was measured");
        compile_reader.reject_unknown_keys();
    }
    if (reader.has("context_parallel")) {
        const nlohmann::json& cp = reader.raw("context_parallel");
        if (!cp.is_object()) throw InputError(file + ": context_parallel", kMustBeJsonObject);
        JsonObjectReader cp_reader(cp, file + ": context_parallel");
        ContextParallelRecipe& style = recipe.context_parallel;
        const std::string rotation = cp_reader.string("rotation").value_or("");
        if (rotation == "ring") style.rotation = CpRotation::ring;
        else if (rotation == "all_gather") style.rotation = CpRotation::all_gather;
        else throw InputError(file + ": context_parallel.rotation", "must be ring or all_gather, got \"" + rotation + "\"");
        const std::string kv = cp_reader.string("kv").value_or("grouped");
        if (kv != "grouped" && kv != "repeated") throw InputError(file + ": context_parallel.kv", "must be grouped or repeated, got \"" + kv + "\"");
        style.repeated_kv = kv == "repeated";
        const std::string merge = cp_reader.string("merge").value_or("compute");
        if (merge != "compute" && merge != "fp32") throw InputError(file + ": context_parallel.merge", "must be compute or fp32, got \"" + merge + "\"");
        style.fp32_merge = merge == "fp32";
        style.source = cp_reader.string("source").value_or("");
        if (style.source.empty()) throw InputError(file + ": context_parallel.source", "missing: the framework's ring attention");
        cp_reader.reject_unknown_keys();
    }
    if (reader.has("fsdp_under_pipeline")) {
        const nlohmann::json& sharding = reader.raw("fsdp_under_pipeline");
        if (!sharding.is_object()) throw InputError(file + ": fsdp_under_pipeline", kMustBeJsonObject);
        JsonObjectReader sharding_reader(sharding, file + ": fsdp_under_pipeline");
        const std::string weights = sharding_reader.string("weights").value_or("");
        if (weights != "kept" && weights != "per_microbatch") {
            throw InputError(file + ": fsdp_under_pipeline.weights", "must be kept or per_microbatch, got \"" + weights + "\"");
        }
        recipe.fsdp_under_pipeline.keeps_gathered = weights == "kept";
        recipe.fsdp_under_pipeline.source = sharding_reader.string("source").value_or("");
        if (recipe.fsdp_under_pipeline.source.empty()) throw InputError(file + ": fsdp_under_pipeline.source", "missing: the framework's FSDP wrapping");
        sharding_reader.reject_unknown_keys();
    }
    for (auto [name, block] : {std::pair{"embedding", &recipe.embedding}, std::pair{"layer", &recipe.layer}, std::pair{"head", &recipe.head}}) {
        if (!reader.has(name)) throw InputError(file + ": " + name, "missing");
        *block = parse_block(reader.raw(name), file, name);
    }
    reader.reject_unknown_keys();
    for (const RecipeBlock* block : {&recipe.embedding, &recipe.layer, &recipe.head}) {
        for (const RecipeOp& op : block->ops) {
            recipe.describes_compile = recipe.describes_compile || op.when == "compile" || op.when == "!compile";
            recipe.describes_eager_attention = recipe.describes_eager_attention || op.when.rfind("eager_attention", 0) == 0;
        }
    }
    const bool blocks = std::any_of(recipe.layer.ops.begin(), recipe.layer.ops.end(), [](const RecipeOp& op) { return is_block_op(op.kind); });
    const bool eager = std::any_of(recipe.layer.ops.begin(), recipe.layer.ops.end(), [](const RecipeOp& op) { return !is_block_op(op.kind); });
    if (blocks && eager) throw InputError(file + ": layer", "mixes block ops with operators: a layer is one or the other");
    return recipe;
}

const std::vector<FrameworkRecipe>& builtin_framework_recipes() {
    static const std::vector<FrameworkRecipe> recipes = [] {
        std::vector<FrameworkRecipe> parsed;
        for (const char* id : {"megatron-lm", "megatron-core", "deepspeed", "pytorch-eager", "hf-transformers-llama",
                               "hf-transformers-gpt2", "torchtitan", "llm-foundry", "torchtune", "nemo-automodel-llama"}) {
            const std::string file = std::string(id) + ".json";
            parsed.push_back(parse_framework_recipe(embedded_asset(file), "frameworks/" + file));
        }
        return parsed;
    }();
    return recipes;
}

const FrameworkRecipe* find_framework_recipe(std::string_view id) {
    for (const FrameworkRecipe& recipe : builtin_framework_recipes()) {
        if (recipe.id == id) return &recipe;
    }
    return nullptr;
}

namespace {

const char* recipe_id_of(const Scenario& scenario) {
    const char* id = "megatron-lm";
    switch (scenario.train.framework) {
        case Framework::megatron: id = "megatron-lm"; break;
        case Framework::megatron_core: id = "megatron-core"; break;
        case Framework::deepspeed: id = "deepspeed"; break;
        case Framework::pytorch_eager: id = "pytorch-eager"; break;
        case Framework::torchtitan: id = "torchtitan"; break;
        case Framework::llm_foundry: id = "llm-foundry"; break;
        case Framework::torchtune: id = "torchtune"; break;
        case Framework::nemo_automodel: id = "nemo-automodel-llama"; break;
        case Framework::hf_transformers: id = scenario.model.learned_positions ? "hf-transformers-gpt2" : "hf-transformers-llama"; break;
    }
    return id;
}

}  // namespace

double compile_seconds(const Scenario& scenario) {
    if (!scenario.train.compile) return 0;
    const FrameworkRecipe& recipe = framework_recipe_of(scenario);
    return recipe.describes_compile ? recipe.compile_seconds : 0.0;
}

const FrameworkRecipe& framework_recipe_of(const Scenario& scenario) {
    // Each framework's recipe looked up once (evaluate asks dozens of times a call); the shipped recipes never move.
    static const auto recipes = [] {
        std::array<std::array<const FrameworkRecipe*, 2>, std::size(kFrameworks)> table{};
        for (std::size_t i = 0; i < table.size(); ++i) {
            for (int gpt2 = 0; gpt2 < 2; ++gpt2) {
                Scenario probe;
                probe.train.framework = kFrameworks[i];
                probe.model.learned_positions = gpt2 == 1;
                table[i][gpt2] = find_framework_recipe(recipe_id_of(probe));
            }
        }
        return table;
    }();
    const auto framework = std::find(std::begin(kFrameworks), std::end(kFrameworks), scenario.train.framework);
    const FrameworkRecipe* recipe = framework == std::end(kFrameworks) ? nullptr
                                                                       : recipes[framework - std::begin(kFrameworks)][scenario.model.learned_positions ? 1 : 0];
    if (!recipe) throw InputError("train.framework", std::string("no recipe file for ") + recipe_id_of(scenario));
    return *recipe;
}

}  // namespace core
