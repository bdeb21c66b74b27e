// The retry policy: Retry-After in both forms, the back-off's growth, cap and jitter bounds, and
// which statuses and failures are worth a retry.

#include "llm/http/retry.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace warpforge::llm::http {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date) as a time point.
const auto example_date = std::chrono::system_clock::from_time_t(784111777);

constexpr std::uint64_t lowest_bits = 0;                  // uniform 0: factor 1 - jitter
constexpr std::uint64_t middle_bits = std::uint64_t{1} << 63; // uniform 0.5: factor 1
constexpr std::uint64_t highest_bits = ~std::uint64_t{0};     // uniform → 1: factor → 1 + jitter

TEST(ParseRetryAfter, ReadsDeltaSeconds) {
  EXPECT_EQ(parse_retry_after("120", example_date), milliseconds{120'000});
  EXPECT_EQ(parse_retry_after(" 0 ", example_date), milliseconds{0});
}

TEST(ParseRetryAfter, ReadsAllThreeHttpDateFormsAsAWaitFromNow) {
  const auto now = example_date - seconds{30};
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), milliseconds{30'000});
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now), milliseconds{30'000});
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", now), milliseconds{30'000});
}

TEST(ParseRetryAfter, GivesZeroForADateInThePast) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", example_date + seconds{5}), milliseconds{0});
}

TEST(ParseRetryAfter, RefusesGarbage) {
  for (const char* garbage : {"", "soon", "-5", "1.5", "12abc", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49:37 GMT x",
                              "99999999999999999999"})
    EXPECT_FALSE(parse_retry_after(garbage, example_date)) << "'" << garbage << "'";
}

TEST(BackoffDelay, DoublesFromBaseWithoutJitterAtTheMiddle) {
  const retry_policy policy{.max_attempts = 6, .base = milliseconds{100}, .cap = milliseconds{60'000}, .jitter = 0.25};
  EXPECT_EQ(backoff_delay(policy, 1, std::nullopt, middle_bits), milliseconds{100});
  EXPECT_EQ(backoff_delay(policy, 2, std::nullopt, middle_bits), milliseconds{200});
  EXPECT_EQ(backoff_delay(policy, 3, std::nullopt, middle_bits), milliseconds{400});
  EXPECT_EQ(backoff_delay(policy, 5, std::nullopt, middle_bits), milliseconds{1600});
}

TEST(BackoffDelay, StaysWithinJitterBoundsForAnyRandomBits) {
  const retry_policy policy{.base = milliseconds{1000}, .cap = milliseconds{60'000}, .jitter = 0.25};
  EXPECT_EQ(backoff_delay(policy, 1, std::nullopt, lowest_bits), milliseconds{750});
  EXPECT_EQ(backoff_delay(policy, 1, std::nullopt, highest_bits), milliseconds{1250});
  std::mt19937_64 random{42};
  milliseconds least{milliseconds::max()}, most{0};
  for (int i = 0; i < 10'000; ++i) {
    const auto wait = backoff_delay(policy, 3, std::nullopt, random());
    least = std::min(least, wait);
    most = std::max(most, wait);
  }
  EXPECT_GE(least, milliseconds{3000});
  EXPECT_LE(most, milliseconds{5000});
  EXPECT_LT(least, milliseconds{3100}) << "the jitter spreads the waits over the whole range";
  EXPECT_GT(most, milliseconds{4900});
}

TEST(BackoffDelay, NeverExceedsTheCapEvenForLateRetries) {
  const retry_policy policy{.base = milliseconds{1000}, .cap = milliseconds{8000}, .jitter = 0.25};
  EXPECT_EQ(backoff_delay(policy, 10, std::nullopt, highest_bits), milliseconds{8000});
  EXPECT_EQ(backoff_delay(policy, 1000, std::nullopt, middle_bits), milliseconds{8000});
  EXPECT_EQ(backoff_delay(policy, 10, std::nullopt, lowest_bits), milliseconds{8000}) << "3/4 of 512 s is still over the cap";
}

TEST(BackoffDelay, LetsALongerRetryAfterWinUpToItsLimit) {
  const retry_policy policy{.base = milliseconds{1000}, .cap = milliseconds{60'000}, .jitter = 0,
                            .max_retry_after = milliseconds{30'000}};
  EXPECT_EQ(backoff_delay(policy, 1, milliseconds{5000}, middle_bits), milliseconds{5000});
  EXPECT_EQ(backoff_delay(policy, 4, milliseconds{5000}, middle_bits), milliseconds{8000}) << "the back-off is longer";
  EXPECT_EQ(backoff_delay(policy, 1, milliseconds{600'000}, middle_bits), milliseconds{30'000});
}

TEST(RetryableStatus, RetriesTheTransientStatusesOnly) {
  for (unsigned status : {408u, 409u, 425u, 429u, 500u, 502u, 503u, 504u, 529u})
    EXPECT_TRUE(retryable_status(status)) << status;
  for (unsigned status : {200u, 400u, 401u, 403u, 404u, 413u, 422u, 501u})
    EXPECT_FALSE(retryable_status(status)) << status;
}

TEST(Retryable, RetriesNetworkFailuresButNotOnesThatWouldRepeat) {
  using enum failure_kind;
  for (auto kind : {resolve, connect, timeout_connect, timeout_first_byte, timeout_idle, timeout_total, dropped})
    EXPECT_TRUE(retryable(kind)) << to_string(kind);
  for (auto kind : {bad_url, proxy, tls, protocol})
    EXPECT_FALSE(retryable(kind)) << to_string(kind);
}

TEST(FailureKind, HasADistinctNameForEveryValue) {
  using enum failure_kind;
  const failure_kind all[] = {bad_url, resolve, connect, proxy, tls, timeout_connect, timeout_first_byte,
                              timeout_idle, timeout_total, dropped, protocol};
  std::set<std::string_view> names;
  for (auto kind : all) {
    EXPECT_NE(to_string(kind), "unknown");
    names.insert(to_string(kind));
  }
  EXPECT_EQ(names.size(), std::size(all));
  EXPECT_EQ(to_string(timeout_first_byte), "timeout_first_byte");
}

} // namespace
} // namespace warpforge::llm::http
