#pragma once
// What a deploy writes: a job's champion, read back from a finished run directory (its SQLite
// store and the files each branch left), or a source a person chose (`warpforge deploy --source`).
//
//   auto chosen = deploy::load_champion(run_dir, "transpose");   // or an error naming why
//
// The job's champion is the iteration champion with the lowest measured median (what
// `warpforge report` calls the job's best); its gain is baseline_time / champion_time - 1.

#include "foundation/expected/expected.hpp"
#include "storage/rows.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::deploy {

struct champion {
  std::string source;                                          // the kernel's full source
  std::vector<std::pair<std::string, std::int64_t>> defines;   // tunables (spec order), then the
                                                               // variant's own defines; written
                                                               // as `#define NAME value` lines
  bool own_launch = false;      // a code variant with its own launch geometry (cannot be deployed
                                // into host code that launches with the problem's geometry)
  double standalone_gain = 0;   // baseline time / champion time - 1 (1.0 = 100%), standalone
  double time_s = 0;            // the champion's standalone median time, seconds (0: unknown)
  double baseline_time_s = 0;   // the baseline's, seconds (0: unknown)
  std::string label;            // "iter-3/branch-2" (or the --source file); names it in messages
  std::string source_path;      // its file, relative to the run directory ("" for a given one)
  bool given = false;           // a person chose it (--source): the gain gate is skipped
};

/// The champion of `job` in the finished run at `run_dir`. Errors: the folder is not a run
/// directory, no such job (naming the jobs there), no champion (no branch passed, or none beat
/// the baseline: each message says which), its source file is missing.
expected<champion, std::string> load_champion(const std::filesystem::path& run_dir,
                                              std::string_view job);

/// The run's jobs, in order: their names and problem files (for `--job` defaults and messages).
expected<std::vector<storage::job_row>, std::string> run_jobs(const std::filesystem::path& run_dir);

/// A champion a person gives: the file's text, no defines, gain unknown, given = true.
expected<champion, std::string> given_champion(const std::filesystem::path& source_file);

} // namespace warpforge::deploy
