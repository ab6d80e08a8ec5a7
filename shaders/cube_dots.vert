#version 330 core
// One model as a point sprite sized in pixels, so dots stay readable at any zoom and UI scale.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;
layout(location = 2) in float a_radius;  // pixels
layout(location = 3) in float a_ring;    // 1: a hollow ring (the scenario's own marker), 0: a shaded ball

uniform mat4 u_transform;

out vec4 v_color;
out float v_radius;
out float v_ring;

void main() {
    gl_Position = u_transform * vec4(a_position, 1.0);
    gl_PointSize = 2.0 * a_radius + 2.0;  // one pixel of margin for the smoothed rim
    v_color = a_color;
    v_radius = a_radius;
    v_ring = a_ring;
}
