// The report from a real run directory and SQLite database, filled the way the pipeline fills
// it: a baseline, an iteration whose champion uses two methods, and ablations of both.

#include "report/campaign_report.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::report {
namespace {

namespace fs = std::filesystem;

class Report : public ::testing::Test {
protected:
  fs::path root;
  fs::path run;

  void SetUp() override {
    root = fs::temp_directory_path() / ("wf-report-" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto dir = storage::run_directory::create(root, "nightly", std::chrono::system_clock::now());
    ASSERT_TRUE(dir);
    run = dir->path();
    auto db = storage::database::open(dir->database_path());
    ASSERT_TRUE(db);
    storage::campaign_row c;
    c.name = "nightly";
    c.spec_path = "nightly.toml";
    c.run_dir = run.string();
    const auto campaign = *db->insert_campaign(c);
    storage::job_row j;
    j.campaign_id = campaign;
    j.name = "transpose";
    j.problem_path = "examples/transpose/problem.toml";
    const auto job = *db->insert_job(j);
    j.id = job;
    j.state = vocabulary::job_state::finished;
    j.iterations_done = 1;
    j.baseline_time_s = 1.2e-3;
    j.best_time_s = 0.4e-3;
    ASSERT_TRUE(db->update_job(j));

    storage::iteration_row it;
    it.job_id = job;
    it.number = 1;
    const auto iteration = *db->insert_iteration(it);
    auto branch = [&](std::int64_t ordinal, vocabulary::branch_kind kind, std::string methods,
                      std::optional<storage::row_id> parent, std::optional<double> time,
                      vocabulary::branch_outcome outcome, std::string detail = "") {
      storage::branch_row b;
      b.iteration_id = iteration;
      b.ordinal = ordinal;
      b.kind = kind;
      b.methods_json = std::move(methods);
      b.parent_branch_id = parent;
      const auto id = *db->insert_branch(b);
      EXPECT_TRUE(db->set_branch_outcome(id, outcome, detail, 1.0));
      if (time) {
        storage::measurement_row m;
        m.branch_id = id;
        m.gpu = 0;
        m.gpu_name = "NVIDIA H100 80GB HBM3";
        m.median_s = *time;
        m.samples = 100;
        EXPECT_TRUE(db->insert_measurement(m));
        m.gpu = 1; // a slower second GPU: the report keeps the fastest
        m.median_s = *time * 1.5;
        EXPECT_TRUE(db->insert_measurement(m));
      }
      return id;
    };
    branch(0, vocabulary::branch_kind::branch, "[]", std::nullopt, 1.0e-3, vocabulary::branch_outcome::passed);
    const auto champion = branch(1, vocabulary::branch_kind::branch, R"(["smem_tiling","padding"])",
                                 std::nullopt, 0.4e-3, vocabulary::branch_outcome::passed);
    branch(2, vocabulary::branch_kind::branch, "[]", std::nullopt, std::nullopt,
           vocabulary::branch_outcome::runtime_error, "CUDA_ERROR_ILLEGAL_ADDRESS | lost");
    branch(3, vocabulary::branch_kind::ablation, R"(["smem_tiling"])", champion, 1.1e-3,
           vocabulary::branch_outcome::passed);
    branch(4, vocabulary::branch_kind::ablation, R"(["padding"])", champion, 0.401e-3,
           vocabulary::branch_outcome::passed);
    branch(5, vocabulary::branch_kind::ablation, R"(["vectorized_access"])", champion, std::nullopt,
           vocabulary::branch_outcome::not_run, "implementation_failed: no LDG.E.128 in the SASS");
    it.id = iteration;
    it.state = vocabulary::iteration_state::finished;
    it.champion_branch_id = champion;
    it.gaps_json = R"({"compute":0.9,"memory":0.2,"latency":0.5,"near_peak":false,)"
                   R"("arithmetic_intensity":0.0,"achieved_flops":0,"achieved_bandwidth":2.68e12,)"
                   R"("peak_flops":6.7e13,"peak_bandwidth":3.35e12,"binding_kind":"dram_bound",)"
                   R"x("binding_headline":"DRAM-bound: DRAM at 80.0% of its peak (L1/shared 20.0%)"})x";
    ASSERT_TRUE(db->update_iteration(it));
  }
  void TearDown() override { fs::remove_all(root); }
};

TEST_F(Report, HeadlineSpeedUpPeakFractionAndMethodVerdicts) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  ASSERT_EQ(report->jobs.size(), 1u);
  const auto& job = report->jobs[0];
  EXPECT_DOUBLE_EQ(*job.speedup, 3.0);
  EXPECT_NEAR(*job.peak_fraction, 0.8, 1e-12); // 2.68e12 / 3.35e12
  ASSERT_EQ(job.iterations.size(), 1u);
  EXPECT_DOUBLE_EQ(*job.iterations[0].champion_time_s, 0.4e-3); // the fastest GPU
  ASSERT_EQ(job.methods.size(), 3u);
  EXPECT_EQ(job.methods[0].method, "smem_tiling");
  EXPECT_EQ(job.methods[0].verdict, "effective");
  EXPECT_NEAR(*job.methods[0].attribution_s, 0.7e-3, 1e-12);
  EXPECT_EQ(job.methods[1].verdict, "ineffective"); // +1 us on 400 us: within 2% noise
  EXPECT_EQ(job.methods[2].verdict, "implementation_failed");
}

TEST_F(Report, MarkdownJsonAndCsvCarryTheSameFacts) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  const auto md = render_markdown(*report);
  EXPECT_NE(md.find("| transpose | finished | 1.20 ms | 400 us | 3.00x | 80.0% | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | smem_tiling | +700 us | effective |"), std::string::npos) << md;
  EXPECT_NE(md.find("CUDA_ERROR_ILLEGAL_ADDRESS \\| lost"), std::string::npos) << "a bare '|' would break the table";
  const auto json = render_json(*report);
  const auto at = json.find(R"("speedup":)");
  ASSERT_NE(at, std::string::npos) << json;
  EXPECT_NEAR(std::strtod(json.c_str() + at + 10, nullptr), 3.0, 1e-9);
  EXPECT_NE(json.find(R"("verdict":"implementation_failed")"), std::string::npos) << json;
  const auto csv = render_csv(*report);
  std::istringstream lines{csv};
  int count = 0;
  for (std::string line; std::getline(lines, line);)
    ++count;
  EXPECT_EQ(count, 1 + 4 * 2 + 2); // header, four measured branches on two GPUs, two unmeasured
}

