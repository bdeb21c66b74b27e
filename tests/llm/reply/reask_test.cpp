#include "llm/reply/parse.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace warpforge::llm {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ReaskText, NamesEveryProblemWithItsPlaceReasonAndAdvice) {
  const std::vector<reply_problem> problems{
    {reply_fault::elided_code, "variants[1].code line 12 column 5", "the comment '... rest unchanged' marks code left out"},
    {reply_fault::changed_signature, "variants[2].code line 3 column 1", "4 parameters, the problem passes 3"}};
  const std::string text = reask_text(problems);
  EXPECT_TRUE(contains(text, "2 problems")) << text;
  EXPECT_TRUE(contains(text, "1. variants[1].code line 12 column 5 (elided_code): the comment")) << text;
  EXPECT_TRUE(contains(text, "2. variants[2].code line 3 column 1 (changed_signature): 4 parameters")) << text;
  EXPECT_TRUE(contains(text, "- elided_code: Write every kernel in full")) << text;
  EXPECT_TRUE(contains(text, "- changed_signature: Keep the entry's parameter list")) << text;
  EXPECT_FALSE(contains(text, "- host_code:")) << "advice only for faults that occurred";
}

TEST(ReaskText, EveryFaultHasAdvice) {
  for (const auto fault : all_reply_faults) {
    const std::string text = reask_text({{fault, "reply", "why"}});
    EXPECT_TRUE(contains(text, "- " + std::string{to_string(fault)} + ": ")) << text;
  }
}

TEST(ReaskText, ManyProblemsAreBoundedAndCounted) {
  std::vector<reply_problem> problems;
  for (int i = 0; i < 50; ++i)
    problems.push_back({reply_fault::non_ascii, "variants[0].code line " + std::to_string(i + 1),
                        std::string(300, 'x')});
  const std::string text = reask_text(problems);
  EXPECT_LE(text.size(), max_reask_bytes);
  EXPECT_TRUE(contains(text, "50 problems")) << text;
  EXPECT_TRUE(contains(text, "more problems not listed")) << text;
  EXPECT_TRUE(contains(text, "- non_ascii:")) << "the advice survives the bound";
}

TEST(ReaskText, AVeryLongReasonIsShortened) {
  const std::string text = reask_text({{reply_fault::bad_json, "reply", std::string(5000, 'y')}});
  EXPECT_LE(text.size(), 1500u);
  EXPECT_TRUE(contains(text, "yyy...")) << text;
}

TEST(EnvelopeInstructions, AreTheCompiledInTextDescribingEveryKey) {
  const std::string text{envelope_instructions()};
  for (const std::string key : {"\"analysis\"", "\"variants\"", "\"name\"", "\"memo\"", "\"methods\"",
                                "\"defines\"", "\"launch\"", "\"code\"", "\"ablations\"", "\"without\"",
                                "\"shared_bytes\""})
    EXPECT_TRUE(contains(text, key)) << key;
  for (const auto c : text)
    EXPECT_LT(static_cast<unsigned char>(c), 0x80) << "the instructions themselves are ASCII";
}

} // namespace
} // namespace warpforge::llm
