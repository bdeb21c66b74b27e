// Names from the store reach the report's SVG and Markdown as text, never as markup
// (report/markup_text.hpp): a job named `</text><script>alert(1)</script>` included.

#include "report/campaign_report.hpp"
#include "report/markup_text.hpp"

#include <gtest/gtest.h>

namespace warpforge::report {
namespace {

constexpr std::string_view hostile = "</text><script>alert(1)</script>";

TEST(MarkupText, XmlTextEscapesMarkupAndDropsWhatXmlCannotHold) {
  EXPECT_EQ(xml_text(hostile), "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(xml_text("a & \"b\" 'c'"), "a &amp; &quot;b&quot; &apos;c&apos;");
  EXPECT_EQ(xml_text(std::string{"bell\x07 nul"} + '\0' + "\tend\n"), "bell nul\tend\n");
  EXPECT_EQ(xml_text("transpose_64x64 ≤ 2 µs"), "transpose_64x64 ≤ 2 µs") << "UTF-8 is kept";
}

TEST(MarkupText, MarkdownTextShowsTagsAsTextOnOneTableCell) {
  EXPECT_EQ(markdown_text(hostile), "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(markdown_text("a | b\nc & d"), "a \\| b c &amp; d");
  EXPECT_EQ(markdown_code("{\"A\":\"`x`|<y>\"}"), "{\"A\":\"'x'\\|<y>\"}") << "a code span shows < > as written";
}

TEST(MarkupText, ChartsAndSummaryCarryAHostileJobNameAsText) {
  campaign_report report;
  report.campaign.name = std::string{hostile};
  job_entry job;
  job.row.name = std::string{hostile};
  job.row.reason = std::string{hostile};
  job.row.baseline_time_s = 2e-3;
  report.jobs.push_back(job);
  for (const auto& svg : {speedup_chart_svg(job), roofline_chart_svg(job)}) {
    EXPECT_EQ(svg.find("<script"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("</text><"), std::string::npos) << svg;
    EXPECT_NE(svg.find("&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << svg;
  }
  const auto md = render_markdown(report);
  EXPECT_EQ(md.find("<script"), std::string::npos) << md;
  EXPECT_EQ(md.find("</text>"), std::string::npos) << md;
  EXPECT_NE(md.find("# &lt;/text&gt;&lt;script&gt;"), std::string::npos) << md;
  EXPECT_NE(md.find("## &lt;/text&gt;&lt;script&gt;"), std::string::npos) << md;
}

} // namespace
} // namespace warpforge::report
