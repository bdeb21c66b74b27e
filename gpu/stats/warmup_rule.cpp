#include "gpu/stats/warmup_rule.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<warmup_decision> warmup_decision_words[] = {
    {warmup_decision::keep_going, "keep_going"},
    {warmup_decision::settled, "settled"},
    {warmup_decision::launch_cap, "launch_cap"},
    {warmup_decision::time_cap, "time_cap"},
};
static_assert(vocabulary::covers(warmup_decision_words, all_warmup_decisions));

std::string_view to_string(warmup_decision decision) { return vocabulary::word_of(warmup_decision_words, decision); }

std::optional<warmup_decision> warmup_decision_from_string(std::string_view text) {
  return vocabulary::value_of(warmup_decision_words, text);
}

warmup_rule::warmup_rule(timing_policy policy) : policy_(policy) {
  policy_.warmup_window = std::max<std::uint32_t>(policy_.warmup_window, 1);
}

void warmup_rule::add(double launch_s) {
  times_.push_back(launch_s);
}

void warmup_rule::set_elapsed(double wall_s) {
  wall_s_ = std::max(wall_s_, wall_s);
}

double warmup_rule::window_median(std::size_t end) const {
  const std::size_t width = std::min<std::size_t>(policy_.warmup_window, end);
  if (width == 0)
    return 0.0;
  std::vector<double> window(times_.begin() + static_cast<std::ptrdiff_t>(end - width),
                             times_.begin() + static_cast<std::ptrdiff_t>(end));
  std::sort(window.begin(), window.end());
  const std::size_t n = window.size();
  return n % 2 == 1 ? window[n / 2] : (window[n / 2 - 1] + window[n / 2]) / 2.0;
}

double warmup_rule::recent_median_s() const {
  return window_median(times_.size());
}

warmup_decision warmup_rule::decision() const {
  const std::size_t n = times_.size();
  const std::size_t window = policy_.warmup_window;
  if (n >= std::max<std::size_t>(policy_.warmup_min_launches, 2 * window)) {
    const double last = window_median(n);
    const double before = window_median(n - window);
    if (std::fabs(last - before) <= policy_.warmup_settle * before)
      return warmup_decision::settled;
  }
  if (n >= policy_.warmup_max_launches)
    return warmup_decision::launch_cap;
  if (wall_s_ >= policy_.warmup_max_time_s)
    return warmup_decision::time_cap;
  return warmup_decision::keep_going;
}

} // namespace warpforge::gpu
