#pragma once
// Ablation: what each method the champion claims is worth, from the time of its leave-one-out
// variant (search_space::leave_one_out supplies the point), and the method's class for the
// job's memory (SEEDS-FACTS 2.6, 2.7).
//
//   attribution(m) = t(champion without m) - t(champion)      seconds; > 0: m makes it faster
//
//   auto a = attribute_methods(champion_s, ablations, campaign.budget.noise_threshold);
//
// Classes, first match wins:
//   implementation_failed  the SASS check says the method is absent from the champion's code
//                          (whatever the timing: a faster kernel is kept, the method is not)
//   not_measured           no leave-one-out variant was timed (none could be built, or it did not
//                          pass: compile error, incorrect, fault...); the note says which
//   effective              attribution > noise_threshold * t(champion)
//   ineffective            otherwise: removing it costs no more than the noise, or the kernel is
//                          even faster without it (the note says so). Both lead to the same
//                          consequence: the method is not proposed again for this kernel.
// Unlike the seed (ablate.py), a variant that fails correctness is not counted as "essential":
// it says nothing about speed, so the method is not_measured.

#include "foundation/vocabulary/branch.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::tuning {

enum class method_class : std::uint8_t {
  effective,             ///< removing it slows the champion by more than the noise threshold
  ineffective,           ///< within noise, or faster without it
  implementation_failed, ///< the SASS shows it is not there
  not_measured,          ///< no timed leave-one-out variant
};

inline constexpr method_class all_method_classes[] = {
    method_class::effective, method_class::ineffective, method_class::implementation_failed,
    method_class::not_measured};

std::string_view to_string(method_class value);
std::optional<method_class> method_class_from_string(std::string_view text);

/// The leave-one-out measurement of one claimed method.
struct ablation_result {
  std::string method;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run; ///< of the variant; not_run: none
  double median_s = 0;      ///< the variant's median time, seconds; read only when passed
  bool sass_absent = false; ///< the SASS check found the method absent from the champion
};

struct method_attribution {
  std::string method;
  method_class verdict = method_class::not_measured;
  std::optional<double> attribution_s;     ///< t(without) - t(champion), seconds; when timed
  std::optional<double> attribution_ratio; ///< attribution_s / t(champion), 1.0 = 100%
  std::string note;                        ///< one line: the numbers, or why not measured
};

/// One attribution per ablation, in input order. Throws std::invalid_argument when champion_s
/// is not positive or noise_threshold is outside [0, 1).
std::vector<method_attribution> attribute_methods(double champion_s,
                                                  std::span<const ablation_result> ablations,
                                                  double noise_threshold);

} // namespace warpforge::tuning
