#include "gpu/runner/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace warpforge::gpu {

std::string child_exit::to_string() const {
  if (exit_code)
    return "exit code " + std::to_string(*exit_code);
  if (signal) {
    const char* name = strsignal(*signal);
    return "signal " + std::to_string(*signal) + " (" + (name ? name : "?") + ")";
  }
  return "still running";
}

namespace {

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

spawn_error make_spawn_error(int error_number, std::string step) {
  return spawn_error{error_number, std::move(step) + ": " + std::strerror(error_number)};
}

// RAII for the posix_spawn attribute objects.
struct spawn_setup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  spawn_setup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~spawn_setup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  spawn_setup(const spawn_setup&) = delete;
  spawn_setup& operator=(const spawn_setup&) = delete;
};

} // namespace

expected<child_process, spawn_error> child_process::spawn(const spawn_options& options) {
  spawn_setup setup;
  constexpr mode_t output_mode = 0600;
  int rc = posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (rc == 0)
    rc = posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO,
                                          options.output_file.c_str(),
                                          O_WRONLY | O_CREAT | O_APPEND, output_mode);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&setup.actions, STDOUT_FILENO, STDERR_FILENO);
  // Descriptors the coordinator opened without O_CLOEXEC must not leak into the runner.
  if (rc == 0)
    rc = posix_spawn_file_actions_addclosefrom_np(&setup.actions, STDERR_FILENO + 1);
  if (rc != 0)
    return unexpected(make_spawn_error(rc, "posix_spawn_file_actions"));

  // A clean signal state: the coordinator's threads may block signals or ignore SIGPIPE.
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults; // exec keeps ignored signals ignored; these must act normally in the runner
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD})
    sigaddset(&defaults, sig);
  rc = posix_spawnattr_setsigmask(&setup.attributes, &none);
  if (rc == 0)
    rc = posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  if (rc == 0)
    rc = posix_spawnattr_setpgroup(&setup.attributes, 0);
  if (rc == 0)
    rc = posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                                         POSIX_SPAWN_SETPGROUP);
  if (rc != 0)
    return unexpected(make_spawn_error(rc, "posix_spawnattr"));

  std::vector<std::string> argv_strings;
  argv_strings.push_back(options.executable.string());
  argv_strings.insert(argv_strings.end(), options.arguments.begin(), options.arguments.end());
  auto argv = pointers(argv_strings);
  auto env_strings = child_environment(options.environment);
  auto envp = pointers(env_strings);

  pid_t pid = -1;
  rc = posix_spawn(&pid, options.executable.c_str(), &setup.actions, &setup.attributes,
                   argv.data(), envp.data());
  if (rc != 0)
    return unexpected(make_spawn_error(rc, "posix_spawn " + options.executable.string()));
  return child_process{pid};
}

child_process::child_process(child_process&& other) noexcept
  : pid_(std::exchange(other.pid_, -1)), exit_(std::move(other.exit_)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0)
      kill_and_reap();
    pid_ = std::exchange(other.pid_, -1);
    exit_ = std::move(other.exit_);
  }
  return *this;
}

child_process::~child_process() {
  if (pid_ > 0)
    kill_and_reap();
}

void child_process::record(int wait_status) {
  child_exit exit;
  if (WIFEXITED(wait_status))
    exit.exit_code = WEXITSTATUS(wait_status);
  else if (WIFSIGNALED(wait_status))
    exit.signal = WTERMSIG(wait_status);
  exit_ = exit;
}

bool child_process::running() {
  if (pid_ <= 0 || exit_)
    return false;
  int status = 0;
  pid_t rc = 0;
  do {
    rc = waitpid(pid_, &status, WNOHANG);
  } while (rc < 0 && errno == EINTR);
  if (rc == pid_) {
    record(status);
    return false;
  }
  if (rc < 0) { // ECHILD: someone else reaped it; nothing left to wait for
    exit_ = child_exit{};
    return false;
  }
  return true;
}

std::optional<child_exit> child_process::wait_for_exit(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline)
      return std::nullopt;
    std::this_thread::sleep_for(child_poll_interval);
  }
  return exit_;
}

child_exit child_process::kill_and_reap() {
  if (pid_ <= 0)
    return exit_.value_or(child_exit{});
  if (running()) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    pid_t rc = 0;
    do {
      rc = waitpid(pid_, &status, 0);
    } while (rc < 0 && errno == EINTR);
    if (rc == pid_)
      record(status);
    else
      exit_ = child_exit{};
  }
  return *exit_;
}

} // namespace warpforge::gpu
