#pragma once
// The coordinator's handle on one warpforge-runner child: spawn it, ask it things with a
// deadline, stop it. The seed of the gpu_worker's runner management. Blocking calls, one thread
// at a time: a gpu_worker runs it from its own detached actor.
//
//   auto runner = runner_client::start({.executable = *locate_runner(), .visible_devices = "0"});
//   if (!runner) log(runner.error().to_string());
//   auto report = runner->device_query(device_query_depth::full); // expected<host_report, runner_error>
//   runner->stop();                           // or let the destructor do it
//
// Each client has a private temporary directory (mode 0700) holding the ipc:// socket and the
// runner's stdout+stderr log; stop() removes it. A runner that misses a reply deadline is
// presumed stuck and killed; one that dies is reaped, and the error quotes its last log lines.

#include "foundation/expected/expected.hpp"
#include "gpu/device_report.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/protocol.hpp"
#include "gpu/runner/warm_up_level.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// How long a runner may take from spawn to its hello (loading cudart and CUPTI).
inline constexpr std::chrono::milliseconds default_runner_start_timeout{10'000};
/// How long a device query may take (a full one creates a CUDA context on every visible device).
inline constexpr std::chrono::milliseconds default_device_query_timeout{60'000};
/// How long stop() waits after the shutdown request before SIGKILL.
inline constexpr std::chrono::milliseconds default_runner_stop_grace{2'000};
/// How many of the runner's last log lines an error quotes.
inline constexpr std::size_t runner_log_tail_lines = 20;
/// The longest ipc:// path ZeroMQ accepts (sockaddr_un.sun_path is 108 bytes with the NUL).
inline constexpr std::size_t max_ipc_path_length = 107;

enum class runner_error_kind {
  not_found,      // no runner executable where we looked
  spawn_failed,   // posix_spawn, the temp dir or the socket failed
  start_timeout,  // no hello within start_timeout; the runner was killed
  reply_timeout,  // no reply within the request's timeout; the runner was killed
  crashed,        // the runner exited or was killed by a signal (or had been stopped)
  protocol_error, // the runner sent something we cannot read, or rejected our request
  request_failed, // a well-formed reply saying the request could not be carried out
};

inline constexpr std::array all_runner_error_kinds{
  runner_error_kind::not_found,     runner_error_kind::spawn_failed,
  runner_error_kind::start_timeout, runner_error_kind::reply_timeout,
  runner_error_kind::crashed,       runner_error_kind::protocol_error,
  runner_error_kind::request_failed};

std::string_view to_string(runner_error_kind kind);
std::optional<runner_error_kind> runner_error_kind_from_string(std::string_view text);

/// What a kernel that the runner could not answer for gets: timeout after a reply deadline,
/// runtime_error after a crash or an unreadable answer, not_run when no runner could start (the
/// kernel never ran).
vocabulary::branch_outcome outcome_of(runner_error_kind kind);

struct runner_error {
  runner_error_kind kind = runner_error_kind::crashed;
  std::string detail;            // what happened, naming the step / path / request
  std::optional<int> exit_code;  // when the runner exited
  std::optional<int> signal;     // when a signal killed it (SIGKILL after a timeout)
  std::int64_t pid = 0;          // the runner's pid, 0 if it never started
  std::string log_tail;          // the runner's last stdout/stderr lines, if any

  /// One paragraph: kind, detail, pid, exit, then the log tail indented.
  std::string to_string() const;
};

/// The runner executable: $WARPFORGE_RUNNER if set, else warpforge-runner next to this
/// process's executable (/proc/self/exe). The error names every place it looked.
expected<std::filesystem::path, runner_error> locate_runner();
/// The same with its inputs given (for tests): the env value and this executable's path.
expected<std::filesystem::path, runner_error>
locate_runner(const std::optional<std::string>& env_value, const std::filesystem::path& self_exe);

struct runner_options {
  std::filesystem::path executable;
  std::optional<std::string> visible_devices; // CUDA_VISIBLE_DEVICES for the runner; nullopt: inherit
  std::chrono::milliseconds start_timeout = default_runner_start_timeout;
  std::vector<std::pair<std::string, std::string>> extra_env; // set in the runner's environment
  std::filesystem::path temp_root; // parent of the private dir; empty: $TMPDIR if short, else /tmp
  /// What the runner opens right after the hello (`--warm-up`), while the client has nothing for
  /// it yet, so that the first race or profile does not pay for it inside its lease (about 1-3 s
  /// on an H100; warm_up_level.hpp).
  warm_up_level warm_up = warm_up_level::none;
};

class runner_client {
public:
  /// Spawns the runner and waits for its hello.
  static expected<runner_client, runner_error> start(runner_options options);

  runner_client(runner_client&&) noexcept;
  runner_client& operator=(runner_client&&) noexcept;
  runner_client(const runner_client&) = delete;
  runner_client& operator=(const runner_client&) = delete;
  /// stop(default_runner_stop_grace) if still running.
  ~runner_client();

  /// Asks for the host's GPUs, to `depth` (protocol.hpp). A host without GPUs is a report
  /// (status != ok), not an error.
  expected<host_report, runner_error>
  device_query(device_query_depth depth, std::chrono::milliseconds timeout = default_device_query_timeout);

  /// Runs a race (docs/runner-protocol.md, run_race). The timeout is the reply deadline, a
  /// backstop behind the runner's own kernel watchdog: a runner still silent then is presumed
  /// stuck and killed (reply_timeout). A result with runner_exits set means the runner is ending
  /// (a lost CUDA context or a hung kernel, `ended_by` says whose): start a new one.
  /// actors/runner_keeper re-runs the kernels such a race left unfinished.
  expected<race_result, runner_error> run_race(const race_request& body,
                                               std::chrono::milliseconds timeout);

  /// Profiles one launch of a candidate with the runner's CUPTI range profiler
  /// (docs/runner-protocol.md, profile_candidate). A status other than ok is a result, not an
  /// error (counters_unavailable: try gpu/runner/ncu_profile.hpp, or fix the permission). The
  /// timeout is the reply deadline, as for run_race; runner_exits as for run_race.
  expected<profile_result, runner_error> profile(const profile_request& body,
                                                 std::chrono::milliseconds timeout);

  /// Profiles several candidates in one batch (profile_candidates: one range profiler session for
  /// all, gpu/runtime/range_profiler.hpp); one result per body, in order. The bodies share their
  /// metrics and replay. The timeout covers the whole batch.
  expected<std::vector<profile_result>, runner_error> profile(const std::vector<profile_request>& bodies,
                                                              std::chrono::milliseconds timeout);

  /// Sends one request and waits for its reply (any status); the building block for the kinds.
  expected<runner_reply, runner_error> request(runner_request_kind kind, std::string body_json,
                                               std::chrono::milliseconds timeout);

  /// Sends shutdown, waits up to `grace`, then SIGKILL; always reaps and removes the temp dir.
  /// Returns how the runner ended. Idempotent.
  child_exit stop(std::chrono::milliseconds grace = default_runner_stop_grace);

  /// False once the runner has exited, crashed, or been stopped.
  /// (None of these accessors may be called on a moved-from client.)
  bool running();
  std::int64_t pid() const;
  const std::string& endpoint() const;
  const std::filesystem::path& log_path() const;

private:
  struct state;
  explicit runner_client(std::unique_ptr<state> s);

  // request(), then its reply's body read by `decode`; a body it cannot read is a protocol_error
  // ("unreadable <what>: ...").
  template <class T>
  expected<T, runner_error> decoded_request(runner_request_kind kind, std::string body_json,
                                            std::chrono::milliseconds timeout, std::string_view what,
                                            expected<T, json_error> (*decode)(std::string_view));
  std::unique_ptr<state> state_;
};

} // namespace warpforge::gpu
