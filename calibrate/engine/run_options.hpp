#pragma once
// What one calibration run is asked to do, and its defaults (every number with its unit).
// `warpforge calibrate` and a `kind = "calibrate"` campaign both fill this struct.

#include "calibrate/results/trials.hpp" // default_throttle_fraction
#include "calibrate/schedule.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace warpforge::calibrate {

/// Trials (process runs) per parameter: enough for a median with a 95% CI and a CV.
inline constexpr std::uint32_t default_trials = 10;
/// How long one trial may run before it is killed (a TIMEOUT), milliseconds.
inline constexpr std::chrono::milliseconds default_trial_watchdog{60'000};
/// How long a GPU's worker waits for a GPU that another warpforge process holds, milliseconds.
inline constexpr std::chrono::milliseconds default_lock_timeout{600'000};
/// The notes file kept across runs, in the run root (calibrate/notes.hpp).
inline constexpr std::string_view notes_file_name = "calibrate-notes.json";

struct calibration_options {
  schedule_options schedule;                   // max_priority, only, reset
  std::uint32_t trials = default_trials;       // per parameter, >= 1
  double throttle_fraction = default_throttle_fraction; // in (0, 1]: a trial whose SM clock is below
                                               // this x the highest is discarded as throttled
  std::string arch;                            // nvcc's arch for every benchmark; empty: the
                                               // benchmark's own ("sm_90a" for wgmma) else the GPU's
  std::filesystem::path run_dir;               // exists; reports, archive and logs go here
  std::filesystem::path notes_path;            // the notes read by the plan and updated as it goes
  bool resume = false;                         // keep run_dir's earlier results (results.json)
};

} // namespace warpforge::calibrate
