// A campaign that measured nothing (as on a machine without a GPU: every kernel compiled and
// checked, none timed) reported through every writer: no figure is a number, each says why.

#include "report/campaign_report.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>
#include <unistd.h>

namespace warpforge::report {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view no_gpu_reason =
  "no GPU here: every job's baseline and first proposal were compiled and checked; measurements need a GPU";
constexpr std::string_view branch_detail = "compiled for sm_90 and checked; measurements need a GPU (no CUDA device)";

class NotMeasured : public ::testing::Test {
protected:
  fs::path root;
  fs::path run;

  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-report-not-measured-" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto dir = storage::run_directory::create(root, "quickstart", std::chrono::system_clock::now());
    ASSERT_TRUE(dir);
    run = dir->path();
    auto db = storage::database::open(dir->database_path());
    ASSERT_TRUE(db);
    storage::campaign_row c;
    c.name = "quickstart";
    c.spec_path = "quickstart.toml";
    c.run_dir = run.string();
    const auto campaign = *db->insert_campaign(c);
    ASSERT_TRUE(db->set_campaign_state(campaign, vocabulary::campaign_state::failed, no_gpu_reason, 1.0));
    storage::job_row j;
    j.campaign_id = campaign;
    j.name = "vector_add";
    j.problem_path = "examples/vector_add/problem.toml";
    const auto job = *db->insert_job(j);
    storage::iteration_row it;
    it.job_id = job;
    it.number = 0;
    const auto iteration = *db->insert_iteration(it);
    storage::branch_row b;
    b.iteration_id = iteration;
    b.ordinal = 0;
    b.kind = vocabulary::branch_kind::baseline;
    b.methods_json = "[]";
    const auto id = *db->insert_branch(b);
    ASSERT_TRUE(db->set_branch_outcome(id, vocabulary::branch_outcome::not_run, branch_detail, 1.0));
  }
  void TearDown() override { fs::remove_all(root); }

  campaign_report load() {
    auto report = load_report(run);
    EXPECT_TRUE(report) << storage::to_string(report.error());
    return report ? std::move(*report) : campaign_report{};
  }
};

TEST_F(NotMeasured, EveryAbsentFigureOfAJobCarriesTheReason) {
  const auto report = load();
  ASSERT_EQ(report.jobs.size(), 1u);
  const auto& job = report.jobs[0];
  EXPECT_FALSE(job.row.baseline_time_s);
  EXPECT_FALSE(job.speedup);
  EXPECT_EQ(job.not_measured.baseline_time_s, no_gpu_reason) << "the campaign's reason, the job having none";
  EXPECT_EQ(job.not_measured.best_time_s, no_gpu_reason);
  EXPECT_EQ(job.not_measured.speedup, no_gpu_reason);
  EXPECT_EQ(job.not_measured.peak_fraction, no_gpu_reason);
  ASSERT_EQ(job.iterations.size(), 1u);
  const auto& branch = job.iterations[0].branches.at(0);
  EXPECT_EQ(branch.time_not_measured, "not_run: " + std::string{branch_detail});
  EXPECT_NE(job.iterations[0].champion_not_measured.find(branch_detail), std::string::npos)
    << job.iterations[0].champion_not_measured;
  EXPECT_EQ(job.iterations[0].gaps_not_measured, "no profile recorded");
}

TEST_F(NotMeasured, TheMarkdownHeadlineSaysNotMeasuredOnceWithTheReasonAndNoNumber) {
  const auto md = render_markdown(load());
  const auto row_at = md.find("| vector_add |");
  ASSERT_NE(row_at, std::string::npos) << md;
  const auto row = md.substr(row_at, md.find('\n', row_at) - row_at);
  EXPECT_EQ(row, "| vector_add | pending | not measured (" + std::string{no_gpu_reason} +
                   ") | not measured | not measured | not measured | 0 |")
    << "iterations done (0) is a count; the four figures are not measured";
  EXPECT_NE(md.find("| 0 | 0 | baseline | not_run | - | `{}` | not measured |"), std::string::npos) << md;
}

TEST_F(NotMeasured, TheJsonHasNullsAndTheReasonBesideThem) {
  const auto json = render_json(load());
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json;
  simdjson::dom::element job = root["jobs"].at(0);
  for (const char* key : {"baseline_time_s", "best_time_s", "speedup", "peak_fraction"}) {
    EXPECT_TRUE(job[key].is_null()) << key << " in " << json;
    EXPECT_EQ(std::string_view{job["not_measured_reason"][key]}, no_gpu_reason) << key;
  }
  simdjson::dom::element iteration = job["iterations"].at(0);
  EXPECT_TRUE(iteration["champion_time_s"].is_null());
  EXPECT_FALSE(std::string_view{iteration["champion_not_measured_reason"]}.empty());
  EXPECT_TRUE(iteration["gap_compute"].is_null());
  EXPECT_EQ(std::string_view{iteration["gaps_not_measured_reason"]}, "no profile recorded");
  simdjson::dom::element branch = iteration["branches"].at(0);
  EXPECT_TRUE(branch["best_time_s"].is_null());
  EXPECT_EQ(std::string_view{branch["not_measured_reason"]}, "not_run: " + std::string{branch_detail});
}

TEST_F(NotMeasured, TheCsvRowHasEmptyFiguresAndTheReasonInTheLastColumn) {
  const auto csv = render_csv(load());
  std::istringstream in{csv};
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "not_measured_reason");
  EXPECT_EQ(row, R"("vector_add",0,0,baseline,not_run,"[]","{}",,,,,,,,,"not_run: )" + std::string{branch_detail} +
                   "\"")
    << "gpu, gpu_name, mode, median_s, cv, ci95_low_s, ci95_high_s and samples are empty, never 0";
}

} // namespace
} // namespace warpforge::report
