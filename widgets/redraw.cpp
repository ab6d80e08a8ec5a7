#include "widgets/redraw.h"

#include <atomic>

namespace widgets {
namespace {
std::atomic<bool> g_frame_requested{false};
}

void request_frame() { g_frame_requested = true; }

bool take_frame_request() { return g_frame_requested.exchange(false); }

}  // namespace widgets
