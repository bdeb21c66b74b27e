#include "gpu/runner/runner_client.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <zmq.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<runner_error_kind> runner_error_kind_words[] = {
    {runner_error_kind::not_found, "not_found"},
    {runner_error_kind::spawn_failed, "spawn_failed"},
    {runner_error_kind::start_timeout, "start_timeout"},
    {runner_error_kind::reply_timeout, "reply_timeout"},
    {runner_error_kind::crashed, "crashed"},
    {runner_error_kind::protocol_error, "protocol_error"},
    {runner_error_kind::request_failed, "request_failed"},
};
static_assert(vocabulary::covers(runner_error_kind_words, all_runner_error_kinds));

std::string_view to_string(runner_error_kind kind) { return vocabulary::word_of(runner_error_kind_words, kind); }

std::optional<runner_error_kind> runner_error_kind_from_string(std::string_view text) {
  return vocabulary::value_of(runner_error_kind_words, text);
}

vocabulary::branch_outcome outcome_of(runner_error_kind kind) {
  switch (kind) {
    case runner_error_kind::reply_timeout: return vocabulary::branch_outcome::timeout;
    case runner_error_kind::crashed:
    case runner_error_kind::protocol_error:
    case runner_error_kind::request_failed: return vocabulary::branch_outcome::runtime_error;
    case runner_error_kind::not_found:
    case runner_error_kind::spawn_failed:
    case runner_error_kind::start_timeout: return vocabulary::branch_outcome::not_run;
  }
  return vocabulary::branch_outcome::runtime_error;
}

std::string runner_error::to_string() const {
  std::string out = "runner " + std::string{gpu::to_string(kind)} + ": " + detail;
  if (pid != 0)
    out += " (pid " + std::to_string(pid) + ")";
  if (exit_code || signal)
    out += "; ended with " + child_exit{exit_code, signal}.to_string();
  if (!log_tail.empty()) {
    out += "\n  last runner output:";
    std::istringstream lines{log_tail};
    for (std::string line; std::getline(lines, line);)
      out += "\n    " + line;
  }
  return out;
}

namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

/// How often a wait on the socket also checks that the runner is alive.
constexpr std::chrono::milliseconds liveness_check_interval{10};
/// How much of the log's end is read for the tail.
constexpr std::size_t log_tail_max_bytes = 16 * 1024;
constexpr std::string_view private_dir_pattern = "wf-XXXXXX";
constexpr std::string_view socket_name = "runner.ipc";
constexpr std::string_view log_name = "runner.log";
constexpr std::string_view runner_name = "warpforge-runner";

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

runner_error make_error(runner_error_kind kind, std::string detail) {
  runner_error error;
  error.kind = kind;
  error.detail = std::move(detail);
  return error;
}

std::string read_log_tail(const fs::path& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return {};
  in.seekg(0, std::ios::end);
  auto size = static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0));
  auto start = size > log_tail_max_bytes ? size - log_tail_max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  std::size_t lines = 0;
  auto pos = text.size();
  while (pos > 0) {
    auto newline = text.rfind('\n', pos - 1);
    if (++lines == runner_log_tail_lines || newline == std::string::npos) {
      if (lines == runner_log_tail_lines && newline != std::string::npos)
        text.erase(0, newline + 1);
      break;
    }
    pos = newline;
  }
  return text;
}

// A fresh mode-0700 directory whose socket path fits ZeroMQ's ipc limit.
expected<fs::path, runner_error> make_private_dir(const fs::path& requested_root) {
  // <root>/wf-XXXXXX/runner.ipc must fit in sockaddr_un.sun_path.
  auto fits = [](const fs::path& root) {
    return root.string().size() + 1 + private_dir_pattern.size() + 1 + socket_name.size() <=
           max_ipc_path_length;
  };
  fs::path root = requested_root;
  if (root.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    root = tmpdir && *tmpdir && fits(tmpdir) ? fs::path{tmpdir} : fs::path{"/tmp"};
  }
  if (!fits(root))
    return unexpected(make_error(runner_error_kind::spawn_failed,
                                 "temp root '" + root.string() + "' makes the ipc path longer than " +
                                   std::to_string(max_ipc_path_length) + " characters"));
  std::string pattern = (root / private_dir_pattern).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return unexpected(make_error(runner_error_kind::spawn_failed,
                                 "mkdtemp " + pattern + ": " + std::strerror(errno)));
  return fs::path{pattern};
}

} // namespace

