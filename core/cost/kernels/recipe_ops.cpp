#include "core/cost/kernels/recipe_ops.h"

#include "core/cost/kernels/lora_ops.h"
#include "core/model/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace core {

namespace {

// Each field a recipe decides: its words, whether the recipe decides it (an operator recipe always, unless `applies`
// says otherwise for any recipe), and whether a scenario sets it away from what the recipe does.
struct RecipeSetRow {
    RecipeSetField field;
    bool (*overridden)(const Scenario&);
    bool (*applies)(const Scenario&) = nullptr;
};
constexpr RecipeSetRow kRecipeSetRows[] = {
    {{"train.attention", "the recipe's SDPA",
      "This framework's recipe calls F.scaled_dot_product_attention on the backend it names and describes no other attention "
      "implementation, so train.attention changes no kernel and no tensor.",
      "the framework's recipe file (assets/frameworks)"},
     [](const Scenario& scenario) { return scenario.train.attention != AttentionImpl::sdpa; },
     [](const Scenario& scenario) { return runs_operator_recipe(scenario) && !framework_recipe_of(scenario).describes_eager_attention; }},
    {{"memory.fragmentation", "from the allocator model",
      "This framework's step is replayed through a model of PyTorch's caching allocator: what its segments hold beyond the "
      "live blocks is the fragmentation, so the allowance (memory.fragmentation) does not apply.",
      "PyTorch c10/cuda/CUDACachingAllocator.cpp"},
     [](const Scenario& scenario) { return scenario.memory.fragmentation != MemorySpec{}.fragmentation; }},
    {{"train.compile", "not in the recipe",
      "This framework's recipe does not describe what torch.compile would launch (its ops are the eager ones, or a "
      "Megatron-style layer's fused blocks), so train.compile changes no kernel and no tensor.",
      "the framework's recipe file (assets/frameworks)"},
     [](const Scenario& scenario) { return scenario.train.compile; },
     [](const Scenario& scenario) { return !framework_recipe_of(scenario).describes_compile; }},
};

bool row_applies(const RecipeSetRow& row, const Scenario& scenario) {
    return row.applies ? row.applies(scenario) : runs_operator_recipe(scenario);
}

}  // namespace

std::optional<RecipeSetField> set_by_recipe(const Scenario& scenario, std::string_view field) {
    for (const RecipeSetRow& row : kRecipeSetRows) {
        if (row.field.name == field) return row_applies(row, scenario) ? std::optional(row.field) : std::nullopt;
    }
    return std::nullopt;
}

const RecipeSetField& recipe_set_field(int index) { return kRecipeSetRows[static_cast<std::size_t>(index)].field; }

std::vector<int> recipe_set_fields_overridden(const Scenario& scenario) {
    std::vector<int> overridden;
    for (int index = 0; index < static_cast<int>(std::size(kRecipeSetRows)); ++index) {
        const RecipeSetRow& row = kRecipeSetRows[index];
        if (row_applies(row, scenario) && row.overridden(scenario)) overridden.push_back(index);
    }
    return overridden;
}

std::vector<AttentionChoice> attention_choices(const Scenario& scenario) {
    if (!runs_operator_recipe(scenario)) return {{AttentionImpl::sdpa, "fused"}, {AttentionImpl::eager, "unfused"}};
    if (!framework_recipe_of(scenario).describes_eager_attention) return {};
    return {{AttentionImpl::sdpa, "sdpa"}, {AttentionImpl::flash_attention_2, "flash_attention_2"}, {AttentionImpl::eager, "eager"}};
}

bool runs_operator_recipe(const Scenario& scenario) {
    const FrameworkRecipe& recipe = framework_recipe_of(scenario);
    return !recipe.layer.ops.empty() && !is_block_op(recipe.layer.ops.front().kind);
}

double dtype_bytes(Dtype dtype) {
    switch (dtype) {
        case Dtype::fp32: return 4;
        case Dtype::bf16: return 2;
        case Dtype::fp8: return 1;
        case Dtype::mask: return 1;
        case Dtype::index: return 8;
    }
    return 2;
}

RecipeDtypes recipe_dtypes(const Scenario& scenario) {
    const PrecisionRecipe& precision = scenario.precision;
    RecipeDtypes dtypes;
    const double weight_bytes = precision.bytes_per_param(StateKind::weights);
    dtypes.compute = precision.compute_bytes >= 4 ? Dtype::fp32 : Dtype::bf16;
    // FSDP's mixed precision casts the weights before it gathers them (gather_bytes), so the model runs on bf16 weights;
    // fp32 weights read directly run under torch.autocast, which casts at each op of its lists.
    const bool cast_before_gather = precision.gather_bytes > 0 && precision.gather_bytes < weight_bytes;
    dtypes.param = cast_before_gather ? Dtype::bf16 : weight_bytes >= 4 ? Dtype::fp32 : Dtype::bf16;
    dtypes.autocast = dtypes.param == Dtype::fp32 && dtypes.compute == Dtype::bf16;
    dtypes.grad = precision.grad_comm_bytes_per_param() >= 4 ? Dtype::fp32 : Dtype::bf16;
    const FinetuneSpec& finetune = scenario.finetune;
    if (trains_adapters(finetune)) {
        dtypes.adapter = finetune.adapter_dtype == AdapterDtype::fp32 ? Dtype::fp32 : Dtype::bf16;
        // FSDP2's mixed precision casts every parameter it gathers, the adapters' too (MixedPrecisionPolicy param_dtype,
        // torch/distributed/fsdp/_fully_shard/_fsdp_param.py): they compute in bf16 whatever their stored dtype.
        if (cast_before_gather) dtypes.adapter = Dtype::bf16;
        dtypes.param = Dtype::bf16;
        dtypes.autocast = dtypes.adapter == Dtype::fp32 && dtypes.compute == Dtype::bf16;
        dtypes.grad = dtypes.adapter;
    }
    return dtypes;
}

