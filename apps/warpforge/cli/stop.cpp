// `warpforge stop <run-dir>`: ends a campaign from another terminal as Ctrl-C ends it in its own.
// SIGINT goes to the process that holds the run directory (storage/run_owner.hpp), which records
// the campaign interrupted, stops its runners and cancels its Slurm hosts; once that process is
// gone (or when none was running: a coordinator SIGKILLed, a lost login node), the run's Slurm job
// still on record is cancelled here, so no allocation outlives its campaign (docs/hosts.md).
// `warpforge resume` continues the campaign.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/user_errors.hpp"

#include "pipeline/hosts/slurm_hosts.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_owner.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <thread>

namespace warpforge::cli {
namespace {

using clock = std::chrono::steady_clock;

// Waits until nobody holds `dir` or `wait` has passed; whether it was let go.
bool released_within(const storage::run_directory& dir, std::chrono::duration<double> wait) {
  for (const auto deadline = clock::now() + wait; clock::now() < deadline;
       std::this_thread::sleep_for(std::chrono::milliseconds{100}))
    if (!storage::run_owner::holder(dir))
      return true;
  return !storage::run_owner::holder(dir);
}

} // namespace

exit_code stop(const stop_options& options) {
  auto dir = storage::run_directory::open(options.run_dir);
  if (!dir) {
    std::cerr << "warpforge stop: " << user_message(dir.error()) << '\n';
    return exit_code::bad_input;
  }
  auto result = exit_code::ok;
  if (const auto holder = storage::run_owner::holder(*dir)) {
    // Only the holder of the directory's lock is signalled: the lock names the process that
    // writes this run, nothing else. kill() refuses another user's process (EPERM).
    if (::kill(static_cast<pid_t>(holder->pid), SIGINT) != 0 && errno != ESRCH) {
      std::cerr << "warpforge stop: cannot signal pid " << holder->pid << " (" << holder->command
                << "): " << std::strerror(errno) << '\n';
      return exit_code::failure;
    }
    std::cout << "stopping pid " << holder->pid << " (" << holder->command << ")\n";
    if (released_within(*dir, std::chrono::duration<double>{options.wait_s})) {
      std::cout << "stopped: the campaign is recorded interrupted; warpforge resume " << options.run_dir
                << " continues it\n";
    } else {
      std::cerr << "warpforge stop: pid " << holder->pid << " still holds " << options.run_dir << " after "
                << options.wait_s << " s; its Slurm hosts are cancelled anyway\n";
      result = exit_code::failure;
    }
  } else {
    std::cout << "no process is running " << options.run_dir << '\n';
  }
  auto cancelled = hosts::cancel_hosts(dir->path());
  if (!cancelled) {
    std::cerr << "warpforge stop: the run's Slurm job: " << cancelled.error().message << '\n';
    return exit_code::failure;
  }
  switch (cancelled->outcome) {
    case hosts::cancel_outcome::no_job: break; // no hosts of Slurm's, or the campaign cancelled them
    case hosts::cancel_outcome::already_ended:
      std::cout << "Slurm job " << cancelled->job_id << " had already ended\n";
      break;
    case hosts::cancel_outcome::cancelled: std::cout << "Slurm job " << cancelled->job_id << " cancelled\n"; break;
    case hosts::cancel_outcome::cancelling:
      std::cout << "Slurm job " << cancelled->job_id << " cancelled; Slurm is still ending its processes\n";
      break;
  }
  return result;
}

} // namespace warpforge::cli
