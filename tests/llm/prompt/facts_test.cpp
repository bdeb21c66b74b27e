#include "llm/prompt/facts.hpp"

#include <gtest/gtest.h>

using namespace warpforge::llm;

TEST(AttemptVerdict, EveryVerdictIsSpelledInCapitalsAndReadBack) {
  EXPECT_EQ(to_string(attempt_verdict::accepted), "ACCEPTED");
  EXPECT_EQ(to_string(attempt_verdict::rejected), "REJECTED");
  EXPECT_EQ(to_string(attempt_verdict::failed), "FAILED");
  for (auto verdict : all_attempt_verdicts)
    EXPECT_EQ(attempt_verdict_from_string(to_string(verdict)), verdict);
  EXPECT_FALSE(attempt_verdict_from_string("accepted"));
}

TEST(FixKind, EveryKindIsSpelledAndReadBack) {
  EXPECT_EQ(to_string(fix_request::kind::compile), "compile");
  EXPECT_EQ(to_string(fix_request::kind::correctness), "correctness");
  for (auto what : all_fix_kinds)
    EXPECT_EQ(fix_kind_from_string(to_string(what)), what);
  EXPECT_FALSE(fix_kind_from_string("runtime"));
}
