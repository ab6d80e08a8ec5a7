#include "app/export.h"

#include "app/app_state.h"
#include "app/files.h"
#include "app/gui.h"
#include "app/lesson.h"
#include "app/presentation.h"
#include "app/ui.h"
#include "widgets/figure.h"
#include "widgets/palette.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>

namespace app {
namespace {

// An offscreen colour target of the export's exact pixel size.
struct Framebuffer {
    GLuint framebuffer = 0, color = 0;
    int width = 0, height = 0;

    bool create(int w, int h) {
        width = w;
        height = h;
        glGenFramebuffers(1, &framebuffer);
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
        glGenRenderbuffers(1, &color);
        glBindRenderbuffer(GL_RENDERBUFFER, color);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
        return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    }
    ~Framebuffer() {
        if (color) glDeleteRenderbuffers(1, &color);
        if (framebuffer) glDeleteFramebuffers(1, &framebuffer);
    }
};

void append_bytes(void* context, void* data, int size) {
    auto* bytes = static_cast<std::vector<unsigned char>*>(context);
    const auto* begin = static_cast<const unsigned char*>(data);
    bytes->insert(bytes->end(), begin, begin + size);
}

// Renders frames of draw() and returns the last one as top-down RGBA rows; texts_out, if given, gets the last frame's texts.
template <typename Draw>
std::vector<unsigned char> render_frames(AppState& state, const Framebuffer& framebuffer, int frames, Draw draw,
                                         std::vector<widgets::DrawnText>* texts_out = nullptr,
                                         std::vector<widgets::PlotLayout>* plots_out = nullptr) {
    ImGuiIO& io = ImGui::GetIO();
    for (int frame = 0; frame < frames; ++frame) {
        const bool recording = (texts_out || plots_out) && frame == frames - 1;
        if (recording) widgets::start_text_record();
        io.DisplaySize = ImVec2(static_cast<float>(framebuffer.width), static_cast<float>(framebuffer.height));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.DeltaTime = 1.0f / 60.0f;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        draw();
        ImGui::Render();
        if (recording) {
            std::vector<widgets::DrawnText> texts = widgets::stop_text_record();
            if (texts_out) *texts_out = std::move(texts);
            if (plots_out) *plots_out = widgets::recorded_plots();
        }
        apply_scenario_edits(state);
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.framebuffer);
        glViewport(0, 0, framebuffer.width, framebuffer.height);
        const ImVec4 clear = ImGui::ColorConvertU32ToFloat4(widgets::palette().panel_background);
        glClearColor(clear.x, clear.y, clear.z, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    std::vector<unsigned char> pixels(static_cast<std::size_t>(framebuffer.width) * framebuffer.height * 4);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, framebuffer.width, framebuffer.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // OpenGL's rows run bottom-up; PNG's top-down.
    const std::size_t row = static_cast<std::size_t>(framebuffer.width) * 4;
    std::vector<unsigned char> flipped(pixels.size());
    for (int y = 0; y < framebuffer.height; ++y) {
        std::memcpy(&flipped[static_cast<std::size_t>(y) * row], &pixels[static_cast<std::size_t>(framebuffer.height - 1 - y) * row], row);
    }
    for (std::size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque, whatever the blend left in alpha
    return flipped;
}

// A panel alone is a figure for a document (no controls unless asked for); the window is the app as it looks.
std::vector<unsigned char> render_target(AppState& state, const std::string& target, const Framebuffer& framebuffer, int frames,
                                         const ExportOptions& options, std::vector<widgets::DrawnText>* texts_out,
                                         std::vector<widgets::PlotLayout>* plots_out) {
    const int panel = panel_index(state, target);
    UiSession session;
    session.sidebar = options.sidebar;
    const bool in_window = panel < 0 || options.sidebar != SidebarMode::automatic;  // the app as it looks
    if (panel >= 0 && in_window) {
        state.visible[panel] = true;
        state.select_panel_request = panel;
    }
    widgets::set_figure_mode(!in_window && !options.controls);
    const auto draw = [&] {
        UiRequests requests;
        if (!in_window) draw_single_panel(state, panel, true);
        else draw_main_ui(state, session, requests, true);
    };
    if (!options.t_seconds) {
        // Settled: two frames tell each panel's animation length (a tab asked for is selected in the first and drawn in the
        // second), then every clock stands at its end (or the panel's figure moment).
        render_frames(state, framebuffer, 2, draw);
        for (widgets::Playback& playback : state.playbacks) playback.cue(playback.settled_seconds());
    }
    std::vector<unsigned char> pixels = render_frames(state, framebuffer, frames, draw, texts_out, plots_out);
    widgets::set_figure_mode(false);
    return pixels;
}

std::string write_png(const std::string& path, const std::vector<unsigned char>& pixels, int width, int height) {
    std::vector<unsigned char> png;
    stbi_write_png_compression_level = 5;  // stb's fastest (its default 8 searches longer matches; flat UI fills gain little)
    if (!stbi_write_png_to_func(append_bytes, &png, width, height, 4, pixels.data(), width * 4)) return "cannot encode " + path;
    try {
        write_file_atomic(path, png.data(), png.size());
    } catch (const std::exception& write_error) {
        return write_error.what();
    }
    return {};
}

// "03-the-pipeline-bubble" from scene 3's title.
std::string scene_file_name(int index, const std::string& title) {
    std::string slug;
    for (char c : title) {
        if (std::isalnum(static_cast<unsigned char>(c))) slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!slug.empty() && slug.back() != '-') slug += '-';
    }
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%02d-", index + 1);
    return prefix + (slug.empty() ? std::string("scene") : slug) + ".png";
}

// Encodes and writes each PNG on a worker while the next figure renders: encoding was the export's longest serial
// step, with llvmpipe's threads idle. One image at a time, in order, so the files and `written` come out as before.
class PngPipeline {
public:
    PngPipeline(int width, int height, std::vector<std::string>* written) : width_(width), height_(height), written_(written) {}
    ~PngPipeline() { finish(); }
    // Waits for the image before, hands this one to the worker, and returns the error of the one before (or "").
    std::string submit(std::string path, std::vector<unsigned char> pixels) {
        std::string error = finish();
        if (!error.empty()) return error;
        pending_path_ = path;
        pending_ = std::async(std::launch::async, [path = std::move(path), pixels = std::move(pixels), width = width_, height = height_] {
            return write_png(path, pixels, width, height);
        });
        return {};
    }
    // Waits for the last image handed over; its error, or "".
    std::string finish() {
        if (!pending_.valid()) return {};
        std::string error = pending_.get();
        if (error.empty() && written_) written_->push_back(pending_path_);
        return error;
    }

private:
    int width_, height_;
    std::vector<std::string>* written_;
    std::future<std::string> pending_;
    std::string pending_path_;
};

}  // namespace

std::string export_panel_in_context(AppState& state, int panel, int width, int height, const std::string& path) {
    Framebuffer framebuffer;
    if (!framebuffer.create(width, height)) return "cannot create an offscreen framebuffer";
    widgets::set_figure_mode(true);  // Ctrl+E: the panel as a figure for a document, at the moment on screen
    const std::vector<unsigned char> pixels = render_frames(state, framebuffer, 2, [&] { draw_single_panel(state, panel, true); });
    widgets::set_figure_mode(false);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return write_png(path, pixels, width, height);
}

std::vector<std::string> export_targets(const std::string& panel_argument, std::string* error) {
    const std::vector<widgets::PanelDef> panels = widgets::make_all_panels();
    std::vector<std::string> targets;
    if (panel_argument == "all") {
        for (const widgets::PanelDef& panel : panels) targets.push_back(panel.name);
        targets.push_back("window");
        return targets;
    }
    if (panel_argument == "window") return {"window"};
    std::string names;
    for (const widgets::PanelDef& panel : panels) {
        if (panel_argument == panel.name) return {panel.name};
        names += std::string(names.empty() ? "" : ", ") + panel.name;
    }
    if (error) *error = "--panel: unknown panel \"" + panel_argument + "\" (choose " + names + ", window or all)";
    return {};
}

std::string run_export(const ExportOptions& options, std::vector<std::string>* written) {
    const int pixel_width = static_cast<int>(options.width * options.scale + 0.5f);
    const int pixel_height = static_cast<int>(options.height * options.scale + 0.5f);
    std::error_code filesystem_error;
    std::filesystem::create_directories(options.out_dir, filesystem_error);
    if (filesystem_error || !std::filesystem::is_directory(options.out_dir)) return "--out: cannot create directory " + options.out_dir;

    const char* window_error = nullptr;
    GLFWwindow* window = create_gl_window(64, 64, false, "ShardScope export", &window_error);
    if (!window) return window_error;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    std::string error;
    if (pixel_width > max_size || pixel_height > max_size) {
        error = "--size: " + std::to_string(pixel_width) + "x" + std::to_string(pixel_height) + " pixels exceeds this GPU's limit of " +
                std::to_string(max_size);
    }
    if (error.empty()) {
        init_imgui(window, false, nullptr);
        widgets::set_theme(options.light_theme ? widgets::Theme::light : widgets::Theme::dark);
        apply_ui_scale(options.scale);
        {
            AppState state = make_app_state(options.scenario);
            if (options.baseline) error = set_baseline(state, *options.baseline, options.baseline_name);
            for (widgets::Playback& playback : state.playbacks) playback.cue(options.t_seconds.value_or(0.0));
            Framebuffer framebuffer;
            PngPipeline pngs(pixel_width, pixel_height, written);
            if (error.empty() && !framebuffer.create(pixel_width, pixel_height)) error = "cannot create an offscreen framebuffer";
            for (const std::string& target : options.panels) {
                if (!error.empty()) break;
                std::vector<widgets::DrawnText> texts;
                std::vector<widgets::PlotLayout> plots;
                std::vector<unsigned char> pixels = render_target(state, target, framebuffer, options.settle_frames, options,
                                                                  options.texts_out ? &texts : nullptr, options.plots_out ? &plots : nullptr);
                if (options.texts_out) options.texts_out->push_back(std::move(texts));
                if (options.plots_out) options.plots_out->push_back(std::move(plots));
                error = pngs.submit(options.out_dir + "/" + target + ".png", std::move(pixels));
                const int panel = panel_index(state, target);
                if (options.settled_t_out && panel >= 0) options.settled_t_out->push_back(state.playbacks[panel].t_seconds);
            }
            if (options.lesson && error.empty()) {
                PresentationState presentation;
                presentation.lesson = *options.lesson;
                presentation.show_hints = options.controls;
                presentation.show_controls = options.controls;
                for (int scene = 0; scene < static_cast<int>(presentation.lesson.scenes.size()) && error.empty(); ++scene) {
                    error = enter_scene(state, presentation, scene);
                    if (!error.empty()) break;
                    presentation.active = true;
                    std::vector<widgets::DrawnText> texts;
                    std::vector<widgets::PlotLayout> plots;
                    std::vector<unsigned char> pixels = render_frames(state, framebuffer, options.settle_frames,
                                                                      [&] { draw_presentation(state, presentation, true); },
                                                                      options.texts_out ? &texts : nullptr, options.plots_out ? &plots : nullptr);
                    if (options.texts_out) options.texts_out->push_back(std::move(texts));
                    if (options.plots_out) options.plots_out->push_back(std::move(plots));
                    error = pngs.submit(options.out_dir + "/" + scene_file_name(scene, presentation.lesson.scenes[scene].title), std::move(pixels));
                }
            }
            const std::string last_error = pngs.finish();
            if (error.empty()) error = last_error;
        }
        shutdown_imgui(false);
    }
    glfwDestroyWindow(window);
    glfwTerminate();
    return error;
}

}  // namespace app
