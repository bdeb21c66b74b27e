#pragma once
// The reports of a calibration run, (re)written into its run directory after every parameter, so
// that a run killed halfway still leaves current reports, and a resume reads results.json back:
//
//   report.md          every parameter against its published value (results/report.hpp)
//   results.json       every field of every result: the run's record, read back by a resume
//   measurements.tsv   the seed's columns
//   accel-sim.config   the -gpgpu_* lines Accel-Sim reads (results/simulator.hpp)
//   gpgpu-sim.config   the same for GPGPU-Sim
//   charts/cv.svg      CV per parameter; charts/<parameter>-latency.svg per swept parameter

#include "calibrate/catalog.hpp"
#include "calibrate/results/parameter_result.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

inline constexpr std::string_view report_file = "report.md";
inline constexpr std::string_view results_file = "results.json";
inline constexpr std::string_view measurements_file = "measurements.tsv";
inline constexpr std::string_view accel_sim_file = "accel-sim.config";
inline constexpr std::string_view gpgpu_sim_file = "gpgpu-sim.config";
inline constexpr std::string_view charts_folder = "charts";

/// charts/<parameter>-latency.svg
std::filesystem::path curve_chart_path(const std::filesystem::path& run_dir, std::string_view parameter);

/// Writes every report for `results` (catalog order). Each file is replaced atomically; a file
/// that cannot be written does not stop the others: the error lists each one that failed.
expected<void, std::vector<std::string>> write_reports(const std::filesystem::path& run_dir,
                                                       const std::vector<parameter_result>& results,
                                                       const catalog& cat);

/// results.json of `run_dir` read back: empty when the file is absent (nothing measured yet);
/// the error names the file and the bad field.
expected<std::vector<parameter_result>, std::string> read_results(const std::filesystem::path& run_dir);

} // namespace warpforge::calibrate
