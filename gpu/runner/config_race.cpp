#include "gpu/runner/config_race.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace warpforge::gpu {

sample_stats weighted_stats(const std::vector<std::pair<double, sample_stats>>& weighted) {
  sample_stats out;
  double variance = 0;       // of the weighted sum, terms independent
  double standard_error = 0; // squared, likewise
  bool first = true;
  for (const auto& [w, s] : weighted) {
    out.count += s.count;
    out.median_s += w * s.median_s;
    out.mean_s += w * s.mean_s;
    out.min_s += w * s.min_s;
    out.max_s += w * s.max_s;
    out.median_ci.low += w * s.median_ci.low;
    out.median_ci.high += w * s.median_ci.high;
    out.mean_ci.low += w * s.mean_ci.low;
    out.mean_ci.high += w * s.mean_ci.high;
    out.median_ci.level = first ? s.median_ci.level : std::min(out.median_ci.level, s.median_ci.level);
    out.mean_ci.level = first ? s.mean_ci.level : std::min(out.mean_ci.level, s.mean_ci.level);
    variance += w * w * s.stddev_s * s.stddev_s;
    const double se = s.rse * s.mean_s;
    standard_error += w * w * se * se;
    first = false;
  }
  out.stddev_s = std::sqrt(variance);
  out.cv = out.mean_s > 0 ? out.stddev_s / out.mean_s : 0.0;
  out.rse = out.mean_s > 0 ? std::sqrt(standard_error) / out.mean_s : 0.0;
  return out;
}

namespace {

// What `part` says of the kernel in its request's slot `s`: a runner that answered fewer kernels
// than it was asked leaves the rest a runtime_error.
kernel_result kernel_at(const config_race_part& part, std::size_t s) {
  if (s < part.result.kernels.size())
    return part.result.kernels[s];
  kernel_result k;
  k.outcome = vocabulary::branch_outcome::runtime_error;
  k.detail = "the runner answered " + std::to_string(part.result.kernels.size()) +
             " kernels for a race of " + std::to_string(part.kernels.size());
  return k;
}

// The kernel's result at each part, in part order (none: not raced there).
std::vector<std::optional<kernel_result>> results_of(std::size_t kernel,
                                                     const std::vector<config_race_part>& parts) {
  std::vector<std::optional<kernel_result>> out(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (std::size_t s = 0; s < parts[p].kernels.size(); ++s)
      if (parts[p].kernels[s] == kernel)
        out[p] = kernel_at(parts[p], s);
  return out;
}

std::string at_config(const config_race_part& part) {
  return "at config '" + part.config + "'";
}

// The kernel's results at every part combined: its first failure, else the weighted sum.
kernel_result combine_kernel(const std::vector<std::optional<kernel_result>>& at,
                             const std::vector<config_race_part>& parts) {
  kernel_result out;
  std::vector<std::pair<double, sample_stats>> weighted;
  std::size_t heaviest = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (!at[p]) {
      out = kernel_result{};
      out.outcome = vocabulary::branch_outcome::not_run;
      out.detail = "not raced " + at_config(parts[p]);
      return out;
    }
    const kernel_result& k = *at[p];
    if (k.outcome != vocabulary::branch_outcome::passed) {
      kernel_result failed = k;
      failed.detail = at_config(parts[p]) + ": " + k.detail;
      return failed;
    }
    weighted.emplace_back(parts[p].weight, k.stats);
    out.config_medians.push_back({parts[p].config, parts[p].weight, k.stats.median_s});
    out.rounds += k.rounds;
    out.round_spread_s += parts[p].weight * k.round_spread_s;
    out.batch_samples += k.batch_samples;
    out.warmup_launches += k.warmup_launches;
    out.kernel_s += k.kernel_s;
    out.load_s += k.load_s;
    out.check_s += k.check_s;
    out.warmup_s += k.warmup_s;
    out.timing_s += k.timing_s;
    for (const auto& note : k.notes)
      out.notes.push_back(at_config(parts[p]) + ": " + note);
    if (parts[p].weight * k.stats.median_s > parts[heaviest].weight * at[heaviest]->stats.median_s)
      heaviest = p;
  }
  out.outcome = vocabulary::branch_outcome::passed;
  out.stats = weighted_stats(weighted);
  out.decision = at[heaviest]->decision; // how sampling stopped where most of its time goes
                                         // (weight x median: weights count launches)
  out.warmup = at[heaviest]->warmup;
  return out;
}

// The race-wide figures: seconds add up, clocks from the first and the last part.
void combine_race_figures(const std::vector<config_race_part>& parts, race_result& out) {
  for (const auto& part : parts) {
    const auto& r = part.result;
    if (out.reference_s == 0.0)
      out.reference_s = r.reference_s;
    out.watchdog_s = std::max(out.watchdog_s, r.watchdog_s);
    if (out.sm_clock_hz_before == 0.0)
      out.sm_clock_hz_before = r.sm_clock_hz_before;
    if (r.sm_clock_hz_after > 0.0)
      out.sm_clock_hz_after = r.sm_clock_hz_after;
    out.inputs_s += r.inputs_s;
    out.reference_wall_s += r.reference_wall_s;
    out.setup_s += r.setup_s;
    out.rounds_wall_s += r.rounds_wall_s;
    out.wall_s += r.wall_s;
    for (const auto& note : r.notes)
      out.notes.push_back(at_config(part) + ": " + note);
  }
}

} // namespace

race_result combine_config_races(std::size_t kernel_count, const std::vector<config_race_part>& parts) {
  race_result out;
  if (parts.empty()) {
    out.kernels.assign(kernel_count, kernel_result{});
    for (auto& k : out.kernels)
      k.detail = "raced at no configuration"; // outcome not_run
    return out;
  }
  if (parts.size() == 1) { // one configuration: its result as it came, in the race's order
    out = parts.front().result;
    out.kernels.assign(kernel_count, kernel_result{});
    for (auto& k : out.kernels) {
      k.outcome = vocabulary::branch_outcome::not_run;
      k.detail = "not raced " + at_config(parts.front());
    }
    for (std::size_t s = 0; s < parts.front().kernels.size(); ++s)
      out.kernels.at(parts.front().kernels[s]) = kernel_at(parts.front(), s);
    return out;
  }
  for (std::size_t k = 0; k < kernel_count; ++k)
    out.kernels.push_back(combine_kernel(results_of(k, parts), parts));
  combine_race_figures(parts, out);
  return out;
}

} // namespace warpforge::gpu
