#version 330 core
// A line of constant pixel width: each segment is a quad whose corners are pushed sideways in screen space,
// because core-profile GL (and llvmpipe) only promise 1-pixel GL_LINES.
layout(location = 0) in vec3 a_from;
layout(location = 1) in vec3 a_to;
layout(location = 2) in vec2 a_corner;  // x: 0 at a_from, 1 at a_to; y: -1 or +1, the side of the line
layout(location = 3) in vec4 a_color;
layout(location = 4) in float a_width;  // pixels

uniform mat4 u_transform;
uniform vec2 u_viewport;  // pixels

out vec4 v_color;

void main() {
    vec4 clip_from = u_transform * vec4(a_from, 1.0);
    vec4 clip_to = u_transform * vec4(a_to, 1.0);
    vec2 half_viewport = u_viewport * 0.5;
    vec2 screen_from = clip_from.xy / clip_from.w * half_viewport;
    vec2 screen_to = clip_to.xy / clip_to.w * half_viewport;
    vec2 along = screen_to - screen_from;
    float length_pixels = length(along);
    along = length_pixels > 1e-4 ? along / length_pixels : vec2(1.0, 0.0);
    vec2 across = vec2(-along.y, along.x);
    // Square caps: half a width past each end, so joined edges meet without a notch.
    vec2 offset_pixels = (across * a_corner.y + along * (a_corner.x * 2.0 - 1.0)) * (a_width * 0.5);
    vec4 clip = mix(clip_from, clip_to, a_corner.x);
    gl_Position = clip + vec4(offset_pixels / half_viewport * clip.w, 0.0, 0.0);
    v_color = a_color;
}
