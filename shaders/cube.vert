#version 330 core
// Translucent faces of the regime cube (the one-GPU budget box): cube space [0,1]^3 to clip space, flat colour.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;

uniform mat4 u_transform;

out vec4 v_color;

void main() {
    gl_Position = u_transform * vec4(a_position, 1.0);
    v_color = a_color;
}
