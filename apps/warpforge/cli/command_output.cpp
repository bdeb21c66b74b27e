#include "apps/warpforge/cli/command_output.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/logging/logging.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>

namespace warpforge::cli {
namespace {

bool quiet = false;
std::optional<std::filesystem::path> noted_run_dir;

// Writes all of `text` to `fd`, through short writes and EINTR.
void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const auto n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // the reader went away (SIGPIPE is ignored): nothing more to do
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

} // namespace

void enter_quiet_mode() {
  quiet = true;
  logging::set_console_level(spdlog::level::warn);
}

bool quiet_mode() { return quiet; }

void note_run_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(dir, ec);
  noted_run_dir = ec ? dir : absolute;
}

std::string_view outcome_name(exit_code code) {
  switch (code) {
  case exit_code::ok: return "finished";
  case exit_code::failure: return "failed";
  case exit_code::usage: return "usage_error";
  case exit_code::bad_input: return "bad_input";
  case exit_code::not_available: return "not_available";
  case exit_code::no_gpu: return "no_gpu";
  case exit_code::interrupted: return "interrupted";
  }
  return "failed";
}

exit_code run_with_json_result(std::string_view verb, bool json, const std::function<exit_code()>& command) {
  if (!json)
    return command();
  // stdout (the descriptor, so printf and child processes follow too) points at stderr until
  // the command ends; the object then goes to the real stdout.
  std::cout.flush();
  std::fflush(stdout);
  const int real_stdout = ::dup(STDOUT_FILENO);
  if (real_stdout >= 0)
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  const exit_code code = command();
  std::cout.flush();
  std::fflush(stdout);
  if (real_stdout >= 0) {
    ::dup2(real_stdout, STDOUT_FILENO);
    ::close(real_stdout);
  }
  json::writer w;
  w.begin_object().key("command").value(verb).key("run_dir");
  if (noted_run_dir)
    w.value(noted_run_dir->string());
  else
    w.null();
  w.key("outcome").value(outcome_name(code)).key("exit_code").value(to_int(code)).end_object();
  write_all(STDOUT_FILENO, std::move(w).str() + "\n");
  return code;
}

} // namespace warpforge::cli
