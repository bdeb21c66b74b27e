#pragma once
// The declarative rule matrix (diagnosis/data/rules.toml, after Kernelking's RULES list:
// SEEDS-FACTS 3.1): each rule has an id, a severity, a condition over metric keys (`when`, in the
// real language of config/expression/), a finding template with {key} placeholders, a suggested action
// and the source of its threshold. Adding a rule is one [[rule]] entry.
//
//   rule_evaluation r = evaluate_rules(builtin_rules(), completed, builtin_metric_schema());
//
// A rule whose condition names a metric that was not measured is "not evaluated" (reported with
// the missing keys), never fired and never silently passed.

#include "diagnosis/metric_schema.hpp"
#include "diagnosis/metric_values.hpp"
#include "foundation/expected/expected.hpp"
#include "config/expression/expression.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

enum class severity : std::uint8_t {
  info,     // worth knowing; rarely the main problem
  warning,  // a likely cause of lost performance
  critical, // the dominant problem
};
inline constexpr std::array all_severities{severity::info, severity::warning, severity::critical};
std::string_view to_string(severity level);
std::optional<severity> severity_from_string(std::string_view text);

/// The rule ids the method catalog lists as triggers: rules.toml must define every one.
inline constexpr std::array<std::string_view, 21> catalog_rule_ids{
  "memory_bound",           "compute_bound",       "latency_bound",      "low_occupancy",
  "register_limited",       "waves_low",           "waves_high",         "poor_coalescing",
  "low_l1_hit",             "low_l2_hit",          "bank_conflicts",     "stall_long_scoreboard",
  "stall_short_scoreboard", "stall_mio_throttle",  "stall_math_pipe",    "stall_barrier",
  "stall_lg_throttle",      "stall_wait",          "stall_membar",       "low_ipc",
  "spills"};

struct rule {
  std::string id;               // stable: [a-z][a-z0-9_]*; the method catalog refers to it
  severity level = severity::info;
  expression::real_expression when; // a truth value over metric keys
  std::string finding;          // template: "{dram_throughput}" becomes "91.2 %"
  std::string action;           // what to try
  std::string source;           // where the threshold comes from
  std::uint32_t line = 0;       // line of the entry in its file
};

class rule_set {
public:
  const std::vector<rule>& rules() const { return rules_; }
  const rule* find(std::string_view id) const;

private:
  friend expected<rule_set, toml_reader::placed_errors>
  parse_rules(std::string_view text, const std::string& file, const metric_schema& schema);
  std::vector<rule> rules_;
};

/// Parses a rule matrix against `schema`: every key in a condition or a finding template must be
/// one of its metrics. Reports every problem with file:line:col (the column points into the
/// expression for syntax, type and unknown-metric errors).
expected<rule_set, toml_reader::placed_errors>
parse_rules(std::string_view text, const std::string& file, const metric_schema& schema);
expected<rule_set, toml_reader::placed_errors> load_rules(const std::filesystem::path& path,
                                                          const metric_schema& schema);
/// diagnosis/data/rules.toml as compiled in, against builtin_metric_schema(); throws
/// std::logic_error if it does not load.
const rule_set& builtin_rules();

enum class rule_outcome : std::uint8_t {
  fired,         // the condition holds
  not_fired,     // the condition was evaluated and does not hold
  not_evaluated, // a metric was missing (or a division by zero): no verdict
};
inline constexpr std::array all_rule_outcomes{rule_outcome::fired, rule_outcome::not_fired,
                                              rule_outcome::not_evaluated};
std::string_view to_string(rule_outcome outcome);
std::optional<rule_outcome> rule_outcome_from_string(std::string_view text);

/// A fired rule, its template filled in.
struct finding {
  std::string rule_id;
  severity level = severity::info;
  std::string text;   // the finding with values
  std::string action;
  std::string source;

  bool operator==(const finding&) const = default;
};

/// A rule that could not be evaluated, and why.
struct unevaluated_rule {
  std::string rule_id;
  expression::error problem; // unknown_name: the unmeasured metrics; division_by_zero; not_finite

  bool operator==(const unevaluated_rule&) const = default;
};

struct rule_evaluation {
  std::vector<finding> fired; // critical first, then warning, info; file order within
  std::vector<unevaluated_rule> not_evaluated; // file order
  std::vector<std::string> not_fired;          // ids, file order

  rule_outcome outcome(std::string_view rule_id) const; // not_evaluated for an unknown id
};

/// Every rule of `rules` over `metrics` (completed: derived metrics included).
rule_evaluation evaluate_rules(const rule_set& rules, const metric_values& metrics,
                               const metric_schema& schema);

/// `text` with each {key} replaced by the metric's formatted value and unit ("n/a" when absent).
std::string fill_template(std::string_view text, const metric_values& metrics,
                          const metric_schema& schema);

} // namespace warpforge::diagnosis
