#include "storage/database.hpp"

#include "storage/migrations.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace warpforge::storage {
namespace {

using namespace warpforge::vocabulary; // the column enums


template <class T>
T must(expected<T, store_error> result) {
  if (!result)
    throw std::runtime_error(to_string(result.error()));
  return std::move(*result);
}

void must(expected<void, store_error> result) {
  if (!result)
    throw std::runtime_error(to_string(result.error()));
}

campaign_row sample_campaign() {
  return campaign_row{0,           "nightly",       "campaigns/nightly.toml",
                      "[campaign]\nname = \"nightly\"\n",
                      "/runs/nightly-20250101-000000", campaign_state::running,
                      1700000000.25, 1700000001.5,  std::nullopt,
                      ""};
}

job_row sample_job(row_id campaign_id, std::string name) {
  return job_row{0,  campaign_id,  std::move(name), "problems/gemm.toml", job_state::running, 0,
                 std::nullopt, 1.25e-3, 1700000002.0, ""};
}

event_row sample_event(std::int64_t seq) {
  return event_row{seq,
                   1700000000.0 + static_cast<double>(seq),
                   "branch.measured",
                   "nightly",
                   "gemm",
                   2,
                   std::int64_t{3},
                   std::int64_t{1},
                   "{\"seq\":" + std::to_string(seq) + "}"};
}

class Database : public ::testing::Test {
protected:
  void SetUp() override { db_.emplace(must(database::open(path()))); }
  std::filesystem::path path() const { return dir_ / "warpforge.db"; }

  /// campaign → job → iteration, returning the iteration's id.
  row_id make_iteration() {
    campaign_id_ = must(db_->insert_campaign(sample_campaign()));
    job_id_ = must(db_->insert_job(sample_job(campaign_id_, "gemm")));
    return must(db_->insert_iteration(
        iteration_row{0, job_id_, 1, iteration_state::running, std::nullopt, 1700000003.0,
                      std::nullopt, std::nullopt}));
  }

  row_id make_branch(row_id iteration_id, std::int64_t ordinal,
                     std::optional<branch_outcome> outcome = std::nullopt) {
    branch_row row;
    row.iteration_id = iteration_id;
    row.ordinal = ordinal;
    row.outcome = outcome;
    row.source_path = "jobs/gemm/iter-1/branch-" + std::to_string(ordinal) + "/kernel.cu";
    row.created_at = row.updated_at = 1700000004.0;
    return must(db_->insert_branch(row));
  }

  testing::scratch_directory dir_;
  std::optional<database> db_;
  row_id campaign_id_ = 0;
  row_id job_id_ = 0;
};

TEST_F(Database, OpensInWalModeWithForeignKeysAtTheLatestSchema) {
  EXPECT_EQ(must(db_->raw().query_text("PRAGMA journal_mode")), "wal");
  EXPECT_EQ(must(db_->raw().query_int64("PRAGMA foreign_keys")), 1);
  EXPECT_EQ(must(db_->raw().query_int64("PRAGMA synchronous")), 1) << "1 is NORMAL";
  EXPECT_EQ(must(db_->schema_version()), latest_version(all_migrations()));
  EXPECT_EQ(must(db_->integrity_check()), "ok");
  EXPECT_FALSE(db_->read_only());
}

TEST_F(Database, ReopeningIsIdempotent) {
  auto campaign = must(db_->insert_campaign(sample_campaign()));
  db_.reset();
  for (int i = 0; i < 2; ++i) {
    auto again = must(database::open(path()));
    EXPECT_EQ(must(again.schema_version()), latest_version(all_migrations()));
    EXPECT_EQ(must(again.raw().query_int64("SELECT count(*) FROM schema_migrations")),
              latest_version(all_migrations()));
    EXPECT_EQ(must(again.load_campaign(campaign)).name, "nightly");
  }
}

TEST_F(Database, CampaignsRoundTripAndTerminalStatesSetFinishedAt) {
  auto row = sample_campaign();
  auto id = must(db_->insert_campaign(row));
  row.id = id;
  auto loaded = must(db_->load_campaign(id));
  EXPECT_EQ(loaded.id, id);
  EXPECT_EQ(loaded.name, row.name);
  EXPECT_EQ(loaded.spec_path, row.spec_path);
  EXPECT_EQ(loaded.spec_toml, row.spec_toml);
  EXPECT_EQ(loaded.run_dir, row.run_dir);
  EXPECT_EQ(loaded.state, campaign_state::running);
  EXPECT_EQ(loaded.created_at, row.created_at);
  EXPECT_EQ(loaded.updated_at, row.updated_at);
  EXPECT_FALSE(loaded.finished_at);
  EXPECT_EQ(loaded.reason, "");

  must(db_->set_campaign_state(id, campaign_state::interrupted, "SIGINT", 1700000100.0));
  loaded = must(db_->load_campaign(id));
  EXPECT_EQ(loaded.state, campaign_state::interrupted);
  EXPECT_EQ(loaded.reason, "SIGINT");
  EXPECT_EQ(loaded.updated_at, 1700000100.0);
  EXPECT_EQ(loaded.finished_at, 1700000100.0);

  must(db_->set_campaign_state(id, campaign_state::running, "", 1700000200.0));
  loaded = must(db_->load_campaign(id));
  EXPECT_FALSE(loaded.finished_at) << "a resumed campaign is no longer finished";
}

TEST_F(Database, UpdatingOrLoadingAMissingRowIsNotFound) {
  auto state = db_->set_campaign_state(42, campaign_state::failed, "x", 1.0);
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().code, store_error_code::not_found);
  EXPECT_EQ(state.error().message, "set_campaign_state: no row in campaigns with id 42");
  auto loaded = db_->load_campaign(42);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, store_error_code::not_found);
  auto outcome = db_->set_branch_outcome(7, branch_outcome::passed, "", 1.0);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, store_error_code::not_found);
}