expected<fs::path, runner_error> locate_runner(const std::optional<std::string>& env_value,
                                               const fs::path& self_exe) {
  if (env_value) {
    if (is_executable_file(*env_value))
      return fs::path{*env_value};
    return unexpected(make_error(runner_error_kind::not_found,
                                 "WARPFORGE_RUNNER='" + *env_value +
                                   "' is not an executable file"));
  }
  auto beside = self_exe.parent_path() / runner_name;
  if (is_executable_file(beside))
    return beside;
  return unexpected(make_error(runner_error_kind::not_found,
                               "no warpforge-runner: $WARPFORGE_RUNNER is unset and '" +
                                 beside.string() + "' (next to this executable) is missing"));
}

expected<fs::path, runner_error> locate_runner() {
  std::optional<std::string> env_value;
  if (const char* value = std::getenv("WARPFORGE_RUNNER"))
    env_value = value;
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec && !env_value)
    return unexpected(make_error(runner_error_kind::not_found,
                                 "no warpforge-runner: $WARPFORGE_RUNNER is unset and "
                                 "/proc/self/exe is unreadable (" + ec.message() + ")"));
  return locate_runner(env_value, self);
}

struct runner_client::state {
  zmq::context_t context;
  zmq::socket_t socket;
  std::optional<child_process> child;
  fs::path dir;
  std::string endpoint;
  fs::path log;
  std::uint64_t next_id = runner_hello_id + 1;

  ~state() { release(); }

  // Closes the socket and removes the private directory (after the child is gone).
  void release() {
    if (child)
      child->kill_and_reap();
    if (socket.handle() != nullptr)
      socket.close();
    if (!dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      dir.clear();
    }
  }

  // An error that carries the runner's pid, how it ended (if it did) and its last output.
  runner_error failure(runner_error_kind kind, std::string detail) {
    auto error = make_error(kind, std::move(detail));
    if (child) {
      error.pid = child->pid();
      child->running();
      if (const auto& exit = child->exit_status()) {
        error.exit_code = exit->exit_code;
        error.signal = exit->signal;
      }
    }
    error.log_tail = read_log_tail(log);
    return error;
  }

  enum class wait_outcome { message, child_exited, timed_out };

  // Waits for one message until `deadline`, watching that the runner stays alive.
  wait_outcome wait_for_message(clock::time_point deadline, std::string& out) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      auto slice = std::clamp(left, std::chrono::milliseconds{0}, liveness_check_interval);
      if (receive(slice, out))
        return wait_outcome::message;
      if (!child->running())
        return wait_outcome::child_exited;
      if (clock::now() >= deadline)
        return wait_outcome::timed_out;
    }
  }

  // One message if it arrives within `slice`. A signal interrupting the wait (EINTR: the
  // coordinator may have handlers installed) counts as "nothing yet".
  bool receive(std::chrono::milliseconds slice, std::string& out) {
    try {
      zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, slice);
      if (!(item.revents & ZMQ_POLLIN))
        return false;
      zmq::message_t message;
      if (!socket.recv(message, zmq::recv_flags::dontwait))
        return false;
      out = message.to_string();
      return true;
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR)
        return false;
      throw;
    }
  }

  // Sends without blocking; false when no runner is connected or the send failed.
  bool send(const std::string& text) {
    try {
      return socket.send(zmq::buffer(text), zmq::send_flags::dontwait).has_value();
    } catch (const zmq::error_t&) {
      return false; // the caller reports it with the runner's state
    }
  }
};

runner_client::runner_client(std::unique_ptr<state> s) : state_(std::move(s)) {}
runner_client::runner_client(runner_client&&) noexcept = default;
runner_client& runner_client::operator=(runner_client&& other) noexcept {
  if (this != &other) {
    if (state_)
      stop();
    state_ = std::move(other.state_);
  }
  return *this;
}

