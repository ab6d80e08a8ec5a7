#pragma once
// One panel's animation clock and everything that moves it: the transport bar, the keys, the window's loop, a lesson
// scene and an export all call these, so a step is the same step wherever it comes from. Plain data: no clock is read.

namespace widgets {

// What a panel's animation is, as the panel reports it each frame (from core's figures).
struct Timeline {
    double duration_seconds = 0;  // 0: nothing to animate
    double step_seconds = 1.0;    // what one step moves by
    bool loop = true;             // while playing, start again at 0 after the end; false: stop at the end
    bool opens_at_end = false;    // the first time the panel is drawn it shows the finished animation (the stack)
    double figure_seconds = -1;   // where a settled export stands; < 0: the end of the animation
};

struct Playback {
    double t_seconds = 0;         // the time the panel draws
    bool playing = false;
    double speed = 1.0;           // multiplier on wall-clock time
    double duration_seconds = 0;  // the panel's timeline (set_timeline), 0 until the panel has been drawn
    double step_seconds = 1.0;
    bool loop = true;
    double figure_seconds = -1;
    bool timeline_known = false;  // set_timeline has been called: the fields above are the panel's
    bool placed = false;          // t was set on purpose (a step, a scrub, a scene): opens_at_end no longer applies
    bool at_end = false;          // paused at the end of the timeline: a new timeline of another length keeps it there

    // Play or pause; play on a finished animation starts it again from 0.
    void toggle();
    // Pauses and moves to the previous (direction < 0) or the next step boundary strictly before or after t, within
    // [0, duration]: from 2.5 s with 1 s steps, back is 2.0 s and forward 3.0 s.
    void step(int direction);
    // While playing, t moves by dt x speed; past the end it loops to 0 or stops at the end. Paused, nothing moves.
    void advance(double dt_seconds);
    // The user moves t on the panel's timeline (the transport's slider, a panel's own): pauses at t within [0, duration].
    void scrub(double t);
    // A lesson scene or an export puts the clock at t (>= 0) before the panel has drawn the scenario it belongs to:
    // paused, and not clamped to a timeline that may be the previous scenario's.
    void cue(double t);
    // The panel's timeline this frame. A paused animation that stood at the end of the previous timeline stays at the
    // end of a new one of another length (a finished stack stays finished when the scenario changes).
    void set_timeline(const Timeline& timeline);
    // Where a settled export shows the animation: the figure moment, else the end.
    double settled_seconds() const;
};

}  // namespace widgets
