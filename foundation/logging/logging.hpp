#pragma once
// Named loggers ("scheduler", "store", "gpu.3"), all writing to the same sinks: the console
// (stderr) and, once a run directory exists, `<run-dir>/logs/warpforge.log`. Never std::cout.

#include <spdlog/logger.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::logging {

/// Parses "trace", "debug", "info", "warn", "error", "critical" or "off".
std::optional<spdlog::level::level_enum> level_from_string(std::string_view text);

/// Sets the level of every logger, existing and future.
void set_level(spdlog::level::level_enum level);

/// Sets the lowest level the console (stderr) shows, apart from the loggers' level, so the log
/// file keeps every line while a command's --quiet hides info lines on the terminal.
void set_console_level(spdlog::level::level_enum level);

/// Adds `file` as a sink of every logger, existing and future (creates parent folders).
/// Returns false, after logging why, when the file cannot be opened.
bool add_file_sink(const std::filesystem::path& file);

/// The logger of a component; created on first use with the current sinks and level.
std::shared_ptr<spdlog::logger> get(const std::string& component);

/// Drops the file sink and flushes everything (before exit, or between tests).
void shutdown();

} // namespace warpforge::logging
