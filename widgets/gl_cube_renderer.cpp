#include "widgets/gl_cube_renderer.h"

#include "widgets/embedded_shaders.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>


namespace widgets {
namespace {

// ---- cube space to clip space ----

struct Vec3 {
    float x, y, z;
};
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
Vec3 normalized(Vec3 a) {
    const float length = std::sqrt(dot(a, a));
    return {a.x / length, a.y / length, a.z / length};
}

// Column-major 4x4: element (row, column) at [column * 4 + row].
struct Mat4 {
    float m[16] = {};
    float& at(int row, int column) { return m[column * 4 + row]; }
    float at(int row, int column) const { return m[column * 4 + row]; }
};

Mat4 multiply(const Mat4& a, const Mat4& b) {
    Mat4 result;
    for (int row = 0; row < 4; ++row)
        for (int column = 0; column < 4; ++column) {
            float sum = 0;
            for (int k = 0; k < 4; ++k) sum += a.at(row, k) * b.at(k, column);
            result.at(row, column) = sum;
        }
    return result;
}

Mat4 look_at(Vec3 eye, Vec3 centre, Vec3 up) {
    const Vec3 forward = normalized(centre - eye);
    const Vec3 right = normalized(cross(forward, up));
    const Vec3 true_up = cross(right, forward);
    Mat4 view;
    view.at(0, 0) = right.x, view.at(0, 1) = right.y, view.at(0, 2) = right.z, view.at(0, 3) = -dot(right, eye);
    view.at(1, 0) = true_up.x, view.at(1, 1) = true_up.y, view.at(1, 2) = true_up.z, view.at(1, 3) = -dot(true_up, eye);
    view.at(2, 0) = -forward.x, view.at(2, 1) = -forward.y, view.at(2, 2) = -forward.z, view.at(2, 3) = dot(forward, eye);
    view.at(3, 3) = 1;
    return view;
}

Mat4 perspective(float vertical_fov_radians, float aspect, float near_plane, float far_plane) {
    const float focal = 1.0f / std::tan(vertical_fov_radians * 0.5f);
    Mat4 projection;
    projection.at(0, 0) = focal / aspect;
    projection.at(1, 1) = focal;
    projection.at(2, 2) = (far_plane + near_plane) / (near_plane - far_plane);
    projection.at(2, 3) = 2.0f * far_plane * near_plane / (near_plane - far_plane);
    projection.at(3, 2) = -1.0f;
    return projection;
}

// ---- GL plumbing ----

// shaders/ is the source of truth; the build compiles it in, so the app runs from anywhere.
std::string read_shader(const char* name, std::string& error) {
    const std::string_view source = embedded_shader(name);
    if (source.empty()) error = std::string("no shader named ") + name + " was built in";
    return std::string(source);
}

std::string first_lines(const std::string& log) {
    std::string text = log.substr(0, 600);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
    return text;
}

GLuint compile_shader(GLenum kind, const char* name, std::string& error) {
    const std::string source = read_shader(name, error);
    if (!error.empty()) return 0;
    const GLuint shader = glCreateShader(kind);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        glGetShaderInfoLog(shader, length, nullptr, log.data());
        error = std::string("shader ") + name + " does not compile: " + first_lines(log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint link_program(const char* vertex_name, const char* fragment_name, std::string& error) {
    const GLuint vertex = compile_shader(GL_VERTEX_SHADER, vertex_name, error);
    if (!vertex) return 0;
    const GLuint fragment = compile_shader(GL_FRAGMENT_SHADER, fragment_name, error);
    if (!fragment) {
        glDeleteShader(vertex);
        return 0;
    }
    const GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    glDeleteShader(vertex);  // the program keeps them alive while attached
    glDeleteShader(fragment);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        glGetProgramInfoLog(program, length, nullptr, log.data());
        error = std::string(vertex_name) + " + " + fragment_name + " do not link: " + first_lines(log);
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

struct Rgba8 {
    std::uint8_t r, g, b, a;
};
Rgba8 rgba8(ImU32 color) {
    return {static_cast<std::uint8_t>((color >> IM_COL32_R_SHIFT) & 0xFF), static_cast<std::uint8_t>((color >> IM_COL32_G_SHIFT) & 0xFF),
            static_cast<std::uint8_t>((color >> IM_COL32_B_SHIFT) & 0xFF), static_cast<std::uint8_t>((color >> IM_COL32_A_SHIFT) & 0xFF)};
}

const void* byte_offset(std::size_t offset) { return reinterpret_cast<const void*>(offset); }

void float_attribute(GLuint location, int components, std::size_t stride, std::size_t offset) {
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, static_cast<GLsizei>(stride), byte_offset(offset));
}

void color_attribute(GLuint location, std::size_t stride, std::size_t offset) {
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, 4, GL_UNSIGNED_BYTE, GL_TRUE, static_cast<GLsizei>(stride), byte_offset(offset));
}

struct LineVertex {
    float from[3], to[3], corner[2];
    Rgba8 color;
    float width;
};
struct DotVertex {
    float position[3];
    Rgba8 color;
    float radius, ring;
};
struct FaceVertex {
    float position[3];
    Rgba8 color;
};

// Everything render() changes, put back afterwards: ImGui's backend and the app's framebuffer expect their own state.
class SavedGlState {
public:
    SavedGlState() {
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_framebuffer_);
        glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer_);
        glGetIntegerv(GL_VIEWPORT, viewport_);
        glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
        glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array_);
        glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &array_buffer_);
        glGetIntegerv(GL_BLEND_SRC_RGB, &blend_src_rgb_);
        glGetIntegerv(GL_BLEND_DST_RGB, &blend_dst_rgb_);
        glGetIntegerv(GL_BLEND_SRC_ALPHA, &blend_src_alpha_);
        glGetIntegerv(GL_BLEND_DST_ALPHA, &blend_dst_alpha_);
        glGetIntegerv(GL_BLEND_EQUATION_RGB, &blend_equation_rgb_);
        glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &blend_equation_alpha_);
        glGetFloatv(GL_COLOR_CLEAR_VALUE, clear_color_);
        glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
        for (std::size_t i = 0; i < kCapabilities.size(); ++i) enabled_[i] = glIsEnabled(kCapabilities[i]);
    }
    ~SavedGlState() {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_framebuffer_));
        glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_framebuffer_));
        glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
        glUseProgram(static_cast<GLuint>(program_));
        glBindVertexArray(static_cast<GLuint>(vertex_array_));
        glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(array_buffer_));
        glBlendEquationSeparate(static_cast<GLenum>(blend_equation_rgb_), static_cast<GLenum>(blend_equation_alpha_));
        glBlendFuncSeparate(static_cast<GLenum>(blend_src_rgb_), static_cast<GLenum>(blend_dst_rgb_), static_cast<GLenum>(blend_src_alpha_),
                            static_cast<GLenum>(blend_dst_alpha_));
        glClearColor(clear_color_[0], clear_color_[1], clear_color_[2], clear_color_[3]);
        glDepthMask(depth_mask_);
        for (std::size_t i = 0; i < kCapabilities.size(); ++i) {
            if (enabled_[i]) glEnable(kCapabilities[i]);
            else glDisable(kCapabilities[i]);
        }
    }

