#include "tuning/attribution.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "tuning/time_text.hpp"

#include <cmath>
#include <stdexcept>

namespace warpforge::tuning {

constexpr vocabulary::enum_word<method_class> method_class_words[] = {
    {method_class::effective, "effective"},
    {method_class::ineffective, "ineffective"},
    {method_class::implementation_failed, "implementation_failed"},
    {method_class::not_measured, "not_measured"},
};
static_assert(vocabulary::covers(method_class_words, all_method_classes));

std::string_view to_string(method_class value) { return vocabulary::word_of(method_class_words, value); }

std::optional<method_class> method_class_from_string(std::string_view text) {
  return vocabulary::value_of(method_class_words, text);
}

std::vector<method_attribution> attribute_methods(double champion_s,
                                                  std::span<const ablation_result> ablations,
                                                  double noise_threshold) {
  if (!(champion_s > 0))
    throw std::invalid_argument("attribute_methods: the champion's time must be positive");
  if (!(noise_threshold >= 0.0 && noise_threshold < 1.0))
    throw std::invalid_argument("attribute_methods: noise_threshold must be in [0, 1)");

  std::vector<method_attribution> result;
  result.reserve(ablations.size());
  for (const auto& ablation : ablations) {
    method_attribution a;
    a.method = ablation.method;
    const bool timed = ablation.outcome == vocabulary::branch_outcome::passed;
    if (timed) {
      a.attribution_s = ablation.median_s - champion_s;
      a.attribution_ratio = *a.attribution_s / champion_s;
    }
    const std::string numbers =
        timed ? "without it " + format_seconds(ablation.median_s) + " vs " +
                    format_seconds(champion_s) + " (" + format_percent(*a.attribution_ratio) + ")"
              : std::string{};
    if (ablation.sass_absent) {
      a.verdict = method_class::implementation_failed;
      a.note = "the SASS check found it absent" + (timed ? "; " + numbers : std::string{});
    } else if (!timed) {
      a.verdict = method_class::not_measured;
      a.note = ablation.outcome == vocabulary::branch_outcome::not_run
                   ? std::string("no leave-one-out variant was measured")
                   : "the leave-one-out variant did not pass: " +
                         std::string(vocabulary::to_string(ablation.outcome));
    } else if (*a.attribution_ratio > noise_threshold) {
      a.verdict = method_class::effective;
      a.note = numbers;
    } else {
      a.verdict = method_class::ineffective;
      a.note = numbers + (*a.attribution_ratio < -noise_threshold
                              ? ": faster without it"
                              : ": within the " + format_percent(noise_threshold) +
                                    " noise threshold");
    }
    result.push_back(std::move(a));
  }
  return result;
}

} // namespace warpforge::tuning
