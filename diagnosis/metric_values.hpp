#pragma once
// One kernel's metrics: metric key (metric_schema.toml) -> value in the schema's unit
// (metric_unit.hpp: ratios 1.0 = 100%, seconds, bytes). Measured values, and after
// metric_schema::complete the derived ones too. Formulas and rule conditions are evaluated over
// it: they are expression/'s real language, whose values these are.

#include "expression/expression.hpp"

namespace warpforge::diagnosis {

using metric_values = expression::real_values;

} // namespace warpforge::diagnosis
