#pragma once
// The deploy state machine (deploy/README.md walks it): gate, lock, build the original, time it,
// back it up, write the champion, build (fix), verify, time again, decide; roll back on any
// failure; unlock. Every step is a step_record given to the sink and journaled, whole, in
// <work_dir>/journal.json. Inside the project only the target file and the marker are ever
// written (project_guard.hpp). Blocking: the deployer actor runs it on a thread of its own.
//
//   deploy::deploy_request request{target, chosen, "transpose", run_dir, run_dir / "deploy/..."};
//   auto report = deploy::run_deploy(request, sink);   // report.outcome, report.reason
//
// A kill at any point leaves the marker (its owner, its stage, the backup): recover() puts the
// original back, or only unlocks when the kill came before the target file was written.

#include "deploy/champion.hpp"
#include "deploy/deploy_steps.hpp"
#include "deploy/kernel_times.hpp"
#include "config/deploy_target.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// A correction of a champion that does not build: given the build's log and the text that was
/// written (the region's content, or the whole file's, defines included), the corrected text for
/// the same place; nullopt when it has none. The proposer's compile-fix loop, when configured.
using fix_build_function =
    std::function<std::optional<std::string>(std::string_view build_log, std::string_view written)>;

struct deploy_request {
  deploy_target target;
  champion chosen;
  std::string job;
  std::filesystem::path run_dir;   // the run the champion comes from (named in the marker)
  std::filesystem::path work_dir;  // e.g. <run>/deploy/<job>/<UTC stamp>: journal, backup, logs
  fix_build_function fix_build;    // empty: a build failure rolls back at once
  int fix_tries = 2;               // corrections tried before rolling back
};

struct deploy_report {
  deploy_outcome outcome = deploy_outcome::failed;
  std::string reason;                   // why it is not accepted; "" when accepted
  std::optional<timing_summary> before; // the baseline timing, when taken
  std::optional<timing_summary> after;  // the champion's, when taken
  std::optional<kernel_comparison> kernels; // every kernel before and after (observed timing, at
                                            // decide), or the note that none was timed (RESULT
                                            // timing, from the baseline on); journaled
  std::filesystem::path journal;        // <work_dir>/journal.json
  std::filesystem::path written;        // <work_dir>/written/<file>: the text written, when any
  std::vector<step_record> steps;       // every record given to the sink, in order
  std::filesystem::path interrupted_run_dir;  // recover(): the run and the work folder of the
  std::filesystem::path interrupted_work_dir; // deploy that never ended (from the marker)
  std::string interrupted_reason;             // recover(): how that deploy ended ("killed before
                                              // it ended; its original was put back")
};

/// Runs one deploy to its end. Never throws for an expected failure: the outcome says it.
deploy_report run_deploy(const deploy_request& request, deploy_sink& sink);

/// Puts back the original after a deploy that did not finish (killed mid-way): reads the marker;
/// refuses (nothing changed) while the deploy's process still runs, or when it ran on another
/// host; killed before its first write (stage locked or backed_up), only removes the marker;
/// after it, restores the backup byte for byte unless the file already holds the original (by
/// the hash the marker recorded), rebuilds, removes the marker. Journals "recovered" in
/// `work_dir` (a fresh folder for this recovery). No marker: nothing_to_recover.
deploy_report recover(const deploy_target& target, const std::filesystem::path& work_dir,
                      deploy_sink& sink, std::string_view job = {});

} // namespace warpforge::deploy
