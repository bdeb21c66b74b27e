#include "feed/event.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <set>

namespace warpforge::feed {
namespace {

TEST(EventType, EveryValueRoundTripsThroughItsTopicName) {
  std::set<std::string_view> names;
  for (auto type : all_event_types) {
    auto name = to_string(type);
    EXPECT_NE(name, "unknown");
    EXPECT_TRUE(names.insert(name).second) << name << " is used twice";
    EXPECT_EQ(event_type_from_string(name), type);
  }
  EXPECT_EQ(names.size(), std::size(all_event_types));
  EXPECT_EQ(event_type_from_string("branch_"), std::nullopt);
  EXPECT_EQ(event_type_from_string(""), std::nullopt);
}

TEST(EventType, NoTypeNameIsAnEnvelopeMember) {
  for (auto type : all_event_types)
    EXPECT_FALSE(is_envelope_member(to_string(type))) << to_string(type);
  for (auto name : {"schema", "seq", "ts", "type", "campaign", "job", "iter", "branch", "gpu"})
    EXPECT_TRUE(is_envelope_member(name)) << name;
  EXPECT_FALSE(is_envelope_member("time_s"));
}

TEST(Detail, BuildsAnObjectInTheOrderFieldsWereAdded) {
  auto json = detail{}.add("actor", "llm").add("attempt", 3).add("delay_s", 0.25).json();
  EXPECT_EQ(json, R"({"actor":"llm","attempt":3,"delay_s":0.25})");
}

TEST(Detail, EmptyDetailIsAnEmptyObject) {
  EXPECT_EQ(detail{}.json(), "{}");
}

TEST(Detail, EscapesStringsAndWritesNonFiniteNumbersAsNull) {
  std::string reason = "exit \"139\"\n";
  auto json = detail{}
                .add("reason", reason)
                .add("cv", std::numeric_limits<double>::quiet_NaN())
                .add("ok", true)
                .add_null("signal")
                .add_raw("methods", R"(["tma","swizzle"])")
                .json();
  EXPECT_EQ(json,
            R"({"reason":"exit \"139\"\n","cv":null,"ok":true,"signal":null,"methods":["tma","swizzle"]})");
}

TEST(Detail, JsonCanBeTakenAgainAfterMoreFieldsAreAdded) {
  detail d;
  d.add("a", 1);
  EXPECT_EQ(d.json(), R"({"a":1})");
  d.add("b", 2);
  EXPECT_EQ(d.json(), R"({"a":1,"b":2})");
}

TEST(Detail, AnEnvelopeNameAsAKeyIsAProducerBug) {
  detail d;
  EXPECT_THROW(d.add("seq", 1), std::invalid_argument);
  EXPECT_THROW(d.add_null("gpu"), std::invalid_argument);
  EXPECT_THROW(d.add_raw("type", "\"x\""), std::invalid_argument);
}

TEST(Detail, AppendsItsMembersAfterAnExistingObjects) {
  auto extra = detail{}.add("replay_endpoint", "tcp://127.0.0.1:5758");
  EXPECT_EQ(extra.appended_to(R"({"resumed":false})"),
            R"({"resumed":false,"replay_endpoint":"tcp://127.0.0.1:5758"})");
  EXPECT_EQ(extra.appended_to(" { } "), R"({"replay_endpoint":"tcp://127.0.0.1:5758"})");
  EXPECT_EQ(detail{}.appended_to(R"({"a":1})"), R"({"a":1})");
  EXPECT_THROW((void)extra.appended_to("[1]"), std::invalid_argument);
}

TEST(ObjectMembers, StripsTheBracesAndBlanksAndRefusesWhatIsNotAnObject) {
  EXPECT_EQ(object_members(R"( {"a":1, "b":[2]} )"), R"("a":1, "b":[2])");
  EXPECT_EQ(object_members("{}"), "");
  EXPECT_EQ(object_members("{ \n }"), "");
  EXPECT_EQ(object_members("{"), std::nullopt);
  EXPECT_EQ(object_members("[]"), std::nullopt);
  EXPECT_EQ(object_members(""), std::nullopt);
}

} // namespace
} // namespace warpforge::feed
