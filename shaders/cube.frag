#version 330 core
// Flat colour for the cube's faces and lines; alpha blends translucent faces over what lies behind them.
in vec4 v_color;

out vec4 frag_color;

void main() {
    frag_color = v_color;
}
