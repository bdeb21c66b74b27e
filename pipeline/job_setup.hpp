#pragma once
// A job's problem as the pipeline's steps need it: the spec, the kernel and reference sources
// read once, the problem resolved at its default point, and the baseline candidate. Made once per
// job when a campaign (or bench, or diagnose) starts; an error names the file or the spec field.
//
//   auto job = open_job(name, problem_path, spec);   // expected<job_setup, std::string>
//   job->baseline                                    // the job's own kernel, default point

#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "foundation/expected/expected.hpp"
#include "pipeline/candidate.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::pipeline {

/// The job's problem at one of its configurations (config/problem_configs.hpp).
struct job_config {
  config::problem_config config;     // name, normalised weight, dims
  config::resolved_problem defaults; // the problem at its default point there
};

struct job_setup {
  std::string name;                   // the job's name in the campaign
  std::filesystem::path problem_path; // its problem spec
  config::problem_spec problem;
  std::string kernel_text;            // the problem's kernel source
  std::string reference_text;         // the reference kernel's source (the kernel's own for
                                      // reference kind self)
  std::string reference_entry;
  std::vector<std::string> reference_flags;
  std::vector<job_config> configs;    // every configuration the job is raced at, in spec
                                      // order; one for a problem without [[configs]]
  std::size_t heaviest = 0;           // index into configs of heaviest_config: where
                                      // profiles and diagnoses run
  config::resolved_problem defaults;  // the problem at its default point at the heaviest
                                      // configuration (without [[configs]]: at [dims])
  candidate baseline;                 // the kernel at its default point, with the methods its
                                      // tunables claim there
};

/// Reads the job's sources and resolves its default point at every configuration. Errors: a source that cannot be read,
/// a default point that does not resolve, a search space that cannot be built, a reference kind
/// the runner cannot use yet (runner_cannot_check's text).
expected<job_setup, std::string> open_job(std::string name, std::filesystem::path problem_path,
                                          config::problem_spec problem);

/// Why the runner cannot check the problem's results yet (a reference from an expected-values
/// file), naming the problem file; none when it can. open_job refuses such a problem with this
/// text; a command asks first, to answer "not available in this build" rather than "bad input".
std::optional<std::string> runner_cannot_check(const config::problem_spec& problem,
                                               const std::filesystem::path& problem_path);

/// The bytes every buffer of the problem holds at its default point (each moved once: what an
/// achieved bandwidth is counted against); with several configurations, their weighted sum,
/// as the time it is divided by is.
double buffer_bytes(const job_setup& job);

/// The configuration with the most weighted data (weight x bytes of its buffers at the default
/// point; the first of equals): before anything is timed, the best guess of where the kernel's
/// time goes, so profiles and diagnoses run there. (Weights count launches: the most launched
/// configuration is often a small one.)
std::size_t heaviest_config(const std::vector<job_config>& configs);

} // namespace warpforge::pipeline
