#pragma once
// Draws the regime cube with our own GLSL 3.30 shaders (shaders/cube*.{vert,frag}) into an offscreen texture that the
// panel shows with ImGui::Image. Geometry arrives as plain data in cube space: [0,1]^3, x memory, y compute (up), z bandwidth.
#include <imgui.h>

#include <string>
#include <vector>

namespace widgets {

// The camera orbiting the cube's centre. The defaults are the 3/4 view export shows: low corner at the back, all three axes read.
struct CubeView {
    float yaw_radians = -0.78f;   // about the vertical axis; here the models' diagonal runs across the view, not along it
    float pitch_radians = 0.40f;  // above the floor; clamped to +-1.45
    float zoom = 1.0f;            // > 1 moves in; clamped to [0.6, 3]
};

// Cube space to clip space for GL, and to texture pixels (top-left origin) for the labels ImGui draws on top.
struct CubeProjection {
    float matrix[16] = {};        // column-major, as glUniformMatrix4fv takes it
    float width_pixels = 1, height_pixels = 1;
    float eye[3] = {};            // the camera in cube space: which faces are at the back depends on it

    // depth_out (optional) grows away from the camera; off-screen points still project.
    ImVec2 to_pixels(float x, float y, float z, float* depth_out = nullptr) const;
    bool operator==(const CubeProjection&) const = default;
};
CubeProjection make_cube_projection(const CubeView&, float width_pixels, float height_pixels);

struct CubeLine {
    float from[3], to[3];
    ImU32 color;
    float width_pixels;
    bool operator==(const CubeLine&) const = default;
};

struct CubeFace {
    float corners[4][3];          // a planar quad, in order around its edge
    ImU32 color;                  // translucent
    bool operator==(const CubeFace&) const = default;
};

struct CubeDot {
    float position[3];
    ImU32 color;
    float radius_pixels;
    bool ring = false;            // a hollow ring instead of a lit ball
    bool operator==(const CubeDot&) const = default;
};

struct CubeScene {
    ImU32 background = IM_COL32(0, 0, 0, 255);
    std::vector<CubeLine> lines;  // opaque or faint, depth-tested
    std::vector<CubeDot> dots;    // drawn far to near
    std::vector<CubeFace> faces;  // translucent, drawn last without writing depth, so what is inside shows through
    bool operator==(const CubeScene&) const = default;
};

class GlCubeRenderer {
public:
    GlCubeRenderer() = default;
    GlCubeRenderer(const GlCubeRenderer&) = delete;
    GlCubeRenderer& operator=(const GlCubeRenderer&) = delete;
    ~GlCubeRenderer();

    // Renders into the texture at this size and restores the caller's GL state. False, with error(), when GL cannot
    // (shader files missing or not compiling, no framebuffer): the caller shows the message instead of the picture.
    // The same scene, view and size as last time keep the last picture: an idle window does not rasterise the cube again.
    bool render(const CubeScene&, const CubeProjection&, int width_pixels, int height_pixels);
    // The last rendered picture; GL rows run bottom-up, so show it with uv0 (0, 1) and uv1 (1, 0).
    ImTextureID texture() const;
    const std::string& error() const { return error_; }

private:
    struct Program {
        unsigned id = 0;
        int transform = -1, viewport = -1;
    };
    struct Mesh {
        unsigned vertex_array = 0, vertex_buffer = 0, index_buffer = 0;
    };

    bool ensure_programs();
    bool ensure_targets(int width_pixels, int height_pixels);
    void release_targets();
    void draw_lines(const CubeScene&, const CubeProjection&);
    void draw_dots(const CubeScene&, const CubeProjection&);
    void draw_faces(const CubeScene&, const CubeProjection&);

    bool programs_tried_ = false;
    Program faces_program_, lines_program_, dots_program_;
    Mesh faces_mesh_, lines_mesh_, dots_mesh_;
    unsigned multisample_framebuffer_ = 0, multisample_color_ = 0, multisample_depth_ = 0;
    unsigned resolve_framebuffer_ = 0, resolve_texture_ = 0;
    int width_ = 0, height_ = 0, samples_ = 0;
    std::string error_;
    bool rendered_ = false;           // the texture holds last_scene_ seen through last_projection_
    CubeScene last_scene_;
    CubeProjection last_projection_;
};

}  // namespace widgets
