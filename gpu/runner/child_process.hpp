#pragma once
// A child process started with posix_spawn (never fork: the coordinator has threads) and always
// reaped: by wait_for_exit, kill_and_reap, or the destructor (which kills a child still running).
// stdin is /dev/null; stdout and stderr go to one file so a crash report can quote the end of it.
// The child gets its own process group, so a terminal's Ctrl-C reaches the coordinator only and
// the coordinator decides how its children stop. Its environment is child_environment()'s: this
// process's without any secret (child_environment.hpp), with the spawn's settings on top.

#include "foundation/expected/expected.hpp"
#include "gpu/runner/child_environment.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// How a child ended: exactly one of exit_code and signal is set.
struct child_exit {
  std::optional<int> exit_code; // the status passed to exit()
  std::optional<int> signal;    // the signal that killed it

  /// "exit code 3" or "signal 9 (Killed)".
  std::string to_string() const;
  friend bool operator==(const child_exit&, const child_exit&) = default;
};

struct spawn_options {
  std::filesystem::path executable;                                  // run as is, no PATH search
  std::vector<std::string> arguments;                                // argv[1..]
  std::vector<std::pair<std::string, std::string>> environment;      // set over the inherited one,
                                                                     // less its secrets (child_environment.hpp)
  std::filesystem::path output_file;                                 // stdout+stderr, appended
};

/// Why a spawn failed: the step and errno.
struct spawn_error {
  int error_number = 0; // errno
  std::string detail;   // "posix_spawn /x/warpforge-runner: No such file or directory"
};

/// How often a wait checks whether the child has exited.
inline constexpr std::chrono::milliseconds child_poll_interval{5};

class child_process {
public:
  static expected<child_process, spawn_error> spawn(const spawn_options& options);

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  /// Kills and reaps a child that is still running.
  ~child_process();

  pid_t pid() const { return pid_; }

  /// Reaps the child if it has exited (non-blocking); true while it runs.
  bool running();
  /// Set once the child has been reaped.
  const std::optional<child_exit>& exit_status() const { return exit_; }

  /// Waits up to `timeout` for the child to exit; its exit once reaped, else nullopt.
  std::optional<child_exit> wait_for_exit(std::chrono::milliseconds timeout);

  /// SIGKILL (if still running), then a blocking reap. Idempotent.
  child_exit kill_and_reap();

private:
  explicit child_process(pid_t pid) : pid_(pid) {}
  void record(int wait_status);

  pid_t pid_ = -1;
  std::optional<child_exit> exit_;
};

} // namespace warpforge::gpu
