#pragma once
// What a campaign has spent on models, in tokens and dollars, per purpose ("propose", "fix",
// "judge", ...) and in all, and whether a budget forbids further calls. One ledger is shared by
// every client of a campaign; all methods are thread-safe. A client charges each exchange as it
// ends and asks exhausted() before starting a call, so a call already in flight still completes
// (and may overrun the budget by its own cost).

#include "llm/chat/chat.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::llm {

/// Budgets; an absent limit does not apply.
struct spend_limits {
  std::optional<double> max_usd;          // $ over the whole campaign
  std::optional<std::int64_t> max_tokens; // tokens of every kind (token_usage::total())
};

/// A running total.
struct spend_total {
  token_usage usage;
  double usd = 0;          // $
  std::uint64_t charges = 0;  // exchanges charged

  spend_total& operator+=(const spend_total& other);
};

class spend_ledger {
public:
  explicit spend_ledger(spend_limits limits = {});

  /// Adds one exchange's usage and cost ($) to `purpose` and to the total.
  void charge(std::string_view purpose, const token_usage& usage, double usd);

  /// Why no more calls may start ("spent $5.02 of the $5.00 budget"), or nullopt while they may.
  std::optional<std::string> exhausted() const;

  spend_total total() const;
  /// The total of one purpose (zero when it was never charged).
  spend_total of(std::string_view purpose) const;
  /// Every purpose charged so far, in name order.
  std::map<std::string, spend_total, std::less<>> by_purpose() const;
  const spend_limits& limits() const { return limits_; }

private:
  const spend_limits limits_;
  mutable std::mutex mutex_;
  spend_total total_;
  std::map<std::string, spend_total, std::less<>> purposes_;
};

} // namespace warpforge::llm
