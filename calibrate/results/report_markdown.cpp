// render_markdown: the human-readable table of a calibrate run (report.hpp).
#include "calibrate/results/number_format.hpp"
#include "calibrate/results/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace warpforge::calibrate {
namespace {

// A table cell: pipes escaped, line breaks folded, empty shown as a dash.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else
      out += c;
  }
  return out.empty() ? "—" : out;
}

std::string joined(const std::vector<std::string>& notes) {
  return fmt::format("{}", fmt::join(notes, "; "));
}

// "not measured (no GPU)": what every cell of a value that was not measured says.
std::string not_measured_text(const std::string& reason) {
  return "not measured" + (reason.empty() ? std::string{} : " (" + cell(reason) + ")");
}

std::string header(const std::vector<parameter_result>& results) {
  std::string gpu, arch;
  for (const auto& r : results) {
    if (gpu.empty())
      gpu = r.gpu_name;
    if (arch.empty())
      arch = r.arch;
  }
  std::string out = "# Calibration report\n\n";
  const auto measured = std::count_if(results.begin(), results.end(), was_measured);
  out += "GPU: " + (gpu.empty() ? std::string{"unknown"} : gpu) + " (" +
         (arch.empty() ? std::string{"arch unknown"} : arch) + "), " + std::to_string(results.size()) +
         " parameter(s): " + std::to_string(measured) + " measured, " +
         std::to_string(results.size() - static_cast<std::size_t>(measured)) + " not measured.\n\n";
  out += "Value: the median of the kept trials (throttled trials discarded); 95% CI: of the "
         "median; delta: (value - known) / known.\n\n";
  std::map<std::string_view, std::size_t> counts;
  for (const auto& r : results)
    ++counts[to_string(r.result)];
  out += "| status | parameters |\n|---|---|\n";
  for (status s : all_statuses)
    if (auto it = counts.find(to_string(s)); it != counts.end())
      out += "| " + std::string{to_string(s)} + " | " + std::to_string(it->second) + " |\n";
  return out + "\n";
}

// A parameter without a value says "not measured (why)" in its value cell and a dash in every
// cell computed from the value (CV, CI, delta): no number stands where nothing was measured.
std::string row(const parameter_result& r, const parameter* spec) {
  const bool spread = r.value && has_spread(r.stats), interval = r.value && has_interval(r.stats);
  const auto delta = r.value ? relative_delta(*r.value, r.known) : std::nullopt;
  std::string out = "| " + cell(r.name);
  out += " | " + (spec ? std::to_string(spec->priority) : std::string{"—"});
  out += " | " + (spec ? std::string{to_string(spec->group)} : std::string{"—"});
  out += " | " + (r.value ? format_value(*r.value) : not_measured_text(not_measured_reason(r)));
  out += " | " + cell(r.unit);
  out += " | " + std::string{to_string(r.result)};
  // Identical trials say so: a CV of 0% and a CI [x, x] would claim a precision never shown.
  const std::string identical = "none: " + std::to_string(r.stats.n) + " identical trials";
  out += " | " + (spread ? format_percent(r.stats.cv) : r.value && all_identical(r.stats) ? identical : "—");
  out += " | " + (interval ? "[" + format_value(r.stats.ci95_low) + ", " +
                                 format_value(r.stats.ci95_high) + "]"
                           : std::string{"—"});
  out += " | " + std::to_string(r.stats.n); // trials kept: a count, 0 when none was
  out += " | " + (r.known ? format_value(r.known->value) + " (" + r.known->arch + ")" : std::string{"—"});
  out += " | " + cell(r.known ? r.known->source : "");
  out += " | " + (delta ? format_signed_percent(*delta) : std::string{"—"});
  out += " | " + cell(joined(r.notes)) + " |\n";
  return out;
}

std::string table(const std::vector<parameter_result>& results, const catalog& cat) {
  std::string out = "## Parameters\n\n";
  out += "| parameter | priority | category | value | unit | status | CV | 95% CI | trials | "
         "known | source | delta | notes |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::set<std::string> shown;
  for (const parameter& spec : cat.parameters())
    for (const auto& r : results)
      if (r.name == spec.name && shown.insert(r.name).second)
        out += row(r, &spec);
  for (const auto& r : results) // results the catalog does not list, in their order
    if (shown.insert(r.name).second)
      out += row(r, cat.find(r.name));
  return out + "\n";
}

// Where a measurement and its published value disagree, and what the run noted about why.
std::string disagreements(const std::vector<parameter_result>& results) {
  std::string out;
  for (const auto& r : results) {
    if (!r.value) // nothing was measured (NO_DATA, deferred, a build failure): nothing to compare
      continue;
    const auto delta = relative_delta(*r.value, r.known);
    if (r.result != status::known_value_mismatch && !(delta && std::abs(*delta) > judge_rules{}.known_tolerance))
      continue;
    out += "- **" + r.name + "**: " + format_value(*r.value) + " " + r.unit + " against " +
           (r.known ? format_value(r.known->value) + " (" + r.known->source + ")" : "—") +
           (delta ? ", " + format_signed_percent(*delta) : "") + ". " +
           (r.notes.empty() ? std::string{"No explanation recorded."} : cell(joined(r.notes))) + "\n";
  }
  return out.empty() ? "" : "## Disagreements with published values\n\n" + out + "\n";
}

// Every parameter without a value: those this run tried (with the reason), then the catalog's
// parameters it has no result for.
std::string not_measured(const std::vector<parameter_result>& results, const catalog& cat) {
  std::set<std::string_view> with_result;
  std::string out;
  for (const auto& r : results) {
    with_result.insert(r.name);
    if (!r.value)
      out += "- " + r.name + ": " + std::string{to_string(r.result)} + ", " +
             cell(not_measured_reason(r)) + "\n";
  }
  for (const parameter& spec : cat.parameters())
    if (!with_result.contains(spec.name))
      out += "- " + spec.name + " (priority " + std::to_string(spec.priority) + ", " +
             spec.unit + "): not in this run\n";
  return out.empty() ? "" : "## Not measured\n\n" + out + "\n";
}

} // namespace

std::string render_markdown(const std::vector<parameter_result>& results, const catalog& cat) {
  return header(results) + table(results, cat) + disagreements(results) +
         not_measured(results, cat);
}

} // namespace warpforge::calibrate
