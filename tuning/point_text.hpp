#pragma once
// The canonical text of a tunable point: how the history, the result cache and the attempt
// memory name a point. "NAME=value" pairs joined by ',' in name (byte) order, which is the order
// of config::tunable_point, so two equal points always have the same text:
//
//   canonical_text({{"TILE", 32}, {"PAD", 0}})   // "PAD=0,TILE=32"
//   parse_point_text("PAD=0,TILE=32")            // the same point; nullopt when malformed
//
// The point with no tunables is the empty text.

#include "config/resolved_problem.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::tuning {

std::string canonical_text(const config::tunable_point& point);

/// The point `text` names; nullopt when a pair is not NAME=integer, or a name repeats.
std::optional<config::tunable_point> parse_point_text(std::string_view text);

} // namespace warpforge::tuning
