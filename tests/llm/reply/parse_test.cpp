#include "llm/reply/parse.hpp"

#include "foundation/json/writer.hpp"
#include "tests/llm/reply/reply_test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace warpforge::llm {
namespace {

using testing::scale_contract;
using testing::scale_kernel;

std::string json_quoted(std::string_view text) {
  std::string out;
  json::append_quoted(out, text);
  return out;
}

// A variant object with `name` and the valid scale kernel; `extra` adds keys (",\"k\": v").
std::string variant(const std::string& name, const std::string& extra = "",
                    const std::string& code = scale_kernel) {
  return R"({"name": ")" + name + R"(", "memo": "double it", "methods": ["memory.vectorized_access"], "code": )" +
         json_quoted(code) + extra + "}";
}

std::string reply_of(const std::string& variants) {
  return R"({"analysis": "memory-bound", "variants": [)" + variants + "]}";
}

expected<envelope, std::vector<reply_problem>> parse(const std::string& text) {
  return parse_reply(text, scale_contract());
}

// The problems of a reply that must be refused; each printed when a test fails.
std::vector<reply_problem> refused(const std::string& text) {
  auto reply = parse(text);
  EXPECT_FALSE(reply.has_value()) << text;
  return reply ? std::vector<reply_problem>{} : reply.error();
}

// The one problem of `text`, which must have `fault`.
reply_problem only(const std::string& text, reply_fault fault) {
  const auto problems = refused(text);
  EXPECT_EQ(problems.size(), 1u) << text;
  for (const auto& p : problems)
    EXPECT_EQ(p.fault, fault) << to_string(p.fault) << " at " << p.where << ": " << p.reason;
  return problems.empty() ? reply_problem{} : problems.front();
}

bool mentions(const reply_problem& problem, const std::string& text) {
  return problem.reason.find(text) != std::string::npos;
}

TEST(ParseReply, AFencedReplyBecomesTheEnvelopeAndAblationsInheritDefinesAndLaunch) {
  const std::string launch = R"j(, "defines": {"TM": 8, "TN": -2}, "launch": {"grid": ["ceil_div(N, 64)", 2], "block": ["64"], "shared_bytes": 1024})j";
  const std::string ablations =
    R"(, "ablations": [{"without": "memory.vectorized_access", "code": )" + json_quoted(scale_kernel) +
    R"(}, {"without": "memory.tiling_smem", "code": )" + json_quoted(scale_kernel) + R"(, "defines": {"TM": 1}}])";
  const std::string both = R"(", "memory.tiling_smem"])";
  std::string first = variant("regtile_8x8", launch + ablations);
  first.replace(first.find(R"("])"), 2, both);
  const std::string text = "Here you go.\n```json\n" + reply_of(first + ", " + variant("plain")) +
                           "\n```\nThe first should win.";
  auto reply = parse(text);
  ASSERT_TRUE(reply) << reply.error().front().where << ": " << reply.error().front().reason;
  EXPECT_EQ(reply->analysis, "memory-bound");
  ASSERT_EQ(reply->variants.size(), 2u);
  const auto& v = reply->variants[0];
  EXPECT_EQ(v.name, "regtile_8x8");
  EXPECT_EQ(v.memo, "double it");
  EXPECT_EQ(v.methods, (std::vector<std::string>{"memory.vectorized_access", "memory.tiling_smem"}));
  EXPECT_EQ(v.code, scale_kernel);
  EXPECT_EQ(v.defines, (expression::integer_values{{"TM", 8}, {"TN", -2}}));
  ASSERT_TRUE(v.launch);
  EXPECT_EQ(v.launch->grid, (std::vector<std::string>{"ceil_div(N, 64)", "2"}));
  EXPECT_EQ(v.launch->block, std::vector<std::string>{"64"});
  EXPECT_EQ(v.launch->shared_bytes, "1024");
  ASSERT_EQ(v.ablations.size(), 2u);
  EXPECT_EQ(v.ablations[0].without, "memory.vectorized_access");
  EXPECT_EQ(v.ablations[0].defines, v.defines);
  EXPECT_EQ(v.ablations[0].launch, v.launch);
  EXPECT_EQ(v.ablations[1].defines, (expression::integer_values{{"TM", 1}}));
  EXPECT_FALSE(reply->variants[1].launch.has_value());
  EXPECT_TRUE(reply->variants[1].ablations.empty());
}

TEST(ParseReply, BareJsonAndJsonInsideProseAreFound) {
  EXPECT_TRUE(parse(reply_of(variant("a"))));
  EXPECT_TRUE(parse("Sure! " + reply_of(variant("a")) + " Hope it helps."));
  EXPECT_TRUE(parse("```\n" + reply_of(variant("a")) + "\n```"));
}

