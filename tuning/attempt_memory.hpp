#pragma once
// The per-kernel memory: one record per attempt of an iteration, with its verdict and why, in
// the words shown to the proposer at the next iteration (SEEDS-FACTS 2.13 history, issue 5):
//
//   ACCEPTED: 0.812 ms, 18.8% faster than the best 1.000 ms
//   REJECTED: 0.990 ms, 1.0% faster than the best 1.000 ms: within the 2.0% noise threshold
//   REJECTED: 0.850 ms, 15.0% faster than the best 1.000 ms, but the champion is faster (0.812 ms)
//   REJECTED: 1.200 ms, 20.0% slower than the best 1.000 ms
//   FAILED: compile_error: kernel.cu(12): error: identifier "TILEX" is undefined
//
//   auto e = elect_champion(best_s, branches, threshold);
//   for (auto& r : record_attempts(e, branches)) memory.push_back(r);  // r.line() for the prompt

#include "tuning/champion.hpp"

#include <span>
#include <string>
#include <vector>

namespace warpforge::tuning {

struct attempt_record {
  std::string branch;               ///< the branch's name (branch_result::name)
  std::vector<std::string> methods; ///< the methods it claimed
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::optional<double> median_s;   ///< seconds, when it passed
  branch_verdict verdict = branch_verdict::failed;
  std::string why;                  ///< the reason, one line, without the verdict word

  /// "ACCEPTED: why" (the verdict in capitals).
  std::string line() const;
};

/// One record per branch, in input order, from the election of those branches.
std::vector<attempt_record> record_attempts(const election& result,
                                            std::span<const branch_result> branches);

} // namespace warpforge::tuning
