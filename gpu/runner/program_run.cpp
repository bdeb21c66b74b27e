#include "gpu/runner/program_run.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <deque>
#include <fstream>
#include <sstream>

namespace warpforge::gpu {
namespace {

constexpr std::string_view visible_devices_env = "CUDA_VISIBLE_DEVICES";

bool valid_name(std::string_view name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'))
      return false;
  return true;
}

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::deque<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count)
      lines.pop_front();
  }
  std::string tail;
  for (const auto& line : lines)
    tail += line + '\n';
  return tail;
}

} // namespace

expected<std::vector<result_value>, result_parse_error> parse_result_lines(std::string_view output) {
  std::vector<result_value> values;
  std::size_t number = 0;
  while (!output.empty()) {
    ++number;
    const auto newline = output.find('\n');
    std::string_view line = output.substr(0, newline);
    output = newline == std::string_view::npos ? std::string_view{} : output.substr(newline + 1);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (!line.starts_with(result_prefix))
      continue;
    std::istringstream pairs{std::string{line.substr(result_prefix.size())}};
    std::size_t found = 0;
    for (std::string pair; pairs >> pair;) {
      const auto eq = pair.find('=');
      const std::string_view name = std::string_view{pair}.substr(0, eq);
      if (eq == std::string::npos || !valid_name(name))
        return unexpected{result_parse_error{number, std::string{line}, "expected name=value, got '" + pair + "'"}};
      auto value = parse_number(std::string_view{pair}.substr(eq + 1));
      if (!value)
        return unexpected{result_parse_error{number, std::string{line},
                                             "'" + std::string{name} + "' has no finite numeric value"}};
      values.push_back({std::string{name}, *value});
      ++found;
    }
    if (found == 0)
      return unexpected{result_parse_error{number, std::string{line}, "a RESULT line without name=value"}};
  }
  return values;
}

constexpr vocabulary::enum_word<program_outcome> program_outcome_words[] = {
    {program_outcome::passed, "passed"},
    {program_outcome::failed, "failed"},
    {program_outcome::crashed, "crashed"},
    {program_outcome::timeout, "timeout"},
    {program_outcome::bad_output, "bad_output"},
};
static_assert(vocabulary::covers(program_outcome_words, all_program_outcomes));

std::string_view to_string(program_outcome outcome) { return vocabulary::word_of(program_outcome_words, outcome); }

std::optional<program_outcome> program_outcome_from_string(std::string_view text) {
  return vocabulary::value_of(program_outcome_words, text);
}

expected<program_report, spawn_error> run_program(const program_run_options& options) {
  program_report report;
  std::map<std::string, std::vector<double>> samples;
  std::filesystem::create_directories(options.output_dir);
  for (std::uint32_t n = 1; n <= options.trials; ++n) {
    spawn_options spawn;
    spawn.executable = options.executable;
    spawn.arguments = options.arguments;
    if (options.visible_devices)
      spawn.environment.emplace_back(std::string{visible_devices_env}, *options.visible_devices);
    spawn.output_file = options.output_dir / ("trial-" + std::to_string(n) + ".log");
    std::filesystem::remove(spawn.output_file);

    const auto start = std::chrono::steady_clock::now();
    auto child = child_process::spawn(spawn);
    if (!child)
      return unexpected{child.error()};
    program_trial trial;
    auto exit = child->wait_for_exit(options.watchdog);
    const bool timed_out = !exit.has_value();
    trial.exit = timed_out ? child->kill_and_reap() : *exit;
    trial.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string output = read_file(spawn.output_file);
    trial.output_tail = last_lines(output, program_output_tail_lines);

    if (timed_out) {
      trial.outcome = program_outcome::timeout;
      trial.detail = "still running after " + std::to_string(options.watchdog.count()) + " ms; killed";
    } else if (trial.exit.signal) {
      trial.outcome = program_outcome::crashed;
      trial.detail = trial.exit.to_string();
    } else if (trial.exit.exit_code != 0) {
      trial.outcome = program_outcome::failed;
      trial.detail = trial.exit.to_string();
    } else if (auto results = parse_result_lines(output); !results) {
      trial.outcome = program_outcome::bad_output;
      trial.detail = "line " + std::to_string(results.error().line) + ": " + results.error().message;
    } else if (results->empty()) {
      trial.outcome = program_outcome::bad_output;
      trial.detail = "no RESULT: line in the output";
    } else {
      trial.outcome = program_outcome::passed;
      trial.results = std::move(*results);
      for (const auto& r : trial.results)
        samples[r.name].push_back(r.value);
      ++report.passed;
    }
    report.trials.push_back(std::move(trial));
  }
  for (const auto& [name, values] : samples)
    report.results[name] = summarize(values);
  return report;
}

} // namespace warpforge::gpu
