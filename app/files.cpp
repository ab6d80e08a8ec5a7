#include "app/files.h"

#include "core/model/errors.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace app {

core::InputError in_file(const std::string& path, const core::InputError& error, const char* what) {
    const std::string& field = error.field();
    if (field.rfind(path, 0) == 0 || error.reason().find(path) != std::string::npos) return error;
    const std::string own = std::string(what);
    if (field == own) return core::InputError(path, error.reason());
    if (field.rfind(own + ".", 0) == 0) return core::InputError(path + ": " + field.substr(own.size() + 1), error.reason());
    return core::InputError(path + ": " + field, error.reason());
}

std::string read_text_file(const std::string& path, const char* what) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) throw core::InputError(what, "no such file: " + path);
    if (std::filesystem::is_directory(path, error)) throw core::InputError(what, path + " is a directory");
    std::ifstream stream(path, std::ios::binary);
    if (!stream) throw core::InputError(what, "cannot open " + path + ": " + std::strerror(errno));
    std::ostringstream text;
    text << stream.rdbuf();
    if (stream.bad()) throw core::InputError(what, "cannot read " + path);
    return text.str();
}

void write_file_atomic(const std::string& path, const void* data, std::size_t size) {
    namespace fs = std::filesystem;
    std::error_code error;
    // A link is followed: its target is what gets replaced, so the link stays a link.
    fs::path target = path;
    if (fs::is_symlink(target, error)) {
        const fs::path resolved = fs::weakly_canonical(target, error);
        if (!error) target = resolved;
    }
    const fs::file_status status = fs::status(target, error);
    if (fs::is_directory(status)) throw std::runtime_error("cannot write " + path + ": it is a directory");
    // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written to, never replaced by a regular file.
    if (fs::exists(status) && !fs::is_regular_file(status)) {
        std::FILE* file = std::fopen(target.c_str(), "wb");
        if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        const bool written = std::fwrite(data, 1, size, file) == size;
        const bool flushed = std::fflush(file) == 0;
        const int write_errno = errno;
        const bool closed = std::fclose(file) == 0;
        if (!written || !flushed || !closed) throw std::runtime_error("cannot write " + path + ": " + std::strerror(write_errno));
        return;
    }
    const std::string temporary = target.string() + ".tmp";
    std::FILE* file = std::fopen(temporary.c_str(), "wb");
    if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    const bool written = std::fwrite(data, 1, size, file) == size;
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) {
        std::remove(temporary.c_str());
        throw std::runtime_error("cannot write " + path + ": disk full or I/O error");
    }
    if (fs::is_regular_file(status)) fs::permissions(temporary, status.permissions(), error);  // a replaced file keeps its mode
    if (std::rename(temporary.c_str(), target.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw std::runtime_error("cannot replace " + path + ": " + std::strerror(errno));
    }
}

std::string config_directory() {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.config";
    else return {};
    const std::string directory = base + "/shardscope";
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    return error ? std::string() : directory;
}

std::string asset_directory() {
    if (const char* override_dir = std::getenv("SHARDSCOPE_ASSETS"); override_dir && *override_dir) return override_dir;
    namespace fs = std::filesystem;
    std::error_code error;
    // Installed, <prefix>/bin/shardscope reads <prefix>/share/shardscope, wherever the prefix was put or moved.
    const fs::path executable = fs::read_symlink("/proc/self/exe", error);
    const fs::path beside_executable = error ? fs::path() : (executable.parent_path() / SHARDSCOPE_ASSETS_FROM_BINDIR).lexically_normal();
    // Then the source tree, for the binary in a build directory; then the configured prefix, for a system without /proc.
    for (const fs::path& candidate : {beside_executable, fs::path(SHARDSCOPE_ASSET_DIR), fs::path(SHARDSCOPE_INSTALLED_ASSET_DIR)}) {
        if (!candidate.empty() && fs::is_directory(candidate, error)) return candidate.string();
    }
    return beside_executable.empty() ? SHARDSCOPE_INSTALLED_ASSET_DIR : beside_executable.string();
}

}  // namespace app
