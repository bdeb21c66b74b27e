#pragma once
// A branch's tunables (branches.defines_json, a JSON object) as name -> value text, so the CSV can
// give each tunable its own column and the Kernel Tuner cache its own member: a number keeps its
// JSON text ("16", "0.5"), a string its content, true/false/null as written; a nested value its
// JSON text.

#include "report/campaign_report.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::report {

/// One tunable of one branch.
struct tunable_value {
  std::string name;
  std::string text;       // "16", "row_major"
  bool is_number = false; // a JSON number (written unquoted in JSON outputs)
};

/// The members of `defines_json` in order; none when it is not a JSON object.
std::vector<tunable_value> tunable_values(std::string_view defines_json);

/// Every tunable name and every claimed method name of the report's branches, each sorted once.
struct column_names {
  std::vector<std::string> tunables;
  std::vector<std::string> methods;
};
column_names column_names_of(const campaign_report& report);
column_names column_names_of(const job_entry& job);

} // namespace warpforge::report