TEST_F(Database, JobsRoundTripAndUpdateTheirProgress) {
  auto campaign = must(db_->insert_campaign(sample_campaign()));
  auto first = sample_job(campaign, "gemm");
  first.id = must(db_->insert_job(first));
  must(db_->insert_job(sample_job(campaign, "softmax")));

  first.state = job_state::finished;
  first.iterations_done = 7;
  first.best_time_s = 0.5e-3;
  first.updated_at = 1700000050.0;
  first.reason = "budget spent";
  must(db_->update_job(first));

  auto jobs = must(db_->load_jobs(campaign));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, first.id);
  EXPECT_EQ(jobs[0].campaign_id, campaign);
  EXPECT_EQ(jobs[0].name, "gemm");
  EXPECT_EQ(jobs[0].problem_path, "problems/gemm.toml");
  EXPECT_EQ(jobs[0].state, job_state::finished);
  EXPECT_EQ(jobs[0].iterations_done, 7);
  EXPECT_EQ(jobs[0].best_time_s, 0.5e-3);
  EXPECT_EQ(jobs[0].baseline_time_s, 1.25e-3);
  EXPECT_EQ(jobs[0].updated_at, 1700000050.0);
  EXPECT_EQ(jobs[0].reason, "budget spent");
  EXPECT_EQ(jobs[1].name, "softmax");
  EXPECT_FALSE(jobs[1].best_time_s);
}

TEST_F(Database, SettingAJobStateKeepsItsProgress) {
  auto campaign = must(db_->insert_campaign(sample_campaign()));
  auto job = sample_job(campaign, "gemm");
  job.iterations_done = 3;
  job.best_time_s = 0.75e-3;
  auto id = must(db_->insert_job(job));
  must(db_->set_job_state(id, job_state::failed, "the runner crashed 5 times", 1700000060.0));
  auto loaded = must(db_->load_jobs(campaign)).at(0);
  EXPECT_EQ(loaded.state, job_state::failed);
  EXPECT_EQ(loaded.reason, "the runner crashed 5 times");
  EXPECT_EQ(loaded.updated_at, 1700000060.0);
  EXPECT_EQ(loaded.iterations_done, 3);
  EXPECT_EQ(loaded.best_time_s, 0.75e-3);
  auto missing = db_->set_job_state(id + 1, job_state::failed, "", 1.0);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, store_error_code::not_found);
}

