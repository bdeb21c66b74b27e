#pragma once
// Writing the run directory's files so that a reader (or a resume after a kill) never sees half
// of one: each file is written beside its place and renamed over it.

#include "foundation/expected/expected.hpp"
#include "foundation/files/atomic_write.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::calibrate {

/// Writes `text` to `path` whole or not at all (foundation/files/atomic_write.hpp).
using files::write_file_atomically;

/// The whole file; nullopt when it cannot be read (missing included).
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

} // namespace warpforge::calibrate
