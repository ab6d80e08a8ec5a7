#pragma once
// Xvfb resets itself when its last client disconnects (unless started with -noreset), and a connection made during the
// reset fails with "Failed to open display". The GUI benchmarks open and close GLFW on every run, so they retry briefly.
#include <chrono>
#include <thread>

namespace bench {

inline constexpr int kDisplayAttempts = 10;

inline void wait_for_display_reset() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

}  // namespace bench
