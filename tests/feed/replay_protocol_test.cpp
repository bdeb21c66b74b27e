#include "feed/replay_protocol.hpp"

#include "feed/defaults.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace warpforge::feed {
namespace {

TEST(ReplayStatus, EveryValueRoundTripsThroughItsName) {
  std::set<std::string_view> names;
  for (auto status : all_replay_statuses) {
    EXPECT_NE(to_string(status), "unknown");
    EXPECT_TRUE(names.insert(to_string(status)).second);
    EXPECT_EQ(replay_status_from_string(to_string(status)), status);
  }
  EXPECT_EQ(replay_status_from_string("fine"), std::nullopt);
}

TEST(ReplayRequest, RoundTripsWithAndWithoutItsOptionalMembers) {
  for (auto request : {replay_request{0, std::nullopt, std::nullopt}, replay_request{41, 120, 500}}) {
    auto text = encode(request);
    auto back = decode_replay_request(text);
    ASSERT_TRUE(back) << text << ": " << to_string(back.error());
    EXPECT_EQ(*back, request) << text;
  }
  EXPECT_EQ(encode(replay_request{41, 120, 500}), R"({"after":41,"until":120,"limit":500})");
}

TEST(ReplayRequest, ReadsWhatAPythonMonitorSends) {
  auto request = decode_replay_request(R"({ "after": 7, "until": null, "client": "monitor.py" })");
  ASSERT_TRUE(request) << to_string(request.error());
  EXPECT_EQ(request->after, 7u);
  EXPECT_EQ(request->until, std::nullopt);
  EXPECT_EQ(request->limit, std::nullopt);
}

TEST(ReplayRequest, RefusalsNameTheMemberAtFault) {
  struct bad_case {
    const char* text;
    feed_errc code;
    const char* place;
  };
  for (auto [text, code, place] : {bad_case{"[1]", feed_errc::bad_json, ""},
                                   bad_case{"{", feed_errc::bad_json, ""},
                                   bad_case{"{}", feed_errc::missing_field, "after"},
                                   bad_case{R"({"after":-1})", feed_errc::bad_field, "after"},
                                   bad_case{R"({"after":"7"})", feed_errc::bad_field, "after"},
                                   bad_case{R"({"after":9,"until":8})", feed_errc::bad_field, "until"},
                                   bad_case{R"({"after":0,"limit":0})", feed_errc::bad_field, "limit"},
                                   bad_case{R"({"after":0,"limit":1.5})", feed_errc::bad_field, "limit"}}) {
    auto request = decode_replay_request(text);
    ASSERT_FALSE(request) << text;
    EXPECT_EQ(request.error().code, code) << text;
    EXPECT_EQ(request.error().place, place) << text;
  }
}

TEST(ReplayRequest, ASeqAboveTwoToTheSixtyThreeIsRefusedNotWrapped) {
  // The store's seqs are signed 64-bit: 2^63 used to become -2^63 and replay from seq 1.
  for (auto [text, place] : {std::pair{R"({"after":9223372036854775808})", "after"},
                             std::pair{R"({"after":18446744073709551615})", "after"},
                             std::pair{R"({"after":0,"until":9223372036854775808})", "until"},
                             std::pair{R"({"after":0,"until":18446744073709551615})", "until"}}) {
    auto request = decode_replay_request(text);
    ASSERT_FALSE(request) << text;
    EXPECT_EQ(request.error().place, place) << text;
    EXPECT_NE(request.error().code, feed_errc::missing_field) << text;
  }
  auto refused = decode_replay_request(R"({"after":9223372036854775808})");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, feed_errc::bad_field);
  EXPECT_EQ(refused.error().message,
            "9223372036854775808 is above the largest seq (2^63 - 1 = 9223372036854775807)");

  // Beyond 64 bits the JSON parser refuses the text without naming the member; still a refusal
  // that says why.
  auto beyond = decode_replay_request(R"({"after":184467440737095516150})");
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error().code, feed_errc::bad_field);
  EXPECT_NE(beyond.error().message.find("beyond 64 bits"), std::string::npos) << beyond.error().message;

  auto largest = decode_replay_request(R"({"after":9223372036854775807,"until":9223372036854775807})");
  ASSERT_TRUE(largest) << to_string(largest.error());
  EXPECT_EQ(largest->after, max_replay_seq);
  EXPECT_EQ(largest->until, max_replay_seq);
}

TEST(ReplayHeader, RoundTripsAnAnswerAndARefusal) {
  replay_header answer{replay_status::ok, 41, 120, 79, 42, 120, 130, false, "", ""};
  EXPECT_EQ(encode(answer), R"({"status":"ok","after":41,"until":120,"count":79,"first":42,)"
                            R"("last":120,"stored_last":130,"more":false})");
  EXPECT_EQ(decode_replay_header(encode(answer)).value(), answer);

  replay_header empty{replay_status::ok, 5, std::nullopt, 0, std::nullopt, std::nullopt, 5, false, "", ""};
  EXPECT_EQ(decode_replay_header(encode(empty)).value(), empty);

  replay_header refusal;
  refusal.status = replay_status::bad_request;
  refusal.place = "after";
  refusal.message = "required";
  EXPECT_EQ(encode(refusal), R"({"status":"bad_request","place":"after","message":"required"})");
  EXPECT_EQ(decode_replay_header(encode(refusal)).value(), refusal);
}

TEST(ReplayHeader, AnUnknownStatusOrAMissingCountIsNamed) {
  auto unknown = decode_replay_header(R"({"status":"maybe"})");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().place, "status");
  auto no_count = decode_replay_header(R"({"status":"ok","after":0,"stored_last":0,"more":false})");
  ASSERT_FALSE(no_count);
  EXPECT_EQ(no_count.error().place, "count");
}

} // namespace
} // namespace warpforge::feed
