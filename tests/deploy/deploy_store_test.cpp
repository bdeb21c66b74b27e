// Migration 3 on a real SQLite database: a deployment, its steps and its end, written through the
// records deploy_records.hpp makes, read back; and the feed events of a deploy.

#include "deploy/deploy_records.hpp"
#include "storage/database.hpp"
#include "storage/migrations.hpp"

#include "stand_in_project.hpp"

#include <simdjson.h>

namespace warpforge::deploy {
namespace {

using deploy_store_test = testing::stand_in_project;

TEST_F(deploy_store_test, migration_3_records_a_deployment_its_steps_and_its_end) {
  auto db = storage::database::open(dir / "warpforge.db");
  ASSERT_TRUE(db) << storage::to_string(db.error());
  EXPECT_GE(*db->schema_version(), 3) << "deployments and deploy_steps came with migration 3";

  collecting_sink sink;
  const auto r = request(chosen("SLOW"));
  auto report = run_deploy(r, sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);

  auto id = db->record_deployment(deployment_row(r), 100.0);
  ASSERT_TRUE(id) << storage::to_string(id.error());
  EXPECT_EQ(*db->record_deployment(deployment_row(r), 101.0), *id) << "the same work dir keeps its row";
  for (std::size_t i = 0; i < report.steps.size(); ++i)
    ASSERT_TRUE(db->record_deploy_step(step_row(r, static_cast<std::int64_t>(i) + 1, report.steps[i]), 102.0));
  ASSERT_TRUE(db->record_deploy_step(step_row(r, 1, report.steps[0]), 103.0)) << "a repeated write replaces";
  ASSERT_TRUE(db->finish_deployment(result_row(r, report), 104.0));

  auto rows = db->load_deployments();
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const auto& row = rows->front();
  EXPECT_EQ(row.work_dir, "deploy/transpose/1");
  EXPECT_EQ(row.job, "transpose");
  EXPECT_EQ(row.champion, "iter-2/branch-1");
  EXPECT_EQ(row.file, "src/kernel.cuh");
  EXPECT_EQ(row.outcome, "rolled_back");
  EXPECT_EQ(row.reason, report.reason);
  EXPECT_EQ(row.before_median, 2.0);
  EXPECT_EQ(row.after_median, 3.0);
  EXPECT_EQ(row.unit, "kernel_ms");
  EXPECT_EQ(row.started_at, 100.0);
  EXPECT_EQ(row.finished_at, 104.0);

  auto steps = db->load_deploy_steps(row.id);
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), report.steps.size());
  EXPECT_EQ(steps->front().step, "gate");
  EXPECT_EQ(steps->front().created_at, 103.0);
  EXPECT_EQ((*steps)[2].step, "build_original");
  EXPECT_EQ((*steps)[2].log, "deploy/transpose/1/logs/build_original-1.log");
  EXPECT_EQ(steps->back().step, "unlock");
  EXPECT_EQ(steps->back().status, "passed");
}

TEST_F(deploy_store_test, a_step_of_an_unknown_deployment_is_not_found) {
  auto db = storage::database::open(dir / "warpforge.db");
  ASSERT_TRUE(db);
  storage::deploy_step_record step;
  step.work_dir = "deploy/none";
  step.seq = 1;
  step.step = "gate";
  step.status = "passed";
  auto written = db->record_deploy_step(step, 1.0);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, storage::store_error_code::not_found);
  storage::deployment_result end;
  end.work_dir = "deploy/none";
  auto finished = db->finish_deployment(end, 1.0);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code, storage::store_error_code::not_found);
}

TEST_F(deploy_store_test, the_feed_events_carry_the_step_and_the_outcome) {
  collecting_sink sink;
  const auto r = request(chosen("FAST"));
  auto report = run_deploy(r, sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted);
  auto step = step_event(report.steps[3]); // baseline
  EXPECT_EQ(step.type, feed::event_type::deploy_step);
  EXPECT_EQ(step.job, "transpose");
  simdjson::dom::parser parser;
  simdjson::dom::object detail;
  ASSERT_EQ(parser.parse(step.detail_json).get(detail), simdjson::SUCCESS);
  std::string_view name;
  ASSERT_EQ(detail["step"].get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "baseline");
  double median = 0;
  ASSERT_EQ(detail["timing"]["median"].get(median), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(median, 2.0);

  auto end = finished_event(r, report);
  EXPECT_EQ(end.type, feed::event_type::deploy_finished);
  simdjson::dom::parser parser2;
  ASSERT_EQ(parser2.parse(end.detail_json).get(detail), simdjson::SUCCESS);
  ASSERT_EQ(detail["outcome"].get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "accepted");
  double after = 0;
  ASSERT_EQ(detail["after_median"].get(after), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(after, 1.0);
  ASSERT_EQ(detail["work_dir"].get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "deploy/transpose/1");
}

} // namespace
} // namespace warpforge::deploy
