#include "tuning/attempt_memory.hpp"

#include "tuning/time_text.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace warpforge::tuning {

namespace {

/// "0.812 ms, 18.8% faster than the best 1.000 ms" (or "slower"; or "the first measurement").
std::string against_best(double median_s, std::optional<double> best_s) {
  std::string text = format_seconds(median_s);
  if (!best_s)
    return text + ", the first measurement";
  const double change = (*best_s - median_s) / *best_s;
  if (change >= 0)
    return text + ", " + format_percent(change) + " faster than the best " + format_seconds(*best_s);
  return text + ", " + format_percent(-change) + " slower than the best " + format_seconds(*best_s);
}

} // namespace

std::string attempt_record::line() const {
  std::string word(to_string(verdict));
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return word + ": " + why;
}

std::vector<attempt_record> record_attempts(const election& result,
                                            std::span<const branch_result> branches) {
  if (result.verdicts.size() != branches.size())
    throw std::invalid_argument("record_attempts: the election is not of these branches");
  const auto best_s = result.previous_best_s;
  std::vector<attempt_record> records;
  records.reserve(branches.size());
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const auto& branch = branches[i];
    attempt_record r;
    r.branch = branch.name;
    r.methods = branch.methods;
    r.outcome = branch.outcome;
    r.verdict = result.verdicts[i];
    if (branch.outcome == vocabulary::branch_outcome::passed)
      r.median_s = branch.median_s;
    switch (r.verdict) {
    case branch_verdict::accepted:
      r.why = against_best(branch.median_s, best_s);
      break;
    case branch_verdict::rejected: {
      r.why = against_best(branch.median_s, best_s);
      const bool clear_gain =
          !best_s || branch.median_s < *best_s * (1.0 - result.noise_threshold);
      if (!best_s || branch.median_s < *best_s) {
        if (!clear_gain)
          r.why += ": within the " + format_percent(result.noise_threshold) + " noise threshold";
        else if (branch.ci_high_s && best_s && *branch.ci_high_s >= *best_s)
          r.why += ", but its confidence interval reaches " + format_seconds(*branch.ci_high_s);
        else if (result.champion)
          r.why += ", but the champion is faster (" +
                   format_seconds(branches[*result.champion].median_s) + ")";
      }
      break;
    }
    case branch_verdict::failed:
      r.why = std::string(vocabulary::to_string(branch.outcome));
      if (!branch.detail.empty())
        r.why += ": " + branch.detail;
      break;
    }
    records.push_back(std::move(r));
  }
  return records;
}

} // namespace warpforge::tuning
