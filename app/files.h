#pragma once
// The app's file I/O: reading text, writing without ever truncating on failure, and the XDG config directory.
#include "core/model/errors.h"

#include <string>

namespace app {

// An error met reading the file at path, naming it first: "x.json: train.seq_len: ..."; the whole-file readers' own
// names (what, e.g. "scenario", "model.hf_config") give way to the path, and an error that names the path already is kept.
core::InputError in_file(const std::string& path, const core::InputError& error, const char* what);

// Throws core::InputError(what, reason) when the file cannot be read.
std::string read_text_file(const std::string& path, const char* what = "file");
// Writes to path.tmp then renames over path, so a failure leaves the old file whole; a link's target is replaced (the
// link stays), and a device or pipe is written to directly. Throws std::runtime_error naming path.
void write_file_atomic(const std::string& path, const void* data, std::size_t size);
// $XDG_CONFIG_HOME/shardscope, else ~/.config/shardscope; created on demand. Empty if neither is usable.
std::string config_directory();
// The directory holding the assets: $SHARDSCOPE_ASSETS, else share/shardscope beside the installed binary's bin/,
// else the source tree's assets/ for a binary in a build directory.
std::string asset_directory();

}  // namespace app
