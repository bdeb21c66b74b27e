#pragma once
// Results as an H100 run would give them (values near published ones, a few failures), shared by
// the report, simulator and chart tests.

#include "calibrate/results/parameter_result.hpp"

#include <string>
#include <vector>

namespace warpforge::calibrate::testing {

/// A passing result of `name` with `value` in `unit`, 10 trials, CV 1%.
parameter_result passing(std::string name, std::string unit, double value);

/// Every parameter the built-in simulator mapping reads, passing, with H100-like values.
std::vector<parameter_result> h100_results();

} // namespace warpforge::calibrate::testing