TEST_F(Database, ADuplicateJobNameIsAConstraintNamingTheColumns) {
  auto campaign = must(db_->insert_campaign(sample_campaign()));
  must(db_->insert_job(sample_job(campaign, "gemm")));
  auto dup = db_->insert_job(sample_job(campaign, "gemm"));
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, store_error_code::constraint);
  EXPECT_NE(dup.error().message.find("insert_job: step: UNIQUE constraint failed: "
                                     "jobs.campaign_id, jobs.name [INSERT INTO jobs"),
            std::string::npos)
      << dup.error().message;
}

TEST_F(Database, ForeignKeysAreEnforced) {
  auto orphan = db_->insert_job(sample_job(999, "gemm"));
  ASSERT_FALSE(orphan);
  EXPECT_EQ(orphan.error().code, store_error_code::constraint);
  EXPECT_NE(orphan.error().message.find("FOREIGN KEY"), std::string::npos)
      << orphan.error().message;
}

TEST_F(Database, IterationsRoundTripAndRecordTheirChampion) {
  auto iteration_id = make_iteration();
  auto champion = make_branch(iteration_id, 1, branch_outcome::passed);

  auto row = must(db_->load_iterations(job_id_)).at(0);
  EXPECT_EQ(row.id, iteration_id);
  EXPECT_EQ(row.job_id, job_id_);
  EXPECT_EQ(row.number, 1);
  EXPECT_EQ(row.state, iteration_state::running);
  EXPECT_FALSE(row.champion_branch_id);
  EXPECT_EQ(row.started_at, 1700000003.0);
  EXPECT_FALSE(row.finished_at);
  EXPECT_FALSE(row.gaps_json);

  row.state = iteration_state::finished;
  row.champion_branch_id = champion;
  row.finished_at = 1700000009.0;
  row.gaps_json = R"({"memory":0.42,"compute":0.1})";
  must(db_->update_iteration(row));
  auto loaded = must(db_->load_iterations(job_id_)).at(0);
  EXPECT_EQ(loaded.state, iteration_state::finished);
  EXPECT_EQ(loaded.champion_branch_id, champion);
  EXPECT_EQ(loaded.finished_at, 1700000009.0);
  EXPECT_EQ(loaded.gaps_json, row.gaps_json);

  row.gaps_json = "{not json";
  auto bad = db_->update_iteration(row);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, store_error_code::constraint);
}

TEST_F(Database, BranchesRoundTripAndRecordTheirOutcome) {
  auto iteration_id = make_iteration();
  auto parent = make_branch(iteration_id, 0);
  branch_row row;
  row.iteration_id = iteration_id;
  row.ordinal = 1;
  row.kind = branch_kind::ablation;
  row.parent_branch_id = parent;
  row.methods_json = R"(["vectorized_loads","smem_tiling"])";
  row.defines_json = R"({"TILE":64})";
  row.source_path = "jobs/gemm/iter-1/branch-1/kernel.cu";
  row.created_at = 10.0;
  row.updated_at = 11.0;
  row.id = must(db_->insert_branch(row));

  must(db_->set_branch_outcome(row.id, branch_outcome::incorrect, "max abs error 3.2 at [17]",
                               12.0));
  auto branches = must(db_->load_branches(iteration_id));
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_FALSE(branches[0].outcome);
  const auto& loaded = branches[1];
  EXPECT_EQ(loaded.id, row.id);
  EXPECT_EQ(loaded.iteration_id, iteration_id);
  EXPECT_EQ(loaded.ordinal, 1);
  EXPECT_EQ(loaded.kind, branch_kind::ablation);
  EXPECT_EQ(loaded.parent_branch_id, parent);
  EXPECT_EQ(loaded.outcome, branch_outcome::incorrect);
  EXPECT_EQ(loaded.methods_json, row.methods_json);
  EXPECT_EQ(loaded.defines_json, row.defines_json);
  EXPECT_EQ(loaded.source_path, row.source_path);
  EXPECT_EQ(loaded.detail, "max abs error 3.2 at [17]");
  EXPECT_EQ(loaded.created_at, 10.0);
  EXPECT_EQ(loaded.updated_at, 12.0);
}

