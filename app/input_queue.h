#pragma once
// Input from GLFW's callbacks, queued and fed to ImGui at most one transition per key and mouse button per frame.
// ImGui 1.86 reads the state of each key once per frame, so a press and its release inside one frame (a quick tap, a
// fast click, a synthetic event) would be lost if the callbacks wrote io.KeysDown directly, as its GLFW backend does.
#include <array>
#include <deque>

struct ImGuiIO;

namespace app {

struct InputEvent {
    enum class Kind { key, character, mouse_button, mouse_move, mouse_leave, scroll };
    Kind kind = Kind::key;
    int code = 0;        // the GLFW key or mouse button, or the character's code point
    bool down = false;   // key or button: pressed (true) or released
    float x = 0, y = 0;  // mouse_move: window coordinates; scroll: offsets
};

class InputQueue {
public:
    // GLFW's callbacks, as plain calls: a key action of GLFW_REPEAT is dropped (ImGui repeats held keys itself).
    void key(int glfw_key, int glfw_action);
    void character(unsigned int code_point);
    void mouse_button(int button, bool down);
    void mouse_move(float x, float y);
    void mouse_leave();
    void scroll(float x_offset, float y_offset);

    bool empty() const { return events_.empty(); }
    std::size_t size() const { return events_.size(); }

    // Feeds this frame's share of the queue into io, after the platform backend's NewFrame and before ImGui::NewFrame.
    // A frame takes events in order and stops before one that would be a second transition of the same key or button,
    // a modifier's change after another key's press (a chord keeps its Ctrl however quickly it was let go), a character
    // typed after an editing key (Enter, Backspace, arrows) was pressed, or a mouse move after a button changed;
    // the rest waits for the next frame. The mouse position and buttons are written every frame, as the queue last left them.
    void feed(ImGuiIO& io);

private:
    std::deque<InputEvent> events_;
    std::array<bool, 5> buttons_{};     // ImGui 1.86 has five mouse buttons
    bool mouse_known_ = false;          // a move (or leave) has been seen: the position below is the queue's
    float mouse_x_ = 0, mouse_y_ = 0;
};

}  // namespace app
