#pragma once
// Internal to config/: reading spec files and the paths they name.

#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::config::detail {

/// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::filesystem::path& path);

/// `path` as written in a spec, resolved against the folder of the spec file `spec_file`.
std::filesystem::path resolve_against(const std::filesystem::path& spec_file,
                                      const std::filesystem::path& path);

} // namespace warpforge::config::detail
