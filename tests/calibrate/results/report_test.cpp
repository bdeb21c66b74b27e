#include "calibrate/results/report.hpp"

#include "sample_results.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>
#include <string>

using namespace warpforge::calibrate;
using warpforge::calibrate::testing::h100_results;
using warpforge::calibrate::testing::passing;

namespace {

catalog sample_catalog() {
  parameter a;
  a.name = "fp32_fma_latency";
  a.unit = "cycles";
  a.priority = 1;
  a.group = category::instruction_latency;
  parameter b = a;
  b.name = "l1_hit_latency";
  b.priority = 3;
  b.group = category::cache_hierarchy;
  parameter c = a;
  c.name = "l2_size";
  c.unit = "MiB";
  c.priority = 3;
  c.group = category::cache_hierarchy;
  return catalog::from({a, b, c});
}

std::vector<parameter_result> sample() {
  auto fma = passing("fp32_fma_latency", "cycles", 4.03);
  fma.known = known_value{"sm_90", 4.0, "Jia et al. | table 3.1"};
  auto l1 = passing("l1_hit_latency", "cycles", 40.1);
  l1.result = status::known_value_mismatch;
  l1.known = known_value{"sm_90", 33.0, "a microbenchmark paper"};
  l1.notes = {"the chase crosses a TLB page", "second\tline"};
  auto failed = passing("tensor_extra", "FLOP/clk/SM", 0);
  failed.result = status::compile_error;
  failed.value.reset(); // nothing was measured
  failed.stats = {};
  failed.notes = {"nvcc: error"};
  return {l1, fma, failed};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::size_t find_line(const std::vector<std::string>& all, const std::string& start) {
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].rfind(start, 0) == 0)
      return i;
  return all.size();
}

} // namespace

TEST(report, markdown_lists_results_in_catalog_order_then_the_rest) {
  const auto md = lines(render_markdown(sample(), sample_catalog()));
  const auto fma = find_line(md, "| fp32_fma_latency |");
  const auto l1 = find_line(md, "| l1_hit_latency |");
  const auto extra = find_line(md, "| tensor_extra |");
  ASSERT_LT(fma, md.size());
  EXPECT_LT(fma, l1);
  EXPECT_LT(l1, extra);
  EXPECT_LT(extra, md.size());
}

TEST(report, a_markdown_row_carries_value_status_cv_ci_known_source_and_delta) {
  const auto md = lines(render_markdown(sample(), sample_catalog()));
  const std::string row = md[find_line(md, "| fp32_fma_latency |")];
  EXPECT_EQ(row, "| fp32_fma_latency | 1 | instruction_latency | 4.03 | cycles | PASS | 1.0% | "
                 "[3.99, 4.07] | 10 | 4 (sm_90) | Jia et al. \\| table 3.1 | +0.8% | — |");
  const std::string failed = md[find_line(md, "| tensor_extra |")];
  EXPECT_EQ(failed, "| tensor_extra | — | — | not measured (nvcc: error) | FLOP/clk/SM | COMPILE_ERROR | — | — "
                    "| 0 | — | — | — | nvcc: error |");
}

TEST(report, markdown_explains_disagreements_and_lists_what_was_not_measured) {
  const std::string md = render_markdown(sample(), sample_catalog());
  EXPECT_NE(md.find("## Disagreements with published values"), std::string::npos);
  EXPECT_NE(md.find("- **l1_hit_latency**: 40.1 cycles against 33 (a microbenchmark paper), +21.5%. "
                    "the chase crosses a TLB page; second line"),
            std::string::npos) << md;
  EXPECT_NE(md.find("## Not measured\n\n- tensor_extra: COMPILE_ERROR, nvcc: error\n"
                    "- l2_size (priority 3, MiB): not in this run\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| KNOWN_VALUE_MISMATCH | 1 |"), std::string::npos);
  EXPECT_NE(md.find("GPU: NVIDIA H100 80GB HBM3 (sm_90a), 3 parameter(s): 2 measured, 1 not measured."),
            std::string::npos) << md;
}