namespace {

// The sizes of framework_recipe.h's shapes, after the layout splits them.
struct Dims {
    double t = 0, n = 0, h = 0, q = 0, k = 0, d = 0, a = 0, g = 0, f = 0, v = 0, s = 0, S = 0, b = 1;
    double r = 0;  // LoRA's rank
    double of(char symbol) const {
        switch (symbol) {
            case 't': return t;
            case 'n': return n;
            case 'h': return h;
            case 'q': return q;
            case 'k': return k;
            case 'd': return d;
            case 'a': return a;
            case 'g': return g;
            case 'f': return f;
            case 'v': return v;
            case 's': return s;
            case 'S': return S;
            case 'b': return b;
            case 'r': return r;
        }
        return 1;
    }
    double size(const ShapeExpr& shape) const {
        double elements = shape.factor;
        for (char symbol : shape.symbols) elements *= of(symbol);
        return elements;
    }
};

Dims dims_of(const Scenario& scenario, const LayerSplit& split, const FrameworkTraits& traits) {
    const ModelSpec& model = scenario.model;
    Dims dims;
    dims.b = split.micro_batch;
    dims.S = scenario.train.seq_len;
    dims.s = dims.S / split.cp;
    dims.t = dims.b * dims.s;
    dims.n = split.sequence_parallel && split.tp > 1 ? dims.t / split.tp : dims.t;
    dims.h = model.hidden;
    dims.d = model.head_dim();
    dims.a = static_cast<double>(model.heads) / split.tp;
    dims.g = std::max(1.0, static_cast<double>(model.kv_heads) / split.tp);
    dims.q = dims.a * dims.d;
    dims.k = dims.g * dims.d;
    dims.f = static_cast<double>(model.ffn_hidden) / split.tp;
    dims.v = vocab_per_rank(model.vocab, split.tp, traits);
    dims.r = scenario.finetune.rank;
    return dims;
}

bool condition_term_holds(std::string_view term, const Scenario& scenario, const LayerSplit& split, const RecipeDtypes& dtypes) {
    const bool negate = !term.empty() && term[0] == '!';
    const std::string_view name = negate ? term.substr(1) : term;
    const ModelSpec& model = scenario.model;
    bool value = false;
    if (name == "gated") value = model.gated_mlp;
    else if (name == "bias") value = model.bias;
    else if (name == "dropout") value = scenario.train.dropout;
    else if (name == "autocast") value = dtypes.autocast;
    else if (name == "learned_positions") value = model.learned_positions;
    else if (name == "tied_embeddings") value = model.tied_embeddings;
    else if (name == "gqa") value = model.kv_heads < model.heads;
    else if (name == "sequence_parallel") value = split.sequence_parallel && split.tp > 1;
    else if (name == "rope") value = !model.learned_positions;
    else if (name == "compile") value = scenario.train.compile;
    else if (name == "eager_attention") value = !scenario.train.fused_attention();
    return negate ? !value : value;
}

// Every '&'-joined term of an op's condition holds (an empty condition always does).
bool condition_holds(const std::string& when, const Scenario& scenario, const LayerSplit& split, const RecipeDtypes& dtypes) {
    for (std::string_view rest = when; !rest.empty();) {
        const std::size_t amp = rest.find('&');
        if (!condition_term_holds(rest.substr(0, amp), scenario, split, dtypes)) return false;
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    }
    return true;
}

// Autocast's categories (aten/src/ATen/autocast_mode.cpp): ops cast to the lower precision, ops run in fp32, the rest as
// type promotion has them.
enum class AutocastClass { lower, fp32, promote };
AutocastClass autocast_class(OpKind kind) {
    switch (kind) {
        case OpKind::linear:
        case OpKind::sdpa:
        case OpKind::attention_scores:
        case OpKind::attention_context: return AutocastClass::lower;
        case OpKind::softmax:
        case OpKind::pow_scalar:
        case OpKind::rsqrt:
        case OpKind::layer_norm:
        case OpKind::log_softmax:
        case OpKind::nll_loss: return AutocastClass::fp32;
        default: return AutocastClass::promote;
    }
}

// The weight a linear reads, its output and input widths (per TP rank).
struct WeightShape {
    double out = 0, in = 0;
};
WeightShape weight_shape(WeightRole role, const Dims& dims, WeightRole adapts = WeightRole::none) {
    switch (role) {
        case WeightRole::q: return {dims.q, dims.h};
        case WeightRole::k:
        case WeightRole::v: return {dims.k, dims.h};
        case WeightRole::qkv: return {dims.q + 2.0 * dims.k, dims.h};
        case WeightRole::o: return {dims.h, dims.q};
        case WeightRole::gate:
        case WeightRole::up:
        case WeightRole::fc1: return {dims.f, dims.h};
        case WeightRole::gate_up: return {2.0 * dims.f, dims.h};
        case WeightRole::down:
        case WeightRole::fc2: return {dims.h, dims.f};
        case WeightRole::head: return {dims.v, dims.h};
        case WeightRole::norm: return {dims.h, 1.0};
        case WeightRole::lora_a: return {dims.r, weight_shape(adapts, dims).in};   // r x in
        case WeightRole::lora_b: return {weight_shape(adapts, dims).out, dims.r};  // out x r
        case WeightRole::none: return {};
    }
    return {};
}

KernelId kernel_id_of(const RecipeOp& op) {
    switch (op.kind) {
        case OpKind::linear:
            switch (op.weight) {
                case WeightRole::q:
                case WeightRole::k:
                case WeightRole::v:
                case WeightRole::qkv: return KernelId::qkv;
                case WeightRole::o: return KernelId::out_proj;
                case WeightRole::gate:
                case WeightRole::up:
                case WeightRole::gate_up:
                case WeightRole::fc1: return KernelId::mlp_up;
                case WeightRole::down:
                case WeightRole::fc2: return KernelId::mlp_down;
                case WeightRole::head: return KernelId::logits;
                default: return KernelId::op;
            }
        case OpKind::sdpa: return KernelId::attention;
        case OpKind::attention_scores: return KernelId::attention_scores;
        case OpKind::attention_context: return KernelId::attention_context;
        case OpKind::softmax: return KernelId::attention_softmax;
        case OpKind::where: return KernelId::attention_mask;
        case OpKind::embedding: return KernelId::embedding;
        case OpKind::log_softmax:
        case OpKind::nll_loss:
        case OpKind::fused_cross_entropy:
        case OpKind::chunked_cross_entropy: return KernelId::cross_entropy;
        default: return KernelId::op;
    }
}

// Builds one block's tensors, ops and kernels in execution order.
class ProgramBuilder {
public:
    ProgramBuilder(const Scenario& scenario, const LayerSplit& split, BlockRole role)
        : scenario_(scenario), split_(split), role_(role), traits_(framework_traits(scenario)), dtypes_(recipe_dtypes(scenario)),
          dims_(dims_of(scenario, split, traits_)),
          scope_(role == BlockRole::layer ? KernelScope::layer : role == BlockRole::embedding ? KernelScope::first_stage : KernelScope::last_stage) {
        fp8_ = fp8_gemms(scenario.cluster.gpu, traits_);
        program_.autocast = dtypes_.autocast;
        program_.grad_dtype = dtypes_.grad;
        // The residual stream is what the embedding writes: the weights' dtype (autocast leaves an fp32 embedding fp32).
        program_.stream = dtypes_.param;
    }

    BlockProgram build(const RecipeBlock& block) {
        program_.tensors.reserve(block.ops.size() * 3 + 8);
        program_.ops.reserve(block.ops.size());
        program_.input = input_tensor(block.input);
        for (const RecipeOp& op : block.ops) {
            if (!condition_holds(op.when, scenario_, split_, dtypes_)) continue;
            add_op(op);
        }
        program_.output = find(block.output);
        accumulate_gradients();
        // The backward runs the ops in reverse, each op's kernels in the order add_backward wrote them.
        for (auto it = backward_by_op_.rbegin(); it != backward_by_op_.rend(); ++it) {
            program_.backward.insert(program_.backward.end(), it->begin(), it->end());
        }
        program_.backward.insert(program_.backward.end(), input_accumulation_.begin(), input_accumulation_.end());
        for (Kernel& kernel : program_.forward) time_kernel(kernel, scenario_.cluster.gpu, traits_);
        for (Kernel& kernel : program_.backward) time_kernel(kernel, scenario_.cluster.gpu, traits_);
        for (std::size_t i = 0, kernel = 0; i < program_.ops.size(); ++i) {
            const ProgramOp& op = program_.ops[i];
            if (op.recompute_selective) {
                program_.selective.insert(program_.selective.end(), program_.forward.begin() + static_cast<long>(kernel),
                                          program_.forward.begin() + static_cast<long>(kernel + op.forward_kernels));
            }
            kernel += op.forward_kernels;
        }
        return std::move(program_);
    }

private:
    int input_tensor(const std::string& name) {
        ProgramTensor tensor;
        tensor.name = name;
        if (role_ == BlockRole::embedding) {
            tensor.elements = dims_.t;
            tensor.dtype = Dtype::index;
            tensor.requires_grad = false;
            tensor.constant = true;
        } else {
            tensor.elements = dims_.n * dims_.h;
            tensor.dtype = program_.stream;
        }
        program_.tensors.push_back(tensor);
        return static_cast<int>(program_.tensors.size()) - 1;
    }

    int find(const std::string& name) {
        for (int i = static_cast<int>(program_.tensors.size()) - 1; i >= 0; --i) {
            if (program_.tensors[i].name == name) return i;
        }
        // The framework's constants: RoPE's tables (the stream's dtype in Hugging Face, fp32 complex in torchtitan), ids.
        ProgramTensor tensor;
        tensor.name = name;
        tensor.requires_grad = false;
        tensor.constant = true;
        if (name == "cos" || name == "sin") {
            tensor.elements = dims_.s * dims_.d;
            tensor.dtype = program_.stream;
        } else if (name == "causal_mask") {
            // Hugging Face's eager mask: 0 or the dtype's minimum over (b, 1, s, S), in the embeddings' dtype (masking_utils).
            tensor.elements = dims_.b * dims_.s * dims_.S;
            tensor.dtype = program_.stream;
        } else if (name == "causal_bias") {
            tensor.elements = dims_.s * dims_.S;  // GPT-2's registered lower-triangular bool buffer, sliced
            tensor.dtype = Dtype::mask;
        } else if (name == "freqs") {
            tensor.elements = dims_.s * dims_.d;
            tensor.dtype = Dtype::fp32;
        } else {
            tensor.elements = dims_.t;
            tensor.dtype = Dtype::index;
        }
        program_.tensors.push_back(tensor);
        return static_cast<int>(program_.tensors.size()) - 1;
    }

    int new_tensor(std::string_view name, double elements, Dtype dtype, bool requires_grad = true) {
        ProgramTensor tensor;
        tensor.name = name;
        tensor.elements = elements;
        tensor.dtype = dtype;
        tensor.requires_grad = requires_grad;
        program_.tensors.push_back(tensor);
        return static_cast<int>(program_.tensors.size()) - 1;
    }

    Dtype resolve(DtypeRule rule, Dtype inferred) const {
        switch (rule) {
            case DtypeRule::infer: return inferred;
            case DtypeRule::fp32: return Dtype::fp32;
            case DtypeRule::bf16: return Dtype::bf16;
            case DtypeRule::compute: return dtypes_.compute;
            case DtypeRule::param: return dtypes_.param;
            case DtypeRule::stream: return program_.stream;
            case DtypeRule::mask: return Dtype::mask;
            case DtypeRule::index: return Dtype::index;
            case DtypeRule::adapter: return dtypes_.adapter;
        }
        return inferred;
    }