private:
    static constexpr std::array<GLenum, 6> kCapabilities = {GL_BLEND,       GL_DEPTH_TEST,         GL_CULL_FACE,
                                                            GL_SCISSOR_TEST, GL_PROGRAM_POINT_SIZE, GL_MULTISAMPLE};
    GLint draw_framebuffer_ = 0, read_framebuffer_ = 0, viewport_[4] = {}, program_ = 0, vertex_array_ = 0, array_buffer_ = 0;
    GLint blend_src_rgb_ = 0, blend_dst_rgb_ = 0, blend_src_alpha_ = 0, blend_dst_alpha_ = 0, blend_equation_rgb_ = 0,
          blend_equation_alpha_ = 0;
    GLfloat clear_color_[4] = {};
    GLboolean depth_mask_ = GL_TRUE;
    std::array<GLboolean, 6> enabled_ = {};
};

void drain_gl_errors() {
    for (int i = 0; i < 32 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

// Whether a GL context is still there to delete into: the app shuts ImGui's GL backend down before it destroys the window.
bool gl_context_alive() { return ImGui::GetCurrentContext() != nullptr && ImGui::GetIO().BackendRendererName != nullptr; }

}  // namespace

ImVec2 CubeProjection::to_pixels(float x, float y, float z, float* depth_out) const {
    const float in[4] = {x, y, z, 1.0f};
    float clip[4] = {};
    for (int row = 0; row < 4; ++row)
        for (int k = 0; k < 4; ++k) clip[row] += matrix[k * 4 + row] * in[k];
    const float w = std::fabs(clip[3]) > 1e-6f ? clip[3] : 1e-6f;
    if (depth_out) *depth_out = clip[3];
    return ImVec2((clip[0] / w * 0.5f + 0.5f) * width_pixels, (0.5f - clip[1] / w * 0.5f) * height_pixels);
}

CubeProjection make_cube_projection(const CubeView& view, float width_pixels, float height_pixels) {
    CubeProjection projection;
    projection.width_pixels = std::max(width_pixels, 1.0f);
    projection.height_pixels = std::max(height_pixels, 1.0f);
    const float aspect = projection.width_pixels / projection.height_pixels;
    const float vertical_fov = 0.40f;  // ~23 degrees: enough perspective to read depth, little enough to read the log scale
    const float horizontal_fov = 2.0f * std::atan(std::tan(vertical_fov * 0.5f) * aspect);
    const float bounding_radius = std::sqrt(3.0f);  // the cube spans [-1, 1]^3 in world space
    const float zoom = std::clamp(view.zoom, 0.6f, 3.0f);
    const float distance = bounding_radius / std::sin(std::min(vertical_fov, horizontal_fov) * 0.5f) / zoom;
    const float pitch = std::clamp(view.pitch_radians, -1.45f, 1.45f);
    const Vec3 eye = {distance * std::sin(view.yaw_radians) * std::cos(pitch), distance * std::sin(pitch),
                      distance * std::cos(view.yaw_radians) * std::cos(pitch)};
    Mat4 cube_to_world;  // [0,1]^3 onto [-1,1]^3, centred on the orbit
    for (int axis = 0; axis < 3; ++axis) {
        cube_to_world.at(axis, axis) = 2.0f;
        cube_to_world.at(axis, 3) = -1.0f;
    }
    cube_to_world.at(3, 3) = 1.0f;
    const float near_plane = std::max(0.05f, distance - 2.0f * bounding_radius);
    Mat4 lift;  // the cube sits a little above centre: its tick labels and axis titles hang below it
    for (int axis = 0; axis < 4; ++axis) lift.at(axis, axis) = 1.0f;
    lift.at(1, 3) = 0.06f;
    const Mat4 transform = multiply(lift, multiply(perspective(vertical_fov, aspect, near_plane, distance + 2.0f * bounding_radius),
                                                   multiply(look_at(eye, {0, 0, 0}, {0, 1, 0}), cube_to_world)));
    std::copy(std::begin(transform.m), std::end(transform.m), projection.matrix);
    projection.eye[0] = eye.x * 0.5f + 0.5f;
    projection.eye[1] = eye.y * 0.5f + 0.5f;
    projection.eye[2] = eye.z * 0.5f + 0.5f;
    return projection;
}

GlCubeRenderer::~GlCubeRenderer() {
    if (!gl_context_alive()) return;  // the context took every object with it
    release_targets();
    for (Program* program : {&faces_program_, &lines_program_, &dots_program_})
        if (program->id) glDeleteProgram(program->id);
    for (Mesh* mesh : {&faces_mesh_, &lines_mesh_, &dots_mesh_}) {
        if (mesh->vertex_array) glDeleteVertexArrays(1, &mesh->vertex_array);
        if (mesh->vertex_buffer) glDeleteBuffers(1, &mesh->vertex_buffer);
        if (mesh->index_buffer) glDeleteBuffers(1, &mesh->index_buffer);
    }
}

ImTextureID GlCubeRenderer::texture() const {
    return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(resolve_texture_));
}

