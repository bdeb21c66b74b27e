#pragma once
// What a run recorded of its branches, read back for printing as typed records: the
// branch_compiled, branch_checked, branch_measured and branch_failed events of the run
// directory's store (docs/events.md lists their fields). bench and diagnose print their tables
// from these, so what they show is exactly what was recorded. The event's JSON is read here and
// nowhere else: an event missing a field it always carries is an error naming the event and key.

#include "foundation/expected/expected.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "sass/method_check.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::cli {

/// Which branch a record is about (gpu -1: none, as for a build), and when it was recorded.
struct recorded_place {
  std::int64_t seq = 0;     // the event's: a later record of the same branch supersedes
  std::int64_t iteration = -1;
  std::int64_t branch = -1; // its ordinal in the iteration
  int gpu = -1;
};

/// branch_compiled: a branch built, for the first GPU's architecture.
struct compiled_record {
  recorded_place at;
  std::string arch;          // "sm_90"
  bool cache_hit = false;    // from the content cache, not NVRTC
  double compile_s = 0;      // seconds
  std::string sass_check;    // "checked", or why not; empty: recorded before the events said so
};

/// One catalog method the branch's SASS was searched for.
struct method_record {
  std::string method;        // the signature id
  sass::method_presence presence = sass::method_presence::unavailable;
  std::string evidence;      // the matching instructions, when present
  std::int64_t matches = 0;  // how many matched
};

/// branch_checked: the branch's SASS searched for methods (sorted by method id).
struct checked_record {
  recorded_place at;
  std::vector<method_record> methods;

  /// Whether the SASS could be read at all (a disassembler was here).
  bool sass_read() const;
};

/// branch_measured: a kernel that passed its check on a GPU, its timing, where its wall time went
/// and its race's shared costs. Times in seconds; ratios as 1.0 = 100%.
struct measured_record {
  recorded_place at;
  double time_s = 0;             // median per launch (several configurations: weighted sum)
  double ci95_low_s = 0;         // 95% confidence interval of the median
  double ci95_high_s = 0;
  double cv = 0;                 // stddev / mean
  std::int64_t samples = 0;      // timed launches
  std::int64_t rounds = 0;       // interleaved rounds
  double kernel_s = 0;           // GPU time of all its launches
  double load_s = 0;             // per phase of its wall time
  double check_s = 0;
  double warmup_s = 0;
  double timing_s = 0;
  std::int64_t race_kernels = 0; // kernels raced together
  double race_inputs_s = 0;      // the race's shared costs
  double race_reference_s = 0;   // 0: the reference was kept from an earlier race
  double race_setup_s = 0;
  double race_wall_s = 0;        // the race in the runner
  double request_s = 0;          // the race in the worker, runner start included
};

/// branch_failed: a kernel that ended without a measurement (gpu -1: before any GPU).
struct failed_record {
  recorded_place at;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::string detail;            // why
};

/// Every branch record of a run, each kind in the order it was recorded.
struct recorded_results {
  std::vector<compiled_record> compiled;
  std::vector<checked_record> checked;
  std::vector<measured_record> measured;
  std::vector<failed_record> failed;
};

/// What `run_dir`'s store recorded of its branches; the error names the file, or the event and
/// the field that could not be read.
expected<recorded_results, std::string> read_results(const std::filesystem::path& run_dir);

} // namespace warpforge::cli