    // The attention's own kernels (the fused one, or every op that runs only under eager attention: its scores, scale,
    // mask, softmax, casts and context), counted as attention.
    bool attention_sized() const {
        return eager_attention_op_ || kernel_id_ == KernelId::attention || kernel_id_ == KernelId::attention_scores || kernel_id_ == KernelId::attention_context ||
               kernel_id_ == KernelId::attention_softmax || kernel_id_ == KernelId::attention_mask;
    }

    // A memory-bound kernel of the current op.
    Kernel& memory_kernel(std::vector<Kernel>& into, KernelPass pass, MemoryClass memory_class, double bytes, double flops) {
        Kernel kernel;
        kernel.id = kernel_id_;
        kernel.label = label_;
        kernel.pass = pass;
        kernel.category = attention_sized() ? KernelCategory::attention : KernelCategory::elementwise;
        kernel.scope = scope_;
        kernel.memory_class = memory_class;
        kernel.bytes = bytes;
        kernel.flops = flops;
        into.push_back(kernel);
        return into.back();
    }

    Kernel& gemm_kernel(std::vector<Kernel>& into, KernelPass pass, double m, double n, double k, bool linear) {
        Kernel kernel;
        kernel.id = kernel_id_;
        kernel.label = label_;
        kernel.pass = pass;
        kernel.category = attention_sized() ? KernelCategory::attention : KernelCategory::gemm;
        kernel.scope = scope_;
        kernel.is_gemm = true;
        kernel.m = m;
        kernel.n = n;
        kernel.k = k;
        kernel.flops = 2.0 * m * n * k;
        const double act = dtype_bytes(dtypes_.compute == Dtype::fp32 ? Dtype::fp32 : Dtype::bf16);
        kernel.bytes = act * (m * k + k * n + m * n);
        kernel.fp8 = fp8_ && linear && kernel_id_ != KernelId::logits;
        if (kernel.fp8) {
            // torchao's float8: the activation-side operand cast to fp8 with its scale (an amax reduction and a cast), the
            // weights' fp8 copies made once per gather; the GEMM reads fp8 operands and writes the compute dtype.
            kernel.bytes = (m * k + k * n) + act * m * n;
            if (pass != KernelPass::backward_weight) memory_kernel(into, pass, MemoryClass::streaming, m * k * (2.0 * act + 1.0), 0);
        }
        into.push_back(kernel);
        return into.back();
    }

    // An elementwise op of the current op: reads inputs, writes the output.
    void pointwise(std::vector<Kernel>& into, KernelPass pass, double read_bytes, double write_bytes, double flops,
                   MemoryClass memory_class = MemoryClass::streaming) {
        memory_kernel(into, pass, memory_class, read_bytes + write_bytes, flops);
    }

    // Autocast casts an input before an op of its lists: a copy kernel and a new tensor the op reads (and may save).
    int autocast_input(int input, Dtype to, std::vector<Kernel>& forward, std::vector<Kernel>& backward, ProgramOp& op) {
        const ProgramTensor& tensor = program_.tensors[input];
        if (tensor.dtype == to || tensor.dtype == Dtype::index || tensor.dtype == Dtype::mask) return input;
        const double elements = tensor.elements;
        const Dtype from = tensor.dtype;
        const bool requires_grad = tensor.requires_grad;
        const auto cls = [](Dtype a, Dtype b) { return dtype_bytes(b) > dtype_bytes(a) ? MemoryClass::widening : MemoryClass::streaming; };
        pointwise(forward, KernelPass::forward, elements * dtype_bytes(from), elements * dtype_bytes(to), 0, cls(from, to));
        // The cast's backward casts the gradient back to the source's dtype.
        if (requires_grad) pointwise(backward, KernelPass::backward_input, elements * dtype_bytes(to), elements * dtype_bytes(from), 0, cls(to, from));
        const int cast = new_tensor(program_.tensors[input].name, elements, to, requires_grad);
        op.made.push_back(cast);
        return cast;
    }

    void add_op(const RecipeOp& recipe) {
        ProgramOp op;
        op.recipe = &recipe;
        op.recompute_selective = recipe.recompute_selective;
        kernel_id_ = kernel_id_of(recipe);
        eager_attention_op_ = recipe.when.rfind("eager_attention", 0) == 0;
        label_ = recipe.name.c_str();
        for (const std::string& name : recipe.inputs) op.inputs.push_back(find(name));
        std::vector<Kernel> forward, backward;
        const std::size_t before = program_.forward.size();
        emit(recipe, op, forward, backward);
        op.forward_kernels = static_cast<int>(forward.size());
        op.backward_kernels = static_cast<int>(backward.size());
        program_.forward.insert(program_.forward.end(), forward.begin(), forward.end());
        (void)before;
        backward_by_op_.push_back(std::move(backward));
        program_.weight_params += op.weight_params;
        program_.frozen_params += op.frozen_params;
        program_.frozen_bytes += op.frozen_bytes;
        program_.ops.push_back(std::move(op));
    }

    // A tensor read by several ops gets a gradient from each: autograd's engine adds them (InputBuffer::add, one kernel
    // each beyond the first) before the op that made it runs its backward. An op that only names its input anew (a view,
    // a cast to the dtype it has: .to() returns self, no node) is no reader: its readers are. A view of part of a tensor
    // (a split: AutoModel's q, k, v of one QKV projection) gathers its own readers' gradients, and the split's backward
    // concatenates the parts' (SplitBackward: one copy of the whole).
    void accumulate_gradients() {
        std::vector<int> readers(program_.tensors.size(), 0), parts(program_.tensors.size(), 0);
        const auto storage = [&](int t) { return program_.tensors[t].alias_of >= 0 ? program_.tensors[t].alias_of : t; };
        const auto partial = [&](int t) { return storage(t) != t && program_.tensors[t].elements < program_.tensors[storage(t)].elements; };
        const auto gradient_of = [&](int t) { return partial(t) ? t : storage(t); };
        for (const ProgramOp& op : program_.ops) {
            if (op.output >= 0 && storage(op.output) != op.output) {
                if (partial(op.output) && op.recipe && op.recipe->kind == OpKind::view) ++parts[storage(op.output)];
                continue;  // a new name for its input (or part of it) reads nothing autograd sums: its readers do
            }
            std::vector<int> seen;
            for (int input : op.inputs) {
                const int s = gradient_of(input);
                if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
                seen.push_back(s);
                ++readers[s];
            }
        }
        std::vector<int> producer(program_.tensors.size(), -1);
        for (std::size_t i = 0; i < program_.ops.size(); ++i) {
            if (program_.ops[i].output >= 0) producer[storage(program_.ops[i].output)] = static_cast<int>(i);
        }
        for (std::size_t t = 0; t < readers.size(); ++t) {
            const ProgramTensor& tensor = program_.tensors[t];
            if (!tensor.requires_grad || tensor.constant || tensor.dtype == Dtype::index || tensor.dtype == Dtype::mask) continue;
            const int owner = producer[storage(static_cast<int>(t))];
            // Before the op that made the tensor runs its backward (or after the block's, for its input).
            const auto before_owner = [&](const char* label, int count, double read, double write, double flops) {
                std::vector<Kernel>& into = owner >= 0 ? backward_by_op_[static_cast<std::size_t>(owner)] : input_accumulation_;
                kernel_id_ = KernelId::op;
                eager_attention_op_ = false;
                label_ = label;
                std::vector<Kernel> kernels;
                for (int i = 0; i < count; ++i) pointwise(kernels, KernelPass::backward_input, read, write, flops);
                into.insert(owner >= 0 ? into.begin() : into.end(), kernels.begin(), kernels.end());
            };
            // The split's backward: its parts' gradients concatenated into the whole's.
            if (parts[t] >= 2) before_owner("autograd.split_backward", 1, tensor.bytes(), tensor.bytes(), 0);
            if (readers[t] >= 2) before_owner("autograd.accumulate_grad", readers[t] - 1, 2.0 * tensor.bytes(), tensor.bytes(), tensor.elements);
        }
    }

    double elements_of(const RecipeOp& recipe, int like) const {
        return recipe.has_shape ? dims_.size(recipe.shape) : program_.tensors[like].elements;
    }

    Dtype promoted(const ProgramOp& op) const {
        Dtype out = Dtype::bf16;
        bool any = false;
        for (int input : op.inputs) {
            const ProgramTensor& tensor = program_.tensors[input];
            if (tensor.dtype == Dtype::index || tensor.dtype == Dtype::mask) continue;
            if (!any || dtype_bytes(tensor.dtype) > dtype_bytes(out)) out = tensor.dtype;
            any = true;
        }
        return out;
    }

