#pragma once
// The retry policy: which failures are worth another attempt, and how long to wait before it
// (exponential back-off with jitter, or longer when the server said Retry-After). The retry loop
// itself lives in llm/chat, which also retries on error events inside a stream.

#include "llm/http/failure.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpforge::llm::http {

struct retry_policy {
  std::uint32_t max_attempts = 6;           // attempts in all, the first included
  std::chrono::milliseconds base{1'000};    // the wait before the first retry, before jitter [ms]
  std::chrono::milliseconds cap{60'000};    // no back-off waits longer, jitter included [ms]
  double jitter = 0.25;                     // each wait is scaled by 1 ± jitter (a fraction, 0..1)
  std::chrono::milliseconds max_retry_after{300'000}; // a server's Retry-After is honoured up to this [ms]
};

/// A Retry-After value as a wait from `now`: delta-seconds ("120") or an HTTP-date in any of the
/// three forms RFC 9110 §5.6.7 asks a recipient to read; a date in the past is a wait of 0.
/// nullopt for anything else.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

/// The wait before retry number `retry` (1 = the first retry): base·2^(retry-1), scaled by a
/// jitter factor drawn from `random_bits` (uniform in 1 ± jitter), at most `cap`. A Retry-After
/// wins when it is longer, clipped to max_retry_after.
std::chrono::milliseconds backoff_delay(const retry_policy& policy, std::uint32_t retry,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        std::uint64_t random_bits);

/// Whether an HTTP status is worth a retry: 408, 409, 425, 429, 500, 502, 503, 504, 529.
bool retryable_status(unsigned status);

/// Whether a transport failure is worth a retry: resolve, connect, the timeouts and dropped are
/// (the network or the server may recover); bad_url, proxy, tls and protocol are not (the same
/// request would fail the same way).
bool retryable(failure_kind kind);

} // namespace warpforge::llm::http
