#pragma once
// Slurm's client commands — sbatch, squeue, scancel — run as child processes
// (gpu/runner/child_process.hpp: posix_spawn, arguments as a vector, never a shell), found on
// PATH as a user's shell finds them (`module load slurm` included), talking to the cluster that
// SLURM_CONF or the installed slurm.conf names. Each command's output (stdout and stderr) is
// written to a log file in the run directory and quoted in errors.

#include "foundation/expected/expected.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::hosts {

/// How long one sbatch, squeue or scancel may take (a busy slurmctld answers in seconds).
inline constexpr std::chrono::seconds slurm_command_timeout{60};

/// A Slurm command that could not be found, run, or did not do what was asked: names the command,
/// what went wrong, and quotes its output.
struct slurm_error {
  std::string message;
};

/// Where a job is in its life, as squeue tells it.
enum class job_activity : std::uint8_t {
  active,     // pending, running, suspended, configuring, requeued...: its processes may run
  completing, // ended or cancelled; Slurm is ending its processes (within the cluster's KillWait)
  ended,      // completed, cancelled, failed, timed out..., or no longer known to squeue
};
std::string_view to_string(job_activity activity);
inline constexpr job_activity all_job_activities[] = {job_activity::active, job_activity::completing,
                                                      job_activity::ended};

/// squeue's state word (%T: RUNNING, COMPLETING, CANCELLED...) as an activity. A word this
/// version does not know counts as active, so a job is cancelled rather than left running.
job_activity job_activity_of_state(std::string_view state);

/// The state word in `squeue --noheader --format=%T`'s output: its last line that is one word of
/// capitals and underscores (warnings on the same stream come before it), or nullopt (no line:
/// squeue no longer knows the job).
std::optional<std::string> parse_squeue_state(std::string_view output);

/// The job id in `sbatch --parsable`'s output ("123" or "123;cluster", after any warning lines),
/// or nullopt.
std::optional<std::string> parse_parsable_job_id(std::string_view output);

class slurm_client {
public:
  /// sbatch, squeue and scancel on PATH, each command's output written to `log_folder`/<command>.log.
  static expected<slurm_client, slurm_error> find(const std::filesystem::path& log_folder);

  /// `sbatch --parsable script`: the new job's id.
  expected<std::string, slurm_error> submit(const std::filesystem::path& script) const;
  /// The job's activity (`squeue --noheader --states=all --format=%T --jobs=<id>`).
  expected<job_activity, slurm_error> activity(std::string_view job_id) const;
  /// `scancel <id>`; a job Slurm reports as already ended is no error.
  expected<void, slurm_error> cancel(std::string_view job_id) const;

private:
  struct command_output {
    int exit_code = 0;
    std::string text;
  };
  expected<command_output, slurm_error> run(const std::filesystem::path& tool,
                                            const std::vector<std::string>& arguments) const;

  std::filesystem::path sbatch_, squeue_, scancel_, log_folder_;
};

} // namespace warpforge::hosts
