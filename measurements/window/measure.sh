#!/usr/bin/env bash
# The window at rest and while the stack panel animates, under Xvfb (no vsync): CPU share of one core from
# /proc/PID/stat (utime + stime) and frames drawn (glfwSwapBuffers, counted by frame_counter.c) over each interval.
# Usage: measurements/window/measure.sh BUILD_DIR [SECONDS]   (needs Xvfb, xdotool, a C compiler)
set -euo pipefail
build=${1:?build directory}
seconds=${2:-8}  # shorter than the stack's animation, which a second Space would start again
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/frame_counter.so" "$here/frame_counter.c" -ldl
display=:77
Xvfb $display -screen 0 1280x720x24 >/dev/null 2>&1 & xvfb=$!
sleep 1
export DISPLAY=$display XDG_CONFIG_HOME="$work/config" FRAME_COUNT_FILE="$work/frames"
LD_PRELOAD="$work/frame_counter.so" "$build/shardscope" >/dev/null 2>&1 & app=$!
sleep 5  # started, first frames drawn, asleep
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$app/stat"; }
frames() { cat "$work/frames" 2>/dev/null || echo 0; }
measure() {  # label
    local t0 f0 t1 f1
    t0=$(cpu_ticks); f0=$(frames)
    sleep "$seconds"
    t1=$(cpu_ticks); f1=$(frames)
    awk -v l="$1" -v dt=$((t1 - t0)) -v hz="$ticks" -v s="$seconds" -v df=$((f1 - f0)) \
        'BEGIN { printf "%-28s CPU %5.2f %% of a core, %6.1f frames/s (%d frames in %d s)\n", l, 100 * dt / hz / s, df / s, df, s }'
}
measure "idle (nothing moves)"
window=$(xdotool search --pid $app | head -1)
xdotool windowactivate --sync "$window" 2>/dev/null || true
xdotool mousemove --window "$window" 640 400 click 1; sleep 1  # focus the panel the window opens on (the stack)
xdotool key --window "$window" space; sleep 1   # play: its animation runs for longer than the interval
measure "stack animating"
xdotool key --window "$window" space; sleep 2   # pause: back to sleep
measure "idle again (paused)"
