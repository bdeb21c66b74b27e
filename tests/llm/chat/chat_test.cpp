#include "llm/chat/chat.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::llm {
namespace {

TEST(chat_enums, every_stop_reason_round_trips_through_its_name) {
  std::set<std::string_view> names;
  for (auto reason : all_stop_reasons) {
    names.insert(to_string(reason));
    EXPECT_EQ(stop_reason_from_string(to_string(reason)), reason);
  }
  EXPECT_EQ(names.size(), std::size(all_stop_reasons));
  EXPECT_FALSE(stop_reason_from_string("end_turn"));
}

TEST(chat_enums, every_error_kind_round_trips_through_its_name) {
  std::set<std::string_view> names;
  for (auto kind : all_chat_error_kinds) {
    names.insert(to_string(kind));
    EXPECT_EQ(chat_error_kind_from_string(to_string(kind)), kind);
  }
  EXPECT_EQ(names.size(), std::size(all_chat_error_kinds));
  EXPECT_FALSE(chat_error_kind_from_string("busy"));
}

TEST(token_usage, sums_each_kind_and_totals_all_of_them) {
  token_usage a{100, 20, 3000, 400};
  a += token_usage{1, 2, 3, 4};
  EXPECT_EQ(a, (token_usage{101, 22, 3003, 404}));
  EXPECT_EQ(a.total(), 101 + 22 + 3003 + 404);
}

} // namespace
} // namespace warpforge::llm
