#include "config/toml_reader/placed_error.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace warpforge::toml_reader {
namespace {

TEST(PlacedError, ToStringWritesFileLineColumnKeyMessageAndHint) {
  const placed_error error{"p.toml",           12, 9, "args[2].count", "must be positive",
                           "count is elements"};
  EXPECT_EQ(to_string(error),
            "p.toml:12:9: args[2].count: must be positive (hint: count is elements)");
  EXPECT_EQ(to_string(placed_error{"r.toml", 4, 9, "rule.x.when", "unknown metric 'a'",
                                   "did you mean 'b'?"}),
            "r.toml:4:9: rule.x.when: unknown metric 'a' (hint: did you mean 'b'?)");
}

TEST(PlacedError, ToStringLeavesOutUnknownPartsAndEmptyHint) {
  EXPECT_EQ(to_string(placed_error{"p.toml", 0, 0, "", "cannot read", ""}), "p.toml: cannot read");
  EXPECT_EQ(to_string(placed_error{"p.toml", 3, 0, "name", "empty", ""}), "p.toml:3: name: empty");
}

TEST(PlacedError, ToStringOfSeveralErrorsWritesOnePerLine) {
  const placed_errors errors{{"a.toml", 1, 1, "x", "bad", ""}, {"a.toml", 2, 1, "y", "worse", ""}};
  EXPECT_EQ(to_string(errors), "a.toml:1:1: x: bad\na.toml:2:1: y: worse\n");
}

TEST(PlacedError, SortByPlaceOrdersByLineThenColumnAndKeepsTiesInOrder) {
  placed_errors errors{{"a", 9, 1, "late", "", ""},
                       {"a", 2, 7, "second", "", ""},
                       {"a", 2, 3, "first", "", ""},
                       {"a", 2, 7, "third", "", ""},
                       {"a", 0, 0, "whole file", "", ""}};
  sort_by_place(errors);
  std::vector<std::string> keys;
  for (const auto& error : errors)
    keys.push_back(error.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"whole file", "first", "second", "third", "late"}));
}

TEST(PlacedError, ClosestMatchFindsLikelyTyposOnly) {
  constexpr std::array<std::string_view, 4> keys{"source", "entry", "flags", "arch"};
  EXPECT_EQ(closest_match("sorce", keys), "source");
  EXPECT_EQ(closest_match("flgs", keys), "flags");
  EXPECT_EQ(closest_match("ENTRY", keys), "entry");
  EXPECT_EQ(closest_match("archh", keys), "arch");
  EXPECT_EQ(closest_match("launch", keys), std::nullopt);
  EXPECT_EQ(closest_match("x", keys), std::nullopt);
}

TEST(PlacedError, DidYouMeanWritesTheHintOrNothing) {
  constexpr std::array<std::string_view, 2> units{"bytes", "seconds"};
  EXPECT_EQ(did_you_mean("byte", units), "did you mean 'bytes'?");
  EXPECT_EQ(did_you_mean("furlongs", units), "");
}

TEST(PlacedError, JoinAlternativesWritesACommaListEndingWithOr) {
  constexpr std::array<std::string_view, 3> three{"a", "b", "c"};
  constexpr std::array<std::string_view, 1> one{"a"};
  EXPECT_EQ(join_alternatives(three), "a, b or c");
  EXPECT_EQ(join_alternatives(one), "a");
}

} // namespace
} // namespace warpforge::toml_reader
