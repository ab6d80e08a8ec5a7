#version 330 core
// A lit ball (or a ring) inside the point sprite, with a smoothed rim: MSAA does not smooth discarded fragments.
in vec4 v_color;
in float v_radius;
in float v_ring;

out vec4 frag_color;

void main() {
    float size_pixels = 2.0 * v_radius + 2.0;
    vec2 from_center = (gl_PointCoord - vec2(0.5)) * size_pixels;  // pixels, y down
    float distance_pixels = length(from_center);
    float coverage = clamp(v_radius - distance_pixels + 0.5, 0.0, 1.0);
    if (v_ring > 0.5) {
        float thickness = max(2.0, v_radius * 0.28);
        coverage *= clamp(distance_pixels - (v_radius - thickness) + 0.5, 0.0, 1.0);
        if (coverage <= 0.0) discard;
        frag_color = vec4(v_color.rgb, v_color.a * coverage);
        return;
    }
    if (coverage <= 0.0) discard;
    // The sphere's normal under this pixel, lit from the upper left like the rest of the UI's bevels.
    vec2 xy = from_center / max(v_radius, 1.0);
    vec3 normal = vec3(xy.x, -xy.y, sqrt(max(0.0, 1.0 - dot(xy, xy))));
    vec3 light = normalize(vec3(-0.45, 0.6, 0.75));
    float diffuse = max(dot(normal, light), 0.0);
    float highlight = pow(max(dot(reflect(-light, normal), vec3(0.0, 0.0, 1.0)), 0.0), 24.0);
    vec3 color = v_color.rgb * (0.50 + 0.55 * diffuse) + vec3(0.35 * highlight);
    // A thin darker rim separates overlapping balls of the same colour.
    float rim = smoothstep(v_radius - 1.8, v_radius - 0.3, distance_pixels);
    color = mix(color, v_color.rgb * 0.35, rim * 0.8);
    frag_color = vec4(color, v_color.a * coverage);
}
