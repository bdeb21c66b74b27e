#pragma once
// Small text helpers the commands share for their tables and messages.

#include <cstddef>
#include <optional>
#include <string>

namespace warpforge::cli {

/// A kernel time for people, as every view writes it (vocabulary::time_text): "79.3 us", "1.12 ms".
std::string format_time(double seconds);

/// The first line of `text`, cut to `max_chars` with "..." (compiler logs, CUDA errors).
std::string first_line(const std::string& text, std::size_t max_chars = 400);

/// Why `path` cannot be a kernel source ("no such file", "a folder, not a file", "a device or
/// pipe, not a file"); nullopt for a regular file.
std::optional<std::string> not_a_source_file(const std::string& path);

} // namespace warpforge::cli
