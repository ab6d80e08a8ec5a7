#include "widgets/playback.h"

#include <algorithm>
#include <cmath>

namespace widgets {
namespace {

// A step of 0 or less (a panel that set none) moves by a second, as the transport always did.
double step_of(const Playback& playback) { return playback.step_seconds > 0 ? playback.step_seconds : 1.0; }

// Boundaries within a billionth of a step count as reached: 3 x 0.1 s is a boundary, not just below one.
constexpr double kBoundaryTolerance = 1e-9;

double finite_or_zero(double t) { return std::isfinite(t) ? t : 0.0; }

}  // namespace

void Playback::toggle() {
    if (!playing && t_seconds >= duration_seconds) t_seconds = 0;  // replay from the start
    playing = !playing;
    placed = true;
    at_end = false;
}

void Playback::step(int direction) {
    playing = false;
    placed = true;
    if (direction != 0) {
        const double step = step_of(*this);
        const double steps = t_seconds / step;
        const double boundary = direction > 0 ? std::floor(steps + kBoundaryTolerance) + 1.0 : std::ceil(steps - kBoundaryTolerance) - 1.0;
        t_seconds = std::clamp(boundary * step, 0.0, std::max(0.0, duration_seconds));
    }
    at_end = timeline_known && t_seconds >= duration_seconds;
}

void Playback::advance(double dt_seconds) {
    if (!playing) return;
    t_seconds += dt_seconds * speed;
    if (t_seconds <= duration_seconds) return;
    if (loop && duration_seconds > 0) {
        t_seconds = 0;
    } else {
        t_seconds = duration_seconds;
        playing = false;
        at_end = true;
    }
}

void Playback::scrub(double t) {
    playing = false;
    placed = true;
    t_seconds = std::clamp(finite_or_zero(t), 0.0, timeline_known ? std::max(0.0, duration_seconds) : INFINITY);
    at_end = timeline_known && t_seconds >= duration_seconds;
}

void Playback::cue(double t) {
    playing = false;
    placed = true;
    at_end = false;
    t_seconds = std::max(0.0, finite_or_zero(t));
}

void Playback::set_timeline(const Timeline& timeline) {
    const bool opening = !timeline_known && !placed && timeline.opens_at_end;
    const bool follow_end = at_end && !playing && timeline.duration_seconds != duration_seconds;
    if (opening || follow_end) {
        t_seconds = timeline.duration_seconds;
        at_end = true;
    }
    if (!timeline_known && timeline.opens_at_end) placed = true;
    duration_seconds = timeline.duration_seconds;
    step_seconds = timeline.step_seconds;
    loop = timeline.loop;
    figure_seconds = timeline.figure_seconds;
    timeline_known = true;
}

double Playback::settled_seconds() const { return std::max(0.0, figure_seconds >= 0 ? figure_seconds : duration_seconds); }

}  // namespace widgets
