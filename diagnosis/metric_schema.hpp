#pragma once
// The metric schema: every metric diagnosis knows, from diagnosis/data/metric_schema.toml. One
// entry per metric key (a short, stable id such as `dram_throughput`) with its label, unit, report
// section and either the Nsight metric it is read from (the same name serves CUPTI's range
// profiler and ncu) or a formula over other keys (a derived metric). Adding a metric is one
// [[metric]] entry; nothing else changes.
//
//   const metric_schema& schema = builtin_metric_schema();
//   metric_values all = schema.complete(measured).values;   // measured + derived
//
// Values are in the schema's units (metric_unit.hpp): ratios 1.0 = 100%, seconds, bytes.

#include "diagnosis/metric_unit.hpp"
#include "diagnosis/metric_values.hpp"
#include "foundation/expected/expected.hpp"
#include "config/expression/expression.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::diagnosis {

struct metric_definition {
  std::string key;           // stable id: [a-z][a-z0-9_]*, e.g. "dram_throughput"
  std::string label;         // for people: "DRAM throughput"
  metric_unit unit = metric_unit::count;
  std::string section;       // one of the schema's sections, e.g. "Memory"
  std::string nsight;        // Nsight metric name (ncu / CUPTI); empty for a derived metric
  expression::real_expression formula; // derived metrics: a number-valued expression over keys
  std::string note;          // optional: caveats, how to read it
  std::uint32_t line = 0;    // line of the entry in its file

  bool derived() const { return !formula.empty(); }
};

/// Why one derived metric has no value.
struct derived_gap {
  std::string key;
  expression::error problem; // unknown_name: its missing inputs; division_by_zero; not_finite
};

/// Measured values with every computable derived metric added.
struct completed_metrics {
  metric_values values;
  std::vector<derived_gap> not_derived; // derived metrics left out, in schema order
};

class metric_schema {
public:
  /// Report sections, in display order.
  const std::vector<std::string>& sections() const { return sections_; }
  /// Every metric, in file order.
  const std::vector<metric_definition>& metrics() const { return metrics_; }

  const metric_definition* find(std::string_view key) const;
  /// The measured metric read from `nsight_name`, or nullptr.
  const metric_definition* find_nsight(std::string_view nsight_name) const;

  /// The Nsight names of all measured metrics, in file order: what ncu --metrics or a CUPTI
  /// configuration must collect.
  std::vector<std::string> nsight_names() const;

  /// `measured` plus every derived metric whose inputs are present, computed in dependency order.
  /// A value already in `measured` under a derived key is kept, not recomputed.
  completed_metrics complete(const metric_values& measured) const;

private:
  friend expected<metric_schema, toml_reader::placed_errors>
  parse_metric_schema(std::string_view text, const std::string& file);
  std::vector<std::string> sections_;
  std::vector<metric_definition> metrics_;
  std::vector<std::size_t> derived_order_; // indexes into metrics_: inputs before their users
};

/// Parses a schema; `file` names it in errors. Every problem is reported: TOML syntax, unknown
/// keys, a missing or unknown unit, an unknown section, a duplicate metric key or Nsight name, a
/// formula that does not parse, names an unknown key, is not a number, or depends on itself.
expected<metric_schema, toml_reader::placed_errors> parse_metric_schema(std::string_view text,
                                                                        const std::string& file);
expected<metric_schema, toml_reader::placed_errors>
load_metric_schema(const std::filesystem::path& path);

/// diagnosis/data/metric_schema.toml as compiled into the library (named
/// "<builtin>/metric_schema.toml"). It is tested to load; failing to is a broken build, so this
/// throws std::logic_error with the errors.
const metric_schema& builtin_metric_schema();

} // namespace warpforge::diagnosis
