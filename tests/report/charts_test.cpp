// The charts as a performance engineer puts them on a slide: round ticks, the 1.0x baseline, a
// point per measured candidate under the best-so-far line, both roofs of the roofline with every
// diagnosed champion, titled axes with units, and every text escaped. With
// WARPFORGE_CHART_EVIDENCE=<folder> the charts are also written there (scripts/chart_evidence.sh
// renders them to PNG to look at).

#include "report/campaign_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace warpforge::report {
namespace {

branch_entry candidate(std::int64_t ordinal, std::optional<double> time_s,
                       vocabulary::branch_kind kind = vocabulary::branch_kind::branch) {
  branch_entry b;
  b.row.ordinal = ordinal;
  b.row.kind = kind;
  b.row.outcome = time_s ? vocabulary::branch_outcome::passed : vocabulary::branch_outcome::compile_error;
  b.best_time_s = time_s;
  return b;
}

// A tuned job: baseline 1.2 ms; four iterations of three candidates (one fails to compile in the
// second), an ablation in the third; a diagnosis (intensity, FLOP/s) for each champion on an H100.
job_entry tuned_job(std::string name) {
  job_entry job;
  job.row.name = std::move(name);
  job.row.baseline_time_s = 1.2e-3;
  const std::vector<std::vector<std::optional<double>>> times{
    {0.9e-3, 1.5e-3, 0.7e-3}, {0.8e-3, std::nullopt, 0.6e-3}, {0.65e-3, 0.5e-3, 2.0e-3}, {0.55e-3, 0.52e-3, 0.9e-3}};
  const double intensity[] = {0.25, 0.5, 2.0, 8.0};
  double best = 1.2e-3;
  for (std::size_t i = 0; i < times.size(); ++i) {
    iteration_entry it;
    it.row.number = static_cast<std::int64_t>(i + 1);
    for (std::size_t k = 0; k < times[i].size(); ++k) {
      it.branches.push_back(candidate(static_cast<std::int64_t>(k), times[i][k]));
      if (times[i][k] && *times[i][k] < best)
        best = *times[i][k];
    }
    if (i == 2)
      it.branches.push_back(candidate(9, 0.1e-3, vocabulary::branch_kind::ablation));
    it.champion_time_s = best;
    it.gaps.arithmetic_intensity = intensity[i];
    it.gaps.achieved_flops = intensity[i] * 1.5e12;
    it.gaps.peak_flops = 6.7e13;
    it.gaps.peak_bandwidth = 3.35e12;
    it.gaps.precision = "fp32";
    job.iterations.push_back(std::move(it));
  }
  job.row.best_time_s = best;
  return job;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// The y tick labels of the speed-up chart ("0x", "0.5x", ...), in order.
std::vector<double> y_ticks(const std::string& svg) {
  std::vector<double> ticks;
  static const std::regex tick{R"(text-anchor="end">([0-9.]+)x</text>)"};
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), tick); m != std::sregex_iterator(); ++m)
    ticks.push_back(std::stod((*m)[1]));
  return ticks;
}

void keep_as_evidence(const std::string& file, const std::string& svg) {
  if (const char* folder = std::getenv("WARPFORGE_CHART_EVIDENCE")) {
    std::filesystem::create_directories(folder);
    std::ofstream{std::filesystem::path{folder} / file} << svg;
  }
}

TEST(Charts, SpeedupTicksAreRoundStepsOfOneTwoOrFiveFromZeroPastTheBest) {
  const auto svg = speedup_chart_svg(tuned_job("transpose"));
  keep_as_evidence("speedup.svg", svg);
  const auto ticks = y_ticks(svg);
  ASSERT_GE(ticks.size(), 3u) << svg;
  EXPECT_EQ(ticks.front(), 0.0);
  const double step = ticks[1] - ticks[0];
  const double mantissa = step / std::pow(10, std::floor(std::log10(step)));
  EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
      << "step " << step;
  for (std::size_t i = 1; i < ticks.size(); ++i)
    EXPECT_NEAR(ticks[i] - ticks[i - 1], step, 1e-9);
  EXPECT_GE(ticks.back(), 1.2e-3 / 0.5e-3) << "the best (2.40x) is inside the axis";
}

TEST(Charts, SpeedupHasTheBaselineLineAPointPerMeasuredCandidateAndTheBestSoFar) {
  const auto svg = speedup_chart_svg(tuned_job("transpose"));
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "the 1.0x line";
  EXPECT_NE(svg.find(">baseline 1.00x</text>"), std::string::npos);
  // 11 measured candidates (12 proposed, one failed to compile; the ablation is not one) + the legend's.
  EXPECT_EQ(count_of(svg, "<circle"), 11u + 1u) << svg;
  EXPECT_NE(svg.find("measured candidate (11)"), std::string::npos);
  EXPECT_NE(svg.find("1 not measured"), std::string::npos);
  EXPECT_NE(svg.find(">best 2.40x</text>"), std::string::npos) << "1.2 ms / 0.5 ms";
  EXPECT_NE(svg.find("speed-up over the baseline (x)"), std::string::npos) << "the y axis title has its unit";
  EXPECT_NE(svg.find("iteration (0 = baseline)"), std::string::npos);
}

TEST(Charts, IterationTicksAreWholeNumbersEvenForOneIteration) {
  auto job = tuned_job("transpose");
  job.iterations.resize(1);
  const auto svg = speedup_chart_svg(job);
  static const std::regex x_tick{R"(text-anchor="middle">([0-9.]+)</text>)"};
  std::vector<std::string> ticks;
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), x_tick); m != std::sregex_iterator(); ++m)
    ticks.push_back((*m)[1]);
  EXPECT_EQ(ticks, (std::vector<std::string>{"0", "1"})) << svg;
}

TEST(Charts, RooflineHasBothRoofsAndEveryDiagnosedChampion) {
  const auto svg = roofline_chart_svg(tuned_job("transpose"));
  keep_as_evidence("roofline.svg", svg);
  EXPECT_NE(svg.find("compute roof 67.0 TFLOP/s (fp32)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("memory roof 3.35 TB/s (DRAM)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("ridge 20 FLOP/B"), std::string::npos) << "67 T / 3.35 T";
  EXPECT_EQ(count_of(svg, "<circle"), 4u) << "one point per diagnosed iteration";
  EXPECT_NE(svg.find("iteration 4: 12.0 TFLOP/s at 8 FLOP/B"), std::string::npos) << svg;
  EXPECT_NE(svg.find("arithmetic intensity (FLOP per DRAM byte, log)"), std::string::npos);
  EXPECT_NE(svg.find("achieved FLOP/s (log)"), std::string::npos);
}

TEST(Charts, AJobNameIsEscapedInEveryChart) {
  const auto job = tuned_job("<script>alert(1)</script>&");
  for (const auto& svg : {speedup_chart_svg(job), roofline_chart_svg(job)}) {
    EXPECT_EQ(svg.find("<script>"), std::string::npos) << svg;
    EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;"), std::string::npos) << svg;
  }
}

TEST(Charts, WithoutABaselineOrADiagnosisTheChartsSaySoInsteadOfDrawing) {
  job_entry job;
  job.row.name = "fresh";
  EXPECT_NE(speedup_chart_svg(job).find("no baseline measurement yet"), std::string::npos);
  EXPECT_NE(roofline_chart_svg(job).find("no diagnosed iteration"), std::string::npos);
}

} // namespace
} // namespace warpforge::report
