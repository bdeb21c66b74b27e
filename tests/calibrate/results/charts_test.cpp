#include "calibrate/results/charts.hpp"

#include "sample_results.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

using namespace warpforge::calibrate;
using warpforge::calibrate::testing::h100_results;
using warpforge::calibrate::testing::passing;

namespace {

// Whether every element of `svg` is closed in order (a small XML check: tags, not attributes).
::testing::AssertionResult well_formed(const std::string& svg) {
  std::vector<std::string> open;
  const std::regex tag{R"(<(/?)([A-Za-z][A-Za-z0-9]*)[^<>]*?(/?)>)"};
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m[3].length() > 0)
      continue; // self-closing
    if (m[1].length() == 0) {
      open.push_back(m[2]);
    } else {
      if (open.empty() || open.back() != m[2])
        return ::testing::AssertionFailure() << "</" << m[2] << "> closes "
                                             << (open.empty() ? "nothing" : open.back());
      open.pop_back();
    }
  }
  if (!open.empty())
    return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  if (svg.find('&') != std::string::npos && std::regex_search(svg, std::regex{"&(?!(amp|lt|gt|quot|apos);)"}))
    return ::testing::AssertionFailure() << "an unescaped &";
  return ::testing::AssertionSuccess();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

parameter_result swept() {
  auto r = passing("l1_size", "KiB", 256);
  for (double x = 4096; x <= 512.0 * 1024 * 1024; x *= 2)
    r.curve.push_back({x, x <= 256 * 1024 ? 33.0 : x <= 32.0 * 1024 * 1024 ? 262.0 : 610.0});
  return r;
}

} // namespace

TEST(charts, the_latency_curve_is_well_formed_svg_with_every_point) {
  const auto r = swept();
  const std::string svg = latency_curve_svg(r);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "class=\"point\""), r.curve.size());
  EXPECT_NE(svg.find("<title>256 KiB: 33 cycles</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>512 MiB: 610 cycles</title>"), std::string::npos);
}

TEST(charts, the_latency_curve_marks_each_knee) {
  const std::string svg = latency_curve_svg(swept());
  EXPECT_EQ(count(svg, "class=\"knee\""), 2u);
  EXPECT_NE(svg.find("256 KiB: 33 -&gt; 262 cycles"), std::string::npos);
  EXPECT_NE(svg.find("32 MiB: 262 -&gt; 610 cycles"), std::string::npos);
}

TEST(charts, the_latency_curve_marks_the_size_the_value_came_from) {
  const std::string svg = latency_curve_svg(swept());
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "class=\"onset\""), 1u);
  EXPECT_NE(svg.find("size 256 KiB (last within 5% of 33 cycles)"), std::string::npos) << svg;
}

TEST(charts, a_size_read_past_the_knee_gets_its_own_line_beside_the_onset) {
  auto r = swept();
  r.value = 384; // KiB: as a capacity fit past the knee gives, not the 256 KiB onset
  const std::string svg = latency_curve_svg(r);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "class=\"value\""), 1u);
  EXPECT_NE(svg.find("size 384 KiB (the value)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("knee onset 256 KiB (last within 5% of 33 cycles)"), std::string::npos) << svg;
  EXPECT_EQ(count(latency_curve_svg(swept()), "class=\"value\""), 0u) << "the onset is the value";
}

TEST(charts, a_curve_that_gave_no_value_marks_its_onset_as_a_knee_not_a_size) {
  auto r = swept();
  r.value.reset(); // the fit refused every trial: the curve is kept to show why
  const std::string svg = latency_curve_svg(r);
  EXPECT_NE(svg.find("knee onset 256 KiB"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("size 256 KiB"), std::string::npos) << svg;
  EXPECT_EQ(count(svg, "class=\"value\""), 0u);
}

TEST(charts, a_result_without_a_curve_says_so) {
  const std::string svg = latency_curve_svg(passing("l1_hit_latency", "cycles", 33));
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("no curve recorded"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"point\""), 0u);
}

TEST(charts, the_cv_chart_has_a_bar_per_timed_parameter_coloured_by_status) {
  auto results = h100_results();
  results[0].result = status::high_variance;
  results[0].stats.cv = 0.31;
  auto untimed = passing("smem_bandwidth", "bytes/clk/SM", 0);
  untimed.result = status::sass_mismatch;
  untimed.value.reset();
  untimed.stats = {};
  results.push_back(untimed);
  const std::string svg = cv_chart_svg(results);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "class=\"bar\""), results.size() - 1);
  EXPECT_EQ(count(svg, "fill=\"#d62728\"><title>"), 1u);
  EXPECT_NE(svg.find("<title>sm_count: CV 31.0%, HIGH_VARIANCE, 10 trials</title>"), std::string::npos);
  EXPECT_EQ(svg.find("smem_bandwidth"), std::string::npos);
  EXPECT_NE(svg.find("PASS limit 5.0%"), std::string::npos);
  EXPECT_NE(svg.find("target 2.0%"), std::string::npos);
}

TEST(charts, a_parameter_with_one_kept_trial_has_no_cv_bar) {
  auto one = passing("one_trial", "cycles", 4);
  one.stats.n = 1;
  one.stats.cv = 0; // what summarize leaves: not a measured CV of 0%
  const std::string svg = cv_chart_svg({passing("many_trials", "cycles", 4), one});
  EXPECT_EQ(count(svg, "class=\"bar\""), 1u);
  EXPECT_EQ(svg.find("one_trial"), std::string::npos) << svg;
}

TEST(charts, names_are_escaped) {
  auto r = passing("a<b>&\"c\"", "cycles", 1);
  const std::string svg = cv_chart_svg({r});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("a&lt;b&gt;&amp;&quot;c&quot;"), std::string::npos);
}

TEST(charts, no_timed_parameter_gives_an_empty_chart_that_says_so) {
  const std::string svg = cv_chart_svg({});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("no CV measured"), std::string::npos);
}

TEST(charts, sizes_are_named_in_binary_units) {
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(262144), "256 KiB");
  EXPECT_EQ(format_bytes(50.0 * 1024 * 1024), "50 MiB");
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
}
