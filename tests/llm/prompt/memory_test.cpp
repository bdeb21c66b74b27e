#include "llm/prompt/memory.hpp"

#include <gtest/gtest.h>

using namespace warpforge::llm;

namespace {

attempt_fact attempt(std::int64_t iteration, std::string variant, std::vector<std::string> methods,
                     attempt_verdict verdict, std::string why, std::optional<double> speedup = std::nullopt,
                     std::string attribution = "") {
  return {iteration, std::move(variant), std::move(methods), verdict, std::move(why), speedup, std::move(attribution)};
}

} // namespace

TEST(Memory, AnAttemptLineCarriesItsMethodsVerdictSpeedupWhyAndAttribution) {
  const auto line = render_attempt(attempt(2, "b3", {"memory.tiling_smem", "memory.bank_conflict"},
                                           attempt_verdict::accepted, "0.812 ms, 18.8% faster than the best 1.000 ms",
                                           3.1, "memory.bank_conflict 12% of the gain"));
  EXPECT_EQ(line, "iter 2 b3 [memory.tiling_smem + memory.bank_conflict]: ACCEPTED, 3.10x the baseline. "
                  "0.812 ms, 18.8% faster than the best 1.000 ms\n"
                  "  attribution: memory.bank_conflict 12% of the gain\n");
}

TEST(Memory, AFailedAttemptFromAnEarlierRunSaysSoWithoutASpeedup) {
  const auto line = render_attempt(attempt(0, "b1", {}, attempt_verdict::failed, "compile_error: TILEX undefined"));
  EXPECT_EQ(line, "earlier run b1 [no method claimed]: FAILED. compile_error: TILEX undefined\n");
}

TEST(Memory, AttemptsEndWithATallyPerMethodSetWhateverTheClaimOrder) {
  const std::vector<attempt_fact> attempts{
    attempt(1, "b1", {"memory.tiling_smem", "memory.bank_conflict"}, attempt_verdict::accepted, "", 2.0),
    attempt(1, "b2", {"memory.bank_conflict", "memory.tiling_smem"}, attempt_verdict::accepted, "", 3.5),
    attempt(1, "b3", {"memory.vectorized_access"}, attempt_verdict::failed, "compile_error"),
    attempt(2, "b1", {"memory.tiling_smem", "memory.bank_conflict"}, attempt_verdict::rejected, "", 3.4),
  };
  const auto text = render_attempts(attempts);
  EXPECT_NE(text.find("By method set:\n"
                      "- memory.bank_conflict + memory.tiling_smem: 2 accepted (best 3.50x), 1 rejected\n"
                      "- memory.vectorized_access: 1 failed\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("iter 1 b1"), 0u);
  EXPECT_LT(text.find("iter 1 b3"), text.find("iter 2 b1"));
}

TEST(Memory, NoAttemptsSayNoneYet) {
  EXPECT_EQ(render_attempts({}), "none yet\n");
  EXPECT_EQ(render_recent_attempts({}, 100), "none yet\n");
}

TEST(Memory, RecentAttemptsKeepTheNewestThatFitAndCountTheOthers) {
  std::vector<attempt_fact> attempts;
  for (int i = 1; i <= 10; ++i)
    attempts.push_back(attempt(i, "b1", {"compute.loop_unroll"}, attempt_verdict::rejected, "slower"));
  const auto one_line = render_attempt(attempts.back()).size();
  const auto text = render_recent_attempts(attempts, 3 * one_line + 1);
  EXPECT_EQ(text.find("(7 older attempts left out)\n"), 0u) << text;
  EXPECT_EQ(text.find("iter 7 "), std::string::npos);
  EXPECT_LT(text.find("iter 8 "), text.find("iter 10 "));
  EXPECT_NE(text.find("- compute.loop_unroll: 10 rejected\n"), std::string::npos) << "the tally counts all";
  // Even a budget smaller than one line keeps the newest attempt.
  EXPECT_NE(render_recent_attempts(attempts, 1).find("iter 10 "), std::string::npos);
  EXPECT_EQ(render_recent_attempts(attempts, 1'000'000).find("left out"), std::string::npos);
}
