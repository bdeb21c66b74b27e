#pragma once
// From a finished run to a deploy: the job's problem spec read again for its [deploy] target,
// the job's champion (or a kernel file a person chose), and a fresh work folder
// <run>/deploy/<job>/<UTC stamp> for the journal, the backup and the logs.
//
//   auto request = deploy::plan_deploy({run_dir, "transpose", ""}, std::chrono::system_clock::now());
//   if (request) deploy::run_deploy(*request, sink);
//
// The deployer actor and `warpforge deploy` both start here, so both read the same target.

#include "deploy/run_deploy.hpp"
#include "foundation/expected/expected.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::deploy {

struct deploy_choice {
  std::filesystem::path run_dir; // a finished run
  std::string job;               // "" = the run's only job with a [deploy] target
  std::filesystem::path source;  // "" = the job's champion; else the kernel file to write
};

/// The deploy of `choice`. Errors: not a run, no such job (naming the run's jobs), its problem
/// has no [deploy] table or the table is wrong (its errors, placed), no champion, an unreadable
/// --source file.
expected<deploy_request, std::string> plan_deploy(const deploy_choice& choice,
                                                  std::chrono::system_clock::time_point now);

/// The recovery of an unfinished deploy of `choice.job` (choice.source is not used): the target
/// and a fresh work folder. The request carries no champion.
expected<deploy_request, std::string> plan_recovery(const deploy_choice& choice,
                                                    std::chrono::system_clock::time_point now);

/// `<run>/deploy/<job>/<YYYYmmddTHHMMSSZ>`, with `-2`, `-3`... when that folder exists already.
std::filesystem::path fresh_work_dir(const std::filesystem::path& run_dir, std::string_view job,
                                     std::chrono::system_clock::time_point now);

} // namespace warpforge::deploy
