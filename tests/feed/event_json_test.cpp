#include "feed/event_json.hpp"

#include <gtest/gtest.h>

namespace warpforge::feed {
namespace {

event measured_branch() {
  event e;
  e.seq = 42;
  e.ts = 1764000000.25;
  e.type = event_type::branch_measured;
  e.campaign = "nightly";
  e.job = "gemm_fp16";
  e.iter = 3;
  e.branch = 5;
  e.gpu = 1;
  e.detail_json = detail{}
                    .add("time_s", 0.001234)
                    .add("cv", 0.0125)
                    .add("gpu_name", "NVIDIA H100 80GB HBM3")
                    .add_raw("methods", R"(["tma",{"tile":[128,64]}])")
                    .json();
  return e;
}

TEST(EventJson, EncodesOneFlatObjectWithTheEnvelopeFirst) {
  event e;
  e.seq = 7;
  e.ts = 1764000000.5;
  e.type = event_type::actor_restarted;
  e.campaign = "nightly";
  e.detail_json = detail{}.add("actor", "llm").add("attempt", 3).json();
  EXPECT_EQ(encode(e),
            R"({"schema":1,"seq":7,"ts":1764000000.5,"campaign":"nightly","job":null,)"
            R"("iter":null,"branch":null,"gpu":null,"type":"actor_restarted","actor":"llm","attempt":3})");
}

TEST(EventJson, DecodeOfEncodeGivesTheSameEvent) {
  auto e = measured_branch();
  auto decoded = decode(encode(e));
  ASSERT_TRUE(decoded) << to_string(decoded.error());
  EXPECT_EQ(*decoded, e);
  EXPECT_EQ(decoded->detail_json, e.detail_json);
}

TEST(EventJson, EncodeOfDecodeGivesTheSameText) {
  auto text = encode(measured_branch());
  auto decoded = decode(text);
  ASSERT_TRUE(decoded) << to_string(decoded.error());
  EXPECT_EQ(encode(*decoded), text);
}

TEST(EventJson, AbsentIdsAndAnEmptyDetailRoundTripAsNull) {
  event e;
  e.seq = 1;
  e.ts = 0.0;
  e.type = event_type::campaign_started;
  auto text = encode(e);
  EXPECT_EQ(text, R"({"schema":1,"seq":1,"ts":0,"campaign":null,"job":null,"iter":null,)"
                  R"("branch":null,"gpu":null,"type":"campaign_started"})");
  auto decoded = decode(text);
  ASSERT_TRUE(decoded) << to_string(decoded.error());
  EXPECT_EQ(*decoded, e);
  EXPECT_EQ(decoded->detail_json, "{}");
}

TEST(EventJson, EveryEventTypeRoundTrips) {
  std::uint64_t seq = 0;
  for (auto type : all_event_types) {
    event e;
    e.seq = ++seq;
    e.ts = 1764000000.0 + 0.1 * static_cast<double>(seq);
    e.type = type;
    e.job = "j";
    e.iter = 0;
    e.branch = 0;
    e.gpu = 0;
    auto decoded = decode(encode(e));
    ASSERT_TRUE(decoded) << to_string(type) << ": " << to_string(decoded.error());
    EXPECT_EQ(*decoded, e) << to_string(type);
  }
}

TEST(EventJson, ExtremeNumbersRoundTripExactly) {
  event e;
  e.seq = std::numeric_limits<std::uint64_t>::max();
  e.ts = 1764000000.123456789;
  e.iter = std::numeric_limits<std::int64_t>::max();
  e.detail_json = detail{}
                    .add("tiny_s", 1e-300)
                    .add("big", std::numeric_limits<std::uint64_t>::max())
                    .add("negative", std::numeric_limits<std::int64_t>::min())
                    .json();
  auto decoded = decode(encode(e));
  ASSERT_TRUE(decoded) << to_string(decoded.error());
  EXPECT_EQ(*decoded, e);
}

TEST(EventJson, DecodeReadsMembersInAnyOrderAndMissingIdsAsAbsent) {
  auto decoded = decode(R"( {"type":"warning","message":"slow disk","ts":5,"seq":9,"schema":1} )");
  ASSERT_TRUE(decoded) << to_string(decoded.error());
  EXPECT_EQ(decoded->type, event_type::warning);
  EXPECT_EQ(decoded->seq, 9u);
  EXPECT_EQ(decoded->ts, 5.0);
  EXPECT_EQ(decoded->campaign, "");
  EXPECT_EQ(decoded->iter, no_iter);
  EXPECT_EQ(decoded->branch, no_branch);
  EXPECT_EQ(decoded->gpu, no_gpu);
  EXPECT_EQ(decoded->detail_json, R"({"message":"slow disk"})");
}

void expect_error(std::string_view text, feed_errc code, std::string_view place) {
  auto decoded = decode(text);
  ASSERT_FALSE(decoded) << text;
  EXPECT_EQ(decoded.error().code, code) << text << " -> " << to_string(decoded.error());
  EXPECT_EQ(decoded.error().place, place) << text << " -> " << to_string(decoded.error());
}

TEST(EventJson, DecodeRejectsTextThatIsNotAJsonObject) {
  expect_error("", feed_errc::bad_json, "");
  expect_error("{\"schema\":1,", feed_errc::bad_json, "");
  expect_error("not json", feed_errc::bad_json, "");
  expect_error("[1,2]", feed_errc::bad_json, "");
  expect_error(R"({"schema":1} trailing)", feed_errc::bad_json, "");
}

TEST(EventJson, DecodeNamesAMissingRequiredMember) {
  expect_error(R"({"seq":1,"ts":1,"type":"error"})", feed_errc::missing_field, "schema");
  expect_error(R"({"schema":1,"seq":1,"ts":1})", feed_errc::missing_field, "type");
  expect_error(R"({"schema":1,"ts":1,"type":"error"})", feed_errc::missing_field, "seq");
  expect_error(R"({"schema":1,"seq":1,"type":"error"})", feed_errc::missing_field, "ts");
}

TEST(EventJson, DecodeRefusesAnotherSchemaVersion) {
  expect_error(R"({"schema":2,"seq":1,"ts":1,"type":"error"})", feed_errc::unsupported_schema,
               "schema");
  expect_error(R"({"schema":0,"seq":1,"ts":1,"type":"error"})", feed_errc::unsupported_schema,
               "schema");
  expect_error(R"({"schema":"1","seq":1,"ts":1,"type":"error"})", feed_errc::bad_field, "schema");
}

TEST(EventJson, DecodeRefusesAnUnknownType) {
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"branch_exploded"})",
               feed_errc::unknown_event_type, "type");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":7})", feed_errc::bad_field, "type");
}

TEST(EventJson, DecodeNamesAMemberOfTheWrongType) {
  expect_error(R"({"schema":1,"seq":-1,"ts":1,"type":"error"})", feed_errc::bad_field, "seq");
  expect_error(R"({"schema":1,"seq":1,"ts":"now","type":"error"})", feed_errc::bad_field, "ts");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"error","job":3})", feed_errc::bad_field, "job");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"error","gpu":"0"})", feed_errc::bad_field,
               "gpu");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"error","iter":-2})", feed_errc::bad_field,
               "iter");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"error","branch":1.5})", feed_errc::bad_field,
               "branch");
  expect_error(R"({"schema":1,"seq":1,"ts":1,"type":"error","gpu":4294967296})",
               feed_errc::bad_field, "gpu");
  expect_error(R"({"schema":1,"seq":1,"seq":2,"ts":1,"type":"error"})", feed_errc::bad_field, "seq");
}

TEST(EventJson, EncodingADetailThatIsNotAnObjectIsAProducerBug) {
  event e;
  e.detail_json = "[1]";
  EXPECT_THROW((void)encode(e), std::invalid_argument);
  e.detail_json = "";
  EXPECT_THROW((void)encode(e), std::invalid_argument);
}

} // namespace
} // namespace warpforge::feed
