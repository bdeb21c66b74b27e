#include "gpu/runner/ncu_profile.hpp"

#include "gpu/compile/entry_name.hpp"
#include "gpu/runner/exit_codes.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <system_error>

namespace warpforge::gpu {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view visible_devices_env = "CUDA_VISIBLE_DEVICES";
constexpr std::string_view header_first_column = "ID";
/// ncu's code for "this user may not read the performance counters".
constexpr std::string_view permission_error = "ERR_NVGPUCTRPERM";
/// How many of ncu's ==ERROR==/==WARNING== lines a note quotes.
constexpr std::size_t quoted_message_lines = 4;

// The lines of `text`, without their line ends.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto newline = text.find('\n');
    auto line = text.substr(0, newline);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
  }
  return lines;
}

// One CSV record of quoted fields ("a","b ""c""",""); nullopt when malformed.
std::optional<std::vector<std::string>> split_record(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  for (;;) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size())
          return std::nullopt; // unterminated quote
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
    } else {
      while (i < line.size() && line[i] != ',')
        field += line[i++];
    }
    fields.push_back(std::move(field));
    if (i == line.size())
      return fields;
    if (line[i] != ',')
      return std::nullopt; // text after a closing quote
    ++i;
  }
}

// A number as ncu prints it ("1,234.5", "0.12", "3e+06"); nullopt for anything else ("n/a").
std::optional<double> parse_number(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != ',')
      digits += c;
  if (digits.empty())
    return std::nullopt;
  double value = 0;
  const char* end = digits.data() + digits.size();
  auto [stop, error] = std::from_chars(digits.data(), end, value);
  if (error != std::errc{} || stop != end || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

// ncu's own ==ERROR== and ==WARNING== lines, the first few, joined.
std::string tool_messages(std::string_view csv_text, std::string_view output_text) {
  std::string out;
  std::size_t count = 0;
  for (auto text : {csv_text, output_text})
    for (auto line : split_lines(text))
      if ((line.starts_with("==ERROR==") || line.starts_with("==WARNING==")) &&
          count++ < quoted_message_lines)
        out += (out.empty() ? "" : " | ") + std::string{line};
  return out;
}

std::string join(const std::vector<std::string>& items, char separator) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : std::string(1, separator)) + item;
  return out;
}

profile_result make_profile(const profile_request& request, profile_status status,
                            std::string note) {
  profile_result r;
  r.status = status;
  r.source = metric_source::ncu;
  r.replay = request.replay;
  r.note = std::move(note);
  return r;
}

// The symbol ncu is told to profile (--kernel-name-base mangled): the entry's lowered name in its
// CUBIN (entry_name.hpp); the entry as written when the CUBIN cannot be read or names none (ncu
// then finds no kernel, and says so).
std::string kernel_symbol(const kernel_launch& kernel) {
  std::ifstream file{kernel.cubin_path, std::ios::binary};
  const std::string image{std::istreambuf_iterator<char>{file}, {}};
  auto symbol = entry_symbol_in_cubin(std::span{reinterpret_cast<const std::uint8_t*>(image.data()), image.size()},
                                      kernel.entry);
  return symbol ? *symbol : kernel.entry;
}

} // namespace

std::vector<std::string> ncu_arguments(const profile_request& request, const ncu_options& options) {
  return {"--csv",
          "--page",
          "raw",
          "--print-units",
          "base",
          "--clock-control",
          "none",
          "--cache-control",
          "all",
          "--replay-mode",
          request.replay == profile_replay::kernel ? "kernel" : "application",
          "--metrics",
          join(request.metrics, ','),
          "--kernel-name-base",
          "mangled",
          "--kernel-name",
          kernel_symbol(request.run.kernels.front()),
          "--launch-count",
          "1",
          "--log-file",
          (options.work_dir / ncu_csv_file_name).string(),
          options.runner.string(),
          "--execute",
          (options.work_dir / ncu_request_file_name).string()};
}

expected<ncu_csv, ncu_csv_error> parse_ncu_csv(std::string_view text) {
  ncu_csv table;
  std::vector<std::string> header;
  bool units_read = false;
  std::size_t number = 0;
  for (auto line : split_lines(text)) {
    ++number;
    if (!line.starts_with('"'))
      continue; // ==PROF== lines, blank lines, anything that is not a CSV record
    auto fields = split_record(line);
    if (!fields)
      return unexpected(ncu_csv_error{number, "malformed CSV record (unbalanced quotes)"});
    if (header.empty()) {
      if (fields->empty() || fields->front() != header_first_column)
        return unexpected(ncu_csv_error{number, "expected the header row (first column \"ID\")"});
      header = std::move(*fields);
      continue;
    }
    if (fields->size() != header.size())
      return unexpected(ncu_csv_error{
        number, std::to_string(fields->size()) + " fields where the header has " +
                  std::to_string(header.size())});
    if (!units_read && table.launches.empty() && fields->front().empty()) {
      for (std::size_t i = 0; i < header.size(); ++i)
        table.units[header[i]] = (*fields)[i];
      units_read = true;
      continue;
    }
    ncu_launch launch;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (auto value = parse_number((*fields)[i]))
        launch.values[header[i]] = *value;
      else
        launch.text[header[i]] = (*fields)[i];
    }
    table.launches.push_back(std::move(launch));
  }
  if (header.empty())
    return unexpected(ncu_csv_error{0, "no CSV header row (did ncu profile anything?)"});
  return table;
}

