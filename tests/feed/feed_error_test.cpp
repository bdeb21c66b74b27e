#include "feed/feed_error.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::feed {
namespace {

TEST(FeedError, EveryCodeRoundTripsThroughItsName) {
  std::set<std::string_view> names;
  for (auto code : all_feed_errcs) {
    auto name = to_string(code);
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(names.insert(name).second) << name << " is used twice";
    EXPECT_EQ(feed_errc_from_string(name), code);
  }
  EXPECT_EQ(feed_errc_from_string("no_such_error"), std::nullopt);
}

TEST(FeedError, TheWordsAreTheOnesLogsAndTestsRead) {
  EXPECT_EQ(to_string(feed_errc::socket_error), "socket_error");
  EXPECT_EQ(to_string(feed_errc::address_in_use), "address_in_use");
  EXPECT_EQ(to_string(feed_errc::replay_refused), "replay_refused");
}

TEST(FeedError, TextNamesTheCodeThePlaceAndWhatWasWrong) {
  EXPECT_EQ(to_string(feed_error{feed_errc::bad_field, "gpu", "expected an integer or null"}),
            "bad_field: gpu: expected an integer or null");
  EXPECT_EQ(to_string(feed_error{feed_errc::bad_json, "", "TAPE_ERROR"}), "bad_json: TAPE_ERROR");
}

} // namespace
} // namespace warpforge::feed
