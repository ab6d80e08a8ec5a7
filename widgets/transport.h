#pragma once
// Play / pause / step / scrub / speed for a panel's animation. Edits the Playback; never reads a clock.
#include "widgets/panel.h"

namespace widgets {

// Draws one row of controls across the available width. caption, if given, is printed after the controls.
void draw_transport(Playback& playback, const char* caption = nullptr);

}  // namespace widgets
