#include "llm/prompt/judge.hpp"

#include "prompt_inputs.hpp"

#include <gtest/gtest.h>

using namespace warpforge::llm;
using warpforge::llm::testing::transpose_inputs;

namespace {

const std::vector<metric_fact>& metrics() {
  static const auto m = transpose_inputs().diagnosis->metrics; // dram_throughput 62 %, dram_bytes 2.684e8, ...
  return m;
}

std::string reply(std::string_view primary_category, std::string_view secondary_category,
                  std::string_view primary_evidence = R"([{"metric": "global_store_efficiency", "value": 12.5}])",
                  std::string_view secondary_evidence = R"([{"metric": "dram_throughput", "value": 62}])") {
  return R"({"primary": {"category": ")" + std::string{primary_category} +
         R"(", "summary": "stores stride by rows; stage a 32x33 tile", "evidence": )" + std::string{primary_evidence} +
         R"(}, "secondary": {"category": ")" + std::string{secondary_category} +
         R"(", "summary": "dram at 62%: vectorise", "evidence": )" + std::string{secondary_evidence} + "}}";
}

std::string error_of(const std::string& text) {
  auto parsed = parse_judge(text, metrics());
  EXPECT_FALSE(parsed) << text;
  return parsed ? std::string{} : parsed.error();
}

} // namespace

TEST(Judge, EveryCategoryHasAMeaning) {
  for (auto category : judge_categories)
    EXPECT_FALSE(category_meaning(category).empty()) << category;
  EXPECT_TRUE(category_meaning("memory").empty());
}

TEST(Judge, AValidReplyGivesBothBottlenecksWithTheirEvidence) {
  auto v = parse_judge(reply("uncoalesced_access", "dram_bandwidth"), metrics());
  ASSERT_TRUE(v) << v.error();
  EXPECT_EQ(v->primary.category, "uncoalesced_access");
  EXPECT_EQ(v->primary.summary, "stores stride by rows; stage a 32x33 tile");
  ASSERT_EQ(v->primary.evidence.size(), 1u);
  EXPECT_EQ(v->primary.evidence[0].name, "global_store_efficiency");
  EXPECT_DOUBLE_EQ(v->primary.evidence[0].value, 12.5);
  EXPECT_EQ(v->secondary.category, "dram_bandwidth");
}

TEST(Judge, AReplyInAJsonFenceIsAccepted) {
  EXPECT_TRUE(parse_judge("```json\n" + reply("uncoalesced_access", "dram_bandwidth") + "\n```\n", metrics()));
}

TEST(Judge, AValueWithinFivePercentOrHalfAUnitOfTheShownOneIsAccepted) {
  // dram_bytes is shown as 2.684e+08 bytes: 5% either way is accepted, 6% is not.
  EXPECT_TRUE(parse_judge(reply("uncoalesced_access", "dram_bandwidth",
                                R"([{"metric": "dram_bytes", "value": 2.56e8}])"), metrics()));
  EXPECT_FALSE(parse_judge(reply("uncoalesced_access", "dram_bandwidth",
                                 R"([{"metric": "dram_bytes", "value": 2.52e8}])"), metrics()));
  // sm_throughput is shown as 8 %: within 0.5 points passes though it is 6% off.
  EXPECT_TRUE(parse_judge(reply("uncoalesced_access", "dram_bandwidth",
                                R"([{"metric": "sm_throughput", "value": 8.45}])"), metrics()));
}

TEST(Judge, AWrongCategoryIsNamed) {
  const auto error = error_of(reply("memory", "dram_bandwidth"));
  EXPECT_NE(error.find("primary.category"), std::string::npos) << error;
  EXPECT_NE(error.find("\"memory\" is not one of the categories"), std::string::npos) << error;
}

TEST(Judge, TheSameCategoryTwiceIsRefused) {
  const auto error = error_of(reply("dram_bandwidth", "dram_bandwidth"));
  EXPECT_NE(error.find("secondary.category"), std::string::npos) << error;
  EXPECT_NE(error.find("must differ"), std::string::npos) << error;
}