TEST(ParseReply, AReplyWithoutAnObjectIsNoJson) {
  EXPECT_TRUE(mentions(only("", reply_fault::no_json), "empty"));
  const auto prose = only("I would tile the matrix in shared memory.", reply_fault::no_json);
  EXPECT_EQ(prose.where, "reply");
  EXPECT_TRUE(mentions(prose, "no JSON object"));
}

TEST(ParseReply, ARawLineBreakInAStringIsBadJsonWithTheEscapeHint) {
  const auto problem = only(R"({"analysis": "two
lines", "variants": []})", reply_fault::bad_json);
  EXPECT_TRUE(mentions(problem, "\\n")) << problem.reason;
}

TEST(ParseReply, ATrailingCommaIsBadJsonPlacedInTheReply) {
  const auto problem = only("```json\n{\"analysis\": \"x\",\n  \"variants\": [1, 2,]\n}\n```",
                            reply_fault::bad_json);
  EXPECT_EQ(problem.where.rfind("reply line 3", 0), 0u) << problem.where;
  EXPECT_TRUE(mentions(problem, "commas")) << problem.reason;
}

TEST(ParseReply, SchemaProblemsNameTheKey) {
  EXPECT_EQ(only(reply_of(variant("a", R"(, "kernel": "x")")), reply_fault::schema).where,
            "variants[0].kernel");
  EXPECT_EQ(only(R"({"variants": [{"memo": "m", "methods": ["memory.tiling_smem"], "code": )" +
                   json_quoted(scale_kernel) + "}]}",
                 reply_fault::schema)
              .where,
            "variants[0].name");
  EXPECT_TRUE(mentions(only(R"({"variants": {}})", reply_fault::schema), "must be an array"));
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "memo": "again")")), reply_fault::schema),
                       "repeated"));
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "memo2": 0)")), reply_fault::schema),
                       "unknown key 'memo2'; the keys here are: name, memo, methods"));
  EXPECT_TRUE(mentions(only(reply_of(R"({"name": "a", "memo": "two\nlines", "methods": ["memory.tiling_smem"], "code": )" +
                                     json_quoted(scale_kernel) + "}"),
                            reply_fault::schema),
                       "one line"));
  EXPECT_EQ(only(R"([1, 2])", reply_fault::no_json).fault, reply_fault::no_json);
  EXPECT_EQ(only(R"({"analysis": 3, "variants": [)" + variant("a") + "]}", reply_fault::schema).where,
            "analysis");
  EXPECT_TRUE(mentions(only(reply_of(R"({"name": "Bad-Name", "memo": "m", "methods": ["memory.tiling_smem"], "code": )" +
                                     json_quoted(scale_kernel) + "}"),
                            reply_fault::schema),
                       "'Bad-Name' is not a name"));
}

TEST(ParseReply, VariantCountsAndNamesAreChecked) {
  EXPECT_EQ(only(reply_of(""), reply_fault::no_variants).where, "variants");
  const auto five = variant("a") + "," + variant("b") + "," + variant("c") + "," + variant("d") +
                    "," + variant("e");
  EXPECT_TRUE(mentions(only(reply_of(five), reply_fault::too_many_variants), "at most 4"));
  EXPECT_EQ(only(reply_of(variant("a") + "," + variant("a")), reply_fault::duplicate_name).where,
            "variants[1].name");
}

TEST(ParseReply, AVariantWithoutCodeIsNoCode) {
  const auto problem =
    only(reply_of(R"({"name": "a", "memo": "m", "methods": ["memory.tiling_smem"]})"), reply_fault::no_code);
  EXPECT_EQ(problem.where, "variants[0].code");
}

TEST(ParseReply, CodeProblemsArePlacedInTheirVariant) {
  const std::string elided = "extern \"C\" __global__ void scale(const float* x, float* y, int n) {\n"
                             "  // ... same as before\n  y[0] = x[0];\n}\n";
  const auto problem = only(reply_of(variant("a") + "," + variant("b", "", elided)), reply_fault::elided_code);
  EXPECT_EQ(problem.where, "variants[1].code line 2 column 3");
}

TEST(ParseReply, AnUnknownMethodSuggestsTheClosestCatalogId) {
  std::string text = reply_of(variant("a"));
  text.replace(text.find("memory.vectorized_access"), 24, "memory.smem_tiling");
  const auto problem = only(text, reply_fault::unknown_method);
  EXPECT_EQ(problem.where, "variants[0].methods[0]");
  EXPECT_TRUE(mentions(problem, "did you mean 'memory.tiling_smem'?")) << problem.reason;
  EXPECT_TRUE(mentions(problem, "valid ids look like memory.")) << problem.reason;
}

