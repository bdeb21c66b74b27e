#pragma once
// `warpforge runs`: list the run directories under a run root, and prune the old finished ones
// (apps/warpforge/cli/runs_listing.hpp says what a run directory is, its states and how age is measured).

#include "apps/warpforge/cli/exit_codes.hpp"

#include <string>

namespace warpforge::cli {

struct runs_options {
  std::string root = "runs";  // the run root; the same default as bench, diagnose, program, calibrate
  bool json = false;          // one JSON object on stdout
  bool prune = false;         // remove finished and failed runs older than `older_than`
  std::string older_than;     // with prune: "7d", "12h", "30m", "45s"
  bool dry_run = false;       // with prune: say what would go, remove nothing
};
exit_code runs(const runs_options& options);

} // namespace warpforge::cli