TEST(Judge, ACitedMetricThatWasNotMeasuredIsRefused) {
  const auto error = error_of(reply("uncoalesced_access", "dram_bandwidth", R"([{"metric": "l2_hit_rate", "value": 40}])"));
  EXPECT_NE(error.find("primary.evidence[0]"), std::string::npos) << error;
  EXPECT_NE(error.find("\"l2_hit_rate\" is not in the profile"), std::string::npos) << error;
}

TEST(Judge, ACitedValueThatDoesNotMatchTheMeasuredOneIsRefused) {
  const auto error = error_of(reply("uncoalesced_access", "dram_bandwidth", R"([{"metric": "global_store_efficiency", "value": 12.5}])",
                                    R"([{"metric": "sm_throughput", "value": 8}, {"metric": "dram_throughput", "value": 0.62}])"));
  EXPECT_NE(error.find("secondary.evidence[1]"), std::string::npos) << error;
  EXPECT_NE(error.find("dram_throughput is cited as 0.62 but the profile shows 62 %"), std::string::npos) << error;
}

TEST(Judge, NoEvidenceIsRefused) {
  EXPECT_NE(error_of(reply("uncoalesced_access", "dram_bandwidth", "[]")).find("primary.evidence"), std::string::npos);
}

TEST(Judge, AnythingButOneObjectWithExactlyTwoBottlenecksIsRefused) {
  EXPECT_NE(error_of("The primary bottleneck is DRAM.").find("not one JSON object"), std::string::npos);
  EXPECT_NE(error_of("[" + reply("uncoalesced_access", "dram_bandwidth") + "]").find("not one JSON object"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"primary": {"category": "occupancy", "summary": "s", "evidence": [{"metric": "sm_throughput", "value": 8}]}})")
                .find("\"secondary\" is missing"),
            std::string::npos);
  auto three = reply("uncoalesced_access", "dram_bandwidth");
  three.insert(1, R"("tertiary": {}, )");
  EXPECT_NE(error_of(three).find("unexpected key \"tertiary\""), std::string::npos);
  EXPECT_NE(error_of(reply("uncoalesced_access", "dram_bandwidth", R"([{"metric": "dram_bytes", "value": "2.7e8"}])"))
                .find("not a number"),
            std::string::npos);
}

TEST(Judge, TheVerdictIsRenderedForTheNextPrompt) {
  const auto v = *parse_judge(reply("uncoalesced_access", "dram_bandwidth"), metrics());
  EXPECT_EQ(render_judge(v), "## Judge's analysis of the current best\n"
                             "Primary: uncoalesced_access: stores stride by rows; stage a 32x33 tile "
                             "(evidence: global_store_efficiency = 12.5)\n"
                             "Secondary: dram_bandwidth: dram at 62%: vectorise (evidence: dram_throughput = 62)\n");
}

TEST(JudgePrompt, StatesTheCategoriesAndSchemaOnceAndTheProfileEachTime) {
  const auto p = build_judge_prompt(transpose_inputs());
  ASSERT_EQ(p.stable.size(), 2u);
  EXPECT_NE(p.stable[0].find("EXACTLY TWO DISTINCT bottlenecks"), std::string::npos);
  for (auto category : judge_categories)
    EXPECT_NE(p.stable[0].find("- " + std::string{category} + ": "), std::string::npos) << category;
  EXPECT_NE(p.stable[0].find("\"primary\""), std::string::npos);
  EXPECT_NE(p.stable[1].find("NVIDIA H100 SXM5 80GB"), std::string::npos);
  EXPECT_NE(p.changing.find("NAIVE_BODY"), std::string::npos);
  EXPECT_NE(p.changing.find("- dram_throughput = 62 %"), std::string::npos);
  EXPECT_NE(p.changing.find("- [critical] memory_bound: Memory-bound"), std::string::npos);
  auto later = transpose_inputs();
  later.best_source = "other";
  later.diagnosis->metrics[0].value = 0.9;
  EXPECT_EQ(build_judge_prompt(later).stable, p.stable);
}
