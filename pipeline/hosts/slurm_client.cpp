#include "pipeline/hosts/slurm_client.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/runner/child_process.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::hosts {

namespace fs = std::filesystem;

namespace {

constexpr vocabulary::enum_word<job_activity> job_activity_words[] = {
  {job_activity::active, "active"},
  {job_activity::completing, "completing"},
  {job_activity::ended, "ended"},
};
static_assert(vocabulary::covers(job_activity_words, all_job_activities));

// How much of a command's output an error quotes.
constexpr std::size_t quoted_output_chars = 2000;

// squeue's words for a job that has ended (squeue(1), JOB STATE CODES).
constexpr std::string_view ended_states[] = {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
                                             "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "REVOKED",
                                             "SPECIAL_EXIT", "TIMEOUT"};
// What Slurm says of a job id it no longer knows, or of one that has already ended.
constexpr std::string_view gone_messages[] = {"Invalid job id specified", "Job/step already completing or completed"};

bool says_gone(std::string_view output) {
  return std::any_of(std::begin(gone_messages), std::end(gone_messages),
                     [&](std::string_view message) { return output.find(message) != std::string_view::npos; });
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string{text.substr(first, last - first + 1)};
}

std::string quoted_output(std::string_view output) {
  const std::string text = trimmed(output);
  if (text.empty())
    return "(no output)";
  if (text.size() <= quoted_output_chars)
    return "'" + text + "'";
  return "'…" + text.substr(text.size() - quoted_output_chars) + "'";
}

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// `name` in the folders of PATH (empty entries skipped: they would mean ".").
std::optional<fs::path> on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr)
    return std::nullopt;
  std::string_view rest = path;
  while (true) {
    const auto colon = rest.find(':');
    if (const auto folder = rest.substr(0, colon); !folder.empty())
      if (auto candidate = fs::path{folder} / name; is_executable_file(candidate))
        return candidate;
    if (colon == std::string_view::npos)
      return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

bool is_job_id(std::string_view text) {
  return !text.empty() && text.size() <= 20 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

std::string_view to_string(job_activity activity) { return vocabulary::word_of(job_activity_words, activity); }

job_activity job_activity_of_state(std::string_view state) {
  if (state == "COMPLETING" || state == "STAGE_OUT")
    return job_activity::completing;
  if (std::find(std::begin(ended_states), std::end(ended_states), state) != std::end(ended_states))
    return job_activity::ended;
  return job_activity::active;
}

std::optional<std::string> parse_parsable_job_id(std::string_view output) {
  std::istringstream lines{std::string{output}};
  std::optional<std::string> id;
  for (std::string line; std::getline(lines, line);) {
    line = trimmed(line);
    const auto candidate = line.substr(0, line.find(';'));
    if (is_job_id(candidate))
      id = candidate; // the last such line: warnings come before it
  }
  return id;
}

std::optional<std::string> parse_squeue_state(std::string_view output) {
  std::istringstream lines{std::string{output}};
  std::optional<std::string> state;
  for (std::string line; std::getline(lines, line);) {
    line = trimmed(line);
    const bool word = !line.empty() && std::all_of(line.begin(), line.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || c == '_';
    });
    if (word)
      state = line; // the last such line: a warning ("squeue: warning: ...") is never one
  }
  return state;
}

expected<slurm_client, slurm_error> slurm_client::find(const fs::path& log_folder) {
  slurm_client client;
  client.log_folder_ = log_folder;
  for (auto [name, out] : {std::pair{"sbatch", &client.sbatch_}, std::pair{"squeue", &client.squeue_},
                           std::pair{"scancel", &client.scancel_}}) {
    auto found = on_path(name);
    if (!found)
      return unexpected(slurm_error{std::string{"'"} + name + "' is not on PATH: Slurm's client commands are needed "
                                    "to place hosts with [hosts.slurm] (Debian: slurm-client; on a cluster, "
                                    "often `module load slurm`)"});
    *out = *found;
  }
  return client;
}

expected<slurm_client::command_output, slurm_error>
slurm_client::run(const fs::path& tool, const std::vector<std::string>& arguments) const {
  const fs::path log = log_folder_ / (tool.filename().string() + ".log");
  std::error_code ec;
  fs::create_directories(log_folder_, ec);
  fs::remove(log, ec); // the child appends: this log is of this call only
  std::string command = tool.string();
  for (const auto& argument : arguments)
    command += " " + argument;
  auto child = gpu::child_process::spawn({.executable = tool, .arguments = arguments, .environment = {}, .output_file = log});
  if (!child)
    return unexpected(slurm_error{"cannot start `" + command + "`: " + child.error().detail});
  auto exit = child->wait_for_exit(slurm_command_timeout);
  if (!exit) {
    child->kill_and_reap();
    return unexpected(slurm_error{"`" + command + "` did not finish within " +
                                  std::to_string(slurm_command_timeout.count()) + " s (is slurmctld answering?); killed"});
  }
  std::ifstream in(log, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!exit->exit_code)
    return unexpected(slurm_error{"`" + command + "` ended by " + exit->to_string() + ": " + quoted_output(text.str())});
  return command_output{*exit->exit_code, std::move(text).str()};
}

expected<std::string, slurm_error> slurm_client::submit(const fs::path& script) const {
  auto out = run(sbatch_, {"--parsable", script.string()});
  if (!out)
    return unexpected(std::move(out).error());
  auto id = parse_parsable_job_id(out->text);
  if (out->exit_code != 0 || !id)
    return unexpected(slurm_error{"sbatch did not submit " + script.string() + " (" +
                                  (out->exit_code != 0 ? "exit code " + std::to_string(out->exit_code) : "no job id") +
                                  "): " + quoted_output(out->text)});
  return *id;
}

expected<job_activity, slurm_error> slurm_client::activity(std::string_view job_id) const {
  auto out = run(squeue_, {"--noheader", "--states=all", "--format=%T", "--jobs=" + std::string{job_id}});
  if (!out)
    return unexpected(std::move(out).error());
  if (out->exit_code != 0) {
    if (says_gone(out->text)) // purged from slurmctld's memory (MinJobAge after its end)
      return job_activity::ended;
    return unexpected(slurm_error{"squeue could not tell the state of job " + std::string{job_id} + " (exit code " +
                                  std::to_string(out->exit_code) + "): " + quoted_output(out->text)});
  }
  const auto state = parse_squeue_state(out->text);
  return state ? job_activity_of_state(*state) : job_activity::ended;
}

expected<void, slurm_error> slurm_client::cancel(std::string_view job_id) const {
  auto out = run(scancel_, {std::string{job_id}});
  if (!out)
    return unexpected(std::move(out).error());
  if (out->exit_code != 0 && !says_gone(out->text))
    return unexpected(slurm_error{"scancel " + std::string{job_id} + " failed (exit code " +
                                  std::to_string(out->exit_code) + "): " + quoted_output(out->text)});
  return {};
}

} // namespace warpforge::hosts
