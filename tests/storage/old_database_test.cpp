// A run database written before storage/ was described by table (fixtures/written_by_ea67c52.sql,
// made by that commit's database class) opens with today's code, which reads back every column
// of every table as the old code wrote it, and goes on writing to it.

#include "storage/database.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace warpforge::storage {
namespace {

using namespace warpforge::vocabulary;

template <class T>
T must(expected<T, store_error> result) {
  if (!result)
    throw std::runtime_error(to_string(result.error()));
  return std::move(*result);
}

/// The fixture's database, restored into `path` by running its dump.
void restore_old_database(const std::filesystem::path& path) {
  std::ifstream in{WARPFORGE_SOURCE_DIR "/tests/storage/fixtures/written_by_ea67c52.sql"};
  ASSERT_TRUE(in) << "the fixture is missing";
  const std::string dump{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  auto conn = must(connection::open(path, open_mode::read_write_create));
  auto restored = conn.exec(dump);
  ASSERT_TRUE(restored) << to_string(restored.error());
}

class OldDatabase : public ::testing::Test {
protected:
  void SetUp() override {
    restore_old_database(dir_ / "warpforge.db");
    db_.emplace(must(database::open(dir_ / "warpforge.db")));
  }
  testing::scratch_directory dir_;
  std::optional<database> db_;
};

TEST_F(OldDatabase, OpensAtTheLatestSchemaAndIsIntact) {
  EXPECT_EQ(must(db_->integrity_check()), "ok");
  auto reader = database::open_read_only(dir_ / "warpforge.db");
  ASSERT_TRUE(reader) << to_string(reader.error());
}

TEST_F(OldDatabase, ItsCampaignAndJobsReadBackAsWritten) {
  const auto c = must(db_->load_campaign(1));
  EXPECT_EQ(c.name, "nightly");
  EXPECT_EQ(c.spec_path, "campaign.toml");
  EXPECT_EQ(c.spec_toml, "name = \"nightly\"\n");
  EXPECT_EQ(c.run_dir, "/runs/nightly-20261127-100000");
  EXPECT_EQ(c.state, campaign_state::failed);
  EXPECT_DOUBLE_EQ(c.created_at, 1764237600.25);
  EXPECT_DOUBLE_EQ(c.updated_at, 1764237800.75);
  EXPECT_EQ(c.finished_at, std::optional<double>{1764237800.75});
  EXPECT_EQ(c.reason, "the supervisor gave up");

  const auto jobs = must(db_->load_jobs(1));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "transpose");
  EXPECT_EQ(jobs[0].problem_path, "examples/transpose/problem.toml");
  EXPECT_EQ(jobs[0].state, job_state::running);
  EXPECT_EQ(jobs[0].iterations_done, 2);
  EXPECT_DOUBLE_EQ(*jobs[0].best_time_s, 1.5e-4);
  EXPECT_DOUBLE_EQ(*jobs[0].baseline_time_s, 3.0e-4);
  EXPECT_EQ(jobs[1].name, "softmax");
  EXPECT_EQ(jobs[1].state, job_state::pending);
  EXPECT_FALSE(jobs[1].best_time_s);
  EXPECT_FALSE(jobs[1].baseline_time_s);
}

TEST_F(OldDatabase, ItsIterationsBranchesAndMeasurementsReadBackAsWritten) {
  const auto iterations = must(db_->load_iterations(1));
  ASSERT_EQ(iterations.size(), 1u);
  EXPECT_EQ(iterations[0].state, iteration_state::finished);
  EXPECT_EQ(iterations[0].champion_branch_id, std::optional<row_id>{1});
  EXPECT_EQ(iterations[0].finished_at, std::optional<double>{1764237730.0});
  EXPECT_EQ(iterations[0].gaps_json, std::optional<std::string>{"{\"dram\":0.25}"});

  const auto branches = must(db_->load_branches(iterations[0].id));
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_EQ(branches[0].kind, branch_kind::baseline);
  EXPECT_EQ(branches[0].outcome, std::optional{branch_outcome::passed});
  EXPECT_FALSE(branches[0].parent_branch_id);
  EXPECT_FALSE(branches[0].duplicate_of_iteration);
  EXPECT_EQ(branches[1].kind, branch_kind::ablation);
  EXPECT_EQ(branches[1].parent_branch_id, std::optional<row_id>{branches[0].id});
  EXPECT_EQ(branches[1].outcome, std::optional{branch_outcome::incorrect});
  EXPECT_EQ(branches[1].methods_json, "[\"tiling\"]");
  EXPECT_EQ(branches[1].defines_json, "{\"TILE\":32}");
  EXPECT_EQ(branches[1].source_path, "jobs/transpose/iter-1/branch-2/kernel.cu");
  EXPECT_EQ(branches[1].detail, "max abs error 0.5 at [3]");
  EXPECT_EQ(branches[1].duplicate_of_iteration, std::optional<std::int64_t>{1});
  EXPECT_EQ(branches[1].duplicate_of_ordinal, std::optional<std::int64_t>{1});
  EXPECT_EQ(must(db_->find_branch(iterations[0].id, 2)), std::optional<row_id>{branches[1].id});

  const auto measurements = must(db_->load_measurements(branches[0].id));
  ASSERT_EQ(measurements.size(), 2u);
  EXPECT_EQ(measurements[0].gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(measurements[0].mode, timing_mode::warm);
  EXPECT_DOUBLE_EQ(measurements[0].median_s, 1.5e-4);
  EXPECT_DOUBLE_EQ(measurements[0].cv, 0.0625);
  EXPECT_EQ(measurements[0].samples, 50);
  EXPECT_EQ(measurements[0].sm_clock_mhz, std::optional<double>{1980.0});
  EXPECT_EQ(measurements[1].gpu, 1);
  EXPECT_EQ(measurements[1].mode, timing_mode::cold);
  EXPECT_FALSE(measurements[1].sm_clock_mhz);
  EXPECT_EQ(must(db_->find_measurement(branches[0].id, 1, timing_mode::cold)),
            std::optional<row_id>{measurements[1].id});
}

TEST_F(OldDatabase, ItsEventsArtifactsAndModelCallsReadBackAsWritten) {
  const auto events = must(db_->events_since(0, 10));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "campaign_started");
  EXPECT_FALSE(events[0].job);
  EXPECT_EQ(events[1].job, std::optional<std::string>{"transpose"});
  EXPECT_EQ(events[1].iter, std::optional<std::int64_t>{1});
  EXPECT_EQ(events[1].gpu, std::optional<std::int64_t>{0});
  EXPECT_EQ(must(db_->next_event_seq()), 3);

  const auto artifacts = must(db_->load_artifacts());
  ASSERT_EQ(artifacts.size(), 2u);
  EXPECT_EQ(artifacts[0].kind, artifact_kind::source);
  EXPECT_EQ(artifacts[0].bytes, 1234);
  EXPECT_EQ(artifacts[0].sha256, std::optional<std::string>{"ab12"});
  EXPECT_FALSE(artifacts[1].sha256);
  EXPECT_FALSE(artifacts[1].branch_id);

  const auto calls = must(db_->load_llm_calls(1));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].purpose, "propose");
  EXPECT_EQ(calls[0].cache_write_tokens, 400);
  EXPECT_DOUBLE_EQ(calls[0].cost_usd, 0.125);
  EXPECT_EQ(calls[1].outcome, "rate_limited");
  EXPECT_EQ(calls[1].attempts, 6);

  const auto summary = must(db_->load_campaign_summary());
  EXPECT_EQ(summary.branch_outcomes.at(branch_outcome::passed), 1);
  EXPECT_EQ(summary.branch_outcomes.at(branch_outcome::incorrect), 1);
  EXPECT_EQ(summary.last_event_seq, std::optional<std::int64_t>{2});
  EXPECT_EQ(summary.llm_by_job.at(1).calls, 2);
  EXPECT_EQ(summary.llm_by_job.at(1).failed_calls, 1);
  EXPECT_EQ(summary.llm_by_job.at(1).input_tokens, 1010);
}

