#include "core/cost/step/step_report.h"

namespace core {

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
