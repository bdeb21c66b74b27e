#pragma once
// The marker `<project>/.warpforge-deploy.json`: created exclusively, whole (written beside,
// then linked into place), before the target file is touched; removed once the original or the
// accepted champion is in place and built. While it exists no second deploy starts, and
// `warpforge deploy --recover` reads from it who holds the project (alive or killed), how far the
// deploy got (its stage, advanced by atomic replacement) and where the backup is.
//
//   {"job":"transpose","run_dir":"/runs/r1","work_dir":"/runs/r1/deploy/transpose/...",
//    "file":"src/transpose_kernel.cuh","backup":"/runs/r1/deploy/.../backup/src/...",
//    "champion":"iter-3/branch-2","pid":4242,"pid_start":123456,"boot_id":"5b3c...",
//    "host":"gpu-07","started_at":1767225600.5,"stage":"backed_up","original_sha256":"9f86..."}
//
// Every kill point is recoverable from it: `locked` and `backed_up` say the target file was never
// written (its bytes still hash to original_sha256, or a person changed it since), `written` that
// the champion may be in it and the backup is complete.

#include "deploy/deploy_owner.hpp"
#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// How far the deploy holding the marker got; each stage replaces the marker whole before the
/// step it allows.
enum class marker_stage : std::uint8_t {
  locked,    // the marker is there; no backup yet; the target file never written
  backed_up, // the backup is complete, synced and read back; the target file never written
  written,   // set just before the first write: the champion may be in the target file
};
std::string_view to_string(marker_stage stage);
std::optional<marker_stage> marker_stage_from_string(std::string_view text);
inline constexpr marker_stage all_marker_stages[] = {marker_stage::locked, marker_stage::backed_up,
                                                     marker_stage::written};

struct deploy_marker {
  std::string job;
  std::filesystem::path run_dir;
  std::filesystem::path work_dir;
  std::filesystem::path file;    // relative to the project
  std::filesystem::path backup;  // absolute: the original's bytes (complete from backed_up on)
  std::string champion;          // label
  process_identity owner;        // the deploying process
  double started_at = 0;         // unix seconds
  // A marker older than the stage field reads as `written` (restore from the backup, as then).
  marker_stage stage = marker_stage::written;
  std::string original_sha256;   // hex, of the target file's bytes at lock; "": not recorded

  friend bool operator==(const deploy_marker&, const deploy_marker&) = default;
};

std::string marker_json(const deploy_marker& marker);
/// The marker's fields, or why the text is not one (naming `file`).
expected<deploy_marker, std::string> parse_marker(std::string_view text, std::string_view file);

/// "pid 4242 started at 2026-11-27T08:30:00Z" (", on host h" when it is another host).
std::string owner_text(const deploy_marker& marker);

/// Why a second deploy cannot start while `marker` holds `project`, as its owner stands:
/// alive: "a deploy of <job> from <run> is running (pid N, ...) and holds <project>: wait for it";
/// dead: "an unrecovered deploy ... (its process is gone): run warpforge deploy --recover";
/// elsewhere: the host to recover it on.
std::string held_message(const deploy_marker& marker, const std::filesystem::path& project,
                         owner_liveness liveness);

} // namespace warpforge::deploy
