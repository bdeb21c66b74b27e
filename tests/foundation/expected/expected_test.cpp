#include "foundation/expected/expected.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge {
namespace {

expected<int, std::string> parse_positive(int x) {
  if (x <= 0)
    return unexpected{std::string{"not positive"}};
  return x;
}

TEST(Expected, HoldsAValueOrAnError) {
  auto good = parse_positive(3);
  ASSERT_TRUE(good);
  EXPECT_EQ(*good, 3);
  auto bad = parse_positive(-1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "not positive");
}

TEST(Expected, ValueOnAnErrorIsABrokenInvariant) {
  auto bad = parse_positive(0);
  EXPECT_THROW((void)bad.value(), bad_expected_access);
  expected<void, std::string> failed = unexpected{std::string{"x"}};
  EXPECT_THROW(failed.value(), bad_expected_access);
  expected<void, std::string> fine;
  EXPECT_NO_THROW(fine.value());
}

} // namespace
} // namespace warpforge
