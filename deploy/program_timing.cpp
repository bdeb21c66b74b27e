#include "deploy/program_timing.hpp"

#include "deploy/project_command.hpp"
#include "gpu/runner/program_run.hpp"
#include "gpu/stats/sample_stats.hpp"

#if WARPFORGE_DEPLOY_HAS_OBSERVE
#include "deploy/observe/launches/launch_record.hpp"
#include "deploy/observe/run_observed.hpp"
#endif

#include <algorithm>
#include <set>
#include <vector>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

// One timing run: its value, and (observed) every launch of every kernel.
struct one_timing {
  double value = 0;
  std::vector<launch_time> launches;
};
using one_run = expected<one_timing, std::string>;

one_run time_by_result(const deploy_target& target, const fs::path& log) {
  auto run = run_in_project(target.project, target.time, target.run_timeout, log);
  if (!run.succeeded())
    return unexpected{"`" + target.time + "` " + run.how_it_ended(target.run_timeout) + "; its output ends:\n" +
                      output_tail(run.output)};
  auto value = result_value(run.output, target.result_key);
  if (!value)
    return unexpected{"`" + target.time + "`: " + value.error()};
  return one_timing{*value, {}};
}

#if WARPFORGE_DEPLOY_HAS_OBSERVE
one_run time_by_observation(const deploy_target& target, const fs::path& log_dir) {
  observe::observe_request request;
  request.command = {"/bin/sh"};
  for (auto& argument : shell_arguments(target.project, target.time))
    request.command.push_back(std::move(argument));
  request.workdir = target.project;
  request.kernel = ""; // every kernel: the deploy compares them all, the named one kept below
  request.timeout = target.run_timeout;
  request.log_dir = log_dir;
  auto observed = observe::run_observed(request);
  if (!observed)
    return unexpected{"`" + target.time + "` under observation: " + observed.error()};
  if (!observed->exit.exit_code || *observed->exit.exit_code != 0)
    return unexpected{"`" + target.time + "` " + observed->exit.to_string() + "; its output ends:\n" +
                      output_tail(observed->output)};
  one_timing out;
  std::size_t launches = 0;
  for (const auto& launch : observed->launches) {
    const bool named = observe::matches_kernel(launch, target.kernel); // "" matches every kernel
    out.launches.push_back({launch.demangled.empty() ? launch.kernel : launch.demangled, named, launch.duration_s});
    if (named) {
      out.value += launch.duration_s;
      ++launches;
    }
  }
  if (launches == 0 || out.value <= 0) {
    std::set<std::string> ran;
    for (const auto& launch : out.launches)
      ran.insert(launch.kernel);
    std::string names;
    for (const auto& name : ran)
      names += (names.empty() ? "" : ", ") + name;
    return unexpected{"`" + target.time + "` launched no timed kernel '" + target.kernel + "' (" +
                      observed->method + "; the kernels it launched: " + (names.empty() ? "none" : names) + ")"};
  }
  return out;
}
#else
one_run time_by_observation(const deploy_target&, const fs::path&) {
  return unexpected{std::string{"timing \"observed\" needs deploy/observe/, which this build lacks"}};
}
#endif

} // namespace

timing_summary summarize_timing(std::span<const double> samples, std::string unit) {
  timing_summary out;
  out.samples.assign(samples.begin(), samples.end());
  out.unit = std::move(unit);
  if (samples.empty())
    return out;
  const auto stats = gpu::summarize(samples); // the "_s" fields are in the samples' unit
  out.median = stats.median_s;
  out.spread = stats.max_s - stats.min_s;
  return out;
}

expected<double, std::string> result_value(std::string_view output, std::string_view key) {
  auto values = gpu::parse_result_lines(output);
  if (!values)
    return unexpected{"line " + std::to_string(values.error().line) + " `" + values.error().text +
                      "`: " + values.error().message};
  std::optional<double> found;
  for (const auto& v : *values)
    if (v.name == key)
      found = v.value;
  if (!found)
    return unexpected{"printed no `RESULT: " + std::string{key} + "=<value>` line; its output ends:\n" +
                      output_tail(output)};
  return *found;
}

expected<timed_program, std::string> time_program(const deploy_target& target,
                                                  const fs::path& log_dir, std::string_view label) {
  std::vector<double> samples;
  std::vector<std::vector<launch_time>> runs;
  for (std::int64_t n = 1; n <= target.repeats; ++n) {
    const std::string name = std::string{label} + "-" + std::to_string(n);
    auto value = target.timing == timing_source::observed
                   ? time_by_observation(target, log_dir / name)
                   : time_by_result(target, log_dir / (name + ".log"));
    if (!value)
      return unexpected{"timing run " + std::to_string(n) + " of " + std::to_string(target.repeats) +
                        ": " + value.error()};
    samples.push_back(value->value);
    runs.push_back(std::move(value->launches));
  }
  const bool observed = target.timing == timing_source::observed;
  timed_program out{summarize_timing(samples, observed ? "s" : target.result_key), std::nullopt};
  if (observed)
    out.kernels = tally_kernels(runs);
  return out;
}

bool observed_timing_available() {
  return WARPFORGE_DEPLOY_HAS_OBSERVE != 0;
}

} // namespace warpforge::deploy
