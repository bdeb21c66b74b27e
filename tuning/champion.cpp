#include "tuning/champion.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace warpforge::tuning {

constexpr vocabulary::enum_word<branch_verdict> branch_verdict_words[] = {
    {branch_verdict::accepted, "accepted"},
    {branch_verdict::rejected, "rejected"},
    {branch_verdict::failed, "failed"},
};
static_assert(vocabulary::covers(branch_verdict_words, all_branch_verdicts));

std::string_view to_string(branch_verdict verdict) { return vocabulary::word_of(branch_verdict_words, verdict); }

std::optional<branch_verdict> branch_verdict_from_string(std::string_view text) {
  return vocabulary::value_of(branch_verdict_words, text);
}

bool beats(double median_s, std::optional<double> ci_high_s, std::optional<double> best_s,
           double noise_threshold) {
  if (!best_s)
    return true;
  const bool clear_gain = median_s < *best_s * (1.0 - noise_threshold);
  return clear_gain && (!ci_high_s || *ci_high_s < *best_s);
}

election elect_champion(std::optional<double> current_best_s,
                        std::span<const branch_result> branches, double noise_threshold) {
  if (!(noise_threshold >= 0.0 && noise_threshold < 1.0))
    throw std::invalid_argument("elect_champion: noise_threshold must be in [0, 1)");
  election result;
  result.previous_best_s = current_best_s;
  result.noise_threshold = noise_threshold;
  result.verdicts.assign(branches.size(), branch_verdict::failed);

  auto order_key = [&](std::size_t i) {
    const auto& b = branches[i];
    return std::make_tuple(b.median_s, b.ci_high_s.value_or(b.median_s), i);
  };
  std::vector<std::size_t> passed;
  for (std::size_t i = 0; i < branches.size(); ++i)
    if (branches[i].outcome == vocabulary::branch_outcome::passed) {
      passed.push_back(i);
      result.verdicts[i] = branch_verdict::rejected;
    }
  std::sort(passed.begin(), passed.end(),
            [&](std::size_t a, std::size_t b) { return order_key(a) < order_key(b); });

  for (auto i : passed)
    if (beats(branches[i].median_s, branches[i].ci_high_s, current_best_s, noise_threshold)) {
      result.champion = i;
      result.verdicts[i] = branch_verdict::accepted;
      break;
    }

  const std::optional<double> reference_s =
      result.champion ? std::optional<double>{branches[*result.champion].median_s} : current_best_s;
  for (auto i : passed) {
    if (result.champion == i)
      continue;
    const double median = branches[i].median_s;
    result.frontier.push_back({i, median, reference_s ? median - *reference_s : 0.0});
  }
  return result;
}

} // namespace warpforge::tuning
