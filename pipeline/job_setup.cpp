#include "pipeline/job_setup.hpp"

#include "config/kernel_entry.hpp"

#include "config/toml_reader/placed_error.hpp"
#include "tuning/search_space.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

namespace {

expected<std::string, std::string> read_source(const std::filesystem::path& file) {
  std::ifstream in{file};
  if (!in)
    return unexpected{"cannot read kernel source " + file.string() + ": " + std::strerror(errno)};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

std::optional<std::string> runner_cannot_check(const config::problem_spec& problem,
                                               const std::filesystem::path& problem_path) {
  if (problem.reference.kind == config::reference_kind::file)
    return problem_path.string() + ": a reference from an expected-values file is not supported by the runner yet";
  return std::nullopt;
}

expected<job_setup, std::string> open_job(std::string name, std::filesystem::path problem_path,
                                          config::problem_spec problem) {
  job_setup job;
  job.name = std::move(name);
  job.problem_path = std::move(problem_path);
  if (auto why = runner_cannot_check(problem, job.problem_path))
    return unexpected{std::move(*why)};
  auto kernel = read_source(problem.kernel.source);
  if (!kernel)
    return unexpected{kernel.error()};
  job.kernel_text = std::move(*kernel);
  const bool own_reference = problem.reference.kind == config::reference_kind::self;
  const auto& reference = own_reference ? problem.kernel : problem.reference.kernel;
  auto reference_text = own_reference ? expected<std::string, std::string>{job.kernel_text}
                                      : read_source(reference.source);
  if (!reference_text)
    return unexpected{reference_text.error()};
  job.reference_text = std::move(*reference_text);
  // A template argument naming a tunable takes its default value (the reference runs there).
  job.reference_entry = config::entry_at_point(reference.entry, config::default_point(problem));
  job.reference_flags = reference.flags;
  const auto configs = config::problem_configs(problem);
  for (const auto& at : configs) {
    auto defaults = config::resolve_problem(problem, config::default_point(problem), at);
    if (!defaults)
      return unexpected{toml_reader::to_string(defaults.error())};
    job.configs.push_back({at, std::move(*defaults)});
  }
  job.heaviest = heaviest_config(job.configs);
  job.defaults = job.configs[job.heaviest].defaults;
  auto space = tuning::search_space::from_problem(problem);
  if (!space)
    return unexpected{job.problem_path.string() + ": " + tuning::to_string(space.error())};
  job.baseline.kind = vocabulary::branch_kind::baseline;
  job.baseline.point = space->default_point();
  job.baseline.methods = space->claimed_methods(job.baseline.point);
  job.problem = std::move(problem);
  return job;
}

std::size_t heaviest_config(const std::vector<job_config>& configs) {
  auto weighted_bytes = [](const job_config& at) {
    double bytes = 0;
    for (const auto& arg : at.defaults.args)
      if (const auto* b = std::get_if<config::resolved_buffer>(&arg))
        bytes += static_cast<double>(b->bytes);
    return at.config.weight * bytes;
  };
  std::size_t heaviest = 0;
  for (std::size_t i = 1; i < configs.size(); ++i)
    if (weighted_bytes(configs[i]) > weighted_bytes(configs[heaviest]))
      heaviest = i;
  return heaviest;
}

double buffer_bytes(const job_setup& job) {
  double bytes = 0;
  for (const auto& at : job.configs)
    for (const auto& arg : at.defaults.args)
      if (const auto* b = std::get_if<config::resolved_buffer>(&arg))
        bytes += at.config.weight * static_cast<double>(b->bytes);
  return bytes;
}

} // namespace warpforge::pipeline
