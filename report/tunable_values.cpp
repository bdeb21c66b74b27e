#include "report/tunable_values.hpp"

#include <simdjson.h>

#include <algorithm>
#include <set>

namespace warpforge::report {

std::vector<tunable_value> tunable_values(std::string_view defines_json) {
  std::vector<tunable_value> out;
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(simdjson::padded_string{defines_json}).get(object) != simdjson::SUCCESS)
    return out;
  for (auto [key, value] : object) {
    tunable_value v{std::string{key}, {}, false};
    std::string_view text;
    if (value.get_string().get(text) == simdjson::SUCCESS) {
      v.text = std::string{text};
    } else {
      v.text = simdjson::minify(value);
      v.is_number = value.is_number();
    }
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

void add_job(const job_entry& job, std::set<std::string>& tunables, std::set<std::string>& methods) {
  for (const auto& it : job.iterations)
    for (const auto& b : it.branches) {
      for (const auto& t : tunable_values(b.row.defines_json))
        tunables.insert(t.name);
      methods.insert(b.methods.begin(), b.methods.end());
    }
}

column_names sorted(const std::set<std::string>& tunables, const std::set<std::string>& methods) {
  return {{tunables.begin(), tunables.end()}, {methods.begin(), methods.end()}};
}

} // namespace

column_names column_names_of(const campaign_report& report) {
  std::set<std::string> tunables, methods;
  for (const auto& job : report.jobs)
    add_job(job, tunables, methods);
  return sorted(tunables, methods);
}

column_names column_names_of(const job_entry& job) {
  std::set<std::string> tunables, methods;
  add_job(job, tunables, methods);
  return sorted(tunables, methods);
}

} // namespace warpforge::report
