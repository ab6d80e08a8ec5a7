#include "app/input_queue.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cfloat>
#include <set>

namespace app {

void InputQueue::key(int glfw_key, int glfw_action) {
    if (glfw_action == GLFW_REPEAT) return;
    if (glfw_key < 0 || glfw_key >= static_cast<int>(IM_ARRAYSIZE(ImGuiIO::KeysDown))) return;
    events_.push_back({InputEvent::Kind::key, glfw_key, glfw_action == GLFW_PRESS});
}

void InputQueue::character(unsigned int code_point) {
    events_.push_back({InputEvent::Kind::character, static_cast<int>(code_point)});
}

void InputQueue::mouse_button(int button, bool down) {
    if (button < 0 || button >= static_cast<int>(buttons_.size())) return;
    events_.push_back({InputEvent::Kind::mouse_button, button, down});
}

void InputQueue::mouse_move(float x, float y) { events_.push_back({InputEvent::Kind::mouse_move, 0, false, x, y}); }

void InputQueue::mouse_leave() { events_.push_back({InputEvent::Kind::mouse_leave}); }

void InputQueue::scroll(float x_offset, float y_offset) { events_.push_back({InputEvent::Kind::scroll, 0, false, x_offset, y_offset}); }

namespace {

bool is_modifier(int glfw_key) { return glfw_key >= GLFW_KEY_LEFT_SHIFT && glfw_key <= GLFW_KEY_RIGHT_SUPER; }

}  // namespace

void InputQueue::feed(ImGuiIO& io) {
    std::set<int> keys_changed, buttons_changed;
    bool editing_key_pressed = false;  // GLFW's printable keys are below 256; Escape, Enter, Backspace and the rest above
    bool key_pressed = false;          // a key other than a modifier went down this frame
    while (!events_.empty()) {
        const InputEvent& event = events_.front();
        bool stop = false;
        switch (event.kind) {
            case InputEvent::Kind::key:
                // A chord reads with its modifiers as they were when its key went down: Ctrl released right after Z's
                // press (xdotool sends both at once) waits a frame, or the frame would see Z without Ctrl.
                if (keys_changed.count(event.code) || (key_pressed && is_modifier(event.code))) {
                    stop = true;
                    break;
                }
                keys_changed.insert(event.code);
                io.KeysDown[event.code] = event.down;
                if (event.down && event.code >= GLFW_KEY_ESCAPE) editing_key_pressed = true;
                if (event.down && !is_modifier(event.code)) key_pressed = true;
                break;
            case InputEvent::Kind::character:
                // ImGui's text field reads the frame's characters before its keys: "1", Backspace, "2" must not become "12".
                if (editing_key_pressed) {
                    stop = true;
                    break;
                }
                io.AddInputCharacter(static_cast<unsigned int>(event.code));
                break;
            case InputEvent::Kind::mouse_button:
                if (buttons_changed.count(event.code)) {
                    stop = true;
                    break;
                }
                buttons_changed.insert(event.code);
                buttons_[event.code] = event.down;
                break;
            case InputEvent::Kind::mouse_move:
            case InputEvent::Kind::mouse_leave:
                if (!buttons_changed.empty()) {  // the click happened where the mouse was before this move
                    stop = true;
                    break;
                }
                mouse_known_ = true;
                mouse_x_ = event.kind == InputEvent::Kind::mouse_move ? event.x : -FLT_MAX;
                mouse_y_ = event.kind == InputEvent::Kind::mouse_move ? event.y : -FLT_MAX;
                break;
            case InputEvent::Kind::scroll:
                io.MouseWheelH += event.x;
                io.MouseWheel += event.y;
                break;
        }
        if (stop) break;
        events_.pop_front();
    }
    // As GLFW's backend does: modifiers from the keys, since key callbacks' mods are not reliable across systems.
    io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
    io.KeyShift = io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT];
    io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT];
    io.KeySuper = io.KeysDown[GLFW_KEY_LEFT_SUPER] || io.KeysDown[GLFW_KEY_RIGHT_SUPER];
    for (std::size_t i = 0; i < buttons_.size(); ++i) io.MouseDown[i] = buttons_[i];
    if (mouse_known_) io.MousePos = ImVec2(mouse_x_, mouse_y_);
}

}  // namespace app