TEST_F(Database, ADuplicateBranchNamesTheEarlierBranchItRepeats) {
  auto iteration_id = make_iteration();
  make_branch(iteration_id, 0);
  branch_row row;
  row.iteration_id = iteration_id;
  row.ordinal = 1;
  row.outcome = branch_outcome::not_run;
  row.duplicate_of_iteration = 1;
  row.duplicate_of_ordinal = 0;
  row.created_at = row.updated_at = 10.0;
  must(db_->insert_branch(row));
  auto branches = must(db_->load_branches(iteration_id));
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_FALSE(branches[0].duplicate_of_iteration) << "not a duplicate: both columns NULL";
  EXPECT_FALSE(branches[0].duplicate_of_ordinal);
  EXPECT_EQ(branches[1].duplicate_of_iteration, 1);
  EXPECT_EQ(branches[1].duplicate_of_ordinal, 0);
  // Half a reference, or an iteration before the first, is refused by the schema.
  row.ordinal = 2;
  row.duplicate_of_ordinal = std::nullopt;
  EXPECT_FALSE(db_->insert_branch(row));
  row.duplicate_of_ordinal = 0;
  row.duplicate_of_iteration = 0;
  EXPECT_FALSE(db_->insert_branch(row));
}

TEST_F(Database, AnUnknownEnumTextInAColumnIsCorruptNamingTheColumn) {
  auto iteration_id = make_iteration();
  auto id = make_branch(iteration_id, 0);
  must(db_->raw().exec("UPDATE branches SET kind = 'mutant' WHERE id = " + std::to_string(id)));
  auto loaded = db_->load_branches(iteration_id);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, store_error_code::corrupt);
  EXPECT_NE(loaded.error().message.find("branches.kind holds 'mutant'"), std::string::npos)
      << loaded.error().message;
}

TEST_F(Database, MeasurementsRoundTrip) {
  auto branch = make_branch(make_iteration(), 0, branch_outcome::passed);
  measurement_row row{0,      branch, 3,      "NVIDIA H100 80GB HBM3", timing_mode::cold,
                      1.0e-3, 1.1e-3, 2.0e-5, 0.018,   0.98e-3,
                      1.02e-3, 0.95e-3, 200,  1980.0,  20.0};
  row.id = must(db_->insert_measurement(row));
  row.mode = timing_mode::warm;
  row.sm_clock_mhz = std::nullopt;
  must(db_->insert_measurement(row));

  auto loaded = must(db_->load_measurements(branch));
  ASSERT_EQ(loaded.size(), 2u);
  const auto& m = loaded[0];
  EXPECT_EQ(m.id, row.id);
  EXPECT_EQ(m.branch_id, branch);
  EXPECT_EQ(m.gpu, 3);
  EXPECT_EQ(m.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.mode, timing_mode::cold);
  EXPECT_EQ(m.median_s, 1.0e-3);
  EXPECT_EQ(m.mean_s, 1.1e-3);
  EXPECT_EQ(m.stddev_s, 2.0e-5);
  EXPECT_EQ(m.cv, 0.018);
  EXPECT_EQ(m.ci95_low_s, 0.98e-3);
  EXPECT_EQ(m.ci95_high_s, 1.02e-3);
  EXPECT_EQ(m.min_s, 0.95e-3);
  EXPECT_EQ(m.samples, 200);
  EXPECT_EQ(m.sm_clock_mhz, 1980.0);
  EXPECT_EQ(m.created_at, 20.0);
  EXPECT_EQ(loaded[1].mode, timing_mode::warm);
  EXPECT_FALSE(loaded[1].sm_clock_mhz);
}

TEST_F(Database, EventsRoundTripWithTheSeqTheFeedGave) {
  EXPECT_EQ(must(db_->next_event_seq()), 1);
  auto event = sample_event(1);
  EXPECT_EQ(must(db_->append_event(event)), 1);
  event_row bare{2, 5.0, "gpu.lost", std::nullopt, std::nullopt, std::nullopt,
                 std::nullopt, std::int64_t{0}, "{}"};
  must(db_->append_event(bare));
  EXPECT_EQ(must(db_->next_event_seq()), 3);

  auto events = must(db_->events_since(0, 10));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].seq, 1);
  EXPECT_EQ(events[0].ts, event.ts);
  EXPECT_EQ(events[0].type, "branch.measured");
  EXPECT_EQ(events[0].campaign, "nightly");
  EXPECT_EQ(events[0].job, "gemm");
  EXPECT_EQ(events[0].iter, 2);
  EXPECT_EQ(events[0].branch, 3);
  EXPECT_EQ(events[0].gpu, 1);
  EXPECT_EQ(events[0].json, event.json);
  EXPECT_FALSE(events[1].campaign);
  EXPECT_FALSE(events[1].job);
  EXPECT_FALSE(events[1].iter);
  EXPECT_FALSE(events[1].branch);
  EXPECT_EQ(events[1].gpu, 0);
}

