#include "feed/dashboard/dashboard_error.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::dashboard {
namespace {

TEST(DashboardError, EveryCodeRoundTripsThroughItsName) {
  std::set<std::string_view> names;
  for (auto code : all_dashboard_errcs) {
    EXPECT_NE(to_string(code), "unknown");
    EXPECT_TRUE(names.insert(to_string(code)).second);
    EXPECT_EQ(dashboard_errc_from_string(to_string(code)), code);
  }
  EXPECT_EQ(dashboard_errc_from_string("oops"), std::nullopt);
}

TEST(DashboardError, TextNamesTheCodeThePlaceAndWhatWasWrong) {
  EXPECT_EQ(to_string(dashboard_error{dashboard_errc::socket_error, "bind", "127.0.0.1:80: Permission denied", {}}),
            "socket_error: bind: 127.0.0.1:80: Permission denied");
}

} // namespace
} // namespace warpforge::dashboard
