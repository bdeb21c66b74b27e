#pragma once
// How the reports write numbers for people (JSON keeps full precision; this is for Markdown, TSV,
// comments and charts). One place, so every report spells a value the same way.

#include <string>

namespace warpforge::calibrate {

/// A measured value: integers and values >= 1000 without decimals ("65536", "3352"), smaller
/// ones with 4 significant digits ("33.07", "0.0412"); "nan"/"inf" as such.
std::string format_value(double value);

/// A ratio as a percentage with one decimal: 0.0412 -> "4.1%".
std::string format_percent(double ratio);

/// A signed ratio as a percentage with one decimal: 0.052 -> "+5.2%", -0.1 -> "-10.0%".
std::string format_signed_percent(double ratio);

} // namespace warpforge::calibrate
