#pragma once
// Precision recipes: how many bytes of training state each parameter costs, piece by piece (assets/recipes.json).
#include <string>
#include <string_view>
#include <vector>

namespace core {

enum class StateKind { weights, grads, master, optimizer };
const char* state_kind_name(StateKind);

struct StateComponent {
    std::string label;       // "fp32 master"
    StateKind kind = StateKind::weights;
    double bytes_per_param = 0;

    bool operator==(const StateComponent&) const = default;
};

struct PrecisionRecipe {
    std::string id = "bf16-mixed-adam";
    std::string name = "bf16 mixed + fp32 master + Adam (16 B)";
    std::string source;
    std::vector<StateComponent> components;  // in the order the stack draws them
    bool sharded_optimizer = false;          // Megatron's distributed optimizer: master + optimizer sharded over DP at any ZeRO stage
    // What the recipe computes in, beside what it stores (assets/recipes.json _about):
    double compute_bytes = 2;                // bytes per activation element: bf16 2, fp32 4
    double gemm_input_bytes = 0;             // bytes per element of the GEMM inputs saved for the backward (fp8: 1); 0: compute_bytes
    double gemm_bytes = 0;                   // bytes per element the linear layers' GEMMs compute in (fp8: 1); 0: compute_bytes
    double weight_copy_bytes = 0;            // a narrower copy of every weight the GEMMs read (autocast bf16 2, fp8 + transpose 2)
    double gather_bytes = 0;                 // what ZeRO-3 all-gathers per parameter when the recipe casts first (FSDP2 bf16: 2); 0: weights
    double comm_bucket_bytes = 0;            // gradient buckets the framework allocates beside the state (DeepSpeed's reduce bucket)

    double bytes_per_param() const;
    double bytes_per_param(StateKind) const;
    double grad_comm_bytes_per_param() const;   // the widest gradient buffer, the one that is reduced
    double weight_comm_bytes_per_param() const; // the compute copy of the weights, the one ZeRO-3 gathers
    double saved_gemm_input_bytes() const;      // gemm_input_bytes, or compute_bytes when not set
    double linear_gemm_bytes() const;           // gemm_bytes, or compute_bytes when not set

    bool operator==(const PrecisionRecipe&) const = default;
};

const std::vector<PrecisionRecipe>& builtin_recipes();
const PrecisionRecipe* find_recipe(std::string_view id);
std::vector<PrecisionRecipe> parse_recipes(std::string_view json_text);

}  // namespace core