runner_client::~runner_client() {
  if (state_)
    stop();
}

expected<runner_client, runner_error> runner_client::start(runner_options options) {
  if (!is_executable_file(options.executable))
    return unexpected(make_error(runner_error_kind::not_found,
                                 "'" + options.executable.string() +
                                   "' is not an executable file"));
  auto s = std::make_unique<state>();
  auto dir = make_private_dir(options.temp_root);
  if (!dir)
    return unexpected(dir.error());
  s->dir = *dir;
  s->endpoint = "ipc://" + (s->dir / socket_name).string();
  s->log = s->dir / log_name;

  try {
    s->socket = zmq::socket_t{s->context, zmq::socket_type::dealer};
    s->socket.set(zmq::sockopt::linger, 0);
    s->socket.bind(s->endpoint);
  } catch (const zmq::error_t& e) {
    return unexpected(s->failure(runner_error_kind::spawn_failed,
                                 "bind " + s->endpoint + ": " + e.what()));
  }

  spawn_options spawn;
  spawn.executable = options.executable;
  spawn.arguments = {"--endpoint", s->endpoint, "--parent-pid", std::to_string(::getpid())};
  if (options.warm_up != warm_up_level::none) {
    spawn.arguments.emplace_back("--warm-up");
    spawn.arguments.emplace_back(to_string(options.warm_up));
  }
  if (options.visible_devices)
    spawn.environment.emplace_back("CUDA_VISIBLE_DEVICES", *options.visible_devices);
  for (auto& entry : options.extra_env)
    spawn.environment.push_back(std::move(entry));
  spawn.output_file = s->log;
  auto child = child_process::spawn(spawn);
  if (!child)
    return unexpected(s->failure(runner_error_kind::spawn_failed, child.error().detail));
  s->child.emplace(std::move(*child));

  std::string text;
  switch (s->wait_for_message(clock::now() + options.start_timeout, text)) {
    case state::wait_outcome::child_exited:
      return unexpected(s->failure(runner_error_kind::crashed, "exited before its hello"));
    case state::wait_outcome::timed_out:
      s->child->kill_and_reap();
      return unexpected(s->failure(runner_error_kind::start_timeout,
                                   "no hello within " +
                                     std::to_string(options.start_timeout.count()) +
                                     " ms; killed"));
    case state::wait_outcome::message: break;
  }
  auto hello = decode_reply(text);
  if (!hello)
    return unexpected(s->failure(runner_error_kind::protocol_error,
                                 "bad hello: " + hello.error().detail));
  if (hello->kind != runner_request_kind::hello || hello->id != runner_hello_id)
    return unexpected(s->failure(runner_error_kind::protocol_error,
                                 "expected hello (id 0) first, got " +
                                   std::string{to_string(hello->kind)} + " id " +
                                   std::to_string(hello->id)));
  if (auto body = decode_hello_body(hello->body_json); !body)
    return unexpected(s->failure(runner_error_kind::protocol_error,
                                 "bad hello body: " + body.error().detail));
  return runner_client{std::move(s)};
}

bool runner_client::running() {
  return state_ && state_->child && state_->socket.handle() != nullptr &&
         state_->child->running();
}

std::int64_t runner_client::pid() const {
  return state_ && state_->child ? state_->child->pid() : 0;
}

const std::string& runner_client::endpoint() const {
  return state_->endpoint;
}

const fs::path& runner_client::log_path() const {
  return state_->log;
}

