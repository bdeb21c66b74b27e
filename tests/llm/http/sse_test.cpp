// The SSE parser against the WHATWG rules, and a stream in Anthropic's documented format fed in
// every possible split, so a network chunk boundary can never change what is parsed.

#include "llm/http/sse.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>

namespace warpforge::llm::http {
namespace {

using namespace std::string_literals;

std::vector<sse_event> parse_pieces(const std::vector<std::string_view>& pieces, sse_parser& parser) {
  std::vector<sse_event> events;
  for (const auto piece : pieces)
    parser.feed(piece, [&](const sse_event& e) { events.push_back(e); });
  return events;
}

std::vector<sse_event> parse(std::string_view stream) {
  sse_parser parser;
  return parse_pieces({stream}, parser);
}

std::string fixture(const char* name) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/llm/http/fixtures/" + name, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string with_line_ends(std::string_view text, std::string_view ending) {
  std::string out;
  for (const char c : text)
    out += c == '\n' ? std::string{ending} : std::string{c};
  return out;
}

TEST(SseParser, ReadsEveryFieldAndJoinsDataLinesWithNewlines) {
  const auto events = parse("event: delta\ndata: first\ndata:second\ndata:  third\nid: 7\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "delta");
  EXPECT_EQ(events[0].data, "first\nsecond\n third") << "one leading space is dropped, no more";
  EXPECT_EQ(events[0].id, "7");
}

TEST(SseParser, NamesAnEventWithoutEventFieldMessage) {
  const auto events = parse("data: {\"choices\":[]}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "message");
  EXPECT_EQ(events[0].data, "{\"choices\":[]}");
  EXPECT_EQ(events[1].data, "[DONE]");
}

TEST(SseParser, IgnoresCommentsUnknownFieldsAndEventsWithoutData) {
  const auto events = parse(": keep-alive\n\nevent: ping\n\nfoo: bar\ndata: x\n\n");
  ASSERT_EQ(events.size(), 1u) << "an event with no data line is not dispatched";
  EXPECT_EQ(events[0].event, "message") << "the type of an undispatched event does not leak into the next";
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParser, DispatchesAnEmptyDataLineAsAnEmptyEvent) {
  const auto events = parse("data\n\ndata:\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "");
  EXPECT_EQ(events[1].data, "");
}

TEST(SseParser, KeepsTheLastIdAcrossEventsAndRefusesOneWithNul) {
  const auto events = parse("id: a\ndata: 1\n\ndata: 2\n\nid: b\0c\ndata: 3\n\nid\ndata: 4\n\n"s);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].id, "a");
  EXPECT_EQ(events[1].id, "a");
  EXPECT_EQ(events[2].id, "a") << "an id holding NUL is ignored";
  EXPECT_EQ(events[3].id, "") << "an empty id resets it";
}

TEST(SseParser, ReadsRetryOnlyWhenItIsAllDigits) {
  sse_parser parser;
  parse_pieces({"retry: 2500\n\n"}, parser);
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds{2500});
  parse_pieces({"retry: 12s\n\nretry: -1\n\n"}, parser);
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds{2500});
}

TEST(SseParser, AcceptsCrLfCrAndLfLineEndsAlike) {
  const std::string_view lf = "event: a\ndata: 1\ndata: 2\n\n";
  for (const auto ending : {"\r\n", "\r"}) {
    const auto events = parse(with_line_ends(lf, ending));
    ASSERT_EQ(events.size(), 1u) << "line ending " << (ending[1] ? "CRLF" : "CR");
    EXPECT_EQ(events[0].event, "a");
    EXPECT_EQ(events[0].data, "1\n2");
  }
}

TEST(SseParser, PairsACrAtAChunksEndWithAnLfStartingTheNext) {
  sse_parser parser;
  const auto events = parse_pieces({"data: 1\r", "\ndata: 2\r", "\n\r", "\n"}, parser);
  ASSERT_EQ(events.size(), 1u) << "CR|LF across chunks is one line end, not two";
  EXPECT_EQ(events[0].data, "1\n2");
}

TEST(SseParser, DropsALeadingBomEvenWhenSplit) {
  sse_parser parser;
  const auto events = parse_pieces({"\xEF\xBB", "\xBF" "data: x\n\n"}, parser);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParser, DiscardsAnEventTheStreamDidNotFinish) {
  EXPECT_TRUE(parse("data: half an event\n").empty());
  EXPECT_TRUE(parse("data: no line end").empty());
}

/// The fixture parsed whole, checked against its own JSON: each event's data is JSON whose
/// "type" is the event's name, and the text deltas spell the reply.
std::vector<sse_event> parse_anthropic_fixture_and_check(const std::string& stream) {
  auto events = parse(stream);
  simdjson::dom::parser json;
  std::string text;
  for (const auto& e : events) {
    auto doc = json.parse(e.data);
    EXPECT_FALSE(doc.error()) << e.data;
    EXPECT_EQ(std::string_view{doc["type"].get_string().value()}, e.event);
    if (e.event == "content_block_delta")
      text += std::string_view{doc["delta"]["text"].get_string().value()};
  }
  EXPECT_EQ(text, R"({"variants": [{"memo": "tile 32x32 in shared memory, padded"}]})");
  return events;
}

TEST(SseParser, ReadsTheAnthropicStreamTheSameAtEverySplitPoint) {
  for (const auto ending : {"\n", "\r\n"}) {
    const std::string stream = with_line_ends(fixture("anthropic_stream.sse"), ending);
    const auto whole = parse_anthropic_fixture_and_check(stream);
    ASSERT_EQ(whole.size(), 9u);
    EXPECT_EQ(whole.front().event, "message_start");
    EXPECT_EQ(whole.back().event, "message_stop");
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
      sse_parser parser;
      const std::string_view text = stream;
      const auto split = parse_pieces({text.substr(0, cut), text.substr(cut)}, parser);
      ASSERT_EQ(split, whole) << "split at byte " << cut;
    }
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < stream.size(); ++i)
      bytes.push_back(std::string_view{stream}.substr(i, 1));
    sse_parser parser;
    EXPECT_EQ(parse_pieces(bytes, parser), whole) << "fed one byte at a time";
  }
}

} // namespace
} // namespace warpforge::llm::http