TEST_F(Database, EventSeqsMustStrictlyIncrease) {
  must(db_->append_event(sample_event(5)));
  for (std::int64_t stale : {5, 4}) {
    auto r = db_->append_event(sample_event(stale));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, store_error_code::constraint);
    EXPECT_NE(r.error().message.find("is not after the last stored seq 5"), std::string::npos)
        << r.error().message;
  }
  auto zero = db_->append_event(sample_event(0));
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, store_error_code::invalid_argument);
  EXPECT_EQ(must(db_->append_event(sample_event(9))), 9) << "gaps are allowed";
  EXPECT_EQ(must(db_->next_event_seq()), 10);
}

TEST_F(Database, EventsSinceReplaysInSeqOrderAndPages) {
  {
    auto batch = must(db_->begin_batch());
    for (std::int64_t seq = 1; seq <= 25; ++seq)
      must(db_->append_event(sample_event(seq)));
    must(batch.commit());
  }
  std::vector<std::int64_t> seen;
  std::int64_t after = 0;
  for (;;) {
    auto page = must(db_->events_since(after, 10));
    if (page.empty())
      break;
    EXPECT_LE(page.size(), 10u);
    for (const auto& e : page)
      seen.push_back(e.seq);
    after = page.back().seq;
  }
  ASSERT_EQ(seen.size(), 25u);
  for (std::size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], static_cast<std::int64_t>(i) + 1);
  EXPECT_EQ(must(db_->events_since(20, 100)).size(), 5u);
  EXPECT_TRUE(must(db_->events_since(25, 100)).empty());
  auto bad = db_->events_since(0, 0);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, store_error_code::invalid_argument);
}

TEST_F(Database, ArtifactsRoundTripAndARewrittenPathKeepsItsRow) {
  auto branch = make_branch(make_iteration(), 0);
  artifact_row sass{0, artifact_kind::sass, "jobs/gemm/iter-1/branch-0/kernel.sass", 4096,
                    std::nullopt, branch, 30.0};
  auto id = must(db_->insert_artifact(sass));
  artifact_row summary{0, artifact_kind::report, "summary.md", 100, "ab12", std::nullopt, 31.0};
  must(db_->insert_artifact(summary));
  summary.bytes = 200;
  summary.created_at = 32.0;
  auto summary_id = must(db_->insert_artifact(summary));
  EXPECT_EQ(must(db_->insert_artifact(summary)), summary_id);

  auto artifacts = must(db_->load_artifacts());
  ASSERT_EQ(artifacts.size(), 2u);
  EXPECT_EQ(artifacts[0].id, id);
  EXPECT_EQ(artifacts[0].kind, artifact_kind::sass);
  EXPECT_EQ(artifacts[0].path, sass.path);
  EXPECT_EQ(artifacts[0].bytes, 4096);
  EXPECT_FALSE(artifacts[0].sha256);
  EXPECT_EQ(artifacts[0].branch_id, branch);
  EXPECT_EQ(artifacts[0].created_at, 30.0);
  EXPECT_EQ(artifacts[1].id, summary_id);
  EXPECT_EQ(artifacts[1].bytes, 200);
  EXPECT_EQ(artifacts[1].sha256, "ab12");
  EXPECT_FALSE(artifacts[1].branch_id);
  EXPECT_EQ(artifacts[1].created_at, 32.0);
}

TEST_F(Database, ArtifactPathsMustStayInsideTheRunDirectory) {
  for (const char* bad : {"/etc/passwd", "../elsewhere/x", "jobs/../../x", ""}) {
    auto r = db_->insert_artifact(artifact_row{0, artifact_kind::log, bad, 1, std::nullopt,
                                               std::nullopt, 1.0});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, store_error_code::invalid_argument) << bad;
  }
  EXPECT_TRUE(must(db_->load_artifacts()).empty());
}

