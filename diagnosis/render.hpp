#pragma once
// The text report of a diagnosis, for `warpforge diagnose` and logs: the GPU, the metrics grouped
// by schema section with units (metrics outside the schema under "Other metrics"), the roofline
// gaps, near-peak verdict and method budget, the roofline point, the findings with their actions
// and sources, and the rules that were not evaluated with the missing metrics.

#include "diagnosis/diagnose.hpp"
#include "diagnosis/metric_schema.hpp"

#include <string>

namespace warpforge::diagnosis {

/// Multi-line text; `schema` supplies labels, units and sections (the one diagnose() used).
std::string render_text(const diagnosis& result, const metric_schema& schema);
/// With the built-in schema.
std::string render_text(const diagnosis& result);

/// What a fired finding that does not speak at the binding level (finding_fits_binding) says
/// instead of its action: the memory_bound finding of an L1-bound kernel.
std::string off_level_action(const diagnosis& result);

} // namespace warpforge::diagnosis
