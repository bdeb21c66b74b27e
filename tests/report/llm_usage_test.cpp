// The report's LLM section: the sums of the store's llm_calls rows per job and for the campaign,
// from a real run directory, shown only where a job made calls.

#include "report/campaign_report.hpp"
#include "report/llm_usage.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <simdjson.h>

#include <gtest/gtest.h>

#include <unistd.h>

namespace warpforge::report {
namespace {

namespace fs = std::filesystem;

storage::llm_call_row call(std::string purpose, std::string outcome, std::int64_t input, double dollars) {
  storage::llm_call_row row;
  row.iteration = 1;
  row.purpose = std::move(purpose);
  row.model = "claude-sonnet-4-5";
  row.outcome = std::move(outcome);
  row.input_tokens = input;
  row.output_tokens = input / 10;
  row.cache_read_tokens = 2 * input;
  row.cache_write_tokens = input / 100;
  row.cost_usd = dollars;
  row.seconds = 4.0;
  row.attempts = 1;
  return row;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++count;
  return count;
}

TEST(LlmUsage, SumsTokensDollarsAndSecondsAndCountsCallsByPurposeAndOutcome) {
  auto usage = llm_usage_of({call("propose", "ok", 1000, 0.5), call("reask", "ok", 200, 0.25),
                             call("propose", "rate_limited", 0, 0.0)});
  EXPECT_EQ(usage.total.calls, 3);
  EXPECT_EQ(usage.total.failed_calls, 1);
  EXPECT_EQ(usage.total.input_tokens, 1200);
  EXPECT_EQ(usage.total.output_tokens, 120);
  EXPECT_EQ(usage.total.cache_read_tokens, 2400);
  EXPECT_EQ(usage.total.cache_write_tokens, 12);
  EXPECT_DOUBLE_EQ(usage.total.cost_usd, 0.75);
  EXPECT_DOUBLE_EQ(usage.total.seconds, 12.0);
  EXPECT_EQ(usage.calls_by_purpose, (std::map<std::string, std::int64_t>{{"propose", 2}, {"reask", 1}}));
  EXPECT_EQ(usage.calls_by_outcome, (std::map<std::string, std::int64_t>{{"ok", 2}, {"rate_limited", 1}}));

  auto campaign = usage;
  campaign.add(llm_usage_of({call("judge", "ok", 10, 0.01)}));
  EXPECT_EQ(campaign.total.calls, 4);
  EXPECT_DOUBLE_EQ(campaign.total.cost_usd, 0.76);
  EXPECT_EQ(campaign.calls_by_purpose.at("judge"), 1);
  EXPECT_EQ(campaign.calls_by_outcome.at("ok"), 3);
}

TEST(LlmUsage, NoCallsMeansNoSection) {
  const llm_usage none = llm_usage_of({});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(llm_markdown(none, "##"), "");
}

TEST(LlmUsage, TheSectionShowsTheTotalsAndTheCallsByPurposeMostFirst) {
  const auto md = llm_markdown(llm_usage_of({call("reask", "ok", 200, 0.25), call("propose", "ok", 1000, 0.5),
                                             call("propose", "overloaded", 0, 0.0)}),
                               "###");
  EXPECT_NE(md.find("### LLM\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3 | 1 | 1200 | 120 | 2400 | 12 | $0.7500 | 12.0 s |"), std::string::npos) << md;
  EXPECT_NE(md.find("Calls by purpose: propose 2, reask 1."), std::string::npos) << md;
  EXPECT_NE(md.find("Calls by outcome: ok 2, overloaded 1."), std::string::npos) << md;
}

TEST(LlmUsage, TheJsonFormCarriesEverySumAndCount) {
  const auto text = llm_json(llm_usage_of({call("propose", "ok", 1000, 0.5), call("judge", "timeout", 0, 0.0)}));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
  EXPECT_EQ(doc["calls"].get_int64().value(), 2);
  EXPECT_EQ(doc["failed_calls"].get_int64().value(), 1);
  EXPECT_EQ(doc["input_tokens"].get_int64().value(), 1000);
  EXPECT_EQ(doc["cache_read_tokens"].get_int64().value(), 2000);
  EXPECT_DOUBLE_EQ(doc["cost_usd"].get_double().value(), 0.5);
  EXPECT_DOUBLE_EQ(doc["seconds"].get_double().value(), 8.0);
  EXPECT_EQ(doc["by_purpose"]["judge"].get_int64().value(), 1);
  EXPECT_EQ(doc["by_outcome"]["timeout"].get_int64().value(), 1);
}

// Two jobs in a real run directory: gemm made three calls over two iterations, transpose none.
class LlmReport : public ::testing::Test {
protected:
  fs::path root;
  fs::path run;
  std::optional<storage::database> db;
  storage::row_id gemm = 0;

  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-llm-report-" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto dir = storage::run_directory::create(root, "nightly", std::chrono::system_clock::now());
    ASSERT_TRUE(dir);
    run = dir->path();
    auto opened = storage::database::open(dir->database_path());
    ASSERT_TRUE(opened);
    db.emplace(std::move(*opened));
    storage::campaign_row c;
    c.name = "nightly";
    c.spec_path = "nightly.toml";
    c.run_dir = run.string();
    storage::job_row j;
    j.campaign_id = *db->insert_campaign(c);
    j.name = "gemm";
    j.problem_path = "examples/sgemm/problem.toml";
    gemm = *db->insert_job(j);
    j.name = "transpose";
    ASSERT_TRUE(db->insert_job(j));
  }
  void TearDown() override { fs::remove_all(root); }

