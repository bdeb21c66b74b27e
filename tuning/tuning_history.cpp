#include "tuning/tuning_history.hpp"

#include "tuning/point_text.hpp"

namespace warpforge::tuning {

using vocabulary::branch_outcome;

bool counts_as_evaluated(branch_outcome outcome) {
  return outcome != branch_outcome::not_run && outcome != branch_outcome::interrupted;
}

bool prunes_point(branch_outcome outcome) {
  return counts_as_evaluated(outcome) && outcome != branch_outcome::passed;
}

void tuning_history::record(evaluation entry) {
  const std::size_t index = entries_.size();
  const bool evaluated = counts_as_evaluated(entry.outcome);
  const bool measured = entry.outcome == branch_outcome::passed && entry.median_s.has_value();
  std::string key = evaluated ? canonical_text(entry.point) : std::string{};
  entries_.push_back(std::move(entry));
  if (!evaluated)
    return;
  status_[std::move(key)] = index;
  if (measured && (!best_ || *entries_[index].median_s < *entries_[*best_].median_s))
    best_ = index;
}

bool tuning_history::is_evaluated(const config::tunable_point& point) const {
  return status_.contains(canonical_text(point));
}

bool tuning_history::is_pruned(const config::tunable_point& point) const {
  const auto found = status_.find(canonical_text(point));
  return found != status_.end() && prunes_point(entries_[found->second].outcome);
}

std::optional<double> tuning_history::time_of(const config::tunable_point& point) const {
  const auto found = status_.find(canonical_text(point));
  if (found == status_.end() || entries_[found->second].outcome != branch_outcome::passed)
    return std::nullopt;
  return entries_[found->second].median_s;
}

const evaluation* tuning_history::best() const {
  return best_ ? &entries_[*best_] : nullptr;
}

} // namespace warpforge::tuning
