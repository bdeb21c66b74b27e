#pragma once
// Counter validation of a calibrate benchmark through Nsight Compute's CLI: after the trials,
// the benchmark is run once more under ncu and its measured kernel's validation metrics (the
// catalog's validation_metrics) are read. Clocks are never locked (--clock-control none).
//
// Which launch is "the measured kernel": the built-in benchmarks share no kernel naming rule
// (wf_stream_kernel, wf_chase_kernel, branches, lane_chase, ...), but each times its LAST launch
// (warm-ups and set-up kernels come first; a sweep's last launch is its largest working set). So
// two ncu passes, both under --clock-control none --csv --page raw --print-units base:
//   1. count:   --metrics gpu__time_duration.sum           every launch, one replay pass each
//   2. profile: --metrics <validation metrics> --launch-skip <count-1> --launch-count 1
// A benchmark that launched nothing, or a count that differs between runs, reads as not validated.
// --cache-control none: the profiled launch sees the caches as the benchmark left them (its own
// warm-up), as the timed launch did, rather than flushed.
//
// Verdicts (the report's counter verdict; one starting with "PASS" counts as validated):
//   "PASS (re-derived v unit = count x scale / over, ratio r ...; ncu: m1=v1 unit, ...)"
//                                      every metric reported and non-zero, and where the catalog
//                                      has a rederive formula (bandwidths, throughputs), the value
//                                      recomputed from this launch's counters within ±5%
//   "MISMATCH: <metric> = 0 ..."       a metric that must count something counted nothing
//   "MISMATCH: re-derived ... (beyond ±5%)"  the counters' value disagrees with the measured one
//   "MISMATCH: not re-derived: ..."    a rederive formula whose counters ncu did not give
//   "not validated: <why>"             no ncu, ncu failed or timed out, counters restricted, ...

#include "calibrate/catalog.hpp"
#include "foundation/expected/expected.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// How long one ncu pass may take (its start-up alone takes seconds); then it is killed.
inline constexpr std::chrono::milliseconds default_ncu_pass_timeout{60'000};
/// The value re-derived from counters may differ from the measured one by this fraction (±5%).
inline constexpr double rederive_tolerance = 0.05;
/// The metric of the counting pass: one replay pass per launch.
inline constexpr std::string_view launch_count_metric = "gpu__time_duration.sum";

/// The files a validation leaves in the parameter's folder (jobs/<param>/).
inline constexpr std::string_view ncu_count_csv = "ncu-count.csv";
inline constexpr std::string_view ncu_profile_csv = "ncu-counters.csv";
inline constexpr std::string_view ncu_output_log = "ncu.log"; // both passes' stdout+stderr

/// ncu's arguments for the counting pass (everything after the ncu executable).
std::vector<std::string> ncu_count_arguments(const std::filesystem::path& csv_file,
                                             const std::filesystem::path& executable);
/// ncu's arguments for the profiling pass: `metrics` on launch number `skip` (0-based).
std::vector<std::string> ncu_profile_arguments(const std::vector<std::string>& metrics, std::size_t skip,
                                               const std::filesystem::path& csv_file,
                                               const std::filesystem::path& executable);

/// How many launches the counting pass's CSV lists; the error says why none can be read.
expected<std::size_t, std::string> count_launches(std::string_view csv_text);

/// The verdict on the profiling pass's CSV (its last launch) for `what`, whose trials measured
/// `measured` (in what.unit). Pure, for tests.
std::string counter_verdict(std::string_view csv_text, const parameter& what, double measured);

/// "not validated: ..." when ncu's output says why it gave no counters (restricted counters,
/// ==ERROR== lines); nullopt when it says nothing of note.
std::optional<std::string> ncu_refusal(std::string_view output_text);

struct counter_check_request {
  std::filesystem::path ncu;                  // the ncu executable
  std::filesystem::path executable;           // the built benchmark, run under ncu
  std::string visible_devices;                // CUDA_VISIBLE_DEVICES: the GPU's UUID
  std::filesystem::path dir;                  // where the CSV and log files are written
  std::chrono::milliseconds timeout = default_ncu_pass_timeout; // per ncu pass
};

/// Both ncu passes (blocking; the caller holds the GPU's lock) and the verdict.
std::string validate_with_ncu(const counter_check_request& request, const parameter& what, double measured);

/// ncu on $PATH, else in $CUDA_HOME/bin (as gpu/ finds it); nullopt when there is none.
std::optional<std::filesystem::path> locate_ncu();

} // namespace warpforge::calibrate
