#pragma once
// What run_deploy() and recover() share: the record of each step (sink, journal, report), the
// target's commands with their numbered logs, putting the original back, removing the marker.
// Internal to deploy/.

#include "deploy/deploy_journal.hpp"
#include "deploy/project_command.hpp"
#include "deploy/run_deploy.hpp"

#include <chrono>
#include <map>
#include <string>

namespace warpforge::deploy {

class deploy_session {
public:
  using clock = std::chrono::steady_clock;

  deploy_session(const deploy_target& target, std::string job, std::filesystem::path work_dir,
                 journal_header header, deploy_sink& sink);

  const deploy_target& target() const { return target_; }
  const std::filesystem::path& work_dir() const { return work_dir_; }
  deploy_report& report() { return report_; }

  /// Gives a finished step to the sink, the journal and the report.
  void record(deploy_step step, step_status status, std::string detail, clock::time_point began,
              std::string log = {}, std::optional<timing_summary> timing = std::nullopt);

  /// Runs `command` in the project; its log is logs/<step>-<n>.log (n counts that step's runs).
  struct ran {
    command_result result;
    std::string log;       // relative to the work dir
    std::int64_t attempt;  // n
  };
  ran run(deploy_step step, const std::string& command, std::chrono::seconds limit);

  /// Restores `original` into the target file and checks it reads back byte for byte.
  bool restore(const std::string& original);
  /// Builds the restored original (and verifies it when `verify`).
  bool rebuild(bool verify);
  /// Removes the marker.
  bool unlock();

  /// Ends the journal and the report.
  deploy_report finish(deploy_outcome outcome, std::string reason);

  std::int64_t attempt_of(deploy_step step) const;

private:
  deploy_target target_;
  std::string job_;
  std::filesystem::path work_dir_;
  deploy_journal journal_;
  deploy_sink& sink_;
  deploy_report report_;
  std::map<deploy_step, std::int64_t> runs_; // commands run per step, for log names
};

/// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_bytes(const std::filesystem::path& file);

} // namespace warpforge::deploy
