#pragma once
// One kernel's metrics: metric key (metric_schema.toml) -> value in the schema's unit
// (metric_unit.hpp: ratios 1.0 = 100%, seconds, bytes). Measured values, and after
// metric_schema::complete the derived ones too. Formulas and rule conditions are evaluated over
// it: they are config/expression/'s real language, whose values these are.

#include "config/expression/expression.hpp"

#include <cmath>
#include <optional>
#include <string_view>

namespace warpforge::diagnosis {

using metric_values = expression::real_values;

/// The value of `key` when it was measured (or derived) and is a finite number; none otherwise:
/// a NaN or an infinity from a division by a zero counter is no reading.
inline std::optional<double> value_of(const metric_values& metrics, std::string_view key) {
  const auto found = metrics.find(key);
  if (found == metrics.end() || !std::isfinite(found->second))
    return std::nullopt;
  return found->second;
}

} // namespace warpforge::diagnosis
