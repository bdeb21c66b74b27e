#pragma once
// The reports of a calibrate run, each a text the engine writes into the run directory:
//   measurement_report.md   render_markdown: every parameter against its published value
//   measurements.json       render_json (read back by read_json, e.g. to merge runs)
//   measurements.tsv        render_tsv: the seed's columns, one row per parameter
// and the metadata header put on top of each archived passing benchmark (archive_header).
// Simulator configs are in simulator.hpp, charts in charts.hpp.

#include "calibrate/catalog.hpp"
#include "calibrate/results/parameter_result.hpp"
#include "foundation/expected/expected.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// Markdown: a summary by status, then one row per parameter in catalog order (value, unit,
/// status, CV, 95% CI, known value with its source, delta %, notes), the disagreements with
/// published values and why, and every parameter without a value ("not measured" and why).
std::string render_markdown(const std::vector<parameter_result>& results, const catalog& cat);

/// JSON: {"schema":"warpforge.calibrate.results/1","parameters":[...]} with every field. What was
/// not measured is null (value, delta, the statistics), with `not_measured_reason` beside it.
std::string render_json(const std::vector<parameter_result>& results);

/// render_json's text back; the error names the JSON pointer of the first bad field.
expected<std::vector<parameter_result>, std::string> read_json(std::string_view text);

/// TSV with the seed's columns (README.md), then `not_measured_reason`: a header row, then one row
/// per result. A value or statistic that was not measured is an empty field, never 0, and the
/// last column says why. Tabs and line breaks inside a field become spaces.
std::string render_tsv(const std::vector<parameter_result>& results);

/// The seed's TSV columns, in order, then ours: why a value or statistic is empty.
inline constexpr std::string_view tsv_columns[] = {
  "parameter", "value", "unit",    "mean",   "median",        "std_dev",        "CV",
  "CI_low",    "CI_high", "trials", "status", "ncu_validated", "sass_validated", "notes",
  "timestamp", "not_measured_reason",
};

/// The comment block put on top of an archived benchmark (CUDA source): parameter, status, value
/// and unit, CV, 95% CI, trials, SASS and counter verdicts, arch, GPU, known value, notes.
/// Every line starts with "// "; it ends with a blank line.
std::string archive_header(const parameter_result& result);

} // namespace warpforge::calibrate