TEST_F(Database, TheCampaignSummaryCountsJobsBranchesAndEvents) {
  auto empty = db_->load_campaign_summary();
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, store_error_code::not_found);

  auto iteration_id = make_iteration();
  must(db_->insert_job(sample_job(campaign_id_, "softmax")));
  make_branch(iteration_id, 0, branch_outcome::passed);
  make_branch(iteration_id, 1, branch_outcome::passed);
  make_branch(iteration_id, 2, branch_outcome::compile_error);
  make_branch(iteration_id, 3);
  must(db_->append_event(sample_event(1)));
  must(db_->append_event(sample_event(2)));

  // A second, older-looking campaign's rows must not leak into the first one's summary.
  auto other = must(db_->insert_campaign(sample_campaign()));
  auto other_job = must(db_->insert_job(sample_job(other, "gemm")));
  auto other_iteration = must(db_->insert_iteration(
      iteration_row{0, other_job, 1, iteration_state::running, std::nullopt, 1.0, std::nullopt,
                    std::nullopt}));
  make_branch(other_iteration, 0, branch_outcome::timeout);

  auto summary = must(db_->load_campaign_summary(campaign_id_));
  EXPECT_EQ(summary.campaign.id, campaign_id_);
  ASSERT_EQ(summary.jobs.size(), 2u);
  EXPECT_EQ(summary.jobs[0].name, "gemm");
  EXPECT_EQ(summary.jobs[0].baseline_time_s, 1.25e-3);
  EXPECT_EQ(summary.jobs[1].name, "softmax");
  EXPECT_EQ(summary.branch_outcomes.size(), all_branch_outcomes.size());
  EXPECT_EQ(summary.branch_outcomes.at(branch_outcome::passed), 2);
  EXPECT_EQ(summary.branch_outcomes.at(branch_outcome::compile_error), 1);
  EXPECT_EQ(summary.branch_outcomes.at(branch_outcome::timeout), 0);
  EXPECT_EQ(summary.branches_pending, 1);
  EXPECT_EQ(summary.last_event_seq, 2);
  EXPECT_EQ(summary.last_event_ts, sample_event(2).ts);

  auto latest = must(db_->load_campaign_summary());
  EXPECT_EQ(latest.campaign.id, other);
  EXPECT_EQ(latest.branch_outcomes.at(branch_outcome::timeout), 1);
  EXPECT_EQ(latest.branch_outcomes.at(branch_outcome::passed), 0);
}

llm_call_row sample_call(row_id job_id, std::int64_t iteration, std::int64_t seq) {
  llm_call_row row;
  row.job_id = job_id;
  row.iteration = iteration;
  row.seq = seq;
  row.purpose = "propose";
  row.model = "claude-sonnet-4-5";
  row.outcome = "ok";
  row.input_tokens = 1000 * seq + iteration;
  row.output_tokens = 200 * seq;
  row.cache_read_tokens = 30 * seq;
  row.cache_write_tokens = 4 * seq;
  row.cost_usd = 0.01 * static_cast<double>(seq);
  row.seconds = 1.5 * static_cast<double>(seq);
  row.attempts = seq;
  row.transcript = "jobs/gemm/iter-" + std::to_string(iteration) + "/llm/call-" + std::to_string(seq) + ".json";
  row.created_at = 1700000010.0 + static_cast<double>(seq);
  return row;
}