TEST_F(OldDatabase, ItsDeploymentsReadBackAsWritten) {
  const auto deployments = must(db_->load_deployments());
  ASSERT_EQ(deployments.size(), 2u);
  const auto& d = deployments[0];
  EXPECT_EQ(d.work_dir, "deploy/transpose-1");
  EXPECT_FALSE(d.given);
  EXPECT_EQ(d.outcome, "build_failed");
  EXPECT_EQ(d.reason, "the build failed twice");
  EXPECT_DOUBLE_EQ(*d.before_median, 3.0e-4);
  EXPECT_FALSE(d.after_median);
  EXPECT_EQ(d.unit, "s");
  EXPECT_EQ(d.finished_at, std::optional<double>{1764237920.0});
  EXPECT_TRUE(deployments[1].given);
  EXPECT_EQ(deployments[1].outcome, "");
  EXPECT_FALSE(deployments[1].finished_at);

  const auto steps = must(db_->load_deploy_steps(d.id));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].step, "gate");
  EXPECT_EQ(steps[1].status, "failed");
  EXPECT_DOUBLE_EQ(steps[1].seconds, 12.25);
  EXPECT_EQ(steps[1].attempt, 2);
  EXPECT_EQ(steps[1].log, "deploy/transpose-1/build-2.log");
}

TEST_F(OldDatabase, TodaysCodeGoesOnWritingWhereTheOldCodeStopped) {
  // The next event after the old ones, a repeated deployment keeping its row, a new branch.
  EXPECT_EQ(must(db_->append_event(event_row{3, 1764238100.0, "campaign_resumed", "nightly", std::nullopt,
                                             std::nullopt, std::nullopt, std::nullopt, "{}"})),
            3);
  EXPECT_FALSE(db_->append_event(event_row{2, 1764238101.0, "x", std::nullopt, std::nullopt, std::nullopt,
                                           std::nullopt, std::nullopt, "{}"}))
      << "a seq at or below an old one";
  const auto again = must(db_->record_deployment(
      deployment_record{"deploy/transpose-1", "transpose", "iter-1/branch-1", false, "/p", "f.cu"}, 1.0));
  EXPECT_EQ(again, 1) << "the same work_dir keeps its row";
  EXPECT_DOUBLE_EQ(must(db_->load_deployments())[0].started_at, 1764237900.0) << "and its started_at";
  branch_row b;
  b.iteration_id = 1;
  b.ordinal = 3;
  b.created_at = b.updated_at = 1764238102.0;
  const auto id = must(db_->insert_branch(b));
  EXPECT_EQ(must(db_->find_branch(1, 3)), std::optional<row_id>{id});
}

} // namespace
} // namespace warpforge::storage
