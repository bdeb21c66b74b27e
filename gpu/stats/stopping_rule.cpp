#include "gpu/stats/stopping_rule.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::gpu {

std::string_view to_string(stop_decision decision) {
  switch (decision) {
  case stop_decision::keep_going: return "keep_going";
  case stop_decision::converged: return "converged";
  case stop_decision::noise_plateau: return "noise_plateau";
  case stop_decision::budget_exhausted: return "budget_exhausted";
  case stop_decision::max_samples: return "max_samples";
  }
  return "unknown";
}

std::optional<stop_decision> stop_decision_from_string(std::string_view text) {
  for (stop_decision decision : all_stop_decisions)
    if (to_string(decision) == text)
      return decision;
  return std::nullopt;
}

bool is_final(stop_decision decision) {
  return decision != stop_decision::keep_going;
}

stopping_rule::stopping_rule(timing_policy policy) : policy_(policy) {}

void stopping_rule::add(double sample_s) {
  ++samples_;
  if (!std::isfinite(sample_s))
    return;
  sum_s_ += sample_s;
  // Welford: the finite samples' count is the number of updates so far.
  const double finite_count = static_cast<double>(++finite_samples_);
  const double delta = sample_s - mean_s_;
  mean_s_ += delta / finite_count;
  m2_ += delta * (sample_s - mean_s_);
  const double current = noise();
  if (finite_samples_ >= 2 && std::isfinite(current)) {
    noise_history_.push_back(current);
    if (noise_history_.size() > policy_.noise_window)
      noise_history_.pop_front();
  }
}

void stopping_rule::set_wall_elapsed(double elapsed_s) {
  wall_s_ = std::max(wall_s_, elapsed_s);
}

double stopping_rule::elapsed_s() const {
  return std::max(sum_s_, wall_s_);
}

double stopping_rule::noise() const {
  if (finite_samples_ < 2 || mean_s_ == 0.0)
    return 0.0;
  const double stddev = std::sqrt(m2_ / static_cast<double>(finite_samples_ - 1));
  return stddev / mean_s_;
}

bool stopping_rule::plateau_reached() const {
  if (!policy_.stop_on_noise_plateau || noise_history_.size() <= policy_.noise_min_history)
    return false;
  if (policy_.noise_check_every > 0 && samples_ % policy_.noise_check_every != 0)
    return false;
  const double current = noise_history_.back();
  if (current <= 0.0)
    return false;
  // As nvbench: the spread of the history around the *current* noise, not around its mean.
  double squares = 0.0;
  for (double value : noise_history_)
    squares += (value - current) * (value - current);
  const double stddev = std::sqrt(squares / static_cast<double>(noise_history_.size() - 1));
  return stddev / current < policy_.noise_plateau;
}

stop_decision stopping_rule::decision() const {
  // As nvbench: measured time must exceed min_time_s strictly.
  const bool minima_met = samples_ >= policy_.min_samples && sum_s_ > policy_.min_time_s;
  if (minima_met && finite_samples_ >= 2 && noise() < policy_.max_noise)
    return stop_decision::converged;
  if (minima_met && plateau_reached())
    return stop_decision::noise_plateau;
  if (elapsed_s() >= policy_.max_time_s)
    return stop_decision::budget_exhausted;
  if (samples_ >= policy_.max_samples)
    return stop_decision::max_samples;
  return stop_decision::keep_going;
}

} // namespace warpforge::gpu
