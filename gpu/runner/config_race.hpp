#pragma once
// A race at every configuration of a problem (config/problem_configs.hpp): one race_request per
// configuration, run one after another on the same GPU, and the per-configuration results
// combined into one race_result as if it were one race (docs/measurement.md, "Several
// configurations"):
//
//   - a kernel passes only if it passed at every configuration; otherwise its verdict is that of
//     the first configuration it failed at, the detail naming it ("at config 'large': ...");
//   - its median is sum(weight_i * median_i), and so are its interval's bounds, its mean, min and
//     max; counts and the seconds spent add up; each configuration's median is kept
//     (kernel_result::config_medians).
//
// A single configuration's result comes back exactly as it was: a problem without [[configs]]
// is measured as it always was.
//
//   std::vector<config_race_part> parts;                 // filled as each configuration answers
//   parts.push_back({"large", 0.75, {0, 1}, result_at_large});
//   parts.push_back({"small", 0.25, {0, 1}, result_at_small});
//   race_result race = combine_config_races(2, parts);   // what a single race would have said

#include "gpu/runner/race_request.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// What one configuration's race answered.
struct config_race_part {
  std::string config;               // the configuration's name
  double weight = 1.0;              // normalised: the parts' weights sum to 1
  std::vector<std::size_t> kernels; // for each kernel of `result`, its index in the combined race
                                    // (a kernel that failed at an earlier configuration is not
                                    // raced again)
  race_result result;
};

/// The parts (in configuration order) of a race of `kernel_count` kernels, combined. A kernel
/// raced at no configuration, or missing from one after passing the others, is not_run.
race_result combine_config_races(std::size_t kernel_count, const std::vector<config_race_part>& parts);

/// sum(weight_i * x_i) of each part's passed stats: median, interval bounds (level: the lowest),
/// mean, min, max; counts add up; stddev and the standard error combine as independent terms.
sample_stats weighted_stats(const std::vector<std::pair<double, sample_stats>>& weighted);

} // namespace warpforge::gpu
