#pragma once
// The champion under compute-sanitizer: before a kernel is crowned (`[verify] sanitize = true`,
// `warpforge bench --sanitize`), its one launch is replayed once by a one-shot runner under
// memcheck, the way ncu_profile.hpp wraps it:
//
//   compute-sanitizer --tool memcheck --print-limit 16 --error-exitcode 86
//       <warpforge-runner> --execute <branch folder>/request-<arch>.json
//
// Any memcheck error (an out-of-bounds or misaligned access, an invalid free...) makes the kernel
// `incorrect` with the sanitizer's first report; its output passed the comparison only because the
// bytes it wrote past its buffers landed nowhere the check looks. compute-sanitizer is looked for
// on $PATH, then in $CUDA_HOME/bin (else /usr/local/cuda/bin). A host without it gets
// not_found: the branch notes "not sanitized: compute-sanitizer not found", never a pass.
// No CUDA here: the sanitizer and the runner are child processes; blocking calls.

#include "gpu/runner/child_process.hpp"
#include "gpu/toolchain.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// How long one sanitized launch may take (memcheck slows a kernel 10-100x, plus its start-up).
inline constexpr std::chrono::milliseconds default_sanitize_timeout{300'000};
/// How many of memcheck's reports it prints (the first is what a branch keeps).
inline constexpr int sanitize_print_limit = 16;
/// The exit code memcheck gives when it found errors (so it reads apart from a runner failure).
inline constexpr int sanitize_error_exit_code = 86;
/// How much of a report (bytes) a branch's detail keeps.
inline constexpr std::size_t sanitize_report_bytes = 2000;
/// The file of the sanitizer's stdout+stderr in the work directory.
inline constexpr std::string_view sanitize_output_file_name = "sanitize.out";

enum class sanitize_status : std::uint8_t {
  clean,     // memcheck ran the launch and reported no error
  errors,    // memcheck reported at least one error: the kernel is incorrect
  not_found, // no compute-sanitizer on this host: not sanitized
  failed,    // it could not tell (did not start, timed out, the runner failed without a report)
};
inline constexpr std::array all_sanitize_statuses{sanitize_status::clean, sanitize_status::errors,
                                                  sanitize_status::not_found, sanitize_status::failed};
std::string_view to_string(sanitize_status status);
std::optional<sanitize_status> sanitize_status_from_string(std::string_view text);

struct sanitize_result {
  sanitize_status status = sanitize_status::failed;
  std::uint64_t error_count = 0; // from "ERROR SUMMARY: N errors"
  std::string first_report;      // errors: the first report's lines, without the ========= prefix
                                 // and the host backtrace
  std::string note;              // for people: why not clean, in a sentence
};

struct sanitize_options {
  std::filesystem::path sanitizer; // compute-sanitizer (find_compute_sanitizer)
  std::filesystem::path runner;    // warpforge-runner (locate_runner())
  std::filesystem::path work_dir;  // its output file goes there (created if missing)
  std::optional<std::string> visible_devices; // CUDA_VISIBLE_DEVICES for the sanitizer and the runner
  std::chrono::milliseconds timeout = default_sanitize_timeout; // then its process group is killed
};

/// compute-sanitizer on `path_env`, else in <cuda_home>/bin.
std::optional<std::filesystem::path> find_compute_sanitizer(const toolchain_environment& env);
std::optional<std::filesystem::path> find_compute_sanitizer();

/// The arguments after the sanitizer executable for replaying `request_file`.
std::vector<std::string> sanitizer_arguments(const sanitize_options& options, const std::filesystem::path& request_file);

/// What memcheck's output and its exit (nullopt: killed at the timeout) say. Pure, for tests.
sanitize_result interpret_sanitizer_output(std::string_view output, const std::optional<child_exit>& exit);

/// Runs the sanitizer around `runner --execute request_file` (blocking, up to options.timeout).
/// Never throws: a sanitizer that cannot start is `failed` with the reason.
sanitize_result sanitize_launch(const std::filesystem::path& request_file, const sanitize_options& options);

} // namespace warpforge::gpu
