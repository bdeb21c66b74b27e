#pragma once
// Program mode: run a whole compiled program (a benchmark with its own host logic, built by
// compile/nvcc_compiler) N times, pinned to a GPU and under the same watchdog as candidates, and
// read its results from `RESULT:` lines in its output (docs/measurement.md, "Program mode"):
//
//   RESULT: latency_cycles=32.5 bandwidth_gbs=3012.7
//
// Each RESULT line holds one or more name=value pairs; names are [A-Za-z0-9_.]+, values decimal
// or scientific numbers. Other output is kept (its tail) but not read.

#include "foundation/expected/expected.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/stats/sample_stats.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

inline constexpr std::string_view result_prefix = "RESULT:";
/// Output lines kept from a trial for its report.
inline constexpr std::size_t program_output_tail_lines = 20;

struct result_value {
  std::string name;
  double value = 0;
  friend bool operator==(const result_value&, const result_value&) = default;
};

struct result_parse_error {
  std::size_t line = 0; // 1-based line of the output
  std::string text;     // the offending line
  std::string message;  // what is wrong with it
};

/// Every name=value of every RESULT line in `output`, in order.
expected<std::vector<result_value>, result_parse_error> parse_result_lines(std::string_view output);

enum class program_outcome {
  passed,     // exited 0 with at least one well-formed RESULT line
  failed,     // exited with a non-zero code
  crashed,    // killed by a signal (its own fault, not the watchdog)
  timeout,    // still running at the watchdog; killed
  bad_output, // exited 0 but printed no RESULT line, or a malformed one
};

std::string_view to_string(program_outcome outcome);
std::optional<program_outcome> program_outcome_from_string(std::string_view text);
inline constexpr program_outcome all_program_outcomes[] = {program_outcome::passed, program_outcome::failed,
                                                           program_outcome::crashed, program_outcome::timeout,
                                                           program_outcome::bad_output};

struct program_trial {
  program_outcome outcome = program_outcome::failed;
  child_exit exit;
  double wall_s = 0;                 // seconds from spawn to exit (or kill)
  std::vector<result_value> results; // passed trials only
  std::string detail;                // why it did not pass
  std::string output_tail;           // the last lines it printed
};

struct program_run_options {
  std::filesystem::path executable;
  std::vector<std::string> arguments;
  std::optional<std::string> visible_devices; // CUDA_VISIBLE_DEVICES: the GPU it is pinned to
  std::chrono::milliseconds watchdog{60'000};  // per trial
  std::uint32_t trials = 1;
  std::filesystem::path output_dir;            // trial-<n>.log files are written here
};

struct program_report {
  std::vector<program_trial> trials;
  // Per RESULT name, over the passed trials. The values keep the program's own unit: here the
  // "_s" of sample_stats' field names reads as "in the samples' unit".
  std::map<std::string, sample_stats> results;
  std::uint32_t passed = 0;
};

/// Runs the trials one after another; a trial that fails does not stop the others. The error is
/// only for a program that cannot be started at all.
expected<program_report, spawn_error> run_program(const program_run_options& options);

} // namespace warpforge::gpu
