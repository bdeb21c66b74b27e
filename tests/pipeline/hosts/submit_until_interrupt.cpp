// The submitting process of the interrupt test (slurm_hosts_test.cpp): submits the hosts of a
// run, waits for SIGINT as `warpforge run` does (a flag the handler sets), then cancels them and
// prints the outcome.
//
//   submit_until_interrupt RUN_DIR STAND_IN CREDENTIAL_DIR
//   -> "submitted <id>", then after SIGINT "cancel <outcome> <id>"; exit 0 when cancelled
#include "pipeline/hosts/slurm_hosts.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

namespace {

std::atomic<bool> interrupted{false};

void on_interrupt(int) { interrupted = true; }

} // namespace

int main(int argc, char** argv) {
  using namespace warpforge;
  if (argc != 4) {
    std::cerr << "usage: submit_until_interrupt RUN_DIR STAND_IN CREDENTIAL_DIR\n";
    return 2;
  }
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigaction(SIGINT, &action, nullptr);

  config::slurm_spec spec;
  spec.nodes = 1;
  spec.gpus_per_node = 1;
  spec.time_limit = "5";
  spec.time_limit_s = 300;
  hosts::host_command command;
  command.warpforge = argv[2];
  command.coordinator.host = "127.0.0.1";
  command.coordinator.port = 4242;
  command.credential = argv[3];
  auto job = hosts::submit_hosts(spec, command, argv[1]);
  if (!job) {
    std::cout << "submit failed: " << job.error().message << std::endl;
    return 1;
  }
  std::cout << "submitted " << job->id << std::endl;
  while (!interrupted)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto cancelled = hosts::cancel_hosts(argv[1]);
  if (!cancelled) {
    std::cout << "cancel failed: " << cancelled.error().message << std::endl;
    return 1;
  }
  std::cout << "cancel " << to_string(cancelled->outcome) << " " << cancelled->job_id << std::endl;
  return cancelled->outcome == hosts::cancel_outcome::cancelled ? 0 : 1;
}
