#include "core/cost/report.h"

namespace core {

const char* memory_kind_name(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::weights: return "weights";
        case MemoryKind::grads: return "grads";
        case MemoryKind::master: return "master";
        case MemoryKind::optimizer: return "optimizer";
        case MemoryKind::activations: return "activations";
        case MemoryKind::kv_cache: return "kv_cache";
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

const char* stream_name(Stream stream) {
    switch (stream) {
        case Stream::compute: return "compute";
        case Stream::tp: return "tp";
        case Stream::dp: return "dp";
        case Stream::pp: return "pp";
        case Stream::cp: return "cp";
        case Stream::ep: return "ep";
    }
    return "?";
}

}  // namespace core
