#include "gpu/runner/sanitize.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <csignal>
#include <fstream>
#include <sstream>

namespace warpforge::gpu {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view visible_devices_env = "CUDA_VISIBLE_DEVICES";
constexpr std::string_view prefix = "=========";
constexpr std::string_view summary_marker = "ERROR SUMMARY:";

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

std::string last_lines(std::string_view text, std::size_t bytes) {
  return std::string{text.size() <= bytes ? text : text.substr(text.size() - bytes)};
}

} // namespace

constexpr vocabulary::enum_word<sanitize_status> sanitize_status_words[] = {
    {sanitize_status::clean, "clean"},
    {sanitize_status::errors, "errors"},
    {sanitize_status::not_found, "not_found"},
    {sanitize_status::failed, "failed"},
};
static_assert(vocabulary::covers(sanitize_status_words, all_sanitize_statuses));

std::string_view to_string(sanitize_status status) { return vocabulary::word_of(sanitize_status_words, status); }

std::optional<sanitize_status> sanitize_status_from_string(std::string_view text) {
  return vocabulary::value_of(sanitize_status_words, text);
}

std::optional<fs::path> find_compute_sanitizer(const toolchain_environment& env) {
  return find_tool("compute-sanitizer", env.path, env.cuda_home ? fs::path{*env.cuda_home} : default_cuda_home);
}

std::optional<fs::path> find_compute_sanitizer() {
  return find_compute_sanitizer(toolchain_environment::from_process());
}

std::vector<std::string> sanitizer_arguments(const sanitize_options& options, const fs::path& request_file) {
  return {"--tool",         "memcheck", "--print-limit", std::to_string(sanitize_print_limit),
          "--error-exitcode", std::to_string(sanitize_error_exit_code), options.runner.string(),
          "--execute",      request_file.string()};
}

sanitize_result interpret_sanitizer_output(std::string_view output, const std::optional<child_exit>& exit) {
  sanitize_result result;
  std::optional<std::uint64_t> summary;
  std::string report;
  bool in_report = false;
  bool report_done = false;
  bool in_backtrace = false;
  std::istringstream lines{std::string{output}};
  for (std::string raw; std::getline(lines, raw);) {
    std::string_view line = raw;
    if (!line.starts_with(prefix))
      continue; // the runner's own output
    line = trim(line.substr(prefix.size()));
    if (line.starts_with(summary_marker)) {
      // The first is the count; past --print-limit a second says how many were not printed.
      if (!summary)
        summary = std::strtoull(std::string{trim(line.substr(summary_marker.size()))}.c_str(), nullptr, 10);
      continue;
    }
    if (line.starts_with("COMPUTE-SANITIZER"))
      continue;
    if (line.empty()) { // a blank ========= line ends a report
      report_done = report_done || in_report;
      in_report = false;
      continue;
    }
    if (report_done)
      continue;
    if (line.starts_with("Saved host backtrace") || line.starts_with("Host Frame")) {
      in_backtrace = true; // where the host launched it: the same for every kernel, not the error
      continue;
    }
    if (!in_report && !in_backtrace)
      in_report = true;
    if (in_report && !in_backtrace && report.size() < sanitize_report_bytes)
      report += (report.empty() ? "" : "\n") + std::string{line};
  }
  if (!exit) {
    result.status = sanitize_status::failed;
    result.note = "not sanitized: compute-sanitizer did not finish within its timeout";
    return result;
  }
  if (summary && *summary > 0) {
    result.status = sanitize_status::errors;
    result.error_count = *summary;
    result.first_report = report;
    result.note = "compute-sanitizer memcheck found " + std::to_string(*summary) + " error" + (*summary == 1 ? "" : "s") +
                  ": " + report;
    return result;
  }
  if (summary && exit->exit_code == 0) {
    result.status = sanitize_status::clean;
    result.note = "compute-sanitizer memcheck: no errors";
    return result;
  }
  result.status = sanitize_status::failed;
  result.note = "not sanitized: compute-sanitizer " + exit->to_string() +
                (summary ? ", with no memcheck error (the runner failed)" : ", without an error summary") + ": " +
                last_lines(output, sanitize_report_bytes / 4);
  return result;
}

sanitize_result sanitize_launch(const fs::path& request_file, const sanitize_options& options) {
  std::error_code ec;
  fs::create_directories(options.work_dir, ec);
  const auto output_file = options.work_dir / sanitize_output_file_name;
  fs::remove(output_file, ec);
  spawn_options spawn;
  spawn.executable = options.sanitizer;
  spawn.arguments = sanitizer_arguments(options, request_file);
  if (options.visible_devices)
    spawn.environment.emplace_back(std::string{visible_devices_env}, *options.visible_devices);
  spawn.output_file = output_file;
  auto child = child_process::spawn(spawn);
  if (!child)
    return {sanitize_status::failed, 0, {}, "not sanitized: starting compute-sanitizer: " + child.error().detail};
  auto exit = child->wait_for_exit(options.timeout);
  if (!exit) {
    ::kill(-child->pid(), SIGKILL); // the sanitizer and the runner it started share its process group
    child->kill_and_reap();
  }
  return interpret_sanitizer_output(read_text(output_file), exit);
}

} // namespace warpforge::gpu
