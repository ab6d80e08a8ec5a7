// Headless render tests: every registered panel through the same draw functions as the window, read back as PNG.
#include "app/export.h"
#include "app/files.h"
#include "core/model/scenario.h"
#include "widgets/panel.h"

#include <catch2/catch.hpp>
#include <stb/stb_image.h>

#include <filesystem>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Image {
    int width = 0, height = 0;
    bool single_colour = true;
    int distinct_colours = 0;
};

Image inspect_png(const std::string& path) {
    Image image;
    int channels = 0;
    unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    REQUIRE(pixels != nullptr);
    const std::size_t count = static_cast<std::size_t>(image.width) * image.height;
    std::uint32_t first = 0;
    std::memcpy(&first, pixels, 4);
    std::vector<std::uint32_t> seen;
    for (std::size_t i = 0; i < count; i += 97) {  // a sparse sample is enough to tell a drawing from a blank
        std::uint32_t colour = 0;
        std::memcpy(&colour, pixels + 4 * i, 4);
        if (colour != first) image.single_colour = false;
        if (seen.size() < 64 && std::find(seen.begin(), seen.end(), colour) == seen.end()) seen.push_back(colour);
    }
    image.distinct_colours = static_cast<int>(seen.size());
    stbi_image_free(pixels);
    return image;
}

std::string fresh_directory(const char* name) {
    const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("shardscope-render-" + std::string(name));
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    return directory.string();
}

}  // namespace

TEST_CASE("Export of every panel at 1600x900: one PNG per panel plus window.png, exact size, not one colour", "[render]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    std::string error;
    options.panels = app::export_targets("all", &error);
    REQUIRE(error.empty());
    REQUIRE(options.panels.size() == widgets::make_all_panels().size() + 1);  // every panel and the whole window
    options.out_dir = fresh_directory("all");
    REQUIRE(app::run_export(options).empty());
    for (const std::string& panel : options.panels) {
        INFO("panel " << panel);
        const Image image = inspect_png(options.out_dir + "/" + panel + ".png");
        CHECK(image.width == 1600);
        CHECK(image.height == 900);
        CHECK_FALSE(image.single_colour);
        CHECK(image.distinct_colours >= 4);  // text, background and at least a drawn element
    }
}

TEST_CASE("Export at --scale 2 doubles the pixel size", "[render]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = {"window", "stack"};
    options.scale = 2.0f;
    options.width = 800;
    options.height = 450;
    options.out_dir = fresh_directory("scale");
    REQUIRE(app::run_export(options).empty());
    for (const std::string& panel : options.panels) {
        const Image image = inspect_png(options.out_dir + "/" + panel + ".png");
        CHECK(image.width == 1600);
        CHECK(image.height == 900);
        CHECK_FALSE(image.single_colour);
    }
}

TEST_CASE("Export refuses an unknown panel name and names the choices", "[render]") {
    std::string error;
    CHECK(app::export_targets("stak", &error).empty());
    CHECK(error.find("--panel") == 0);
    CHECK(error.find("stack") != std::string::npos);
}

TEST_CASE("Atomic writes never leave a truncated file behind", "[render]") {
    const std::string directory = fresh_directory("atomic");
    const std::string path = directory + "/kept.json";
    const std::string original = "{\"kept\": true}\n";
    app::write_file_atomic(path, original.data(), original.size());
    // A write into a directory that does not exist fails, and the existing file is untouched.
    CHECK_THROWS(app::write_file_atomic(directory + "/missing/dir/x.json", "x", 1));
    CHECK(app::read_text_file(path) == original);
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

namespace {

// The RGBA bytes of a PNG, to tell two renders apart.
std::vector<unsigned char> png_pixels(const std::string& path) {
    int width = 0, height = 0, channels = 0;
    unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 4);
    REQUIRE(pixels != nullptr);
    std::vector<unsigned char> bytes(pixels, pixels + static_cast<std::size_t>(width) * height * 4);
    stbi_image_free(pixels);
    return bytes;
}

// The share of pixels that differ between two PNGs of the same size.
double differing_share(const std::string& a_path, const std::string& b_path) {
    int aw = 0, ah = 0, bw = 0, bh = 0, channels = 0;
    unsigned char* a = stbi_load(a_path.c_str(), &aw, &ah, &channels, 4);
    unsigned char* b = stbi_load(b_path.c_str(), &bw, &bh, &channels, 4);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    REQUIRE(aw == bw);
    REQUIRE(ah == bh);
    const std::size_t count = static_cast<std::size_t>(aw) * ah;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < count; ++i) differing += std::memcmp(a + 4 * i, b + 4 * i, 4) != 0;
    stbi_image_free(a);
    stbi_image_free(b);
    return static_cast<double>(differing) / static_cast<double>(count);
}

}  // namespace

