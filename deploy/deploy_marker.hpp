#pragma once
// The marker `<project>/.warpforge-deploy.json`: created exclusively before the target file is
// touched, removed once the original or the accepted champion is in place and built. While it
// exists no second deploy starts, and `warpforge deploy --recover` reads from it where the
// backup is.
//
//   {"job":"transpose","run_dir":"/runs/r1","work_dir":"/runs/r1/deploy/transpose/...",
//    "file":"src/transpose_kernel.cuh","backup":"/runs/r1/deploy/.../backup/src/...",
//    "champion":"iter-3/branch-2","pid":4242,"started_at":1767225600.5}

#include "expected/expected.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::deploy {

struct deploy_marker {
  std::string job;
  std::filesystem::path run_dir;
  std::filesystem::path work_dir;
  std::filesystem::path file;    // relative to the project
  std::filesystem::path backup;  // absolute: the original's bytes
  std::string champion;          // label
  std::int64_t pid = 0;          // the deploying process
  double started_at = 0;         // unix seconds

  friend bool operator==(const deploy_marker&, const deploy_marker&) = default;
};

std::string marker_json(const deploy_marker& marker);
/// The marker's fields, or why the text is not one (naming `file`).
expected<deploy_marker, std::string> parse_marker(std::string_view text, std::string_view file);

/// "an unrecovered deploy of <job> from <run> holds <project>: run warpforge deploy --recover".
std::string held_message(const deploy_marker& marker, const std::filesystem::path& project);

} // namespace warpforge::deploy
