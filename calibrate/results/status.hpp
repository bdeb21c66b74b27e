#pragma once
// The status of one parameter's measurement and the rule that gives it (the seed's PASS rule).
//
//   verdict v = judge(param, summarize(trials), known_for(param, "sm_90"));
//   if (is_passing(v.result)) archive(...);
//
// judge() classifies a measurement that was taken (it has trials). The statuses that stop a
// parameter before or during timing (SASS_MISMATCH, COMPILE_ERROR, RUNTIME_ERROR, TIMEOUT) are
// set by the engine, which knows why; NO_DATA is judge()'s answer when no trial is usable.
// Every rule and its order is documented in calibrate/results/README.md.

#include "calibrate/catalog.hpp"
#include "calibrate/results/trials.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

enum class status : std::uint8_t {
  pass,                 // PASS: CV < 5%, within +-10% of the known value, inside the range
  pass_with_note,       // PASS_WITH_NOTE: passes, with something a reader must know (see README)
  high_variance,        // HIGH_VARIANCE: CV >= 5%
  known_value_mismatch, // KNOWN_VALUE_MISMATCH: more than 10% from the published value
  out_of_range,         // OUT_OF_RANGE: outside the catalog's reasonable range (soft: kept, reported)
  sass_mismatch,        // SASS_MISMATCH: the benchmark's SASS lacks an expected opcode (no timing)
  compile_error,        // COMPILE_ERROR: nvcc rejected the benchmark
  runtime_error,        // RUNTIME_ERROR: the benchmark crashed, failed or printed no result
  timeout,              // TIMEOUT: the benchmark ran past its deadline
  no_data,              // NO_DATA: no usable trial (none ran, all throttled, none finite)
};

inline constexpr status all_statuses[] = {
  status::pass,         status::pass_with_note, status::high_variance, status::known_value_mismatch,
  status::out_of_range, status::sass_mismatch,  status::compile_error, status::runtime_error,
  status::timeout,      status::no_data,
};

/// "PASS", "PASS_WITH_NOTE", "HIGH_VARIANCE", ... (the seed's spelling).
std::string_view to_string(status s);
/// The seed's spelling back to the enum; nullopt for anything else.
std::optional<status> status_from_string(std::string_view text);

/// PASS and PASS_WITH_NOTE: the value may be archived and exported to simulator configs.
bool is_passing(status s);
/// Whether a parameter measured with this status lets its dependents go on: passing, or a sound
/// measurement (low spread, SASS as expected) that disagrees with a published figure — the
/// disagreement is reported, and the dependents need the value, not the publication's.
bool satisfies_dependents(status s);

struct verdict {
  status result = status::no_data;
  std::vector<std::string> notes; // one sentence each: every rule that failed or deserves a note
};

/// The thresholds of the rule (data, so a campaign can tighten them).
struct judge_rules {
  double max_cv = 0.05;          // 0.05 = 5%: PASS needs CV below this
  double target_cv = 0.02;       // 0.02 = 2%: the seed's target; above it a pass carries a note
  double known_tolerance = 0.10; // 0.10 = 10%: PASS needs |median - known| <= this x |known|
  std::size_t min_trials = 3;    // trials; fewer kept trials pass with a note (a weak CV and CI)
};

/// The seed's PASS rule on a measured parameter (see README.md for the order and the notes).
verdict judge(const parameter& param, const trial_stats& stats,
              const std::optional<known_value>& known, const judge_rules& rules = {});

/// (measured - known) / known, 1.0 = 100%; nullopt when there is no known value or it is 0.
std::optional<double> relative_delta(double measured, const std::optional<known_value>& known);

} // namespace warpforge::calibrate
