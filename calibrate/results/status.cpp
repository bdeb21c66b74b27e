#include "calibrate/results/status.hpp"

#include "calibrate/results/number_format.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <cmath>

namespace warpforge::calibrate {
namespace {

std::string number(double value) { return format_value(value); }
std::string percent(double ratio) { return format_percent(ratio); }

// Why no trial is usable, for NO_DATA.
std::vector<std::string> no_data_notes(const trial_stats& stats) {
  std::vector<std::string> notes;
  if (stats.discarded == 0 && stats.invalid == 0)
    notes.push_back("no trial ran to a result");
  if (stats.discarded > 0)
    notes.push_back(std::to_string(stats.discarded) +
                    " trial(s) discarded as throttled (SM clock below the threshold under the highest, " +
                    number(stats.max_clock_mhz) + " MHz)");
  if (stats.invalid > 0)
    notes.push_back(std::to_string(stats.invalid) + " trial(s) without a finite value (the program printed none, or its curve gave none: see the notes)");
  return notes;
}

bool range_is_set(const parameter& param) { return param.range_max > param.range_min; }

} // namespace

constexpr vocabulary::enum_word<status> status_words[] = {
    {status::pass, "PASS"},
    {status::pass_with_note, "PASS_WITH_NOTE"},
    {status::high_variance, "HIGH_VARIANCE"},
    {status::known_value_mismatch, "KNOWN_VALUE_MISMATCH"},
    {status::out_of_range, "OUT_OF_RANGE"},
    {status::sass_mismatch, "SASS_MISMATCH"},
    {status::compile_error, "COMPILE_ERROR"},
    {status::runtime_error, "RUNTIME_ERROR"},
    {status::timeout, "TIMEOUT"},
    {status::no_data, "NO_DATA"},
};
static_assert(vocabulary::covers(status_words, all_statuses));

std::string_view to_string(status s) { return vocabulary::word_of(status_words, s); }

std::optional<status> status_from_string(std::string_view text) {
  return vocabulary::value_of(status_words, text);
}

bool is_passing(status s) { return s == status::pass || s == status::pass_with_note; }

bool satisfies_dependents(status s) { return is_passing(s) || s == status::known_value_mismatch; }

std::optional<double> relative_delta(double measured, const std::optional<known_value>& known) {
  if (!known || known->value == 0.0)
    return std::nullopt;
  return (measured - known->value) / std::abs(known->value);
}

verdict judge(const parameter& param, const trial_stats& stats,
              const std::optional<known_value>& known, const judge_rules& rules) {
  if (stats.n == 0)
    return {status::no_data, no_data_notes(stats)};

  // Each failing rule, in the order of precedence: an unstable median makes the comparisons
  // below meaningless, and a published value is stronger evidence than the soft range.
  verdict out{status::pass, {}};
  auto fail = [&](status s, std::string note) {
    if (out.result == status::pass)
      out.result = s;
    out.notes.push_back(std::move(note));
  };
  if (stats.cv >= rules.max_cv)
    fail(status::high_variance, "CV " + percent(stats.cv) + " is not below " +
                                    percent(rules.max_cv) + " over " + std::to_string(stats.n) +
                                    " trials");
  if (auto delta = relative_delta(stats.median, known); delta && std::abs(*delta) > rules.known_tolerance)
    fail(status::known_value_mismatch,
         number(stats.median) + " " + param.unit + " is " + format_signed_percent(*delta) + " from the known " +
             number(known->value) + " (" + known->arch + ", " + known->source + "); tolerance +-" +
             percent(rules.known_tolerance));
  if (range_is_set(param) && (stats.median < param.range_min || stats.median > param.range_max))
    fail(status::out_of_range, number(stats.median) + " " + param.unit +
                                   " is outside the reasonable range [" +
                                   number(param.range_min) + ", " + number(param.range_max) +
                                   "]: recheck the methodology");
  if (out.result != status::pass)
    return out;

  // It passes; these make a reader look twice.
  if (stats.cv >= rules.target_cv)
    out.notes.push_back("CV " + percent(stats.cv) + " is above the " + percent(rules.target_cv) +
                        " target");
  if (stats.n < rules.min_trials)
    out.notes.push_back("only " + std::to_string(stats.n) + " trial(s) kept: CV and CI are weak");
  if (stats.discarded > 0)
    out.notes.push_back(std::to_string(stats.discarded) + " throttled trial(s) discarded");
  if (stats.invalid > 0)
    out.notes.push_back(std::to_string(stats.invalid) + " trial(s) without a finite value left out");
  if (known && known->value == 0.0)
    out.notes.push_back("the known value is 0: no relative comparison");
  if (!out.notes.empty())
    out.result = status::pass_with_note;
  return out;
}

} // namespace warpforge::calibrate