TEST_CASE("All-to-all panel export: not blank, and the picture moves with t (dispatch, then combine)", "[render][alltoall]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.panels = {"alltoall"};
    options.width = 1280;
    options.height = 720;
    std::vector<std::vector<unsigned char>> renders;
    for (double t : {0.3, 2.5, 20.0}) {  // dispatch step 1, dispatch step 4, combine
        options.t_seconds = t;
        options.out_dir = fresh_directory(("alltoall-" + std::to_string(static_cast<int>(t * 10))).c_str());
        REQUIRE(app::run_export(options).empty());
        const Image image = inspect_png(options.out_dir + "/alltoall.png");
        CHECK(image.width == 1280);
        CHECK(image.height == 720);
        CHECK_FALSE(image.single_colour);
        CHECK(image.distinct_colours >= 6);  // text, background, nodes, GPUs, NVLink and InfiniBand packets
        renders.push_back(png_pixels(options.out_dir + "/alltoall.png"));
    }
    CHECK(renders[0] != renders[1]);
    CHECK(renders[1] != renders[2]);
}

TEST_CASE("Pipeline panel export with DualPipe: the scenario's schedule drawn beside ZB-H1, not blank", "[render][dualpipe]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();
    options.scenario.parallel.pp = 8;
    options.scenario.parallel.schedule = core::ScheduleKind::dualpipe;
    options.panels = {"pipeline"};
    options.width = 1280;
    options.height = 720;
    options.t_seconds = 6;
    options.out_dir = fresh_directory("dualpipe");
    REQUIRE(app::run_export(options).empty());
    const Image image = inspect_png(options.out_dir + "/pipeline.png");
    CHECK(image.width == 1280);
    CHECK_FALSE(image.single_colour);
    CHECK(image.distinct_colours >= 6);
}

TEST_CASE("Anatomy of a step: anatomy.png is drawn, and TP 8 on the default scenario redraws it", "[render][anatomy]") {
    app::ExportOptions options;
    options.panels = {"anatomy"};
    options.width = 1280;
    options.height = 720;
    options.scenario = core::default_scenario();
    options.out_dir = fresh_directory("anatomy-tp1");
    REQUIRE(app::run_export(options).empty());
    const std::string tp1 = options.out_dir + "/anatomy.png";

    options.scenario.parallel.tp = 8;  // the 64 GPUs keep their count: DP 64 -> 8
    options.scenario.parallel.dp = 0;
    options.out_dir = fresh_directory("anatomy-tp8");
    REQUIRE(app::run_export(options).empty());
    const std::string tp8 = options.out_dir + "/anatomy.png";

    for (const std::string& path : {tp1, tp8}) {
        const Image image = inspect_png(path);
        CHECK(image.width == 1280);
        CHECK(image.height == 720);
        CHECK_FALSE(image.single_colour);
        CHECK(image.distinct_colours >= 8);  // kernels of both bounds, communication, the bar's parts, text
    }
    // The layer's boxes shrink, the TP lane fills and the bar grows an exposed-TP part: a large share of the picture changes.
    CHECK(differing_share(tp1, tp8) > 0.05);
}

TEST_CASE("The ring animates at the default scenario's 64 ranks: seven ranks around rank 0 and the rest of the ring, moving with t",
          "[render][ring]") {
    app::ExportOptions options;
    options.scenario = core::default_scenario();  // DP 64: the ring panel follows the scenario's DP group
    options.panels = {"ring"};
    options.width = 1280;
    options.height = 720;
    std::vector<std::string> renders;
    for (double t : {0.5, 3.5, 70.5}) {  // reduce-scatter steps 1 and 4, all-gather
        options.t_seconds = t;
        options.out_dir = fresh_directory(("ring-" + std::to_string(static_cast<int>(t * 10))).c_str());
        std::vector<std::vector<widgets::DrawnText>> texts;
        options.texts_out = &texts;
        REQUIRE(app::run_export(options).empty());
        std::string drawn;
        for (const widgets::DrawnText& text : texts[0]) drawn += text.text + "\n";
        INFO(drawn);
        for (const char* rank : {"GPU 61", "GPU 0", "GPU 3", "57 more ranks", "ranks 61 to 3 of 64"}) CHECK(drawn.find(rank) != std::string::npos);
        CHECK(drawn.find("too many to draw") == std::string::npos);
        CHECK(drawn.find(t < 63 ? "reduce-scatter" : "all-gather") != std::string::npos);
        renders.push_back(options.out_dir + "/ring.png");
    }
    CHECK(differing_share(renders[0], renders[1]) > 0.001);  // the chunks in flight and the fills move
    CHECK(differing_share(renders[1], renders[2]) > 0.001);
}