bool GlCubeRenderer::ensure_programs() {
    if (programs_tried_) return faces_program_.id && lines_program_.id && dots_program_.id;
    programs_tried_ = true;  // a failing compile is reported once, not retried every frame
    if (epoxy_gl_version() < 33) {
        error_ = "the regime cube needs OpenGL 3.3; this context offers " + std::to_string(epoxy_gl_version() / 10) + "." +
                 std::to_string(epoxy_gl_version() % 10);
        return false;
    }
    const struct {
        Program* program;
        const char* vertex;
        const char* fragment;
    } programs[] = {{&faces_program_, "cube.vert", "cube.frag"},
                    {&lines_program_, "cube_lines.vert", "cube.frag"},
                    {&dots_program_, "cube_dots.vert", "cube_dots.frag"}};
    for (const auto& entry : programs) {
        entry.program->id = link_program(entry.vertex, entry.fragment, error_);
        if (!entry.program->id) return false;
        entry.program->transform = glGetUniformLocation(entry.program->id, "u_transform");
        entry.program->viewport = glGetUniformLocation(entry.program->id, "u_viewport");
    }
    for (Mesh* mesh : {&faces_mesh_, &lines_mesh_, &dots_mesh_}) {
        glGenVertexArrays(1, &mesh->vertex_array);
        glGenBuffers(1, &mesh->vertex_buffer);
        glGenBuffers(1, &mesh->index_buffer);
        glBindVertexArray(mesh->vertex_array);
        glBindBuffer(GL_ARRAY_BUFFER, mesh->vertex_buffer);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, mesh->index_buffer);  // recorded in the vertex array
        if (mesh == &lines_mesh_) {
            float_attribute(0, 3, sizeof(LineVertex), offsetof(LineVertex, from));
            float_attribute(1, 3, sizeof(LineVertex), offsetof(LineVertex, to));
            float_attribute(2, 2, sizeof(LineVertex), offsetof(LineVertex, corner));
            color_attribute(3, sizeof(LineVertex), offsetof(LineVertex, color));
            float_attribute(4, 1, sizeof(LineVertex), offsetof(LineVertex, width));
        } else if (mesh == &dots_mesh_) {
            float_attribute(0, 3, sizeof(DotVertex), offsetof(DotVertex, position));
            color_attribute(1, sizeof(DotVertex), offsetof(DotVertex, color));
            float_attribute(2, 1, sizeof(DotVertex), offsetof(DotVertex, radius));
            float_attribute(3, 1, sizeof(DotVertex), offsetof(DotVertex, ring));
        } else {
            float_attribute(0, 3, sizeof(FaceVertex), offsetof(FaceVertex, position));
            color_attribute(1, sizeof(FaceVertex), offsetof(FaceVertex, color));
        }
    }
    glBindVertexArray(0);
    return true;
}