  void record(storage::llm_call_row row, std::int64_t iteration, std::int64_t seq) {
    row.job_id = gemm;
    row.iteration = iteration;
    row.seq = seq;
    ASSERT_TRUE(db->insert_llm_call(row));
  }
};

TEST_F(LlmReport, AJobWithCallsHasAnLlmSectionAndTheCampaignSumsThem) {
  record(call("judge", "ok", 300, 0.125), 1, 1);
  record(call("propose", "ok", 5000, 1.0), 1, 2);
  record(call("fix_compile", "ok", 700, 0.25), 2, 1);
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  ASSERT_EQ(report->jobs.size(), 2u);
  EXPECT_EQ(report->jobs[0].llm.total.calls, 3);
  EXPECT_DOUBLE_EQ(report->jobs[0].llm.total.cost_usd, 1.375);
  EXPECT_TRUE(report->jobs[1].llm.empty());
  EXPECT_EQ(report->llm.total.calls, 3);
  EXPECT_EQ(report->llm.total.input_tokens, 6000);

  const auto md = render_markdown(*report);
  EXPECT_EQ(occurrences(md, "\n## LLM\n"), 1u) << md;
  EXPECT_EQ(occurrences(md, "\n### LLM\n"), 1u) << "transpose made no call: " << md;
  EXPECT_LT(md.find("### LLM"), md.find("## transpose")) << "the section is gemm's";
  EXPECT_NE(md.find("| 3 | 0 | 6000 | 600 | 12000 | 60 | $1.3750 | 12.0 s |"), std::string::npos) << md;

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const auto json = render_json(*report);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(doc["llm"]["calls"].get_int64().value(), 3);
  EXPECT_EQ(doc["jobs"].at(0)["llm"]["by_purpose"]["fix_compile"].get_int64().value(), 1);
  EXPECT_EQ(doc["jobs"].at(1)["llm"].error(), simdjson::NO_SUCH_FIELD);
}

TEST_F(LlmReport, ACampaignWithoutCallsHasNoLlmSection) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  EXPECT_TRUE(report->llm.empty());
  EXPECT_EQ(render_markdown(*report).find("LLM"), std::string::npos);
  EXPECT_EQ(render_json(*report).find("\"llm\""), std::string::npos);
}

} // namespace
} // namespace warpforge::report
