#pragma once
// The ncu metric source, coordinator side: when the runner's CUPTI range profiler cannot answer
// (another tool holds the counters, a CUPTI too old for the chip, ...), run Nsight Compute's CLI
// around a one-shot runner and read its CSV into the same profile_result runner_client::profile
// returns (source ncu). docs/measurement.md, "Metrics".
//
//   ncu --csv --page raw --print-units base --clock-control none --cache-control all
//       --replay-mode kernel --metrics <m1,m2,...> --kernel-name-base mangled
//       --kernel-name <entry> --launch-count 1 --log-file <work_dir>/ncu.csv
//       <warpforge-runner> --execute <work_dir>/request.json
//
// Clocks are never locked (--clock-control none), as in every warpforge measurement. ncu needs
// the same counter permission as CUPTI: ERR_NVGPUCTRPERM in its output is counters_unavailable.
// No CUDA here: ncu and the runner are child processes (child_process.hpp); blocking calls.

#include "foundation/expected/expected.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/runner/profile_request.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// How long ncu may take for one launch and all its passes (its start-up alone takes seconds).
inline constexpr std::chrono::milliseconds default_ncu_timeout{300'000};

/// The files profile_with_ncu writes in its work directory.
inline constexpr std::string_view ncu_request_file_name = "request.json"; // the run_race body (kernels[0] is launched)
inline constexpr std::string_view ncu_csv_file_name = "ncu.csv";          // ncu's --log-file
inline constexpr std::string_view ncu_output_file_name = "ncu.out";       // stdout+stderr

struct ncu_options {
  std::filesystem::path ncu;      // the ncu executable (toolchain_report: cuda_tool::ncu)
  std::filesystem::path runner;   // warpforge-runner (locate_runner())
  std::filesystem::path work_dir; // created if missing; the files above are (over)written there
  std::optional<std::string> visible_devices; // CUDA_VISIBLE_DEVICES for ncu and the runner
  std::chrono::milliseconds timeout = default_ncu_timeout; // then ncu's process group is killed
};

/// The arguments after the ncu executable, for `request` (metrics, entry, replay: kernel →
/// ncu's kernel replay, user → ncu's application replay, which re-runs the one-shot runner per
/// pass). Never anything that locks clocks.
std::vector<std::string> ncu_arguments(const profile_request& request, const ncu_options& options);

/// One profiled launch: a row of ncu's raw page.
struct ncu_launch {
  std::map<std::string, double> values;    // columns holding a number (thousands separators
                                           // removed), in the units row's unit
  std::map<std::string, std::string> text; // the other columns ("Kernel Name", "n/a", ...)
};

/// ncu's `--csv --page raw` output: ==PROF==/==WARNING== lines (skipped), a header row of column
/// names starting with "ID" (launch identity, device__attribute_*, launch__*, profiler__*, and each
/// requested metric with the suffixes ncu adds), a units row (first field empty), then one row
/// per profiled launch.
struct ncu_csv {
  std::map<std::string, std::string> units; // column → unit ("" when the column has none)
  std::vector<ncu_launch> launches;         // in profiling order
};

struct ncu_csv_error {
  std::size_t line = 0; // 1-based line of the text, 0 for the text as a whole
  std::string message;
};

expected<ncu_csv, ncu_csv_error> parse_ncu_csv(std::string_view text);

/// The raw-page column holding how many passes ncu replayed the launch for.
inline constexpr std::string_view ncu_passes_column = "profiler__replayer_passes";

/// The profile_result for one ncu run: its CSV (the --log-file), its other output and how it
/// ended (nullopt: killed at the timeout). Pure, for tests.
profile_result interpret_ncu_run(const profile_request& request, std::string_view csv_text,
                                 std::string_view output_text, const std::optional<child_exit>& exit,
                                 std::chrono::milliseconds timeout);

/// Writes the request file, runs ncu (blocking, up to options.timeout) and reads what it printed.
/// Never throws; a failure to start ncu is a result with status failed and the reason in note.
profile_result profile_with_ncu(const profile_request& request, const ncu_options& options);

} // namespace warpforge::gpu
