#pragma once
// The job's evaluations so far, in the order they were recorded: what every strategy reads to
// choose its next points, and what the attempt memory is built from. Append-only: a strategy
// reads the entries added since its previous call.
//
//   tuning_history history;
//   history.record({point, vocabulary::branch_outcome::passed, 1.2e-3});
//   history.record({other, vocabulary::branch_outcome::compile_error, std::nullopt});
//   history.is_pruned(other);   // true: never proposed again
//
// A point counts as evaluated once any outcome but not_run or interrupted was recorded for it
// (those two say the point did not get its turn; it may be proposed again). An evaluated point
// that did not pass is pruned: invalid for this problem on this GPU (compile error, launch
// failure, not supported, incorrect, timeout, SASS rejected). A point's latest evaluated outcome
// is its status.

#include "config/resolved_problem.hpp"
#include "foundation/vocabulary/branch.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpforge::tuning {

/// The outcome of one point: the pipeline's branch outcome and, when it passed, its time.
struct evaluation {
  config::tunable_point point;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::optional<double> median_s; ///< median kernel time, seconds; set when outcome is passed
};

/// Whether the outcome uses up the point's turn (all but not_run and interrupted).
bool counts_as_evaluated(vocabulary::branch_outcome outcome);
/// Whether the outcome marks the point invalid: evaluated and not passed.
bool prunes_point(vocabulary::branch_outcome outcome);

class tuning_history {
public:
  /// Appends `entry`. A passed entry without a time counts as evaluated but not measured.
  void record(evaluation entry);

  /// Every entry, in record order.
  const std::vector<evaluation>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }

  bool is_evaluated(const config::tunable_point& point) const;
  bool is_pruned(const config::tunable_point& point) const;
  /// The point's time when its status is passed and measured.
  std::optional<double> time_of(const config::tunable_point& point) const;
  /// The fastest measured entry; nullptr when none passed.
  const evaluation* best() const;
  /// Distinct points evaluated.
  std::size_t evaluated_count() const { return status_.size(); }

private:
  std::vector<evaluation> entries_;
  std::unordered_map<std::string, std::size_t> status_; // canonical text -> latest evaluated entry
  std::optional<std::size_t> best_;                     // index of the fastest measured entry
};

} // namespace warpforge::tuning
