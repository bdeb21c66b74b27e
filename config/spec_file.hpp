#pragma once
// Internal to config/: the paths a spec names, and the names it declares.

#include <filesystem>
#include <string_view>

namespace warpforge::config::detail {

/// `path` as written in a spec, resolved against the folder of the spec file `spec_file`.
std::filesystem::path resolve_against(const std::filesystem::path& spec_file,
                                      const std::filesystem::path& path);

/// Whether `text` is a C identifier (names of dims, tunables, args, entry points, variables).
bool is_identifier(std::string_view text);

} // namespace warpforge::config::detail