TEST_F(Report, TheBottleneckIsTheBindingLevelOfTheLatestProfile) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  EXPECT_EQ(report->jobs[0].iterations[0].gaps.binding_kind, "dram_bound");
  const auto md = render_markdown(*report);
  EXPECT_NE(md.find("Bottleneck (iteration 1): DRAM-bound: DRAM at 80.0% of its peak (L1/shared 20.0%).\n"),
            std::string::npos)
      << md;
  const auto json = render_json(*report);
  EXPECT_NE(json.find(R"x("bottleneck":{"kind":"dram_bound","text":"DRAM-bound: DRAM at 80.0% of its peak)x"),
            std::string::npos)
      << json;
}

TEST_F(Report, SummaryAndChartsAreWrittenIntoTheRunDirectory) {
  auto report = load_report(run);
  ASSERT_TRUE(report) << storage::to_string(report.error());
  auto written = write_summary(*report);
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(*written, (std::vector<std::string>{"summary.md", "transpose-speedup.svg", "transpose-roofline.svg"}));
  std::ifstream svg{run / "transpose-speedup.svg"};
  std::stringstream text;
  text << svg.rdbuf();
  EXPECT_NE(text.str().find("<polyline"), std::string::npos);
  EXPECT_NE(text.str().find(">best 3.00x</text>"), std::string::npos) << "the last point names the speed-up";
}

TEST(ReportErrors, AFolderThatIsNotARunDirectoryIsNamed) {
  auto report = load_report("/nonexistent/run");
  ASSERT_FALSE(report);
  const auto text = storage::to_string(report.error());
  EXPECT_NE(text.find("/nonexistent/run"), std::string::npos) << text;
}

} // namespace
} // namespace warpforge::report
