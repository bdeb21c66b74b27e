#include "gpu/runner/warm_up_level.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::gpu {

namespace {

constexpr vocabulary::enum_word<warm_up_level> warm_up_level_words[] = {
  {warm_up_level::none, "none"}, {warm_up_level::device, "device"}, {warm_up_level::profiler, "profiler"}};
static_assert(vocabulary::covers(warm_up_level_words, all_warm_up_levels));

} // namespace

std::string_view to_string(warm_up_level level) {
  return vocabulary::word_of(warm_up_level_words, level);
}

std::optional<warm_up_level> warm_up_level_from_string(std::string_view text) {
  return vocabulary::value_of(warm_up_level_words, text);
}

} // namespace warpforge::gpu
