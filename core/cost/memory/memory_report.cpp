#include "core/cost/memory/memory_report.h"

namespace core {

const char* memory_kind_name(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::weights: return "weights";
        case MemoryKind::grads: return "grads";
        case MemoryKind::master: return "master";
        case MemoryKind::optimizer: return "optimizer";
        case MemoryKind::activations: return "activations";
        case MemoryKind::kv_cache: return "kv_cache";
        case MemoryKind::weight_copies: return "weight_copies";
        case MemoryKind::gathered_weights: return "gathered_weights";
        case MemoryKind::logits: return "logits";
        case MemoryKind::backward_working_set: return "backward_working_set";
        case MemoryKind::workspace: return "workspace";
        case MemoryKind::comm_buffers: return "comm_buffers";
        case MemoryKind::fragmentation: return "fragmentation";
    }
    return "?";
}

bool is_training_state(MemoryKind kind) {
    return kind == MemoryKind::weights || kind == MemoryKind::grads || kind == MemoryKind::master || kind == MemoryKind::optimizer;
}

const char* memory_phase_name(MemoryPhase phase) {
    switch (phase) {
        case MemoryPhase::forward_end: return "forward_end";
        case MemoryPhase::loss_backward: return "loss_backward";
        case MemoryPhase::layer_backward: return "layer_backward";
    }
    return "?";
}

MemoryKind memory_kind_of(StateKind kind) {
    switch (kind) {
        case StateKind::weights: return MemoryKind::weights;
        case StateKind::grads: return MemoryKind::grads;
        case StateKind::master: return MemoryKind::master;
        case StateKind::optimizer: return MemoryKind::optimizer;
    }
    return MemoryKind::weights;
}

const char* timeline_phase_name(TimelinePhase phase) {
    switch (phase) {
        case TimelinePhase::forward: return "forward";
        case TimelinePhase::loss: return "loss";
        case TimelinePhase::backward: return "backward";
        case TimelinePhase::optimizer: return "optimizer";
        case TimelinePhase::zero_grad: return "zero_grad";
    }
    return "?";
}

}  // namespace core
