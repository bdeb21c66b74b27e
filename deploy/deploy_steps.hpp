#pragma once
// The nouns of a deploy: its steps, their records, its outcome, and the sink each record goes
// to (the deployer actor turns them into store rows and feed events; tests collect them).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::deploy {

/// The steps of the state machine, in the order a deploy takes them (deploy/README.md).
enum class deploy_step : std::uint8_t {
  gate,           // the champion's standalone gain against gain_threshold; own launch refused
  lock,           // <project>/.warpforge-deploy.json created exclusively
  build_original, // the build command on the original, so the binary matches the source
  baseline,       // the time command, `repeats` runs: the before timing
  backup,         // the target file copied to <work_dir>/backup/<file>, fsync'd, read back
  write,          // the champion written into the target file (its region, its defines)
  build,          // the build command on the champion
  fix_build,      // the fix_build callback's correction written (then build again)
  verify,         // the verify command: exit 0 = the program's own check passed
  time,           // the time command, `repeats` runs: the after timing
  decide,         // after against before: accepted, or a reason to roll back
  restore,        // the backup written back, byte for byte
  rebuild,        // the build command on the restored original
  reverify,       // the verify command on the restored original
  unlock,         // the marker removed
};
std::string_view to_string(deploy_step step);
std::optional<deploy_step> deploy_step_from_string(std::string_view text);
inline constexpr deploy_step all_deploy_steps[] = {
  deploy_step::gate,  deploy_step::lock,     deploy_step::build_original, deploy_step::baseline,
  deploy_step::backup, deploy_step::write,   deploy_step::build,          deploy_step::fix_build,
  deploy_step::verify, deploy_step::time,    deploy_step::decide,         deploy_step::restore,
  deploy_step::rebuild, deploy_step::reverify, deploy_step::unlock,
};

/// How one step ended.
enum class step_status : std::uint8_t {
  passed,  // it did what it is for
  failed,  // it could not (the detail says why; the deploy rolls back or stops)
  skipped, // not needed (the gate below the threshold)
  refused, // not allowed (own launch, an unrecovered deploy holds the project)
};
std::string_view to_string(step_status status);
std::optional<step_status> step_status_from_string(std::string_view text);
inline constexpr step_status all_step_statuses[] = {step_status::passed, step_status::failed,
                                                    step_status::skipped, step_status::refused};

/// How a deploy (or a recovery) ended.
enum class deploy_outcome : std::uint8_t {
  accepted,           // the champion is in the project, built, verified and faster
  rolled_back,        // the original is back, byte for byte, and rebuilt
  skipped,            // the gate: the gain is below the threshold; nothing touched
  failed,             // it could not go on (the original does not build, a restore failed...)
  refused,            // own launch, or an unrecovered deploy holds the project; nothing touched
  recovered,          // recover(): the backup restored, rebuilt, the marker removed
  nothing_to_recover, // recover(): no marker in the project
  interrupted,        // a deploy killed before it ended; set on its row by the recover() that
                      // put its original back
};
std::string_view to_string(deploy_outcome outcome);
std::optional<deploy_outcome> deploy_outcome_from_string(std::string_view text);
inline constexpr deploy_outcome all_deploy_outcomes[] = {
  deploy_outcome::accepted, deploy_outcome::rolled_back, deploy_outcome::skipped,
  deploy_outcome::failed,   deploy_outcome::refused,     deploy_outcome::recovered,
  deploy_outcome::nothing_to_recover, deploy_outcome::interrupted,
};

/// Timing runs of the real program, in the unit of what was read (RESULT: the program's own;
/// observed: seconds of kernel time).
struct timing_summary {
  std::vector<double> samples; // one per run, in run order
  double median = 0;           // of the samples
  double spread = 0;           // the noise: max - min of the samples
  std::string unit;            // the result_key ("kernel_ms"), or "s" for observed timing

  friend bool operator==(const timing_summary&, const timing_summary&) = default;
};

/// One finished step: what the sink gets and the journal keeps.
struct step_record {
  std::string job;
  deploy_step step = deploy_step::gate;
  step_status status = step_status::passed;
  std::string detail;                  // what happened, or why not; a failure quotes its output
  double seconds = 0;                  // wall time of the step, seconds
  std::int64_t attempt = 1;            // build / fix_build / verify: 1, 2, ... within the deploy
  std::string log;                     // its command's log, relative to the work dir ("": none)
  std::optional<timing_summary> timing; // baseline and time steps

  friend bool operator==(const step_record&, const step_record&) = default;
};

/// Where each step's record goes, as soon as the step ends.
class deploy_sink {
public:
  virtual ~deploy_sink() = default;
  virtual void step(const step_record& record) = 0;
};

/// A sink that keeps every record (tests, the CLI's summary).
class collecting_sink final : public deploy_sink {
public:
  void step(const step_record& record) override { records.push_back(record); }
  std::vector<step_record> records;
};

} // namespace warpforge::deploy
