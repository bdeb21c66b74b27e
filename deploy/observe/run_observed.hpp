#pragma once
// Running a user's program once, unmodified, under observation: every kernel launch (of the
// named kernel) with its geometry, duration and argument bytes.
//
//   observe_request r{.command = {"./build/app", "--bench"}, .kernel = "transpose", .log_dir = dir};
//   auto run = run_observed(r);   // run->launches, run->exit, run->output, run->notes
//
// cupti: CUDA loads the injection library (deploy/observe/inject/) into the program through
// CUDA_INJECTION64_PATH; it writes the launch log to WARPFORGE_OBSERVE_OUT (<log_dir>/launches.jsonl),
// and every further CUDA process of the program (a child) its own <log_dir>/launches.jsonl.<pid>.
// All of them are read (stale ones removed before the program starts): launches file by file
// (launches.jsonl, then the others by pid), each by seq; a note names the processes.
// WARPFORGE_OBSERVE_KERNEL is left unset: every kernel is recorded (microseconds of host time a
// launch) and the named one kept here, so a name that matches nothing is answered with the kernels
// that did run (other_kernels). ncu (deploy/observe/ncu_launches.hpp):
// Nsight Compute runs the program instead; no scalar values. automatic: cupti when the library is
// found, else ncu. Clocks are never locked. The program's stdout+stderr go to <log_dir>/program.out.
// Blocking; the program runs in its own process group, killed whole at the timeout.

#include "foundation/expected/expected.hpp"
#include "gpu/runner/child_process.hpp"
#include "deploy/observe/launches/launch_record.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

enum class observe_method : std::uint8_t { automatic, cupti, ncu }; // automatic: cupti, else ncu
std::string_view to_string(observe_method method);
std::optional<observe_method> observe_method_from_string(std::string_view text);
inline constexpr observe_method all_observe_methods[] = {observe_method::automatic, observe_method::cupti,
                                                         observe_method::ncu};

/// The files run_observed writes in log_dir.
inline constexpr std::string_view launch_log_file_name = "launches.jsonl"; // the injection library's log
                                                                           // (.<pid>: another process's)
inline constexpr std::string_view program_output_file_name = "program.out"; // stdout+stderr
inline constexpr std::string_view ncu_csv_file_name = "ncu.csv";           // ncu's --log-file

/// The injection library's file name, in a bundle's lib/ and in the build tree.
inline constexpr std::string_view inject_library_name = "libwarpforge_observe_inject.so";

struct observe_request {
  std::vector<std::string> command;   // argv[0] resolved through PATH if it has no '/'
  std::filesystem::path workdir;      // "" = current
  std::string kernel;                 // "" = every kernel
  std::string buffers_kernel;         // cupti: record this kernel's buffers and hash its first
                                      // launches' bytes (WARPFORGE_OBSERVE_BUFFERS, inject/buffer_watch.hpp);
                                      // "" = none (observe); `warpforge init` sets it
  observe_method method = observe_method::automatic;
  std::chrono::seconds timeout{600};
  std::filesystem::path log_dir;      // where the launch log and the program's output go
  std::filesystem::path inject_library; // "" = find_inject_library()
  std::filesystem::path ncu;            // "" = ncu on PATH, else in $CUDA_HOME/bin
};

struct observed_run {
  std::vector<launch_record> launches; // in launch order, process after process (seq counts per process)
  std::string method;                  // "cupti" or "ncu"
  gpu::child_exit exit;                // how the program ended
  std::string output;                  // its stdout+stderr
  double wall_s = 0.0;                 // seconds from start to exit
  std::vector<std::string> notes;      // e.g. "ncu: scalar arguments are not available"
  std::vector<std::string> command;    // argv as run, argv[0] resolved
  std::map<std::string, std::size_t> other_kernels; // launches of kernels not named, by demangled
                                                    // name (cupti; ncu profiles only the named one)
};

/// Runs the program once under observation. An error when it cannot start, times out, or the
/// launch log is unreadable; a program that exits non-zero is a result (exit says so).
expected<observed_run, std::string> run_observed(const observe_request& request);

/// Where the injection library is: $WARPFORGE_OBSERVE_INJECT, else <exe>/../lib/, else the build tree.
std::optional<std::filesystem::path> find_inject_library();

/// argv[0] as a file: through PATH when it has no '/', else relative to `workdir` ("" = current).
/// An error says it was not found, or is not an executable file.
expected<std::filesystem::path, std::string> resolve_program(std::string_view name,
                                                             const std::filesystem::path& workdir);

/// The last `lines` lines of `text` (for quoting a failed program's output).
std::string output_tail(std::string_view text, std::size_t lines);

} // namespace warpforge::observe
