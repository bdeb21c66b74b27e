#include "llm/chat/spend_ledger.hpp"

#include <cstdio>

namespace warpforge::llm {

spend_total& spend_total::operator+=(const spend_total& other) {
  usage += other.usage;
  usd += other.usd;
  charges += other.charges;
  return *this;
}

spend_ledger::spend_ledger(spend_limits limits) : limits_(limits) {}

void spend_ledger::charge(std::string_view purpose, const token_usage& usage, double usd) {
  const spend_total one{usage, usd, 1};
  std::lock_guard lock{mutex_};
  total_ += one;
  auto it = purposes_.find(purpose);
  if (it == purposes_.end())
    it = purposes_.emplace(std::string{purpose}, spend_total{}).first;
  it->second += one;
}

std::optional<std::string> spend_ledger::exhausted() const {
  const spend_total now = total();
  char line[160];
  if (limits_.max_usd && now.usd >= *limits_.max_usd) {
    std::snprintf(line, sizeof line, "spent $%.4f of the $%.4f budget", now.usd, *limits_.max_usd);
    return std::string{line};
  }
  if (limits_.max_tokens && now.usage.total() >= *limits_.max_tokens) {
    std::snprintf(line, sizeof line, "used %lld of the %lld-token budget",
                  static_cast<long long>(now.usage.total()),
                  static_cast<long long>(*limits_.max_tokens));
    return std::string{line};
  }
  return std::nullopt;
}

spend_total spend_ledger::total() const {
  std::lock_guard lock{mutex_};
  return total_;
}

spend_total spend_ledger::of(std::string_view purpose) const {
  std::lock_guard lock{mutex_};
  auto it = purposes_.find(purpose);
  return it == purposes_.end() ? spend_total{} : it->second;
}

std::map<std::string, spend_total, std::less<>> spend_ledger::by_purpose() const {
  std::lock_guard lock{mutex_};
  return purposes_;
}

} // namespace warpforge::llm