void GlCubeRenderer::release_targets() {
    if (multisample_framebuffer_) glDeleteFramebuffers(1, &multisample_framebuffer_);
    if (multisample_color_) glDeleteRenderbuffers(1, &multisample_color_);
    if (multisample_depth_) glDeleteRenderbuffers(1, &multisample_depth_);
    if (resolve_framebuffer_) glDeleteFramebuffers(1, &resolve_framebuffer_);
    if (resolve_texture_) glDeleteTextures(1, &resolve_texture_);
    multisample_framebuffer_ = multisample_color_ = multisample_depth_ = resolve_framebuffer_ = resolve_texture_ = 0;
    width_ = height_ = 0;
}

bool GlCubeRenderer::ensure_targets(int width_pixels, int height_pixels) {
    if (width_ == width_pixels && height_ == height_pixels && resolve_texture_) return true;
    release_targets();
    GLint previous_texture = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_texture);
    glGenTextures(1, &resolve_texture_);
    glBindTexture(GL_TEXTURE_2D, resolve_texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_pixels, height_pixels, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous_texture));
    glGenFramebuffers(1, &resolve_framebuffer_);
    glBindFramebuffer(GL_FRAMEBUFFER, resolve_framebuffer_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, resolve_texture_, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        error_ = "cannot create the cube's " + std::to_string(width_pixels) + "x" + std::to_string(height_pixels) + " texture";
        release_targets();
        return false;
    }
    // Four samples smooth the edges on every driver we target; a single sample is the fallback where multisampling fails.
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    for (int samples : {std::min(4, static_cast<int>(max_samples)), 0}) {
        glGenFramebuffers(1, &multisample_framebuffer_);
        glGenRenderbuffers(1, &multisample_color_);
        glGenRenderbuffers(1, &multisample_depth_);
        glBindFramebuffer(GL_FRAMEBUFFER, multisample_framebuffer_);
        glBindRenderbuffer(GL_RENDERBUFFER, multisample_color_);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width_pixels, height_pixels);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, multisample_color_);
        glBindRenderbuffer(GL_RENDERBUFFER, multisample_depth_);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width_pixels, height_pixels);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, multisample_depth_);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
            samples_ = samples;
            width_ = width_pixels;
            height_ = height_pixels;
            return true;
        }
        glDeleteFramebuffers(1, &multisample_framebuffer_);
        glDeleteRenderbuffers(1, &multisample_color_);
        glDeleteRenderbuffers(1, &multisample_depth_);
        multisample_framebuffer_ = multisample_color_ = multisample_depth_ = 0;
    }
    error_ = "cannot create the cube's offscreen framebuffer";
    release_targets();
    return false;
}