TEST_F(Database, LlmCallsRoundTripByIterationThenSeq) {
  make_iteration();
  const auto late = sample_call(job_id_, 2, 1);
  const auto second = sample_call(job_id_, 1, 2);
  auto first = sample_call(job_id_, 1, 1);
  first.purpose = "judge";
  first.outcome = "rate_limited";
  for (const auto& row : {late, second, first})
    must(db_->insert_llm_call(row));

  auto calls = must(db_->load_llm_calls(job_id_));
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(std::make_pair(calls[0].iteration, calls[0].seq), std::make_pair(std::int64_t{1}, std::int64_t{1}));
  EXPECT_EQ(std::make_pair(calls[1].iteration, calls[1].seq), std::make_pair(std::int64_t{1}, std::int64_t{2}));
  EXPECT_EQ(std::make_pair(calls[2].iteration, calls[2].seq), std::make_pair(std::int64_t{2}, std::int64_t{1}));
  const auto& read = calls[0];
  EXPECT_GT(read.id, 0);
  EXPECT_EQ(read.job_id, job_id_);
  EXPECT_EQ(read.purpose, "judge");
  EXPECT_EQ(read.model, first.model);
  EXPECT_EQ(read.outcome, "rate_limited");
  EXPECT_EQ(read.input_tokens, first.input_tokens);
  EXPECT_EQ(read.output_tokens, first.output_tokens);
  EXPECT_EQ(read.cache_read_tokens, first.cache_read_tokens);
  EXPECT_EQ(read.cache_write_tokens, first.cache_write_tokens);
  EXPECT_EQ(read.cost_usd, first.cost_usd);
  EXPECT_EQ(read.seconds, first.seconds);
  EXPECT_EQ(read.attempts, first.attempts);
  EXPECT_EQ(read.transcript, first.transcript);
  EXPECT_EQ(read.created_at, first.created_at);
  EXPECT_TRUE(must(db_->load_llm_calls(job_id_ + 1)).empty());
}

TEST_F(Database, WritingTheSameLlmCallAgainReplacesItsRow) {
  make_iteration();
  auto call = sample_call(job_id_, 1, 1);
  const auto id = must(db_->insert_llm_call(call));
  call.outcome = "ok";
  call.output_tokens = 777;
  call.cost_usd = 0.5;
  EXPECT_EQ(must(db_->insert_llm_call(call)), id);
  auto calls = must(db_->load_llm_calls(job_id_));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].id, id);
  EXPECT_EQ(calls[0].output_tokens, 777);
  EXPECT_EQ(calls[0].cost_usd, 0.5);
}

TEST_F(Database, AnLlmCallNeedsAJobAndPositiveIterationAndSeq) {
  make_iteration();
  for (const auto& bad : {sample_call(job_id_ + 100, 1, 1), sample_call(job_id_, 0, 1), sample_call(job_id_, 1, 0)}) {
    auto r = db_->insert_llm_call(bad);
    ASSERT_FALSE(r) << bad.job_id << " " << bad.iteration << " " << bad.seq;
    EXPECT_EQ(r.error().code, store_error_code::constraint) << to_string(r.error());
    EXPECT_NE(r.error().message.find("insert_llm_call"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(must(db_->load_llm_calls(job_id_)).empty());
}

TEST_F(Database, TheCampaignSummarySumsEachJobsLlmSpend) {
  make_iteration();
  const auto quiet = must(db_->insert_job(sample_job(campaign_id_, "softmax")));
  auto failed = sample_call(job_id_, 1, 1);
  failed.outcome = "overloaded";
  must(db_->insert_llm_call(failed));
  must(db_->insert_llm_call(sample_call(job_id_, 1, 2)));
  must(db_->insert_llm_call(sample_call(job_id_, 2, 3)));
  // Another campaign's calls stay out of this one's summary.
  auto other = must(db_->insert_campaign(sample_campaign()));
  auto other_job = must(db_->insert_job(sample_job(other, "gemm")));
  must(db_->insert_llm_call(sample_call(other_job, 1, 1)));

  auto summary = must(db_->load_campaign_summary(campaign_id_));
  EXPECT_FALSE(summary.llm_by_job.contains(quiet)) << "a job without calls has no spend";
  ASSERT_EQ(summary.llm_by_job.size(), 1u);
  const auto& spend = summary.llm_by_job.at(job_id_);
  EXPECT_EQ(spend.calls, 3);
  EXPECT_EQ(spend.failed_calls, 1);
  EXPECT_EQ(spend.input_tokens, (1000 + 1) + (2000 + 1) + (3000 + 2));
  EXPECT_EQ(spend.output_tokens, 200 + 400 + 600);
  EXPECT_EQ(spend.cache_read_tokens, 30 + 60 + 90);
  EXPECT_EQ(spend.cache_write_tokens, 4 + 8 + 12);
  EXPECT_NEAR(spend.cost_usd, 0.06, 1e-12);
  EXPECT_NEAR(spend.seconds, 9.0, 1e-12);
  EXPECT_EQ(must(db_->load_campaign_summary(other)).llm_by_job.at(other_job).calls, 1);
}

TEST_F(Database, ABatchRollsBackOnAnEarlyReturn) {
  auto write_some_then_fail = [&]() -> expected<void, store_error> {
    auto batch = db_->begin_batch();
    if (!batch)
      return unexpected{batch.error()};
    for (std::int64_t seq = 1; seq <= 3; ++seq)
      if (auto r = db_->append_event(sample_event(seq)); !r)
        return unexpected{r.error()};
    return db_->set_campaign_state(404, campaign_state::failed, "", 1.0); // not_found: bail out
  };
  auto r = write_some_then_fail();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, store_error_code::not_found);
  EXPECT_TRUE(must(db_->events_since(0, 10)).empty());
  EXPECT_EQ(must(db_->next_event_seq()), 1);
}

TEST_F(Database, ABatchCommitsAllItsWritesAtOnce) {
  auto batch = must(db_->begin_batch());
  auto id = must(db_->insert_campaign(sample_campaign()));
  must(db_->append_event(sample_event(1)));
  auto summary = must(db_->load_campaign_summary()); // reads inside the batch see its writes
  EXPECT_EQ(summary.campaign.id, id);
  must(batch.commit());
  EXPECT_EQ(must(db_->events_since(0, 10)).size(), 1u);
}

TEST_F(Database, AReaderSeesCommittedRowsWhileTheWriterIsOpen) {
  auto campaign = must(db_->insert_campaign(sample_campaign()));
  must(db_->append_event(sample_event(1)));

  auto reader = must(database::open_read_only(path()));
  EXPECT_TRUE(reader.read_only());
  EXPECT_EQ(must(reader.load_campaign_summary()).campaign.id, campaign);
  EXPECT_EQ(must(reader.events_since(0, 10)).size(), 1u);

  auto batch = must(db_->begin_batch());
  must(db_->append_event(sample_event(2)));
  EXPECT_EQ(must(reader.events_since(0, 10)).size(), 1u) << "uncommitted rows are invisible";
  must(batch.commit());
  auto events = must(reader.events_since(1, 10));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].seq, 2);
  EXPECT_EQ(must(reader.load_campaign_summary()).last_event_seq, 2);

  auto write = reader.append_event(sample_event(3));
  ASSERT_FALSE(write);
  EXPECT_EQ(write.error().code, store_error_code::read_only);
}

