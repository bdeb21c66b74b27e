#pragma once
// The deploy target of a problem: the user's own project the champion is written back into
// (docs/specs.md "[deploy]", deploy/README.md). Read from the [deploy] table of a problem spec:
//
//   [deploy]
//   project = "app"                       # folder, relative to the spec; every write stays inside
//   file = "src/transpose_kernel.cuh"     # relative to project: the file holding the kernel
//   region = "transpose"                  # optional: between `// warpforge:begin transpose` and
//                                         # `// warpforge:end transpose`; absent: the whole file
//   build = "cmake -S . -B build && cmake --build build"   # /bin/sh -c, in project
//   verify = "./build/app --check"        # exit 0 = the program's own check passed
//   time = "./build/app --bench"          # optional; default: verify
//   timing = "result"                     # "result" (RESULT: <result_key>=<v>) | "observed"
//   result_key = "kernel_ms"              # timing "result": the value read, lower is better
//   kernel = "transpose"                  # timing "observed": the kernel; default: the entry
//   repeats = 5                           # timing runs before and after
//   gain_threshold = 0.02                 # the gate: skip a champion gaining less (1.0 = 100%)
//   build_timeout_s = 900                 # seconds
//   run_timeout_s = 600                   # seconds, per verify or time run
//
// Paths are absolute once read: `project` is the canonical folder (symlinks resolved) and `file`
// lies inside it both lexically and after resolving symlinks (a `..` or a link leading out is an
// error naming the key). This header keeps toml++ out; deploy_target_toml.hpp reads a parsed table.

#include "foundation/expected/expected.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// How the real program's time is read.
enum class timing_source : std::uint8_t {
  result,   // the `time` command prints `RESULT: <result_key>=<value>` (program mode's lines)
  observed, // the `time` command runs under observation (deploy/observe/): sum of the kernel's launches
};
std::string_view to_string(timing_source source);
std::optional<timing_source> timing_source_from_string(std::string_view text);
inline constexpr timing_source all_timing_sources[] = {timing_source::result,
                                                       timing_source::observed};

/// Defaults of the optional keys (units in the names).
namespace target_defaults {
inline constexpr std::int64_t repeats = 5;           // timing runs before, and as many after
inline constexpr double gain_threshold = 0.02;       // 1.0 = 100%: the gate's minimum gain
inline constexpr std::int64_t build_timeout_s = 900; // seconds, one build
inline constexpr std::int64_t run_timeout_s = 600;   // seconds, one verify or time run
inline constexpr std::int64_t max_repeats = 1000;    // a typo guard on repeats
} // namespace target_defaults

struct deploy_target {
  std::string spec_file;                 // the spec it was read from (names it in messages)
  std::filesystem::path project;         // absolute, canonical; an existing folder
  std::filesystem::path file;            // absolute: project / relative_file; inside project
  std::filesystem::path relative_file;   // `file` as written, normalised, relative to project
  std::string region;                    // "" = the whole file
  std::string build;                     // shell command, run in project
  std::string verify;                    // shell command, run in project; exit 0 = passed
  std::string time;                      // shell command; the verify command when not given
  timing_source timing = timing_source::result;
  std::string result_key;                // timing result: the RESULT name (lower is better)
  std::string kernel;                    // timing observed: kernel name; "" = the problem's entry
  std::int64_t repeats = target_defaults::repeats;
  double gain_threshold = target_defaults::gain_threshold; // 1.0 = 100%
  std::chrono::seconds build_timeout{target_defaults::build_timeout_s};
  std::chrono::seconds run_timeout{target_defaults::run_timeout_s};
  toml_reader::place place;              // of the [deploy] table

  bool operator==(const deploy_target&) const = default;
};

/// The region markers of `region` in a file: `// warpforge:begin <region>` and
/// `// warpforge:end <region>` (each on a line of its own; leading blanks allowed).
std::string region_begin_marker(std::string_view region);
std::string region_end_marker(std::string_view region);

/// Reads the [deploy] table of the problem spec `spec_text` (as read from `spec_file`, whose
/// folder relative paths resolve against). nullopt when there is no [deploy] table. `kernel`
/// defaults to the spec's [kernel] entry (read_deploy_table leaves it to its caller). Errors carry
/// the file, line, column and key, with a "did you mean" for an unknown key.
expected<std::optional<deploy_target>, toml_reader::placed_errors>
read_deploy_target(std::string_view spec_text, const std::filesystem::path& spec_file);

/// The same, reading the spec file first.
expected<std::optional<deploy_target>, toml_reader::placed_errors>
load_deploy_target(const std::filesystem::path& spec_file);

/// Why `path` may not be written by a deployer of `target`: empty when it is the target file or
/// the marker (both inside the project, after resolving symlinks), else the reason. Checked again
/// at every write (a link may have been planted since the spec was read).
std::string outside_target_reason(const deploy_target& target, const std::filesystem::path& path);

/// `<project>/.warpforge-deploy.json`: the lock of a deploy in progress (deploy/README.md).
std::filesystem::path marker_path(const deploy_target& target);
inline constexpr std::string_view marker_file_name = ".warpforge-deploy.json";

} // namespace warpforge::deploy