void GlCubeRenderer::draw_lines(const CubeScene& scene, const CubeProjection& projection) {
    if (scene.lines.empty()) return;
    std::vector<LineVertex> vertices;
    std::vector<GLuint> indices;
    vertices.reserve(scene.lines.size() * 4);
    indices.reserve(scene.lines.size() * 6);
    for (const CubeLine& line : scene.lines) {
        const auto base = static_cast<GLuint>(vertices.size());
        for (const auto& corner : {std::array<float, 2>{0, -1}, std::array<float, 2>{0, 1}, std::array<float, 2>{1, -1}, std::array<float, 2>{1, 1}}) {
            LineVertex vertex{};
            std::copy(line.from, line.from + 3, vertex.from);
            std::copy(line.to, line.to + 3, vertex.to);
            vertex.corner[0] = corner[0];
            vertex.corner[1] = corner[1];
            vertex.color = rgba8(line.color);
            vertex.width = line.width_pixels;
            vertices.push_back(vertex);
        }
        for (GLuint index : {0u, 1u, 2u, 2u, 1u, 3u}) indices.push_back(base + index);
    }
    glUseProgram(lines_program_.id);
    glUniformMatrix4fv(lines_program_.transform, 1, GL_FALSE, projection.matrix);
    glUniform2f(lines_program_.viewport, static_cast<float>(width_), static_cast<float>(height_));
    glBindVertexArray(lines_mesh_.vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, lines_mesh_.vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(LineVertex)), vertices.data(), GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices.size() * sizeof(GLuint)), indices.data(), GL_STREAM_DRAW);
    glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(indices.size()), GL_UNSIGNED_INT, nullptr);
}

