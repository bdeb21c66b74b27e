#include "deploy/project_command.hpp"

#include <csignal>
#include <fstream>
#include <sstream>
#include <system_error>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

bool command_result::succeeded() const {
  return started && !timed_out && exit.exit_code && *exit.exit_code == 0;
}

std::string command_result::how_it_ended(std::chrono::seconds limit) const {
  if (!started)
    return "could not start: " + detail;
  if (timed_out)
    return "timed out after " + std::to_string(limit.count()) + " s";
  return exit.to_string();
}

std::vector<std::string> shell_arguments(const fs::path& folder, std::string_view command) {
  // $1 = the folder, $2 = the command: no quoting of either is needed, and `eval` runs the
  // command in this shell, so its $PPID is the deployer, as if a person had typed it there.
  return {"-c", "cd -- \"$1\" || exit 125\neval \"$2\"", "warpforge-deploy", folder.string(),
          std::string{command}};
}

command_result run_in_project(const fs::path& project, std::string_view command,
                              std::chrono::seconds limit, const fs::path& log) {
  command_result result;
  std::error_code ec;
  fs::create_directories(log.parent_path(), ec);
  fs::remove(log, ec); // the child appends
  gpu::spawn_options options;
  options.executable = "/bin/sh";
  options.arguments = shell_arguments(project, command);
  options.output_file = log;
  const auto start = std::chrono::steady_clock::now();
  auto child = gpu::child_process::spawn(options);
  if (!child) {
    result.detail = child.error().detail;
    return result;
  }
  result.started = true;
  auto ended = child->wait_for_exit(std::chrono::duration_cast<std::chrono::milliseconds>(limit));
  if (!ended) {
    // The shell leads its own process group: end the compiler or program it started too.
    ::kill(-child->pid(), SIGKILL);
    result.timed_out = true;
    ended = child->kill_and_reap();
  }
  result.exit = *ended;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.output = read_all(log);
  return result;
}

std::string output_tail(std::string_view output, std::size_t lines) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r'))
    output.remove_suffix(1);
  std::size_t at = output.size();
  for (std::size_t n = 0; n < lines && at != std::string_view::npos && at > 0; ++n)
    at = output.rfind('\n', at - 1);
  if (at == std::string_view::npos || at == 0)
    return std::string{output};
  return std::string{output.substr(at + 1)};
}

} // namespace warpforge::deploy