    bool any_grad(const ProgramOp& op) const {
        for (int input : op.inputs) {
            if (program_.tensors[input].requires_grad) return true;
        }
        return false;
    }

    void emit(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void emit_linear(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void emit_sdpa(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void emit_loss(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void emit_attention_matmul(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void emit_softmax(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw);
    void weight_gradient(ProgramOp& op, double params, std::vector<Kernel>& bw, double bf16_grad_elements);
    void dequantize(std::vector<Kernel>& into, KernelPass pass, const WeightShape& weight);

    const Scenario& scenario_;
    const LayerSplit& split_;
    BlockRole role_;
    FrameworkTraits traits_;
    RecipeDtypes dtypes_;
    Dims dims_;
    KernelScope scope_;
    bool fp8_ = false;
    KernelId kernel_id_ = KernelId::op;
    bool eager_attention_op_ = false;  // the current op runs only under eager attention
    const char* label_ = nullptr;
    double op_scratch_ = 0;  // what dequantize allocates beside the weight (double quantization's fp32 absmax)
    BlockProgram program_;
    std::vector<std::vector<Kernel>> backward_by_op_;
    std::vector<Kernel> input_accumulation_;  // the block input's gradients, added after the whole backward
};

// A weight's gradient in the backward: under autocast the bf16 dW is cast to the fp32 .grad (autograd's backward of
// autocast's cast), then accumulated (AccumulateGrad: the first micro-batch's is stolen, later ones add).
void ProgramBuilder::weight_gradient(ProgramOp& op, double params, std::vector<Kernel>& bw, double bf16_grad_elements) {
    op.weight_params += params;
    if (bf16_grad_elements > 0 && dtypes_.autocast) {
        pointwise(bw, KernelPass::backward_weight, bf16_grad_elements * 2.0, bf16_grad_elements * 4.0, 0, MemoryClass::widening);
        op.weight_grad_cast_bytes += bf16_grad_elements * 2.0;
    }
}

// A quantized frozen weight read back as bf16 (bandwidth-bound kernels). NF4: bitsandbytes' kDequantizeBlockwise
// (csrc/kernels.cu:510, 0.49.2) reads the packed weight and its fp32 absmax and writes the bf16 weight; under double
// quantization dequantize_4bit first dequantizes the 8-bit absmax and adds its offset (functional.py:1040-1041), two
// more launches. int8: MatMul8bitLt's backward dequantizes CB with SCB / 127 for dX (autograd/_functions.py).
void ProgramBuilder::dequantize(std::vector<Kernel>& into, KernelPass pass, const WeightShape& weight) {
    const FinetuneSpec& finetune = scenario_.finetune;
    const double params = weight.out * weight.in;
    const double stored = frozen_linear_bytes(weight.out, weight.in, finetune);
    if (finetune.base_bytes < 1 && finetune.double_quant) {
        const double blocks = std::ceil(params / 64.0);
        pointwise(into, pass, blocks + 4.0 * std::ceil(blocks / 256.0), blocks * 4.0, blocks);  // dequantize_blockwise
        pointwise(into, pass, blocks * 4.0, blocks * 4.0, blocks);                              // absmax += offset
        op_scratch_ = blocks * 4.0;
    }
    pointwise(into, pass, stored, params * 2.0, params);
}

void ProgramBuilder::emit_linear(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    const WeightShape weight = weight_shape(recipe.weight, dims_, recipe.adapts);
    const bool adapter = recipe.weight == WeightRole::lora_a || recipe.weight == WeightRole::lora_b;
    const Dtype weight_dtype = adapter ? dtypes_.adapter : dtypes_.param;
    const FinetuneSpec& finetune = scenario_.finetune;
    const bool quantized = quantized_weight(recipe, finetune);
    const bool int8 = quantized && finetune.base_bytes >= 1;
    const Dtype lower = dtypes_.compute;
    const double params = weight.out * weight.in;
    int input = op.inputs.front();
    const double tokens = program_.tensors[input].elements / weight.in;
    if (quantized && !int8) {
        // bitsandbytes dequantizes the whole weight to bf16 before the GEMM (MatMul4Bit.forward: F.linear(A,
        // F.dequantize_4bit(B, quant_state).to(A.dtype).t()), autograd/_functions.py:315, 0.49.2; 0.50's gemm_4bit does the
        // same past 1,536 rows, backends/cuda/ops.py:911); the copy lives through the GEMM, then goes.
        dequantize(fw, KernelPass::forward, weight);
        op.made.push_back(new_tensor("dequantized_weight", params, Dtype::bf16, false));
    }
    if (dtypes_.autocast) {
        // Autocast casts an fp32 weight once per forward (its cache) and the activation at every linear that reads it.
        if (weight_dtype == Dtype::fp32) {
            pointwise(fw, KernelPass::forward, params * 4.0, params * 2.0, 0);
            const int weight_copy = new_tensor("weight_copy", params, Dtype::bf16, false);
            program_.tensors[weight_copy].cached_weight = true;
            op.made.push_back(weight_copy);
            op.saved.push_back(weight_copy);
        }
        input = autocast_input(input, lower, fw, bw, op);
        op.inputs.front() = input;
    }
    const bool input_grad = program_.tensors[input].requires_grad;
    if (int8) {
        // LLM.int8 (MatMul8bitLt.forward, autograd/_functions.py, 0.49.2): A cast to fp16 (kept for the backward when a
        // gradient flows), quantized row-wise to int8 (int8_vectorwise_quant: int8 values and an fp32 scale per row), an
        // int8 GEMM with the dequantization in its epilogue (int8_scaled_mm), timed as the bf16 GEMM of its shape.
        const double a = tokens * weight.in;
        pointwise(fw, KernelPass::forward, a * 2.0, a * 2.0, 0);
        const int half = new_tensor("int8_input_fp16", a, Dtype::bf16, false);
        op.made.push_back(half);
        if (input_grad) op.saved.push_back(half);
        pointwise(fw, KernelPass::forward, a * 2.0, a + tokens * 4.0, 2.0 * a, MemoryClass::norm);
        op.made.push_back(new_tensor("int8_input", a, Dtype::mask, false));  // one byte each
    }
    gemm_kernel(fw, KernelPass::forward, tokens, weight.out, weight.in, true);
    op.output = new_tensor(recipe.output, tokens * weight.out, lower == Dtype::fp32 ? Dtype::fp32 : Dtype::bf16, !recipe.frozen || input_grad);
    if (recipe.frozen) {
        // A frozen linear keeps no input (autograd saves X only for dW) and runs no weight-gradient GEMM; the input's
        // gradient still flows through it (dX = dY W, the weight dequantized again when quantized).
        const double bias = recipe.bias ? weight.out : 0.0;
        op.frozen_params = params + bias;
        op.frozen_bytes = (quantized ? frozen_linear_bytes(weight.out, weight.in, finetune) : params * 2.0) + bias * 2.0;
        if (!input_grad) return;
        if (quantized) {
            op_scratch_ = 0;
            dequantize(bw, KernelPass::backward_input, weight);
            op.backward_scratch_bytes += params * 2.0 + op_scratch_;
        }
        gemm_kernel(bw, KernelPass::backward_input, tokens, weight.in, weight.out, true);
        return;
    }
    op.saved.push_back(input);
    // dX = dY W, dW = X^T dY (the GEMMs the Builder writes for every linear), the bias's gradient a reduction over tokens.
    if (input_grad) gemm_kernel(bw, KernelPass::backward_input, tokens, weight.in, weight.out, true);
    gemm_kernel(bw, KernelPass::backward_weight, weight.in, weight.out, tokens, true);
    if (recipe.bias) pointwise(bw, KernelPass::backward_weight, tokens * weight.out * 2.0, weight.out * 4.0, tokens * weight.out);
    weight_gradient(op, params + (recipe.bias ? weight.out : 0.0), bw, weight_dtype == Dtype::fp32 ? params : 0.0);
}

void ProgramBuilder::emit_sdpa(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    // Q, K, V as one tensor (GPT-2's and MPT's fused projection, split into views) or three.
    for (int& input : op.inputs) {
        if (dtypes_.autocast) input = autocast_input(input, dtypes_.compute, fw, bw, op);
        op.saved.push_back(input);
    }
    const double tokens = dims_.t;
    Kernel kernel;
    kernel.id = KernelId::attention;
    kernel.label = label_;
    kernel.category = KernelCategory::attention;
    kernel.scope = scope_;
    kernel.is_fused_attention = true;
    // attn_implementation="flash_attention_2" calls the flash-attn package's kernels whatever SDPA would pick.
    const std::string backend = scenario_.train.attention == AttentionImpl::flash_attention_2 ? std::string("flash") : recipe.backend;
    kernel.cudnn_attention = backend == "cudnn";
    const double act = dtype_bytes(dtypes_.compute);
    const double qkvo = tokens * (2.0 * dims_.q + 2.0 * dims_.k) * act;
    // Causal: the kernel skips the masked half of 4 b a s S d (Korthikanti's attention FLOPs).
    kernel.flops = 0.5 * 4.0 * dims_.b * dims_.a * dims_.s * dims_.S * dims_.d;
    kernel.m = dims_.s;
    kernel.n = dims_.S;
    kernel.k = dims_.d;
    kernel.batch = dims_.b * dims_.a;
    kernel.efficiency_size = std::min(dims_.s, dims_.S);
    kernel.pass = KernelPass::forward;
    kernel.bytes = qkvo;
    // FlashAttention in Triton against FlashAttention-2: 1.3-1.5x slower forward, about 2x backward (Dao 2023,
    // arXiv 2307.08691 sec 4.1); the GPU's flash curve is FlashAttention-2's.
    const bool triton = backend == "triton";
    if (triton) kernel.attention_speed = 1.0 / 1.4;
    fw.push_back(kernel);
    // PyTorch's ring attention (its recipe's context_parallel.merge "fp32"): each chunk's output cast to fp32 and merged
    // into the running one by its logsumexp (_SDPAMerger: out - sigmoid(lse_i - lse) (out - out_i), about 28 bytes an
    // element), K and V concatenated for the next rank every step, the result cast back (_templated_ring_attention).
    const ContextParallelRecipe& ring = framework_recipe_of(scenario_).context_parallel;
    const bool fp32_ring = split_.cp > 1 && ring.fp32_merge;
    const double steps = split_.cp - 1.0;
    const double out_elements = tokens * dims_.q;
    const double kv_elements = 2.0 * tokens * (ring.repeated_kv ? dims_.q : dims_.k);
    if (fp32_ring) {
        memory_kernel(fw, KernelPass::forward, MemoryClass::widening, split_.cp * out_elements * (act + 4.0), 0);
        memory_kernel(fw, KernelPass::forward, MemoryClass::streaming, steps * (28.0 * out_elements + 2.0 * act * kv_elements) + out_elements * (4.0 + act),
                      steps * 4.0 * out_elements);
        fw.back().launches = 2.0 * split_.cp + 9.0 * steps + 2.0;
    }
    op.output = new_tensor(recipe.output, tokens * dims_.q, dtypes_.compute);
    op.saved.push_back(op.output);
    const int lse = new_tensor("logsumexp", dims_.b * dims_.a * dims_.s, Dtype::fp32, false);  // one fp32 per query row
    op.made.push_back(lse);
    op.saved.push_back(lse);
    kernel.pass = KernelPass::backward_input;
    kernel.bytes = 2.0 * qkvo;
    kernel.flops *= 2.5;  // dQ, dK, dV and the recomputed scores: 2.5x the forward's FLOPs (FlashAttention-2 sec 3.1)
    if (triton) kernel.attention_speed = 0.5;
    // cuDNN's backward launches dO.O, the main kernel, dQ's conversion, and with GQA a reduction of dK and dV over each
    // group (torch.profiler, measurements/h200_hf_probe.json); flash's, the preprocess and the kernel.
    bw.push_back(kernel);
    if (fp32_ring) {
        // _templated_ring_attention_backward: fp32 dQ, dK, dV zeroed, each chunk's added in (10 bytes an element), dK and dV
        // concatenated in fp32 for the next rank every step and K, V in the compute dtype, all cast back at the end.
        const double chunks = split_.cp;
        memory_kernel(bw, KernelPass::backward_input, MemoryClass::streaming,
                      4.0 * (out_elements + kv_elements) + chunks * (10.0 * out_elements + 18.0 * kv_elements) + steps * 2.0 * act * kv_elements +
                          (4.0 + act) * (out_elements + kv_elements),
                      chunks * (out_elements + kv_elements));
        bw.back().launches = 3.0 + 4.0 * chunks + steps + 2.0;
    }
    const double rows = dims_.b * dims_.a * dims_.s;
    pointwise(bw, KernelPass::backward_input, 2.0 * tokens * dims_.q * act, rows * 4.0, 2.0 * tokens * dims_.q);
    if (kernel.cudnn_attention) {
        pointwise(bw, KernelPass::backward_input, 0, tokens * dims_.q * 4.0, 0);  // its fp32 dQ accumulator zeroed (a memset)
        pointwise(bw, KernelPass::backward_input, tokens * dims_.q * 4.0, tokens * dims_.q * act, 0);
        if (dims_.g < dims_.a) {  // dK and dV, each summed over its group of query heads
            pointwise(bw, KernelPass::backward_input, tokens * dims_.q * 4.0, tokens * dims_.k * act, tokens * dims_.q);
            pointwise(bw, KernelPass::backward_input, tokens * dims_.q * 4.0, tokens * dims_.k * act, tokens * dims_.q);
        }
    }
    op.backward_scratch_bytes = tokens * dims_.q * 4.0 + (dims_.g < dims_.a ? 2.0 * tokens * dims_.q * 4.0 : 0.0);  // fp32 dQ (dK, dV)
    // The ring's fp32 dQ, dK, dV, and the dK, dV on their way out and in.
    if (fp32_ring) op.backward_scratch_bytes += 4.0 * (out_elements + 3.0 * kv_elements);
}

void ProgramBuilder::emit_loss(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    // nll_loss: gathers one log-probability per token and reduces; its backward fills a zero gradient the size of the
    // logits and scatters -1/N into it (aten/src/ATen/native/cuda/Loss.cu).
    const int logp = op.inputs.front();
    const double logits = program_.tensors[logp].elements;
    const double bytes = dtype_bytes(program_.tensors[logp].dtype);
    pointwise(fw, KernelPass::forward, dims_.t * (bytes + 8.0), 4.0, dims_.t);
    pointwise(bw, KernelPass::backward_input, 0, logits * bytes, 0);
    pointwise(bw, KernelPass::backward_input, dims_.t * 8.0, dims_.t * bytes, 0);
    op.output = new_tensor(recipe.output.empty() ? "loss" : recipe.output, 1, Dtype::fp32);
}

// Eager attention's two torch.matmul calls over the b x heads batch (autocast: the lower precision). The scores Q K^T are
// s x S x d per head, the context P V s x d x S; each saves both operands (derivatives.yaml matmul -> bmm: self and mat2),
// and its backward is the two GEMMs of the operands' gradients.
void ProgramBuilder::emit_attention_matmul(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    for (int& input : op.inputs) {
        if (dtypes_.autocast) input = autocast_input(input, dtypes_.compute, fw, bw, op);
        op.saved.push_back(input);
    }
    const bool scores = recipe.kind == OpKind::attention_scores;
    const double s = dims_.s, S = dims_.S, d = dims_.d, batch = dims_.b * dims_.a;
    const auto batched = [&](std::vector<Kernel>& into, KernelPass pass, double m, double n, double k) {
        Kernel& kernel = gemm_kernel(into, pass, m, n, k, false);
        kernel.batch = batch;
        kernel.flops *= batch;
        kernel.bytes *= batch;
    };
    batched(fw, KernelPass::forward, s, scores ? S : d, scores ? d : S);
    const Dtype out = dtypes_.compute == Dtype::fp32 ? Dtype::fp32 : Dtype::bf16;
    op.output = new_tensor(recipe.output, recipe.has_shape ? dims_.size(recipe.shape) : batch * s * (scores ? S : d), out, any_grad(op));
    const ProgramTensor& a = program_.tensors[op.inputs[0]];
    const ProgramTensor& b = program_.tensors[op.inputs[1]];
    // scores: dQ = dS K, dK = dS^T Q; context: dP = dO V^T, dV = P^T dO.
    if (a.requires_grad) batched(bw, KernelPass::backward_input, s, scores ? d : S, scores ? S : d);
    if (b.requires_grad) batched(bw, KernelPass::backward_input, S, d, s);
}

// F.softmax over the last dimension: autocast runs it in fp32, as does softmax(dtype=torch.float32) (ATen's softmax casts
// a bf16 input first: a copy and an fp32 temporary). It saves its output; its backward, _softmax_backward_data, launches a
// product and a reduction over the scores in the output's dtype (torch.profiler, measurements/h100_training_ops.json).
// One warp per row runs at streaming speed in fp32 up to 2,048 keys (measurements/h100_eager_attention.json).
void ProgramBuilder::emit_softmax(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    int source = op.inputs.front();
    if (dtypes_.autocast || recipe.dtype == DtypeRule::fp32) source = autocast_input(source, Dtype::fp32, fw, bw, op);
    op.inputs.front() = source;
    const ProgramTensor& x = program_.tensors[source];
    const MemoryClass cls = x.dtype == Dtype::fp32 ? MemoryClass::streaming : MemoryClass::softmax;
    pointwise(fw, KernelPass::forward, x.bytes(), x.bytes(), 5.0 * x.elements, cls);
    op.output = new_tensor(recipe.output, x.elements, x.dtype, x.requires_grad);
    op.saved.push_back(op.output);
    if (!x.requires_grad) return;
    pointwise(bw, KernelPass::backward_input, 2.0 * x.bytes(), x.bytes(), x.elements, MemoryClass::streaming);
    pointwise(bw, KernelPass::backward_input, 2.0 * x.bytes(), x.bytes(), 3.0 * x.elements, MemoryClass::streaming);
}

void ProgramBuilder::emit(const RecipeOp& recipe, ProgramOp& op, std::vector<Kernel>& fw, std::vector<Kernel>& bw) {
    const int in0 = op.inputs.empty() ? -1 : op.inputs.front();
    const auto input = [&](int i) -> const ProgramTensor& { return program_.tensors[op.inputs[static_cast<std::size_t>(i)]]; };
    const auto grad_of = [&](int i) { return input(i).requires_grad; };
    switch (recipe.kind) {
        case OpKind::view: {
            op.output = new_tensor(recipe.output, elements_of(recipe, in0), input(0).dtype, input(0).requires_grad);
            program_.tensors[op.output].alias_of = program_.tensors[in0].alias_of >= 0 ? program_.tensors[in0].alias_of : in0;
            return;
        }
        case OpKind::gather_sequence:
        case OpKind::scatter_sequence: {
            // No kernel here: the collective is the layer's TP communication. Without a split sequence, the input itself.
            const double elements = elements_of(recipe, in0);
            op.output = new_tensor(recipe.output, elements, input(0).dtype, input(0).requires_grad);
            if (elements == input(0).elements) {
                program_.tensors[op.output].alias_of = program_.tensors[in0].alias_of >= 0 ? program_.tensors[in0].alias_of : in0;
            }
            return;
        }
        case OpKind::slice: {
            // slice_backward: zeros of the input's size, the slice's gradient copied in (derivatives.yaml slice.Tensor).
            const double elements = elements_of(recipe, in0);
            const double bytes = dtype_bytes(input(0).dtype);
            op.output = new_tensor(recipe.output, elements, input(0).dtype, grad_of(0));
            program_.tensors[op.output].alias_of = program_.tensors[in0].alias_of >= 0 ? program_.tensors[in0].alias_of : in0;
            if (grad_of(0)) {
                pointwise(bw, KernelPass::backward_input, 0, input(0).elements * bytes, 0);
                pointwise(bw, KernelPass::backward_input, elements * bytes, elements * bytes, 0);
                op.backward_scratch_bytes = input(0).elements * bytes;
            }
            return;
        }
        case OpKind::cast: {
            const Dtype to = resolve(recipe.dtype, input(0).dtype);
            if (to == input(0).dtype) {  // .to() of the same dtype returns the tensor itself
                op.output = new_tensor(recipe.output, input(0).elements, to, input(0).requires_grad);
                program_.tensors[op.output].alias_of = program_.tensors[in0].alias_of >= 0 ? program_.tensors[in0].alias_of : in0;
                return;
            }
            const double elements = input(0).elements;
            const MemoryClass cls = dtype_bytes(to) > dtype_bytes(input(0).dtype) ? MemoryClass::widening : MemoryClass::streaming;
            pointwise(fw, KernelPass::forward, elements * dtype_bytes(input(0).dtype), elements * dtype_bytes(to), 0, cls);
            if (grad_of(0)) pointwise(bw, KernelPass::backward_input, elements * dtype_bytes(to), elements * dtype_bytes(input(0).dtype), 0);
            op.output = new_tensor(recipe.output, elements, to, grad_of(0));
            return;
        }
        case OpKind::copy: {
            const double in_elements = input(0).elements;
            const double out_elements = elements_of(recipe, in0);
            const double bytes = dtype_bytes(input(0).dtype);
            pointwise(fw, KernelPass::forward, in_elements * bytes, out_elements * bytes, 0);
            // The gradient made contiguous again, or summed back over repeat_kv's copies.
            if (grad_of(0)) pointwise(bw, KernelPass::backward_input, out_elements * bytes, in_elements * bytes, out_elements);
            op.output = new_tensor(recipe.output, out_elements, input(0).dtype, grad_of(0));
            return;
        }
        case OpKind::add:
        case OpKind::mul: {
            const bool weighted = recipe.weight == WeightRole::norm;  // a norm's weight times its input
            const Dtype out = weighted ? (dtype_bytes(dtypes_.param) > dtype_bytes(input(0).dtype) ? dtypes_.param : input(0).dtype) : promoted(op);
            double elements = 0;
            double read = 0;
            for (std::size_t i = 0; i < op.inputs.size(); ++i) {
                elements = std::max(elements, input(static_cast<int>(i)).elements);
                read += input(static_cast<int>(i)).elements * dtype_bytes(input(static_cast<int>(i)).dtype);
            }
            if (weighted) read += dims_.h * dtype_bytes(dtypes_.param);
            const double out_bytes = dtype_bytes(out);
            // PyTorch vectorizes an elementwise kernel only when every operand is contiguous and of one dtype; a broadcast
            // operand or a mix of dtypes runs the unrolled kernel (the GPU's broadcast and widening classes, measured).
            bool mixed = weighted && dtypes_.param != input(0).dtype, broadcast_input = weighted;
            for (std::size_t i = 0; i < op.inputs.size(); ++i) {
                const ProgramTensor& tensor = input(static_cast<int>(i));
                if (tensor.dtype != out) mixed = true;
                if (tensor.elements < elements) broadcast_input = true;
            }
            pointwise(fw, KernelPass::forward, read, elements * out_bytes, elements,
                      broadcast_input ? MemoryClass::broadcast : mixed ? MemoryClass::widening : MemoryClass::streaming);
            op.output = new_tensor(recipe.output, elements, out, any_grad(op) || (weighted && !recipe.frozen));
            for (std::size_t i = 0; i < op.inputs.size(); ++i) {
                const ProgramTensor& tensor = input(static_cast<int>(i));
                if (!tensor.requires_grad) continue;
                const bool broadcast = tensor.elements < elements;
                const bool cast = tensor.dtype != out;
                if (recipe.kind == OpKind::mul) {
                    // grad * other: the other input is saved (derivatives.yaml: mul saves each input the other's gradient needs).
                    if (op.inputs.size() > 1) op.saved.push_back(op.inputs[1 - i]);
                    pointwise(bw, KernelPass::backward_input, 2.0 * elements * out_bytes, elements * out_bytes, elements);
                }
                if (broadcast) pointwise(bw, KernelPass::backward_input, elements * out_bytes, tensor.elements * out_bytes, elements);
                if (cast) pointwise(bw, KernelPass::backward_input, tensor.elements * out_bytes, tensor.bytes(), 0);
            }
            if (weighted && recipe.frozen) {  // a frozen norm weight: only the input's gradient, grad * w
                op.frozen_params = dims_.h;
                op.frozen_bytes = dims_.h * 2.0;
                if (input(0).requires_grad) pointwise(bw, KernelPass::backward_input, 2.0 * elements * out_bytes, elements * out_bytes, elements);
            } else if (weighted) {
                op.saved.push_back(in0);
                pointwise(bw, KernelPass::backward_input, 2.0 * elements * out_bytes, elements * out_bytes, elements);  // grad * w
                pointwise(bw, KernelPass::backward_weight, 2.0 * elements * out_bytes, elements * out_bytes, elements);  // grad * x
                pointwise(bw, KernelPass::backward_weight, elements * out_bytes, dims_.h * 4.0, elements, MemoryClass::norm);  // sum
                weight_gradient(op, dims_.h, bw, 0);
            }
            return;
        }
        case OpKind::add_scalar:
        case OpKind::mul_scalar:
        case OpKind::neg:
        case OpKind::tanh:
        case OpKind::silu:
        case OpKind::gelu:
        case OpKind::pow_scalar:
        case OpKind::rsqrt: {
            int source = in0;
            if (dtypes_.autocast && autocast_class(recipe.kind) == AutocastClass::fp32) source = autocast_input(in0, Dtype::fp32, fw, bw, op);
            op.inputs.front() = source;
            const ProgramTensor& x = program_.tensors[source];
            const double elements = recipe.has_shape ? dims_.size(recipe.shape) : x.elements;
            const Dtype out = resolve(recipe.dtype, x.dtype);
            const double in_bytes = x.elements * dtype_bytes(x.dtype), out_bytes = elements * dtype_bytes(out);
            const double flops = recipe.kind == OpKind::tanh || recipe.kind == OpKind::silu || recipe.kind == OpKind::gelu ? 8.0 * elements : elements;
            pointwise(fw, KernelPass::forward, in_bytes, out_bytes, flops);
            op.output = new_tensor(recipe.output, elements, out, x.requires_grad);
            if (!x.requires_grad) return;
            // derivatives.yaml: tanh and rsqrt keep their result, silu, gelu and pow their input; pow and rsqrt's backward
            // is three kernels (self.pow(e - 1), times e, times grad), the others one.
            switch (recipe.kind) {
                case OpKind::add_scalar: return;
                case OpKind::mul_scalar:
                case OpKind::neg: pointwise(bw, KernelPass::backward_input, out_bytes, in_bytes, elements); return;
                case OpKind::tanh: op.saved.push_back(op.output); break;
                case OpKind::rsqrt: op.saved.push_back(op.output); break;
                default: op.saved.push_back(source); break;
            }
            const int kernels = recipe.kind == OpKind::pow_scalar || recipe.kind == OpKind::rsqrt ? 3 : 1;
            for (int i = 0; i < kernels; ++i) pointwise(bw, KernelPass::backward_input, out_bytes + in_bytes, in_bytes, 4.0 * elements);
            return;
        }
        case OpKind::mean: {
            const ProgramTensor& x = input(0);
            const double elements = elements_of(recipe, in0);
            pointwise(fw, KernelPass::forward, x.bytes(), elements * dtype_bytes(x.dtype), x.elements, MemoryClass::norm);
            op.output = new_tensor(recipe.output, elements, x.dtype, x.requires_grad);
            if (x.requires_grad) pointwise(bw, KernelPass::backward_input, elements * dtype_bytes(x.dtype), x.bytes(), x.elements);  // expand / N
            return;
        }
        case OpKind::cat: {
            double read = 0;
            for (std::size_t i = 0; i < op.inputs.size(); ++i) read += input(static_cast<int>(i)).bytes();
            const double elements = elements_of(recipe, in0);
            pointwise(fw, KernelPass::forward, read, elements * dtype_bytes(input(0).dtype), 0);
            op.output = new_tensor(recipe.output, elements, input(0).dtype, any_grad(op));  // its backward: views of the gradient
            return;
        }
        case OpKind::linear: emit_linear(recipe, op, fw, bw); return;
        case OpKind::sdpa: emit_sdpa(recipe, op, fw, bw); return;
        case OpKind::attention_scores:
        case OpKind::attention_context: emit_attention_matmul(recipe, op, fw, bw); return;
        case OpKind::softmax: emit_softmax(recipe, op, fw, bw); return;
        case OpKind::where: {
            // One kernel reading x and the broadcast mask; its backward, where(mask, grad, 0), one more. The mask is a
            // buffer, not an activation: nothing of the scores' size is saved.
            const ProgramTensor& x = input(0);
            const double mask_bytes = op.inputs.size() > 1 ? input(1).bytes() : 0.0;
            pointwise(fw, KernelPass::forward, x.bytes() + mask_bytes, x.bytes(), x.elements, MemoryClass::broadcast);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, x.requires_grad);
            if (x.requires_grad) pointwise(bw, KernelPass::backward_input, x.bytes() + mask_bytes, x.bytes(), x.elements, MemoryClass::broadcast);
            return;
        }
        case OpKind::dropout: {
            const ProgramTensor& x = input(0);
            pointwise(fw, KernelPass::forward, x.bytes(), x.bytes() + x.elements, 2.0 * x.elements, MemoryClass::dropout);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, x.requires_grad);
            const int mask = new_tensor("dropout_mask", x.elements, Dtype::mask, false);
            op.made.push_back(mask);
            op.saved.push_back(mask);
            pointwise(bw, KernelPass::backward_input, x.bytes() + x.elements, x.bytes(), x.elements, MemoryClass::dropout);
            return;
        }
        case OpKind::layer_norm:
        case OpKind::rms_norm:
        case OpKind::fused_norm: {
            int source = in0;
            if (dtypes_.autocast && recipe.kind == OpKind::layer_norm && recipe.dtype == DtypeRule::infer) source = autocast_input(in0, Dtype::fp32, fw, bw, op);
            op.inputs.front() = source;
            const ProgramTensor& x = program_.tensors[source];
            const Dtype out = resolve(recipe.dtype, x.dtype);
            const double rows = x.elements / dims_.h;
            pointwise(fw, KernelPass::forward, x.bytes(), x.elements * dtype_bytes(out) + 8.0 * rows, 8.0 * x.elements, MemoryClass::norm);
            const double norm_params = (scenario_.model.bias ? 2.0 : 1.0) * dims_.h;
            const bool input_grad = x.requires_grad;
            op.output = new_tensor(recipe.output, x.elements, out, input_grad || !recipe.frozen);
            const int stats = new_tensor("norm_stats", 2.0 * rows, Dtype::fp32, false);  // mean and rstd (rstd alone for RMS)
            op.made.push_back(stats);
            if (recipe.frozen && !input_grad) {
                op.frozen_params = norm_params;
                op.frozen_bytes = norm_params * 2.0;
                return;
            }
            op.saved.push_back(source);
            op.saved.push_back(stats);
            // The input's gradient, then the weight's (and bias's) over the tokens (layer_norm_backward_cuda: two kernels).
            pointwise(bw, KernelPass::backward_input, x.bytes() + x.elements * dtype_bytes(out), x.bytes(), 12.0 * x.elements, MemoryClass::norm);
            if (recipe.frozen) {
                op.frozen_params = norm_params;
                op.frozen_bytes = norm_params * 2.0;
                return;
            }
            pointwise(bw, KernelPass::backward_weight, x.bytes() + x.elements * dtype_bytes(out), dims_.h * 8.0, 4.0 * x.elements, MemoryClass::norm);
            weight_gradient(op, norm_params, bw, 0);
            return;
        }
        case OpKind::embedding: {
            const double elements = elements_of(recipe, in0);
            const Dtype out = resolve(recipe.dtype, dtypes_.param);
            const double rows = recipe.inputs.front() == "positions" ? std::max(dims_.S, static_cast<double>(scenario_.model.positions))
                                                                      : dims_.v;
            pointwise(fw, KernelPass::forward, elements * dtype_bytes(out) + dims_.t * 8.0, elements * dtype_bytes(out), 0);
            const bool tied_table = scenario_.model.tied_embeddings && recipe.inputs.front() == "tokens";
            if (recipe.frozen) {  // a frozen table: no gradient at all, and none flows into its rows (the ids have none)
                op.output = new_tensor(recipe.output, elements, out, false);
                op.frozen_params = tied_table ? 0.0 : rows * dims_.h;  // a tied table is the head's weight, counted there
                op.frozen_bytes = op.frozen_params * 2.0;
                return;
            }
            op.output = new_tensor(recipe.output, elements, out, true);
            // embedding_dense_backward: the ids sorted, the rows' gradients summed and scattered into a zero-filled
            // gradient of the whole table (aten/src/ATen/native/cuda/Embedding.cu; 15 launches for GPT-2 in
            // measurements/h200_hf_probe.json): the fill and the scatter carry the bytes.
            pointwise(bw, KernelPass::backward_weight, 0, rows * dims_.h * dtype_bytes(dtypes_.grad), 0);
            pointwise(bw, KernelPass::backward_weight, elements * dtype_bytes(out) + dims_.t * 8.0, elements * dtype_bytes(dtypes_.grad), elements);
            for (int i = 0; i < 12; ++i) pointwise(bw, KernelPass::backward_weight, dims_.t * 16.0, dims_.t * 8.0, dims_.t);
            // A tied table's gradient is the head's: counted once, at the head.
            if (!(scenario_.model.tied_embeddings && recipe.inputs.front() == "tokens")) weight_gradient(op, rows * dims_.h, bw, 0);
            return;
        }
        case OpKind::log_softmax: {
            int source = in0;
            if (dtypes_.autocast) source = autocast_input(in0, Dtype::fp32, fw, bw, op);
            op.inputs.front() = source;
            const ProgramTensor& x = program_.tensors[source];
            pointwise(fw, KernelPass::forward, x.bytes(), x.bytes(), 5.0 * x.elements, MemoryClass::softmax);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, true);
            op.saved.push_back(op.output);
            pointwise(bw, KernelPass::backward_input, 2.0 * x.bytes(), x.bytes(), 3.0 * x.elements, MemoryClass::softmax);
            return;
        }
        case OpKind::nll_loss: emit_loss(recipe, op, fw, bw); return;
        case OpKind::fused_rope: {
            const ProgramTensor& x = input(0);
            pointwise(fw, KernelPass::forward, x.bytes(), x.bytes(), 6.0 * x.elements);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, x.requires_grad);
            pointwise(bw, KernelPass::backward_input, x.bytes(), x.bytes(), 6.0 * x.elements);
            return;
        }
        case OpKind::fused_swiglu: {
            // gate and up side by side in one tensor (Megatron's fused projection), or as two (Inductor's fusion of
            // silu(w1(x)) * w3(x)): the same kernel either way, reading both halves and saving them for the backward.
            const ProgramTensor& x = input(0);
            const double both_bytes = x.bytes() * static_cast<double>(op.inputs.size());
            const double elements = op.inputs.size() > 1 ? x.elements : x.elements / 2.0;
            const bool needs_grad = std::any_of(op.inputs.begin(), op.inputs.end(), [&](int in) { return program_.tensors[in].requires_grad; });
            pointwise(fw, KernelPass::forward, both_bytes, both_bytes / 2.0, 6.0 * elements);
            op.output = new_tensor(recipe.output, elements, x.dtype, needs_grad);
            for (int in : op.inputs) op.saved.push_back(in);
            pointwise(bw, KernelPass::backward_input, both_bytes * 1.5, both_bytes, 10.0 * elements);
            return;
        }
        case OpKind::fused_bias_gelu: {
            const ProgramTensor& x = input(0);
            pointwise(fw, KernelPass::forward, x.bytes(), x.bytes(), 8.0 * x.elements);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, x.requires_grad);
            op.saved.push_back(in0);
            pointwise(bw, KernelPass::backward_input, 2.0 * x.bytes(), x.bytes(), 12.0 * x.elements);
            return;
        }
        case OpKind::fused_residual_dropout: {
            const ProgramTensor& x = input(0);
            const double read = x.bytes() * static_cast<double>(op.inputs.size());
            pointwise(fw, KernelPass::forward, read, x.bytes() + x.elements, 2.0 * x.elements, MemoryClass::dropout);
            op.output = new_tensor(recipe.output, x.elements, x.dtype, true);
            const int mask = new_tensor("dropout_mask", x.elements, Dtype::mask, false);
            op.made.push_back(mask);
            op.saved.push_back(mask);
            pointwise(bw, KernelPass::backward_input, x.bytes() + x.elements, x.bytes(), x.elements, MemoryClass::dropout);
            return;
        }
        case OpKind::chunked_cross_entropy: {
            // CEWithChunkedOutputLoss's default num_output_chunks (torchtune/modules/loss/ce_chunked_output_loss.py).
            constexpr int kLossChunks = 8;
            // Compiled upcast + cross-entropy over one chunk of the logits at a time (torchtune's CEWithChunkedOutputLoss
            // with compute_cross_entropy compiled): Inductor fuses the fp32 upcast into the reductions, so no fp32 copy is
            // written; the backward needs the 16-bit logits and each row's log-sum-exp, and writes 16-bit gradients.
            const ProgramTensor& x = input(0);
            const double rows = dims_.t;
            pointwise(fw, KernelPass::forward, x.bytes() + rows * 8.0, rows * 8.0, 5.0 * x.elements);
            op.output = new_tensor(recipe.output.empty() ? "loss" : recipe.output, 1, Dtype::fp32);
            const int lse = new_tensor("logsumexp", rows, Dtype::fp32, false);
            op.made.push_back(lse);
            op.saved.push_back(in0);
            op.saved.push_back(lse);
            pointwise(bw, KernelPass::backward_input, x.bytes() + rows * 12.0, x.bytes(), 4.0 * x.elements);
            // Each chunk's node frees its saved logits as it writes their gradient (autograd releases a node's saved
            // tensors when it returns): one chunk of gradient at most beside the logits still saved.
            op.chunks = kLossChunks;
            op.backward_scratch_bytes = x.bytes() / kLossChunks;
            return;
        }
        case OpKind::fused_cross_entropy: {
            const ProgramTensor& x = input(0);
            pointwise(fw, KernelPass::forward, x.elements * (dtype_bytes(x.dtype) + 8.0), x.elements * 4.0, 5.0 * x.elements);
            op.output = new_tensor(recipe.output.empty() ? "loss" : recipe.output, 1, Dtype::fp32);
            const int softmax = new_tensor("softmax", x.elements, Dtype::fp32, false);
            op.made.push_back(softmax);
            op.saved.push_back(softmax);
            pointwise(bw, KernelPass::backward_input, x.elements * 4.0, x.bytes(), 3.0 * x.elements);
            return;
        }
        default: break;
    }
    throw InputError(std::string("framework recipe op ") + recipe.name, std::string("op ") + op_kind_name(recipe.kind) + " is a block op");
}

}  // namespace