void GlCubeRenderer::draw_dots(const CubeScene& scene, const CubeProjection& projection) {
    if (scene.dots.empty()) return;
    // Far to near, so each smoothed rim blends over what is behind it.
    std::vector<std::pair<float, std::size_t>> order;
    for (std::size_t i = 0; i < scene.dots.size(); ++i) {
        float depth = 0;
        const float* p = scene.dots[i].position;
        projection.to_pixels(p[0], p[1], p[2], &depth);
        order.emplace_back(-depth, i);
    }
    std::sort(order.begin(), order.end());
    std::vector<DotVertex> vertices;
    for (const auto& [negative_depth, index] : order) {
        const CubeDot& dot = scene.dots[index];
        DotVertex vertex{};
        std::copy(dot.position, dot.position + 3, vertex.position);
        vertex.color = rgba8(dot.color);
        vertex.radius = dot.radius_pixels;
        vertex.ring = dot.ring ? 1.0f : 0.0f;
        vertices.push_back(vertex);
    }
    glUseProgram(dots_program_.id);
    glUniformMatrix4fv(dots_program_.transform, 1, GL_FALSE, projection.matrix);
    glBindVertexArray(dots_mesh_.vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, dots_mesh_.vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(DotVertex)), vertices.data(), GL_STREAM_DRAW);
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(vertices.size()));
}

void GlCubeRenderer::draw_faces(const CubeScene& scene, const CubeProjection& projection) {
    if (scene.faces.empty()) return;
    std::vector<FaceVertex> vertices;
    std::vector<GLuint> indices;
    for (const CubeFace& face : scene.faces) {
        const auto base = static_cast<GLuint>(vertices.size());
        for (const auto& corner : face.corners) {
            FaceVertex vertex{};
            std::copy(corner, corner + 3, vertex.position);
            vertex.color = rgba8(face.color);
            vertices.push_back(vertex);
        }
        for (GLuint index : {0u, 1u, 2u, 0u, 2u, 3u}) indices.push_back(base + index);
    }
    glUseProgram(faces_program_.id);
    glUniformMatrix4fv(faces_program_.transform, 1, GL_FALSE, projection.matrix);
    glBindVertexArray(faces_mesh_.vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, faces_mesh_.vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(FaceVertex)), vertices.data(), GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices.size() * sizeof(GLuint)), indices.data(), GL_STREAM_DRAW);
    glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(indices.size()), GL_UNSIGNED_INT, nullptr);
}

bool GlCubeRenderer::render(const CubeScene& scene, const CubeProjection& projection, int width_pixels, int height_pixels) {
    if (width_pixels < 1 || height_pixels < 1) return false;
    if (!error_.empty()) return false;  // a broken shader or framebuffer stays broken: say so once, keep the app alive
    if (rendered_ && width_pixels == width_ && height_pixels == height_ && projection == last_projection_ && scene == last_scene_) return true;
    const SavedGlState saved;
    drain_gl_errors();  // earlier frames' errors are not ours to report
    if (!ensure_programs() || !ensure_targets(width_pixels, height_pixels)) return false;

    glBindFramebuffer(GL_FRAMEBUFFER, multisample_framebuffer_);
    glViewport(0, 0, width_, height_);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_CULL_FACE);
    if (samples_ > 0) glEnable(GL_MULTISAMPLE);
    const ImVec4 background = ImGui::ColorConvertU32ToFloat4(scene.background);
    glClearColor(background.x, background.y, background.z, 1.0f);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);

    draw_lines(scene, projection);
    glEnable(GL_PROGRAM_POINT_SIZE);
    draw_dots(scene, projection);
    glDepthMask(GL_FALSE);  // translucent faces tint what is behind and inside them without hiding it
    draw_faces(scene, projection);
    glDepthMask(GL_TRUE);
    glBindVertexArray(0);

    glBindFramebuffer(GL_READ_FRAMEBUFFER, multisample_framebuffer_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_framebuffer_);
    glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);

    const GLenum gl_error = glGetError();
    if (gl_error != GL_NO_ERROR) {
        char code[16];
        std::snprintf(code, sizeof code, "0x%04X", gl_error);
        error_ = std::string("OpenGL error ") + code + " while drawing the cube";
        return false;
    }
    rendered_ = true;
    last_scene_ = scene;
    last_projection_ = projection;
    return true;
}

}  // namespace widgets