TEST(report, a_parameter_never_measured_is_not_a_disagreement) {
  auto results = sample();
  parameter_result deferred;
  deferred.name = "dram_latency";
  deferred.unit = "cycles";
  deferred.result = status::no_data;
  deferred.known = known_value{"sm_90", 600, "a paper"};
  deferred.notes = {"deferred: dependency l2_size did not pass in this run"};
  results.push_back(deferred);
  const std::string md = render_markdown(results, sample_catalog());
  EXPECT_EQ(md.find("- **dram_latency**"), std::string::npos) << "not -100% of a value nobody measured:\n" << md;
  EXPECT_NE(md.find("- **l1_hit_latency**"), std::string::npos) << "a real disagreement stays";
}

TEST(report, json_carries_every_field) {
  const std::string text = render_json(sample());
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(text).get(root), simdjson::SUCCESS) << text;
  EXPECT_EQ(std::string_view{root["schema"]}, "warpforge.calibrate.results/1");
  simdjson::dom::array parameters = root["parameters"];
  ASSERT_EQ(parameters.size(), 3u);
  simdjson::dom::element l1 = parameters.at(0);
  EXPECT_EQ(std::string_view{l1["status"]}, "KNOWN_VALUE_MISMATCH");
  EXPECT_DOUBLE_EQ(double{l1["value"]}, 40.1);
  EXPECT_DOUBLE_EQ(double{l1["known"]["value"]}, 33.0);
  EXPECT_NEAR(double{l1["delta"]}, 7.1 / 33.0, 1e-12);
  EXPECT_EQ(std::uint64_t{l1["stats"]["n"]}, 10u);
  EXPECT_DOUBLE_EQ(double{l1["stats"]["cv"]}, 0.01);
  EXPECT_EQ(std::string_view{l1["notes"].at(1)}, "second\tline");
  EXPECT_TRUE(l1["not_measured_reason"].is_null()) << "measured: nothing to explain";
  EXPECT_TRUE(parameters.at(2)["known"].is_null());
  EXPECT_TRUE(parameters.at(2)["delta"].is_null());
}

TEST(report, json_writes_null_with_the_reason_for_every_figure_not_measured) {
  parameter_result none;
  none.name = "fp32_fma_latency";
  none.unit = "cycles";
  none.result = status::no_data;
  none.known = known_value{"sm_90", 4.0, "a paper"}; // a known value alone must not give a delta
  none.notes = {"built and SASS-checked; not run: no GPU"};
  const std::string text = render_json({none});
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(text).get(root), simdjson::SUCCESS) << text;
  simdjson::dom::element r = root["parameters"].at(0);
  EXPECT_TRUE(r["value"].is_null()) << text;
  EXPECT_TRUE(r["delta"].is_null()) << "not -100% of a value nobody measured: " << text;
  EXPECT_EQ(std::string_view{r["not_measured_reason"]}, "built and SASS-checked; not run: no GPU");
  for (const char* key : {"median", "mean", "stddev", "cv", "ci95_low", "ci95_high", "ci_level", "max_clock_mhz"})
    EXPECT_TRUE(r["stats"][key].is_null()) << key << " in " << text;
  EXPECT_EQ(std::uint64_t{r["stats"]["n"]}, 0u) << "a count that is real stays";
  EXPECT_EQ(std::string_view{r["stats"]["not_measured_reason"]}, "no trial kept");
  auto back = read_json(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, std::vector<parameter_result>{none}) << "null reads back as not measured";
}

