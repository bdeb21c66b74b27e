#include "tuning/strategy.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace warpforge::tuning {

strategy::strategy(std::shared_ptr<const search_space> space) : space_(std::move(space)) {
  if (!space_)
    throw std::invalid_argument("strategy: no search space");
}

void strategy::observe(std::uint64_t, const evaluation&) {}

bool strategy::available(std::uint64_t ordinal) const {
  return space_->is_valid(ordinal) && !evaluated_.contains(ordinal) &&
         !pending_.contains(ordinal) &&
         std::find(batch_.begin(), batch_.end(), ordinal) == batch_.end();
}

bool strategy::offer(std::uint64_t ordinal) {
  if (room_ == 0 || !available(ordinal))
    return false;
  batch_.push_back(ordinal);
  --room_;
  return true;
}

void strategy::reserve(const config::tunable_point& point) {
  if (auto ordinal = space_->ordinal_of(point); ordinal && !evaluated_.contains(*ordinal))
    pending_.insert(*ordinal);
}

std::vector<config::tunable_point> strategy::propose(std::size_t k, const tuning_history& history) {
  const auto& entries = history.entries();
  if (entries.size() < entries_read_)
    throw std::logic_error("strategy::propose: the history lost entries (it must be append-only)");
  for (; entries_read_ < entries.size(); ++entries_read_) {
    const auto& entry = entries[entries_read_];
    const auto ordinal = space_->ordinal_of(entry.point);
    if (!ordinal)
      continue;
    if (pending_.erase(*ordinal) && !counts_as_evaluated(entry.outcome))
      retry_.push_back(*ordinal);
    if (counts_as_evaluated(entry.outcome))
      evaluated_.insert(*ordinal);
    observe(*ordinal, entry);
  }

  batch_.clear();
  room_ = k;
  while (room_ > 0 && !retry_.empty()) {
    offer(retry_.front());
    retry_.pop_front();
  }
  if (room_ > 0)
    fill();

  std::vector<config::tunable_point> points;
  points.reserve(batch_.size());
  for (auto ordinal : batch_) {
    pending_.insert(ordinal);
    points.push_back(space_->point_at(ordinal));
  }
  batch_.clear();
  room_ = 0;
  return points;
}

} // namespace warpforge::tuning
