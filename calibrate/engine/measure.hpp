#pragma once
// Measuring one parameter, start to verdict:
//
//   its benchmark (bench/registry) -> build (nvcc, cached) -> SASS gate (a mismatch fails it
//   before any timing) -> N trials on one GPU -> read_output per trial -> summarize (throttled
//   trials discarded) + judge (results/status) -> counter check -> archive if it passed
//
// Every step's files land in <run>/jobs/<parameter>/ (compile.log, sass.txt, trial-<n>.log,
// counters); a passing benchmark is archived as <run>/solved/<parameter>.cu with its metadata
// header. The outcome is always a parameter_result: a failure is a status with notes, never an
// exception.

#include "calibrate/bench/registry.hpp"
#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/results/parameter_result.hpp"
#include "calibrate/results/report.hpp"
#include "calibrate/results/status.hpp"
#include "calibrate/results/trials.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// <run>/jobs/<parameter>/: the parameter's build log, SASS listing, trial logs and counters.
std::filesystem::path parameter_dir(const std::filesystem::path& run_dir, std::string_view parameter);
/// <run>/solved/<parameter>.cu: the archived passing benchmark.
std::filesystem::path archive_path(const std::filesystem::path& run_dir, std::string_view parameter);

/// "sm_90a" -> "sm_90": the architecture known values are listed under.
std::string base_arch(std::string_view arch);

/// Which arch nvcc builds `bench` for: `override_arch` when given, else an arch-specific one
/// the benchmark asks for ("sm_90a": wgmma), else the GPU's, else the benchmark's own.
/// `warning` says when the choice cannot hold the benchmark (wgmma built for a bare sm_90).
struct arch_choice {
  std::string arch;
  std::string warning; // empty: none
};
arch_choice choose_arch(const benchmark& bench, const gpu_slot& gpu, const std::string& override_arch);

/// What the trials of a parameter gave, before statistics.
struct trial_harvest {
  std::vector<trial> trials;                    // one per trial that gave a value
  std::vector<std::vector<curve_point>> curves; // the same trials' sweeps (possibly empty each)
  std::vector<double> raw_chase_cycles;         // the latency benchmarks' raw chase figure, per trial that printed one
  std::vector<double> index_chase_cycles;       // their index chase figure, likewise
  std::vector<std::string> notes;               // trials that failed or printed nothing usable
  std::optional<status> failure;                // set when no trial gave a value: why
};
/// Reads each trial's output (bench/result_lines); failed trials become notes, and when none
/// gave a value the failure is TIMEOUT (a trial hit the watchdog), else RUNTIME_ERROR (one
/// failed or crashed), else NO_DATA (they printed no value).
trial_harvest harvest_trials(const std::vector<trial_output>& outputs);

/// For a cache-size parameter (unit KiB or MiB: a working-set sweep), the size where its curve
/// leaves its first level for good (results/knee.hpp, find_onset), in that unit: the program's
/// own value is a first estimate, the knee has the last word. nullopt for other parameters or a
/// curve without a knee.
std::optional<double> knee_size(const std::vector<curve_point>& curve, std::string_view unit);
/// Cache sizes: replaces each trial's value by what its curve says, by the parameter's size_from:
/// knee_size() (onset; where there is none the program's estimate stays) or fit_capacity()
/// (miss_fit; where there is none the trial has no value). Notes say which trials had neither.
void apply_size_rule(const parameter& what, trial_harvest& harvest);

/// The sweep of the trial whose value is nearest the median (the raw curve the report keeps).
std::vector<curve_point> representative_curve(const trial_harvest& harvest, double median);

/// The notes that say how a value was measured, beside it: the catalog's method, the raw pointer
/// chase and index chase figures (medians over the trials that printed one), the published
/// figures for `arch` ("sm_90a" matches "sm_90") each with its method, source and the warpforge
/// figure of the same method beside it (or the catalog's literature_not_found), and, for a cache
/// size, the knee's position and sharpness on `curve`. Empty when there is nothing to add.
std::vector<std::string> method_notes(const parameter& what, const trial_harvest& harvest,
                                      const std::vector<curve_point>& curve, std::string_view arch = "");

struct measure_request {
  const parameter* what = nullptr;      // from the catalog
  const benchmark* bench = nullptr;     // nullptr: no built-in benchmark (NO_DATA)
  gpu_slot gpu;                         // where the trials run (no GPU: build and SASS gate only)
  std::uint32_t trials = 1;             // process runs, >= 1
  double throttle_fraction = default_throttle_fraction; // results/trials.hpp
  std::string arch_override;            // empty: choose_arch decides
  std::filesystem::path run_dir;        // exists
};

/// The whole path of one parameter. Never throws for a failing benchmark.
parameter_result measure_parameter(const measure_request& request, bench_steps& steps);

/// Writes archive_header(result) and the benchmark's source to archive_path(); the error names the file.
expected<std::filesystem::path, std::string> archive_benchmark(const parameter_result& result, const benchmark& bench,
                                                               const std::filesystem::path& run_dir);

} // namespace warpforge::calibrate
