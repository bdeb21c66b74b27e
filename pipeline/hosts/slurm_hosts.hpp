#pragma once
// A campaign's GPU hosts placed by Slurm: the API `warpforge run`, `resume` and `stop` call
// (README.md, docs/hosts.md "Slurm").
//
//   auto job = hosts::submit_hosts(*spec.hosts.slurm, {warpforge, coordinator, credential}, run_dir);
//   ...                                   // the hosts call back; the campaign runs
//   hosts::cancel_hosts(run_dir);         // at its end, on Ctrl-C, by `warpforge stop`
//
// The job id is kept in <run_dir>/hosts/slurm-job while the job may run, so a later process
// (`stop`, `resume`) finds it; cancel_hosts asks squeue first and cancels only a job that is still
// active, so a job that has ended (or was cancelled already) is never cancelled twice.

#include "config/hosts_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "pipeline/hosts/host_command.hpp"
#include "pipeline/hosts/slurm_client.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::hosts {

/// How long cancel_hosts waits, by default, for a cancelled job to leave squeue's active and
/// completing states (Slurm sends SIGTERM, then SIGKILL after the cluster's KillWait).
inline constexpr std::chrono::seconds default_cancel_wait{30};

/// A submitted job of hosts.
struct slurm_job {
  std::string id;                     // Slurm's job id
  std::filesystem::path script;       // <run_dir>/hosts/slurm.sbatch, as submitted
  std::filesystem::path output;       // <run_dir>/hosts/slurm-<id>.out: the hosts' output; empty
                                      // when the spec's sbatch_options name an --output of their own
  std::string replaced_id;            // an earlier job of this run cancelled first ("" if none)
};

/// Writes the sbatch script into `run_dir`, cancels a job of an earlier process of this run that
/// is still active (a resume after a kill), submits with `sbatch --parsable` and keeps the id.
/// Errors name the step: the run directory's path, writing, finding or running sbatch.
expected<slurm_job, slurm_error> submit_hosts(const config::slurm_spec& spec, const host_command& command,
                                              const std::filesystem::path& run_dir);

enum class cancel_outcome : std::uint8_t {
  no_job,        // the run has no job on record
  already_ended, // its job had ended (or was unknown to squeue): not cancelled again
  cancelled,     // scancel sent, and the job left the active and completing states in time
  cancelling,    // scancel sent; still completing at the deadline (Slurm kills it after KillWait)
};
std::string_view to_string(cancel_outcome outcome);
inline constexpr cancel_outcome all_cancel_outcomes[] = {cancel_outcome::no_job, cancel_outcome::already_ended,
                                                         cancel_outcome::cancelled, cancel_outcome::cancelling};

struct cancel_report {
  cancel_outcome outcome = cancel_outcome::no_job;
  std::string job_id; // empty for no_job
};

/// Cancels the run's job if it is still active and forgets it (the record goes once scancel was
/// accepted or the job had ended); waits up to `wait` for it to finish completing. Idempotent:
/// a second call answers no_job. An unreadable record or a squeue/scancel failure is an error,
/// and the record stays for the next try.
expected<cancel_report, slurm_error> cancel_hosts(const std::filesystem::path& run_dir,
                                                  std::chrono::milliseconds wait = default_cancel_wait);

/// The job id on record for `run_dir`, nullopt when there is none; an error for a record that
/// does not hold a job id.
expected<std::optional<std::string>, slurm_error> recorded_job(const std::filesystem::path& run_dir);

} // namespace warpforge::hosts
