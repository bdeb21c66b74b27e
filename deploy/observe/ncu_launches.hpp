#pragma once
// The ncu fallback of observation: when the injection library cannot be used, Nsight Compute
// runs the program and profiles every launch (of the named kernel) for its duration and
// geometry. Clocks are never locked, caches are not flushed (the launches run as the program
// runs them, only serialised by ncu):
//
//   ncu --csv --page raw --print-units base --clock-control none --cache-control none
//       --target-processes all --print-kernel-base mangled
//       --metrics gpu__time_duration.sum,launch__grid_dim_x,...,launch__shared_mem_per_block_dynamic
//       [--kernel-name-base mangled --kernel-name <_Z...> |
//        --kernel-name-base demangled --kernel-name regex:<escaped name>]
//       --log-file <log_dir>/ncu.csv  <program> <args...>
//
// The raw page gives one row per launch with a column per metric (the layout
// gpu/runner/ncu_profile.hpp parses, captured from ncu 2025.3 on an H200: units row, "ns");
// the details page (no --page) gives one row per metric with "Metric Name", "Metric Unit" and
// "Metric Value" columns. Both are read here. ncu cannot give the scalar arguments' values:
// every launch has empty params.

#include "foundation/expected/expected.hpp"
#include "deploy/observe/launches/launch_record.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

/// The metrics asked of ncu, in its names.
inline constexpr std::string_view ncu_duration_metric = "gpu__time_duration.sum";
inline constexpr std::string_view ncu_observe_metrics[] = {
  ncu_duration_metric,
  "launch__grid_dim_x",  "launch__grid_dim_y",  "launch__grid_dim_z",
  "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z",
  "launch__shared_mem_per_block_dynamic",
};

/// ncu's arguments (after the ncu executable) to observe `command` (argv, argv[0] resolved),
/// writing its CSV to `csv_file`; `kernel` "" profiles every kernel.
std::vector<std::string> ncu_observe_arguments(std::string_view kernel, const std::filesystem::path& csv_file,
                                               const std::vector<std::string>& command);

/// The launches in ncu's CSV output (either page), in ncu's profiling order: sequence is ncu's
/// "ID" (the order among the profiled launches), kernel the "Kernel Name" column, demangled its
/// __cxa_demangle. An error names the line or the launch and the column that is wrong.
expected<std::vector<launch_record>, std::string> ncu_csv_launches(std::string_view csv_text);

} // namespace warpforge::observe
