#pragma once
// When to stop repeating a timed launch: nvbench's "stdrel" criterion, with warpforge's budget.
//
//   stopping_rule rule{timing_policy{}};
//   while (rule.decision() == stop_decision::keep_going) rule.add(time_one_launch_s());
//
// Noise is nvbench's: the relative standard deviation stddev / mean of all samples so far. Sampling
// stops as soon as, with at least min_samples samples and more than min_time_s of measured time:
//   - noise < max_noise                                       -> converged, or
//   - over the last noise_window noise values (more than noise_min_history of them, checked
//     every noise_check_every samples), the RMS deviation of those values from the current
//     noise, over the current noise, is < noise_plateau: the noise has stopped improving
//     above the target                                        -> noise_plateau (not converged);
// or, whatever the minima, when the budget runs out:
//   - measured (or wall, if given) time >= max_time_s         -> budget_exhausted (not converged)
//   - samples >= max_samples                                  -> max_samples (not converged).
// Source: nvbench/stopping_criterion + detail/stdrel_criterion.cxx and measure_cold.cu (min-samples
// 10, min-time 0.5 s, max-noise 0.5%, timeout 15 s, 512-entry noise ring, >64 entries, every 16
// samples, 5%). Host-only; times in seconds, ratios 1.0 = 100%.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>

namespace warpforge::gpu {

/// Repetition settings of one measurement (docs/measurement.md). Defaults follow nvbench.
struct timing_policy {
  std::uint32_t warmup_launches = 1;    // launches before timing starts, at least
  double warmup_min_time_s = 0.0;       // seconds of warm-up, at least (launches continue until
                                        // both warm-up minima are met)
  std::size_t min_samples = 10;         // timed samples before any stop but the budget
  double min_time_s = 0.5;              // seconds of measured (summed sample) time to exceed first
  double max_noise = 0.005;             // relative stddev target, 0.005 = 0.5%
  double max_time_s = 15.0;             // seconds: the budget; measured or wall time, whichever larger
  std::size_t max_samples = 100000;     // samples: the budget in count
  bool stop_on_noise_plateau = true;    // nvbench's convergence check on the noise history
  std::size_t noise_window = 512;       // noise values kept for the plateau check
  std::size_t noise_min_history = 64;   // noise values needed (strictly more) before checking
  std::size_t noise_check_every = 16;   // samples between plateau checks
  double noise_plateau = 0.05;          // relative stddev of the noise history, 0.05 = 5%

  bool operator==(const timing_policy&) const = default;
};

enum class stop_decision : std::uint8_t {
  keep_going,       // take another sample
  converged,        // noise below max_noise with the minima met
  noise_plateau,    // noise stable above max_noise: more samples would not help (not converged)
  budget_exhausted, // max_time_s spent (not converged)
  max_samples,      // max_samples taken (not converged)
};
std::string_view to_string(stop_decision decision);
std::optional<stop_decision> stop_decision_from_string(std::string_view text);
inline constexpr stop_decision all_stop_decisions[] = {
  stop_decision::keep_going, stop_decision::converged, stop_decision::noise_plateau,
  stop_decision::budget_exhausted, stop_decision::max_samples};

/// Whether `decision` ends sampling.
bool is_final(stop_decision decision);

/// The adaptive repetition policy over a stream of samples. Keeps running sums (O(1) per sample)
/// and a bounded noise history; the samples themselves belong to the caller.
class stopping_rule {
public:
  explicit stopping_rule(timing_policy policy = {});

  /// One timed sample, seconds (> 0 expected; non-finite samples count but do not enter the noise).
  void add(double sample_s);

  /// Wall time since timing started, seconds (launch overheads, L2 flushes, syncs included); the
  /// budget is checked against the larger of this and the summed samples. Monotonic; optional.
  void set_wall_elapsed(double elapsed_s);

  /// What to do now: a pure function of the samples so far. Converged and plateau need the minima;
  /// the budget stops do not. When several hold, the first in the enum order wins.
  stop_decision decision() const;

  std::size_t samples() const { return samples_; }          // samples added
  double measured_s() const { return sum_s_; }              // seconds, sum of samples
  double elapsed_s() const;                                 // seconds, max(measured, wall)
  double noise() const;                                     // stddev / mean now, 1.0 = 100%;
                                                            // 0 with fewer than 2 samples
  const timing_policy& policy() const { return policy_; }

private:
  bool plateau_reached() const;

  timing_policy policy_;
  std::size_t samples_ = 0;          // samples added, finite or not
  std::size_t finite_samples_ = 0;   // finite samples: the ones in the statistics
  double sum_s_ = 0.0;      // seconds
  double mean_s_ = 0.0;     // seconds, Welford running mean
  double m2_ = 0.0;         // seconds^2, Welford sum of squared deviations
  double wall_s_ = 0.0;     // seconds
  std::deque<double> noise_history_; // ratios, the last noise_window noise values
};

} // namespace warpforge::gpu
