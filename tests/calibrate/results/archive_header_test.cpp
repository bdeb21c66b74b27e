#include "calibrate/results/report.hpp"

#include "sample_results.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace warpforge::calibrate;
using warpforge::calibrate::testing::passing;

TEST(archive_header, every_line_is_a_comment_and_it_ends_with_a_blank_line) {
  auto r = passing("fp32_fma_latency", "cycles", 4.03);
  r.notes = {"first note", "a note\nover two lines"};
  const std::string header = archive_header(r);
  ASSERT_GE(header.size(), 2u);
  EXPECT_EQ(header.substr(header.size() - 2), "\n\n");
  std::istringstream in{header.substr(0, header.size() - 1)};
  for (std::string line; std::getline(in, line);)
    EXPECT_EQ(line.rfind("// ", 0), 0u) << line;
}

TEST(archive_header, it_carries_value_cv_ci_verdicts_arch_known_value_and_notes) {
  auto r = passing("fp32_fma_latency", "cycles", 4.03);
  r.result = status::pass_with_note;
  r.known = known_value{"sm_90", 4.0, "a paper"};
  r.notes = {"CV 3.0% is above the 2.0% target"};
  r.stats.discarded = 1;
  const std::string header = archive_header(r);
  for (const char* expected :
       {"// parameter: fp32_fma_latency\n", "// status: PASS_WITH_NOTE\n", "// value: 4.03 cycles\n",
        "// trials: 10 kept, 1 throttled discarded\n", "// CV: 1.0%\n",
        "// 95% CI of the median: [3.99, 4.07] cycles\n",
        "// known value: 4 cycles (sm_90, a paper), delta +0.8%\n", "// SASS: PASS\n",
        "// counters: ok: smsp__inst_executed_pipe_fma\n", "// arch: sm_90a\n",
        "// GPU: NVIDIA H100 80GB HBM3\n", "// note: CV 3.0% is above the 2.0% target\n"})
    EXPECT_NE(header.find(expected), std::string::npos) << expected << "\nin\n" << header;
}

TEST(archive_header, an_unchecked_verdict_says_so) {
  auto r = passing("smem_banks", "banks", 32);
  r.counter_verdict.clear();
  EXPECT_NE(archive_header(r).find("// counters: not checked\n"), std::string::npos);
}