std::string block_key(const Scenario& scenario, const LayerSplit& split, BlockRole role) {
    const ModelSpec& model = scenario.model;
    const GpuSpec& gpu = scenario.cluster.gpu;
    const PrecisionRecipe& precision = scenario.precision;
    // The fields' bytes side by side: cheap to build, and equal exactly when the fields are.
    std::string key;
    key.reserve(320);  // one allocation: the id, about 200 bytes of fields and the GPU's id
    key = framework_recipe_of(scenario).id;
    const auto add = [&key](auto value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); };
    for (int value : {model.layers, model.hidden, model.heads, model.kv_heads, model.ffn_hidden, model.vocab, model.positions,
                      model.explicit_head_dim, scenario.train.seq_len, static_cast<int>(role), split.tp, split.cp, split.micro_batch,
                      static_cast<int>(split.recompute), split.ep, split.etp}) {
        add(value);
    }
    for (bool value : {model.gated_mlp, model.tied_embeddings, model.learned_positions, model.bias, scenario.train.dropout,
                       scenario.train.compile, split.sequence_parallel}) {
        add(value);
    }
    for (int value : {static_cast<int>(scenario.train.attention)}) {
        add(value);
    }
    for (double value : {precision.compute_bytes, precision.bytes_per_param(StateKind::weights), precision.gather_bytes,
                         precision.grad_comm_bytes_per_param(), precision.linear_gemm_bytes(), gpu.bf16_flops_per_s, gpu.hbm_bytes_per_s,
                         gpu.fp8_flops_per_s, gpu.fp32_flops_per_s}) {
        add(value);
    }
    // LoRA's adapters: which linears, their rank, the base's format, the adapters' dtype (alpha scales, costs nothing).
    const FinetuneSpec& finetune = scenario.finetune;
    if (trains_adapters(finetune)) {
        for (int value : {static_cast<int>(finetune.method), finetune.rank, static_cast<int>(finetune.targets), static_cast<int>(finetune.adapter_dtype),
                          static_cast<int>(finetune.double_quant)}) {
            add(value);
        }
        add(finetune.base_bytes);
        add(finetune.dropout > 0 ? 1.0 : 0.0);  // the dropout's rate changes no cost, its presence does
        for (const std::string& name : finetune.target_modules) key += name + '|';
    }
    // The efficiency tables are the catalog's for a catalog GPU (its id names them); a scenario's own GPU adds its own.
    key += gpu.id;
    if (!builtin_hardware().find_gpu(gpu.id)) {
        for (double value : gpu.efficiency.gemm.efficiencies) add(value);
        for (double value : gpu.efficiency.fused_attention_forward.efficiencies) add(value);
    }
    return key;
}

std::shared_ptr<const BlockProgram> block_program(const Scenario& scenario, const LayerSplit& split, BlockRole role) {
    // A bounded cache shared by every thread (the planner searches beside the UI): cleared when it fills.
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const BlockProgram>> cache;
    std::string key = block_key(scenario, split, role);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto found = cache.find(key); found != cache.end()) return found->second;
    }
    const FrameworkRecipe& recipe = framework_recipe_of(scenario);
    const RecipeBlock& block = role == BlockRole::embedding ? recipe.embedding : role == BlockRole::layer ? recipe.layer : recipe.head;
    std::shared_ptr<const RecipeBlock> adapted = adapted_block(block, role == BlockRole::layer, scenario.finetune, recipe.lora_style);
    BlockProgram built = ProgramBuilder(scenario, split, role).build(adapted ? *adapted : block);
    built.adapted = std::move(adapted);
    auto program = std::make_shared<const BlockProgram>(std::move(built));
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 512) cache.clear();
    cache.emplace(std::move(key), program);
    return program;
}

}  // namespace core