TEST(report, one_kept_trial_has_a_value_but_no_spread) {
  auto one = passing("fp32_fma_latency", "cycles", 4.0);
  one.stats.n = 1;
  one.stats.stddev = one.stats.cv = one.stats.ci_level = 0; // as summarize leaves them
  one.stats.ci95_low = one.stats.ci95_high = 4.0;
  const std::string text = render_json({one});
  simdjson::dom::parser parser;
  simdjson::dom::element r = parser.parse(text).value()["parameters"].at(0);
  EXPECT_DOUBLE_EQ(double{r["value"]}, 4.0);
  EXPECT_TRUE(r["stats"]["cv"].is_null()) << "a CV of 0% from one trial would be invented: " << text;
  EXPECT_TRUE(r["stats"]["stddev"].is_null());
  EXPECT_EQ(std::string_view{r["stats"]["not_measured_reason"]}, "one trial kept: no spread");
  auto back = read_json(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->front(), one);
  const auto md = lines(render_markdown({one}, sample_catalog()));
  EXPECT_NE(md[find_line(md, "| fp32_fma_latency |")].find("| 4 | cycles | PASS | — | [4, 4] | 1 |"),
            std::string::npos) << md[find_line(md, "| fp32_fma_latency |")];
  const auto tsv = lines(render_tsv({one}));
  EXPECT_EQ(tsv[1].substr(0, tsv[1].find("\tPASS")), "fp32_fma_latency\t4\tcycles\t4\t4\t\t\t4\t4\t1");
  EXPECT_EQ(tsv[1].substr(tsv[1].rfind('\t') + 1), "one trial kept: no spread");
}

TEST(report, identical_trials_say_so_instead_of_a_cv_of_0_and_a_ci_of_one_point) {
  auto same = passing("fp32_fma_latency", "cycles", 4.0);
  same.stats.stddev = same.stats.cv = 0; // ten process runs that all printed 4 (summarize's result)
  same.stats.ci95_low = same.stats.ci95_high = 4.0;
  const auto md = lines(render_markdown({same}, sample_catalog()));
  const auto& row = md[find_line(md, "| fp32_fma_latency |")];
  EXPECT_NE(row.find("| 4 | cycles | PASS | none: 10 identical trials | — | 10 |"), std::string::npos) << row;
  const std::string text = render_json({same});
  simdjson::dom::parser parser;
  simdjson::dom::element r = parser.parse(text).value()["parameters"].at(0);
  EXPECT_TRUE(r["stats"]["cv"].is_null()) << text;
  EXPECT_TRUE(r["stats"]["ci95_low"].is_null()) << text;
  EXPECT_EQ(std::string_view{r["stats"]["not_measured_reason"]},
            "all 10 kept trials identical: no spread to measure");
  auto back = read_json(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->front(), same) << "the zeros and the one-point interval come back";
  const auto tsv = lines(render_tsv({same}));
  EXPECT_EQ(tsv[1].substr(0, tsv[1].find("\tPASS")), "fp32_fma_latency\t4\tcycles\t4\t4\t\t\t\t\t10");
  EXPECT_EQ(tsv[1].substr(tsv[1].rfind('\t') + 1), "all 10 kept trials identical: no spread to measure");
  const std::string header = archive_header(same);
  EXPECT_NE(header.find("CV: not measured (all 10 kept trials identical"), std::string::npos) << header;
}

TEST(report, a_results_file_that_said_0_for_nothing_measured_reads_as_not_measured) {
  // What warpforge wrote before "not measured" was representable: value 0, delta -1, n 0.
  const std::string old = R"({"schema":"warpforge.calibrate.results/1","parameters":[{"name":"a","unit":"cycles",)"
                          R"("status":"NO_DATA","value":0,"stats":{"n":0,"discarded":0,"invalid":0,"median":0,)"
                          R"("mean":0,"stddev":0,"cv":0,"ci95_low":0,"ci95_high":0,"ci_level":0,"max_clock_mhz":0},)"
                          R"("known":null,"delta":-1,"sass_verdict":"","counter_verdict":"","arch":"","gpu_name":"",)"
                          R"("notes":["not run: no GPU"],"curve":[],"benchmark_file":"","measured_at":""}]})";
  auto back = read_json(old);
  ASSERT_TRUE(back) << back.error();
  EXPECT_FALSE(back->front().value);
  EXPECT_EQ(not_measured_reason(back->front()), "not run: no GPU");
}

