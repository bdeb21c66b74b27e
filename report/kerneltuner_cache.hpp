#pragma once
// A job's measurements as a Kernel Tuner cache file (schema_version 1.0.0: device_name,
// kernel_name, problem_size, tune_params_keys, tune_params, objective "time", cache), so Kernel
// Tuner's tools (simulation mode, kernel_tuner.cache readers, its dashboards) read what a warpforge
// campaign measured. Written by `warpforge report --format kerneltuner`.
//
// Per configuration (the key: its tunable values joined by "," in tune_params_keys order):
//   the tunables, "time" in milliseconds (the fastest median over the GPUs), "times" (each GPU's
//   median, ms), the timing members Kernel Tuner requires (compile_time, verification_time,
//   benchmark_time, strategy_time, framework_time; 0 where warpforge does not record them,
//   benchmark_time = the median times the samples, ms), and "timestamp" (the branch's, ISO 8601).
// A configuration that failed carries Kernel Tuner's failure words as "time":
//   compile_error, sass_rejected -> "CompilationFailedConfig"; runtime_error, timeout ->
//   "RuntimeFailedConfig"; incorrect, inconsistent, suspicious, not_supported -> "InvalidConfig".
// Left out: branches that were not measured for lack of a chance (not_run, interrupted, pending),
// ablations (a method taken away, not a configuration), and branches without tunables.
// Where one configuration was measured more than once, the fastest time stands.
// Kernel Tuner's key pattern is digits and commas: a string-valued tunable gives a key outside it.

#include "report/campaign_report.hpp"

#include <string>
#include <vector>

namespace warpforge::report {

/// The Kernel Tuner cache JSON of one job of `report`.
std::string render_kerneltuner_cache(const job_entry& job);

/// The file name it is written to beside summary.md: "<job>-kerneltuner-cache.json" (the job's
/// name through storage::path_component, so no name places a file outside the run directory).
std::string kerneltuner_cache_file_name(std::string_view job_name);

/// Writes every job's cache into the run directory, each atomically (rename); returns the files
/// written (relative to run_dir) or what failed.
expected<std::vector<std::string>, std::string> write_kerneltuner_caches(const campaign_report& report);

} // namespace warpforge::report