TEST_F(Database, AReaderOpensAfterTheWriterHasClosed) {
  must(db_->append_event(sample_event(1)));
  db_.reset();
  auto reader = must(database::open_read_only(path()));
  EXPECT_EQ(must(reader.next_event_seq()), 2);
  EXPECT_EQ(must(reader.integrity_check()), "ok");
}

TEST(DatabaseReadOnly, AMissingFileIsCannotOpenAndIsNotCreated) {
  testing::scratch_directory dir;
  auto path = dir / "warpforge.db";
  auto reader = database::open_read_only(path);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, store_error_code::cannot_open);
  EXPECT_NE(reader.error().message.find("open_read_only " + path.string()), std::string::npos)
      << reader.error().message;
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Schema version 0 is no warpforge database at all (the first migration is 1): an empty file or
// someone else's database is said to be that, not "too old".
TEST(DatabaseReadOnly, AFileWithoutOurSchemaIsNotARunDatabase) {
  testing::scratch_directory dir;
  auto foreign = dir / "foreign.db";
  {
    auto conn = must(connection::open(foreign, open_mode::read_write_create));
    must(conn.exec("CREATE TABLE unrelated (x INTEGER)"));
  }
  auto empty = dir / "empty.db";
  std::ofstream{empty}.flush();
  for (const auto& path : {foreign, empty}) {
    auto reader = database::open_read_only(path);
    ASSERT_FALSE(reader) << path;
    EXPECT_EQ(reader.error().code, store_error_code::not_a_run_directory) << path;
    EXPECT_NE(reader.error().message.find("it holds no warpforge schema"), std::string::npos) << reader.error().message;
  }
}

TEST(DatabaseOpen, AFileThatIsNotADatabaseIsCorrupt) {
  testing::scratch_directory dir;
  auto path = dir / "warpforge.db";
  {
    std::ofstream out{path};
    out << std::string(4096, 'x');
  }
  auto db = database::open(path);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, store_error_code::corrupt) << to_string(db.error());
}

} // namespace
} // namespace warpforge::storage