profile_result interpret_ncu_run(const profile_request& request, std::string_view csv_text,
                                 std::string_view output_text, const std::optional<child_exit>& exit,
                                 std::chrono::milliseconds timeout) {
  auto messages = tool_messages(csv_text, output_text);
  auto with_messages = [&](std::string note) {
    return messages.empty() ? note : note + " — ncu said: " + messages;
  };
  if (csv_text.find(permission_error) != std::string_view::npos ||
      output_text.find(permission_error) != std::string_view::npos)
    return make_profile(request, profile_status::counters_unavailable,
                        with_messages("ncu may not read the GPU performance counters "
                                      "(ERR_NVGPUCTRPERM): run as root, or load the NVIDIA "
                                      "driver with NVreg_RestrictProfilingToAdminUsers=0"));
  // The kernel itself failed under ncu (it hung, or left the runner's context lost): no other
  // profiler is worth asking, it would see the same (metric_collection's second opinion).
  if (!exit) {
    auto hung = make_profile(request, profile_status::failed,
                             with_messages("ncu still running after " + std::to_string(timeout.count()) +
                                           " ms; killed"));
    hung.runner_exits = true;
    return hung;
  }
  auto ended = exit->to_string();
  if (exit->exit_code == runner_exit_context_lost || exit->exit_code == runner_exit_kernel_hung) {
    auto failed = make_profile(request, profile_status::failed,
                               with_messages("the kernel failed under ncu: the runner " + ended +
                                             (exit->exit_code == runner_exit_kernel_hung ? " (kernel hung)"
                                                                                         : " (CUDA context lost)")));
    failed.runner_exits = true;
    return failed;
  }
  auto table = parse_ncu_csv(csv_text);
  if (!table)
    return make_profile(request, profile_status::failed,
                        with_messages("ncu (" + ended + ") printed no usable CSV: line " +
                                      std::to_string(table.error().line) + ": " +
                                      table.error().message));
  if (table->launches.empty())
    return make_profile(request, profile_status::failed,
                        with_messages("ncu (" + ended + ") profiled no launch of '" +
                                      request.run.kernels.front().entry + "'"));

  auto result = make_profile(request, profile_status::ok, "");
  const auto& launch = table->launches.front();
  for (const auto& metric : request.metrics) {
    if (auto value = launch.values.find(metric); value != launch.values.end())
      result.values[metric] = value->second;
    else if (auto text = launch.text.find(metric); text != launch.text.end())
      result.missing[metric] = "ncu printed '" + text->second + "', not a number";
    else
      result.missing[metric] = "not in ncu's output (unknown to this chip or to ncu?)";
  }
  if (auto passes = launch.values.find(std::string{ncu_passes_column});
      passes != launch.values.end() && passes->second >= 0)
    result.passes = static_cast<std::uint32_t>(passes->second);
  result.note = "ncu, clocks not locked, " + ended;
  if (exit->exit_code != 0)
    result.note = with_messages(result.note);
  if (result.values.empty()) {
    result.status = profile_status::not_supported;
    result.note = with_messages("none of the requested metrics came back from ncu (" + ended + ")");
  }
  return result;
}

profile_result profile_with_ncu(const profile_request& request, const ncu_options& options) {
  std::error_code ec;
  fs::create_directories(options.work_dir, ec);
  if (ec)
    return make_profile(request, profile_status::failed,
                        "creating " + options.work_dir.string() + ": " + ec.message());
  const auto request_file = options.work_dir / ncu_request_file_name;
  const auto csv_file = options.work_dir / ncu_csv_file_name;
  const auto output_file = options.work_dir / ncu_output_file_name;
  {
    std::ofstream out{request_file, std::ios::binary | std::ios::trunc};
    out << encode_body(request.run);
    if (!out)
      return make_profile(request, profile_status::failed,
                          "writing " + request_file.string() + " failed");
  }
  fs::remove(csv_file, ec);
  fs::remove(output_file, ec);

  spawn_options spawn;
  spawn.executable = options.ncu;
  spawn.arguments = ncu_arguments(request, options);
  if (options.visible_devices)
    spawn.environment.emplace_back(std::string{visible_devices_env}, *options.visible_devices);
  // ncu serializes profiling through a lock under $TMPDIR (docs/measurement.md): one TMPDIR per
  // GPU's work folder, so an ncu on one GPU never waits for another GPU's. Two on one GPU cannot
  // happen: that GPU's worker holds its lock around the profile.
  spawn.environment.emplace_back("TMPDIR", options.work_dir.string());
  spawn.output_file = output_file;
  auto child = child_process::spawn(spawn);
  if (!child)
    return make_profile(request, profile_status::failed, "starting ncu: " + child.error().detail);
  auto exit = child->wait_for_exit(options.timeout);
  if (!exit) {
    ::kill(-child->pid(), SIGKILL); // ncu and the runner it started share its process group
    child->kill_and_reap();
  }
  return interpret_ncu_run(request, read_text(csv_file), read_text(output_file), exit,
                           options.timeout);
}

} // namespace warpforge::gpu