TEST(report, json_reads_back_to_the_same_results) {
  auto results = sample();
  results[0].curve = {{4096, 33.2}, {262144, 34.0}, {1048576, 261.5}};
  results[0].stats.discarded = 2;
  results[0].stats.invalid = 1;
  auto back = read_json(render_json(results));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, results);
  auto all = read_json(render_json(h100_results()));
  ASSERT_TRUE(all) << all.error();
  EXPECT_EQ(*all, h100_results());
}

TEST(report, reading_bad_json_names_the_field) {
  EXPECT_NE(read_json("{").error().find("not JSON"), std::string::npos);
  EXPECT_NE(read_json(R"({"schema":"other/2","parameters":[]})").error().find("/schema"),
            std::string::npos);
  std::string text = render_json({passing("a", "cycles", 1)});
  const auto status_at = text.find("\"PASS\"");
  auto bad_status = text;
  bad_status.replace(status_at, 6, "\"FINE\"");
  EXPECT_NE(read_json(bad_status).error().find("/parameters/0/status: unknown status 'FINE'"),
            std::string::npos) << read_json(bad_status).error();
  auto no_unit = text;
  no_unit.replace(no_unit.find("\"unit\""), 6, "\"uni\"");
  EXPECT_NE(read_json(no_unit).error().find("missing /parameters/0/unit"), std::string::npos)
    << read_json(no_unit).error();
}

TEST(report, tsv_has_the_seed_columns_and_one_row_per_result) {
  const auto tsv = lines(render_tsv(sample()));
  ASSERT_EQ(tsv.size(), 4u);
  EXPECT_EQ(tsv[0], "parameter\tvalue\tunit\tmean\tmedian\tstd_dev\tCV\tCI_low\tCI_high\ttrials\tstatus\t"
                    "ncu_validated\tsass_validated\tnotes\ttimestamp\tnot_measured_reason");
  EXPECT_EQ(tsv[1], "l1_hit_latency\t40.1\tcycles\t40.1\t40.1\t0.401\t0.01\t39.699\t40.501\t10\t"
                    "KNOWN_VALUE_MISMATCH\tTrue\tTrue\tthe chase crosses a TLB page; second line\t"
                    "2026-11-25T21:04:05Z\t");
  for (const auto& line : tsv) // a tab inside a note would add a column
    EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 15) << line;
}

TEST(report, a_tsv_row_not_measured_has_empty_figures_and_the_reason) {
  const auto tsv = lines(render_tsv(sample()));
  EXPECT_EQ(tsv[3], "tensor_extra\t\tFLOP/clk/SM\t\t\t\t\t\t\t0\tCOMPILE_ERROR\tTrue\tTrue\tnvcc: error\t"
                    "2026-11-25T21:04:05Z\tnvcc: error");
}

TEST(report, a_verdict_text_is_validated_when_it_says_pass_or_ok) {
  EXPECT_TRUE(verdict_passed("PASS"));
  EXPECT_TRUE(verdict_passed("ok: FFMA found"));
  EXPECT_TRUE(verdict_passed("Passed"));
  EXPECT_FALSE(verdict_passed(""));
  EXPECT_FALSE(verdict_passed("missing FFMA"));
  EXPECT_FALSE(verdict_passed("o"));
  auto r = passing("x", "cycles", 1);
  r.counter_verdict = "";
  r.sass_verdict = "missing HMMA";
  const auto tsv = lines(render_tsv({r}));
  EXPECT_NE(tsv[1].find("\tPASS\tFalse\tFalse\t"), std::string::npos) << tsv[1];
}
