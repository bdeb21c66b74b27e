#pragma once
// The weighted configurations a problem is measured at (docs/specs.md, "Configurations"): the
// sizes a real program runs the kernel at, each with its share of the time. Every candidate is
// checked and timed at every one; its time is sum(weight_i * median_i) (docs/measurement.md).
//
//   for (const auto& c : problem_configs(spec))          // at least one, weights sum to 1
//     auto r = resolve_problem(spec, point, c);          // resolved_problem.hpp: c's dims
//
// A problem without [[configs]] is one configuration named after the problem, weight 1, at its
// [dims]: every caller treats both cases the same way.

#include "config/problem_spec.hpp"
#include "config/expression/expression.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::config {

/// One configuration: what the expressions see for the dims there.
struct problem_config {
  std::string name;                // unique within the problem
  double weight = 1.0;             // normalised: the weights of a problem's configs sum to 1
  expression::integer_values dims; // every dim of the spec: the config's override, else [dims]
  std::string origin;              // "file:line" where it was written; "" for the implicit one

  bool operator==(const problem_config&) const = default;
};

/// The problem's configurations in spec order, weights normalised; without [[configs]], one
/// config named after the problem with weight 1 at [dims].
std::vector<problem_config> problem_configs(const problem_spec& spec);

} // namespace warpforge::config
