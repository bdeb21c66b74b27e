// load_champion on a finished run directory written through the real store and the pipeline's
// own proposal writer: two iterations, the fastest iteration champion wins; an LLM variant's own
// defines and launch come from its iteration's proposal.json.

#include "deploy/champion.hpp"
#include "pipeline/records.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include "stand_in_project.hpp"

namespace warpforge::deploy {
namespace {

using vocabulary::branch_kind;

class champion_test : public testing::stand_in_project {
protected:
  std::filesystem::path run;

  // A finished run of job "transpose" (baseline 2 ms; iteration 1 champion 1.6 ms: the tuned
  // baseline; iteration 2 champion 1 ms: a variant with its own launch) and job "empty".
  void make_run(bool variant_launch) {
    auto created = storage::run_directory::create(dir / "runs", "c", std::chrono::system_clock::now());
    ASSERT_TRUE(created);
    run = created->path();
    auto db = storage::database::open(created->database_path());
    ASSERT_TRUE(db);
    const auto campaign = *db->insert_campaign({0, "c", "c.toml", "", run.string(),
                                                vocabulary::campaign_state::finished, 1, 1, 1, ""});
    storage::job_row job{0, campaign, "transpose", "p.toml", vocabulary::job_state::finished, 2, 1e-3, 2e-3, 1, ""};
    const auto job_id = *db->insert_job(job);
    job.name = "empty";
    ASSERT_TRUE(db->insert_job(job));
    auto branch = [&](storage::row_id iteration, std::int64_t ordinal, branch_kind kind, double time_s,
                      const std::string& source, const std::string& defines) {
      const auto path = "jobs/transpose/iter-" + std::to_string(iteration) + "/branch-" + std::to_string(ordinal) + "/k.cu";
      testing::write_file(run / path, source);
      storage::branch_row b;
      b.iteration_id = iteration;
      b.ordinal = ordinal;
      b.kind = kind;
      b.outcome = vocabulary::branch_outcome::passed;
      b.defines_json = defines;
      b.source_path = path;
      const auto id = *db->insert_branch(b);
      storage::measurement_row m;
      m.branch_id = id;
      m.median_s = time_s;
      EXPECT_TRUE(db->insert_measurement(m));
      return id;
    };
    storage::iteration_row it1{0, job_id, 1, vocabulary::iteration_state::finished, std::nullopt, 1, 2, std::nullopt};
    it1.id = *db->insert_iteration(it1);
    branch(it1.id, 0, branch_kind::baseline, 2e-3, "baseline", "{\"TILE\":16}");
    it1.champion_branch_id = branch(it1.id, 1, branch_kind::branch, 1.6e-3, "tuned", "{\"TILE\":32}");
    ASSERT_TRUE(db->update_iteration(it1));
    storage::iteration_row it2{0, job_id, 2, vocabulary::iteration_state::finished, std::nullopt, 2, 3, std::nullopt};
    it2.id = *db->insert_iteration(it2);
    branch(it2.id, 0, branch_kind::branch, 3e-3, "slow variant", "{\"TILE\":32}");
    it2.champion_branch_id = branch(it2.id, 1, branch_kind::branch, 1e-3, "fast variant", "{\"TILE\":32}");
    ASSERT_TRUE(db->update_iteration(it2));
    pipeline::proposal p;
    p.candidates.resize(2);
    p.candidates[1].defines = {{"COARSEN", 4}};
    if (variant_launch)
      p.candidates[1].launch = config::launch_geometry{{64, 1, 1}, {256, 1, 1}, 0};
    ASSERT_TRUE(pipeline::write_proposal(run, "transpose", 2, p));
  }
};

TEST_F(champion_test, the_fastest_iteration_champion_with_its_defines_and_gain) {
  make_run(false);
  auto c = load_champion(run, "transpose");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->source, "fast variant");
  EXPECT_EQ(c->label, "iter-2/branch-1");
  EXPECT_EQ(c->source_path, "jobs/transpose/iter-2/branch-1/k.cu");
  EXPECT_EQ(c->defines, (std::vector<std::pair<std::string, std::int64_t>>{{"TILE", 32}, {"COARSEN", 4}}));
  EXPECT_FALSE(c->own_launch);
  EXPECT_NEAR(c->standalone_gain, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(c->time_s, 1e-3);
  EXPECT_FALSE(c->given);
}

TEST_F(champion_test, without_the_jobs_baseline_time_the_baseline_branch_gives_the_gain) {
  make_run(false);
  {
    auto db = storage::database::open(run / "warpforge.db");
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->raw().exec("UPDATE jobs SET baseline_time_s = NULL"));
  }
  auto c = load_champion(run, "transpose");
  ASSERT_TRUE(c) << c.error();
  EXPECT_NEAR(c->standalone_gain, 1.0, 1e-12) << "2 ms baseline branch / 1 ms";
}

TEST_F(champion_test, a_variant_with_its_own_launch_says_so) {
  make_run(true);
  auto c = load_champion(run, "transpose");
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(c->own_launch);
}

TEST_F(champion_test, errors_name_the_missing_job_the_missing_champion_and_a_folder_that_is_no_run) {
  make_run(false);
  auto none = load_champion(run, "gemm");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("no job 'gemm'"), std::string::npos);
  EXPECT_NE(none.error().find("its jobs: transpose, empty"), std::string::npos) << none.error();
  auto empty = load_champion(run, "empty");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("has no champion"), std::string::npos) << empty.error();
  auto not_run = load_champion(project, "transpose");
  ASSERT_FALSE(not_run);
  EXPECT_FALSE(not_run.error().empty());
  auto jobs = run_jobs(run);
  ASSERT_TRUE(jobs) << jobs.error();
  std::vector<std::string> names;
  for (const auto& j : *jobs)
    names.push_back(j.name);
  EXPECT_EQ(names, (std::vector<std::string>{"transpose", "empty"}));
}

TEST_F(champion_test, a_given_source_is_a_persons_choice) {
  testing::write_file(dir / "mine.cuh", "mine\n");
  auto c = given_champion(dir / "mine.cuh");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->given);
  EXPECT_EQ(c->source, "mine\n");
  EXPECT_FALSE(given_champion(dir / "none.cuh"));
}

} // namespace
} // namespace warpforge::deploy
