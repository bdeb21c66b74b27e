#include "config/supervision_policy.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::config {

std::chrono::milliseconds backoff_delay(const supervision_policy& policy, std::uint32_t restart) {
  const double cap = policy.backoff_max_ms;
  // pow() of a large exponent is +inf, which min() turns into the cap.
  const double delay = std::min(
    cap, policy.backoff_initial_ms * std::pow(policy.backoff_factor, static_cast<double>(restart)));
  return std::chrono::milliseconds{static_cast<std::int64_t>(delay)};
}

} // namespace warpforge::config
