#include "config/spec_error.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace warpforge::config {
namespace {

TEST(ConfigSpecError, ToStringWritesFileLineColumnKeyMessageAndHint) {
  const spec_error error{"p.toml", 12, 9, "args[2].count", "must be positive", "count is elements"};
  EXPECT_EQ(to_string(error), "p.toml:12:9: args[2].count: must be positive (hint: count is elements)");
}

TEST(ConfigSpecError, ToStringLeavesOutUnknownPartsAndEmptyHint) {
  EXPECT_EQ(to_string(spec_error{"p.toml", 0, 0, "", "cannot read", ""}), "p.toml: cannot read");
  EXPECT_EQ(to_string(spec_error{"p.toml", 3, 0, "name", "empty", ""}), "p.toml:3: name: empty");
}

TEST(ConfigSpecError, ToStringOfSeveralErrorsWritesOnePerLine) {
  const spec_errors errors{{"a.toml", 1, 1, "x", "bad", ""}, {"a.toml", 2, 1, "y", "worse", ""}};
  EXPECT_EQ(to_string(errors), "a.toml:1:1: x: bad\na.toml:2:1: y: worse\n");
}

TEST(ConfigSpecError, ClosestMatchFindsLikelyTyposOnly) {
  constexpr std::array<std::string_view, 4> keys{"source", "entry", "flags", "arch"};
  EXPECT_EQ(closest_match("sorce", keys), "source");
  EXPECT_EQ(closest_match("flgs", keys), "flags");
  EXPECT_EQ(closest_match("ENTRY", keys), "entry");
  EXPECT_EQ(closest_match("archh", keys), "arch");
  EXPECT_EQ(closest_match("launch", keys), std::nullopt);
  EXPECT_EQ(closest_match("x", keys), std::nullopt);
}

TEST(ConfigSpecError, JoinAlternativesWritesACommaListEndingWithOr) {
  constexpr std::array<std::string_view, 3> three{"a", "b", "c"};
  constexpr std::array<std::string_view, 1> one{"a"};
  EXPECT_EQ(join_alternatives(three), "a, b or c");
  EXPECT_EQ(join_alternatives(one), "a");
}

} // namespace
} // namespace warpforge::config