expected<runner_reply, runner_error>
runner_client::request(runner_request_kind kind, std::string body_json,
                       std::chrono::milliseconds timeout) {
  if (!state_ || state_->socket.handle() == nullptr)
    return unexpected(make_error(runner_error_kind::crashed, "the runner was stopped"));
  auto& s = *state_;
  if (!s.child->running())
    return unexpected(s.failure(runner_error_kind::crashed, "the runner is no longer running"));

  runner_request request{s.next_id++, kind, std::move(body_json)};
  auto what = std::string{to_string(kind)} + " request " + std::to_string(request.id);
  auto text = encode(request);
  if (!s.send(text))
    return unexpected(s.failure(runner_error_kind::protocol_error,
                                "could not send " + what + " (runner not connected)"));

  auto deadline = clock::now() + timeout;
  for (;;) {
    std::string answer;
    switch (s.wait_for_message(deadline, answer)) {
      case state::wait_outcome::child_exited:
        return unexpected(s.failure(runner_error_kind::crashed, "died during " + what));
      case state::wait_outcome::timed_out:
        s.child->kill_and_reap();
        return unexpected(s.failure(runner_error_kind::reply_timeout,
                                    "no reply to " + what + " within " +
                                      std::to_string(timeout.count()) + " ms; killed"));
      case state::wait_outcome::message: break;
    }
    auto reply = decode_reply(answer);
    if (!reply)
      return unexpected(s.failure(runner_error_kind::protocol_error,
                                  "unreadable reply to " + what + ": " + reply.error().detail));
    if (reply->id != request.id)
      continue; // a late reply to a request we gave up on, or a repeated hello
    switch (reply->status) {
      case runner_reply_status::ok: return std::move(*reply);
      case runner_reply_status::bad_request:
        return unexpected(s.failure(runner_error_kind::protocol_error,
                                    "runner rejected " + what + ": " + reply->error));
      case runner_reply_status::failed:
        return unexpected(s.failure(runner_error_kind::request_failed,
                                    what + " failed: " + reply->error));
    }
  }
}

template <class T>
expected<T, runner_error> runner_client::decoded_request(runner_request_kind kind, std::string body_json,
                                                         std::chrono::milliseconds timeout, std::string_view what,
                                                         expected<T, json_error> (*decode)(std::string_view)) {
  auto reply = request(kind, std::move(body_json), timeout);
  if (!reply)
    return unexpected(std::move(reply).error());
  auto body = decode(reply->body_json);
  if (!body)
    return unexpected(state_->failure(runner_error_kind::protocol_error,
                                      "unreadable " + std::string{what} + ": " + body.error().detail));
  return std::move(*body);
}

expected<host_report, runner_error> runner_client::device_query(device_query_depth depth,
                                                                std::chrono::milliseconds timeout) {
  return decoded_request(runner_request_kind::device_query, encode_device_query_body(depth), timeout, "device report",
                         &host_report_from_json);
}

expected<race_result, runner_error>
runner_client::run_race(const race_request& body, std::chrono::milliseconds timeout) {
  auto result = decoded_request(runner_request_kind::run_race, encode_body(body), timeout, "run_race result",
                                &decode_race_result);
  if (result && result->kernels.size() != body.kernels.size())
    return unexpected(state_->failure(runner_error_kind::protocol_error,
                                      "run_race result has " + std::to_string(result->kernels.size()) +
                                        " kernel results for " + std::to_string(body.kernels.size()) +
                                        " kernels"));
  return result;
}

expected<profile_result, runner_error>
runner_client::profile(const profile_request& body, std::chrono::milliseconds timeout) {
  return decoded_request(runner_request_kind::profile_candidate, encode_body(body), timeout,
                         "profile_candidate result", &decode_profile_result);
}

expected<std::vector<profile_result>, runner_error>
runner_client::profile(const std::vector<profile_request>& bodies, std::chrono::milliseconds timeout) {
  auto results = decoded_request(runner_request_kind::profile_candidates, encode_body(bodies), timeout,
                                 "profile_candidates result", &decode_profile_results);
  if (results && results->size() != bodies.size())
    return unexpected(state_->failure(runner_error_kind::protocol_error,
                                      "profile_candidates result has " + std::to_string(results->size()) +
                                        " results for " + std::to_string(bodies.size()) + " profiles"));
  return results;
}

child_exit runner_client::stop(std::chrono::milliseconds grace) {
  if (!state_ || !state_->child)
    return {};
  auto& s = *state_;
  if (s.socket.handle() != nullptr && s.child->running()) {
    // If the shutdown cannot be sent, the SIGKILL after the grace ends the runner anyway.
    if (s.send(encode(runner_request{s.next_id++, runner_request_kind::shutdown, "{}"})))
      s.child->wait_for_exit(grace);
  }
  auto exit = s.child->kill_and_reap();
  s.release();
  return exit;
}

} // namespace warpforge::gpu
