#pragma once
// A run directory opened for reading, the one way every reader of a finished (or running) run
// starts: the folder checked to be a run directory, its store opened read-only (never created or
// migrated), the campaign and its jobs read. The report and the deployer's champion start here.
//
//   auto run = report::open_stored_run(run_dir);   // or the store_error saying why not
//   for (const auto& job : run->summary.jobs) ...  // run->db for further reads

#include "foundation/expected/expected.hpp"
#include "storage/database.hpp"
#include "storage/rows.hpp"
#include "storage/run_directory.hpp"
#include "storage/store_error.hpp"

#include <filesystem>

namespace warpforge::report {

struct stored_run {
  storage::run_directory dir;
  storage::database db;              // read-only
  storage::campaign_summary summary; // the campaign, its jobs, its branches by outcome
};

/// The run at `run_dir`. Errors: not a run directory, no store or one of another schema, a read
/// that failed (storage::to_string says which, naming the file).
expected<stored_run, storage::store_error> open_stored_run(const std::filesystem::path& run_dir);

} // namespace warpforge::report
