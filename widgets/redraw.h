#pragma once
// A widget waiting on something that is not input (a background search) asks for another frame, so the window, which
// sleeps while nothing moves, wakes to show the result.
namespace widgets {

void request_frame();
// Whether a frame was asked for since the last call; clears the request.
bool take_frame_request();

}  // namespace widgets