TEST(ParseReply, DefinesMustBeIntegerMacros) {
  EXPECT_EQ(only(reply_of(variant("a", R"(, "defines": {"TM": 8.5})")), reply_fault::bad_define).where,
            "variants[0].defines.TM");
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "defines": {"TM": "8"})")), reply_fault::bad_define),
                       "must be an integer"));
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "defines": {"8TM": 8})")), reply_fault::bad_define),
                       "not a macro name"));
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "defines": {"__CUDA_ARCH__": 1})")),
                            reply_fault::bad_define),
                       "not a macro name"));
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "defines": [1])")), reply_fault::bad_define),
                       "NAME: integer"));
}

TEST(ParseReply, LaunchesMustHoldOneToThreeValidExpressions) {
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "launch": {"grid": [1, 1, 1, 1], "block": [1]})")),
                            reply_fault::bad_launch),
                       "got 4 entries"));
  const auto syntax = only(reply_of(variant("a", R"j(, "launch": {"grid": ["ceil_div(N 64)"], "block": [1]})j")),
                           reply_fault::bad_launch);
  EXPECT_EQ(syntax.where, "variants[0].launch.grid[0]");
  EXPECT_TRUE(mentions(syntax, "\"ceil_div(N 64)\"")) << syntax.reason;
  EXPECT_EQ(only(reply_of(variant("a", R"(, "launch": {"grid": [1], "block": [true]})")), reply_fault::bad_launch)
              .where,
            "variants[0].launch.block[0]");
  EXPECT_EQ(only(reply_of(variant("a", R"(, "launch": {"grid": [1]})")), reply_fault::schema).where,
            "variants[0].launch.block");
}

TEST(ParseReply, AblationsUndoOneClaimedMethodEach) {
  const auto ablation = [](const std::string& without) {
    return R"({"without": ")" + without + R"(", "code": )" + json_quoted(scale_kernel) + "}";
  };
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "ablations": [)" + ablation("memory.tiling_smem") + "]")),
                            reply_fault::schema),
                       "not one of this variant's methods"));
  EXPECT_EQ(only(reply_of(variant("a", R"(, "ablations": [)" + ablation("memory.nothing") + "]")),
                 reply_fault::unknown_method)
              .where,
            "variants[0].ablations[0].without");
  const auto twice = ablation("memory.vectorized_access") + "," + ablation("memory.vectorized_access");
  EXPECT_TRUE(mentions(only(reply_of(variant("a", R"(, "ablations": [)" + twice + "]")), reply_fault::schema),
                       "a second ablation"));
}

TEST(ParseReply, EveryProblemOfAReplyIsReportedNotOnlyTheFirst) {
  const auto problems = refused(reply_of(variant("a", R"(, "defines": {"X": 1.5})") + "," +
                                         variant("a", "", "")));
  std::map<reply_fault, int> faults;
  for (const auto& p : problems)
    ++faults[p.fault];
  EXPECT_EQ(faults[reply_fault::bad_define], 1);
  EXPECT_EQ(faults[reply_fault::duplicate_name], 1);
  EXPECT_EQ(faults[reply_fault::no_code], 1);
}

// A reply over max_reply_bytes is refused whole before any check reads it (issue 22).
TEST(ParseReply, AReplyOverTheSizeBoundIsRefusedAsTooLong) {
  const std::string padding(max_reply_bytes, ' ');
  const auto problem = only(reply_of(variant("a")) + padding, reply_fault::too_long);
  EXPECT_EQ(problem.where, "reply");
  EXPECT_TRUE(mentions(problem, "at most " + std::to_string(max_reply_bytes) + " bytes")) << problem.reason;
  const std::string fits = reply_of(variant("a")) + std::string(max_reply_bytes / 2, ' ');
  EXPECT_TRUE(parse(fits).has_value()) << "a long reply under the bound is read";
  EXPECT_NE(reask_text({problem}).find("too_long"), std::string::npos);
}

TEST(ParseReply, NamesAndDefinesAreCheckedWithoutRegexOnLongText) {
  const std::string long_name(100'000, 'a');
  EXPECT_TRUE(mentions(only(reply_of(variant(long_name)), reply_fault::schema), "1 to 64"));
  EXPECT_TRUE(parse(reply_of(variant(std::string(64, 'a')))).has_value());
  EXPECT_TRUE(mentions(only(reply_of(variant(std::string(65, 'a'))), reply_fault::schema), "1 to 64"));
  const auto define = [&](const std::string& name) {
    return reply_of(variant("a", R"(, "defines": {")" + name + R"(": 4})"));
  };
  EXPECT_TRUE(parse(define("TILE_2")).has_value());
  EXPECT_TRUE(parse(define(std::string(64, 'T'))).has_value());
  for (const std::string& bad : {std::string(65, 'T'), std::string{"2TILE"}, std::string{"TI-LE"}, std::string(100'000, 'T')})
    EXPECT_EQ(only(define(bad), reply_fault::bad_define).fault, reply_fault::bad_define) << bad.substr(0, 10);
}

} // namespace
} // namespace warpforge::llm
