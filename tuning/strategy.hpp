#pragma once
// The search strategy interface: one call, propose(k, history) -> up to k new points. Every
// strategy (exhaustive_strategy.hpp, random_strategy.hpp, annealing_strategy.hpp) derives from
// `strategy`, which keeps the promises every one of them makes:
//
//   - only valid points (search_space::is_valid) are proposed;
//   - never a point the history has evaluated (passed or pruned), nor one proposed earlier that
//     the history does not mention yet (pending);
//   - a pending point the history then records as not_run or interrupted is proposed again,
//     first, at the next call;
//   - the same seed and the same sequence of calls give the same points.
//
//   auto s = make_strategy(config::search_strategy::annealing, space, seed);  // strategy_factory.hpp
//   auto batch = s->propose(4, history);   // evaluate, record every outcome in history, repeat
//
// `history` must be the same append-only log at every call (the strategy reads the entries added
// since its previous call; a shorter history is a broken invariant and throws). Fewer than k
// points come back only when the space has no more valid, new points (for the random and
// annealing strategies, among those they could find). Entries for points outside the space are
// ignored.

#include "config/campaign_spec.hpp"
#include "config/resolved_problem.hpp"
#include "tuning/search_space.hpp"
#include "tuning/tuning_history.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_set>
#include <vector>

namespace warpforge::tuning {

class strategy {
public:
  explicit strategy(std::shared_ptr<const search_space> space);
  virtual ~strategy() = default;
  strategy(const strategy&) = delete;
  strategy& operator=(const strategy&) = delete;

  virtual config::search_strategy kind() const = 0;

  /// Up to k new valid points, distinct, in the order to evaluate them.
  std::vector<config::tunable_point> propose(std::size_t k, const tuning_history& history);

  /// A point evaluated outside this strategy's proposals (the job's baseline, measured while the
  /// first iteration is proposed): pending, like a proposed point, until the history records it.
  /// A point outside the space, or already evaluated, is ignored.
  void reserve(const config::tunable_point& point);

  const search_space& space() const { return *space_; }

protected:
  /// Valid, not evaluated, not pending, and not already in this call's batch.
  bool available(std::uint64_t ordinal) const;
  /// Adds `ordinal` to this call's batch when available and there is room; says whether it did.
  bool offer(std::uint64_t ordinal);
  /// Points this call may still add.
  std::size_t room() const { return room_; }
  /// Whether `ordinal` was evaluated (any outcome that counts).
  bool evaluated(std::uint64_t ordinal) const { return evaluated_.contains(ordinal); }

  /// Called for each new history entry of a point in the space, in record order, before fill().
  virtual void observe(std::uint64_t ordinal, const evaluation& entry);
  /// Adds up to room() points through offer().
  virtual void fill() = 0;

private:
  std::shared_ptr<const search_space> space_;
  std::size_t entries_read_ = 0;              // history entries already observed
  std::unordered_set<std::uint64_t> evaluated_;
  std::unordered_set<std::uint64_t> pending_; // proposed, not yet in the history
  std::deque<std::uint64_t> retry_;           // pending points recorded not_run / interrupted
  std::vector<std::uint64_t> batch_;          // this call's points
  std::size_t room_ = 0;
};

} // namespace warpforge::tuning
