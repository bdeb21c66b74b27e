#include "llm/reply/reply_fault.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace warpforge::llm {
namespace {

TEST(ReplyFault, EveryValueRoundTripsThroughItsDistinctName) {
  std::set<std::string> names;
  for (const auto fault : all_reply_faults) {
    const auto name = std::string{to_string(fault)};
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(names.insert(name).second) << name << " is used twice";
    EXPECT_EQ(reply_fault_from_string(name), fault);
  }
  EXPECT_EQ(names.size(), all_reply_faults.size());
}

TEST(ReplyFault, AnUnknownNameHasNoFault) {
  EXPECT_FALSE(reply_fault_from_string("elided").has_value());
  EXPECT_FALSE(reply_fault_from_string("").has_value());
}

} // namespace
} // namespace warpforge::llm
