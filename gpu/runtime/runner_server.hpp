#pragma once
// The runner's side of the protocol (gpu/runner/protocol.hpp): connect to the client's endpoint,
// greet, answer requests until shutdown. A watchdog thread ends the runner when its parent
// goes away, even while the main thread is stuck in a CUDA call, so orphans never linger.
// (Not PR_SET_PDEATHSIG: that fires when the spawning *thread* exits, which in a CAF coordinator
// is not the same as the coordinator exiting.)

#include "gpu/runner/exit_codes.hpp"
#include "gpu/runner/warm_up_level.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace warpforge::gpu {


/// How often the watchdog checks that the parent is alive.
inline constexpr std::chrono::milliseconds parent_check_interval{250};
/// How long the socket may keep flushing the last reply (shutdown) before the runner exits.
inline constexpr std::chrono::milliseconds runner_socket_linger{1'000};

struct runner_server_options {
  std::string endpoint;             // ipc://... bound by the client
  std::optional<pid_t> parent_pid;  // the process to outlive; nullopt: getppid() at start
  warm_up_level warm_up = warm_up_level::none; // what to open after the hello (warm_up_level.hpp)
};

/// Serves until shutdown; returns the process exit code.
int serve(const runner_server_options& options);

/// One request in, one reply out: the server's whole logic, without a socket.
struct handled_message {
  std::string reply; // encoded runner_reply
  bool stop = false; // shutdown was requested: send the reply, then exit
  int exit_code = runner_exit_ok; // the exit code when stop is set (runner_exit_context_lost
                                  // after a sticky CUDA error; gpu/runner/exit_codes.hpp)
};
handled_message handle_message(std::string_view request_text);

} // namespace warpforge::gpu
