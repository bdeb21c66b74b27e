#include "llm/http/retry.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <string>

namespace warpforge::llm::http {
namespace {

// RFC 9110 §5.6.7: IMF-fixdate, then the obsolete RFC 850 and asctime forms; all in GMT.
constexpr std::array<const char*, 3> http_date_formats = {
    "%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"};

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::optional<std::chrono::system_clock::time_point> parse_http_date(const std::string& text) {
  for (const char* format : http_date_formats) {
    std::tm fields{};
    const char* end = strptime(text.c_str(), format, &fields);
    if (end != nullptr && *end == '\0')
      return std::chrono::system_clock::from_time_t(timegm(&fields));
  }
  return std::nullopt;
}

} // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  value = trimmed(value);
  if (value.empty())
    return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::uint32_t seconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error != std::errc{})
      return std::nullopt; // more seconds than any server means
    return std::chrono::seconds{seconds};
  }
  const auto date = parse_http_date(std::string{value});
  if (!date)
    return std::nullopt;
  if (*date <= now)
    return std::chrono::milliseconds{0};
  return std::chrono::duration_cast<std::chrono::milliseconds>(*date - now);
}

std::chrono::milliseconds backoff_delay(const retry_policy& policy, std::uint32_t retry,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        std::uint64_t random_bits) {
  const double doublings = std::min<double>(std::max<std::uint32_t>(retry, 1) - 1, 62);
  const double exponential = static_cast<double>(policy.base.count()) * std::exp2(doublings);
  // The top 53 bits as a uniform fraction in [0, 1), then as a factor in [1 - jitter, 1 + jitter).
  const double uniform = static_cast<double>(random_bits >> 11) * 0x1p-53;
  const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  const double factor = 1.0 + jitter * (2.0 * uniform - 1.0);
  const double capped = std::min(exponential * factor, static_cast<double>(policy.cap.count()));
  std::chrono::milliseconds wait{static_cast<std::int64_t>(std::llround(std::max(capped, 0.0)))};
  if (retry_after)
    wait = std::max(wait, std::min(*retry_after, policy.max_retry_after));
  return wait;
}

bool retryable_status(unsigned status) {
  constexpr std::array<unsigned, 9> statuses = {408, 409, 425, 429, 500, 502, 503, 504, 529};
  return std::find(statuses.begin(), statuses.end(), status) != statuses.end();
}

bool retryable(failure_kind kind) {
  switch (kind) {
  case failure_kind::resolve:
  case failure_kind::connect:
  case failure_kind::timeout_connect:
  case failure_kind::timeout_first_byte:
  case failure_kind::timeout_idle:
  case failure_kind::timeout_total:
  case failure_kind::dropped:
    return true;
  case failure_kind::bad_url:
  case failure_kind::proxy:
  case failure_kind::tls:
  case failure_kind::protocol:
    return false;
  }
  return false;
}

} // namespace warpforge::llm::http
