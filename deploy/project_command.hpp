#pragma once
// One command of the deploy target (build, verify, time), run as the user would: `/bin/sh -c` in
// the project folder, under its time limit, stdout and stderr into one log file.

#include "gpu/runner/child_process.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::deploy {

struct command_result {
  bool started = false;          // false: it could not be spawned (detail says why)
  bool timed_out = false;        // killed (with its process group) at the time limit
  gpu::child_exit exit;          // how it ended, when started
  double seconds = 0;            // wall time, seconds
  std::string output;            // what it printed (the log's content)
  std::string detail;            // why it did not start

  /// Started, ended by itself, exit code 0.
  bool succeeded() const;
  /// "exit code 2", "timed out after 900 s", "could not start: ...".
  std::string how_it_ended(std::chrono::seconds limit) const;
};

/// Runs `command` with /bin/sh -c in `project`; output to `log` (created, truncated).
command_result run_in_project(const std::filesystem::path& project, std::string_view command,
                              std::chrono::seconds limit, const std::filesystem::path& log);

/// The last `lines` lines of `output` (for a reason that quotes what a command printed).
std::string output_tail(std::string_view output, std::size_t lines = 15);

/// The script and arguments that run `command` in `folder` (cd, then eval): argv after /bin/sh.
std::vector<std::string> shell_arguments(const std::filesystem::path& folder, std::string_view command);

} // namespace warpforge::deploy
