#pragma once
// diagnoser: metric_set → diagnosis (roofline gaps, fired rules, the method budget).

#include "messages/ids.hpp"
#include "messages/metrics.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::messages {

/// Distances from the roofline, ratios in [0, 1]: 0 means at the peak.
struct roofline_gaps {
  double compute = 1;
  double memory = 1;
  double latency = 1;
  friend bool operator==(const roofline_gaps&, const roofline_gaps&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roofline_gaps& x) {
  return f(caf::meta::type_name("roofline_gaps"), x.compute, x.memory, x.latency);
}

enum class finding_severity : std::uint8_t { info, warning, critical };

struct finding {
  std::string rule_id;
  finding_severity severity = finding_severity::info;
  std::string text;    // what the rule saw, with the numbers
  std::string action;  // what it suggests
  friend bool operator==(const finding&, const finding&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, finding& x) {
  return f(caf::meta::type_name("finding"), x.rule_id, x.severity, x.text, x.action);
}

struct diagnosis {
  branch_ref ref;
  roofline_gaps gaps;
  bool near_peak = false;                    // every gap under the threshold: stop optimising
  std::vector<finding> findings;
  std::vector<std::string> suggested_methods; // method-catalog ids, best first
  std::uint32_t method_budget = 0;           // methods to try this iteration
  friend bool operator==(const diagnosis&, const diagnosis&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, diagnosis& x) {
  return f(caf::meta::type_name("diagnosis"), x.ref, x.gaps, x.near_peak, x.findings,
           x.suggested_methods, x.method_budget);
}

using diagnoser_actor = caf::typed_actor<
  caf::replies_to<metric_set>::with<diagnosis>, // gaps, fired rules, method budget
  status_handler>;

} // namespace warpforge::messages
