#pragma once
// Whether L2 is flushed before every timed launch (docs/measurement.md, "One sample"): the
// runner's timing mode, the measurements' mode column and bench's --cold.

#include "foundation/vocabulary/enum_text.hpp"

#include <array>

namespace warpforge::vocabulary {

enum class timing_mode {
  warm, ///< back-to-back launches, data resident in L2
  cold, ///< L2 flushed (a memset of 2x the L2 size) outside the timed region before each sample
};
inline constexpr std::array all_timing_modes{timing_mode::warm, timing_mode::cold};

std::string_view to_string(timing_mode value);

template <>
std::optional<timing_mode> from_string<timing_mode>(std::string_view text);

} // namespace warpforge::vocabulary
