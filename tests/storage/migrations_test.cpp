#include "storage/migrations.hpp"

#include "storage/database.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace warpforge::storage {
namespace {

connection open_file(const std::filesystem::path& path) {
  auto conn = connection::open(path, open_mode::read_write_create);
  if (!conn)
    throw std::runtime_error(to_string(conn.error()));
  return std::move(*conn);
}

std::int64_t query(connection& conn, std::string_view sql) {
  auto value = conn.query_int64(sql);
  if (!value)
    throw std::runtime_error(to_string(value.error()));
  return *value;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in{path, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

/// The production migrations followed by one test-only migration, one version past them.
std::vector<migration> production_plus_one(std::string_view sql) {
  std::vector<migration> list{all_migrations().begin(), all_migrations().end()};
  list.push_back(migration{latest_version(all_migrations()) + 1, "test: one step ahead", sql});
  return list;
}

TEST(Migrations, ANewDatabaseIsCreatedAtTheLatestVersion) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  auto result = migrate(conn, all_migrations());
  ASSERT_TRUE(result) << to_string(result.error());
  EXPECT_EQ(result->from_version, 0);
  EXPECT_EQ(result->to_version, latest_version(all_migrations()));
  EXPECT_EQ(*schema_version(conn), latest_version(all_migrations()));
  EXPECT_EQ(query(conn, "SELECT count(*) FROM schema_migrations"),
            latest_version(all_migrations()));
  EXPECT_EQ(query(conn, "SELECT max(version) FROM schema_migrations"),
            latest_version(all_migrations()));
  for (const char* table :
       {"campaigns", "jobs", "iterations", "branches", "measurements", "events", "artifacts", "llm_calls"})
    EXPECT_EQ(query(conn, std::string{"SELECT count(*) FROM sqlite_schema "
                                      "WHERE type = 'table' AND name = '"} +
                              table + "'"),
              1)
        << table;
}

TEST(Migrations, MigratingAnUpToDateDatabaseChangesNothing) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  ASSERT_TRUE(migrate(conn, all_migrations()));
  auto again = migrate(conn, all_migrations());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->from_version, again->to_version);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM schema_migrations"),
            latest_version(all_migrations()));
}

TEST(Migrations, MigratingFromAnOlderVersionPreservesItsData) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  // A database as version 1 of warpforge left it.
  ASSERT_TRUE(migrate(conn, all_migrations().first(1)));
  ASSERT_EQ(*schema_version(conn), 1);
  ASSERT_TRUE(conn.exec(
      "INSERT INTO campaigns (name, spec_path, spec_toml, run_dir, state, created_at, updated_at) "
      "VALUES ('night', 'c.toml', 'x = 1', '/runs/night', 'running', 1.0, 2.0);"
      "INSERT INTO jobs (campaign_id, name, problem_path, state, updated_at) "
      "VALUES (1, 'gemm', 'gemm.toml', 'running', 2.0);"
      "INSERT INTO jobs (campaign_id, name, problem_path, state, updated_at) "
      "VALUES (1, 'softmax', 'softmax.toml', 'pending', 2.0);"
      "INSERT INTO events (seq, ts, type, json) VALUES (1, 3.0, 'campaign.started', '{}');"));

  // The next binary appends one migration that adds a column and fills it from existing rows.
  auto newer = production_plus_one(
      "ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;"
      "UPDATE jobs SET priority = 1 WHERE name = 'gemm';");
  auto result = migrate(conn, newer);
  ASSERT_TRUE(result) << to_string(result.error());
  EXPECT_EQ(result->from_version, 1);
  EXPECT_EQ(result->to_version, latest_version(newer));

  EXPECT_EQ(query(conn, "SELECT count(*) FROM campaigns WHERE name = 'night' AND run_dir = "
                        "'/runs/night' AND state = 'running'"),
            1);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM jobs"), 2);
  EXPECT_EQ(query(conn, "SELECT priority FROM jobs WHERE name = 'gemm'"), 1);
  EXPECT_EQ(query(conn, "SELECT priority FROM jobs WHERE name = 'softmax'"), 0);
  EXPECT_EQ(query(conn, "SELECT seq FROM events WHERE type = 'campaign.started'"), 1);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM schema_migrations"), latest_version(newer));
  EXPECT_EQ(*schema_version(conn), latest_version(newer));
}

TEST(Migrations, MigrationTwoGivesAVersionOneRunItsLlmCallsTableAndKeepsItsRows) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  ASSERT_TRUE(migrate(conn, all_migrations().first(1)));
  ASSERT_TRUE(conn.exec(
      "INSERT INTO campaigns (name, spec_path, spec_toml, run_dir, state, created_at, updated_at) "
      "VALUES ('night', 'c.toml', 'x = 1', '/runs/night', 'interrupted', 1.0, 2.0);"
      "INSERT INTO jobs (campaign_id, name, problem_path, state, updated_at) "
      "VALUES (1, 'gemm', 'gemm.toml', 'running', 2.0);"));
  EXPECT_EQ(query(conn, "SELECT count(*) FROM sqlite_schema WHERE name = 'llm_calls'"), 0);

  auto result = migrate(conn, all_migrations().first(2));
  ASSERT_TRUE(result) << to_string(result.error());
  EXPECT_EQ(result->from_version, 1);
  EXPECT_EQ(result->to_version, 2);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM jobs WHERE name = 'gemm'"), 1);
  ASSERT_TRUE(conn.exec("INSERT INTO llm_calls (job_id, iteration, seq, purpose, model, outcome, created_at) "
                        "VALUES (1, 1, 1, 'propose', 'm', 'ok', 3.0)"));
  EXPECT_EQ(query(conn, "SELECT input_tokens + cost_usd + attempts FROM llm_calls"), 0)
      << "the counters default to 0";
  // (job, iteration, seq) names one call.
  EXPECT_FALSE(conn.exec("INSERT INTO llm_calls (job_id, iteration, seq, purpose, model, outcome, created_at) "
                         "VALUES (1, 1, 1, 'judge', 'm', 'ok', 4.0)"));
}

TEST(Migrations, MigrationFourGivesAVersionThreeRunsBranchesTheirDuplicateOfColumnsAndKeepsItsRows) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  ASSERT_TRUE(migrate(conn, all_migrations().first(3)));
  ASSERT_TRUE(conn.exec(
      "INSERT INTO campaigns (name, spec_path, spec_toml, run_dir, state, created_at, updated_at) "
      "VALUES ('night', 'c.toml', 'x = 1', '/runs/night', 'interrupted', 1.0, 2.0);"
      "INSERT INTO jobs (campaign_id, name, problem_path, state, updated_at) "
      "VALUES (1, 'gemm', 'gemm.toml', 'running', 2.0);"
      "INSERT INTO iterations (job_id, number, state, started_at) VALUES (1, 1, 'running', 3.0);"
      "INSERT INTO branches (iteration_id, ordinal, kind, created_at, updated_at) "
      "VALUES (1, 0, 'baseline', 3.0, 3.0);"));
  auto result = migrate(conn, all_migrations().first(4));
  ASSERT_TRUE(result) << to_string(result.error());
  EXPECT_EQ(result->from_version, 3);
  EXPECT_EQ(result->to_version, 4);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM branches WHERE duplicate_of_iteration IS NULL AND "
                        "duplicate_of_ordinal IS NULL"), 1) << "an older branch is no duplicate";
  ASSERT_TRUE(conn.exec("INSERT INTO branches (iteration_id, ordinal, kind, outcome, duplicate_of_iteration, "
                        "duplicate_of_ordinal, created_at, updated_at) VALUES (1, 1, 'branch', 'not_run', 1, 0, 4.0, 4.0)"));
  EXPECT_EQ(query(conn, "SELECT duplicate_of_ordinal FROM branches WHERE ordinal = 1"), 0);
}

TEST(Migrations, AFailedMigrationRollsBackAndNamesItself) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  auto broken = production_plus_one(
      "CREATE TABLE half_done (x INTEGER);"
      "INSERT INTO no_such_table VALUES (1);");
  auto result = migrate(conn, broken);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, store_error_code::migration_failed);
  const auto& message = result.error().message;
  EXPECT_NE(message.find("migration " + std::to_string(latest_version(broken))), std::string::npos)
      << message;
  EXPECT_NE(message.find("no such table: no_such_table"), std::string::npos) << message;
  EXPECT_NE(message.find("[INSERT INTO no_such_table VALUES (1);]"), std::string::npos) << message;
  // The production migrations before it stay applied; the failed one left nothing behind.
  EXPECT_EQ(*schema_version(conn), latest_version(all_migrations()));
  EXPECT_EQ(query(conn, "SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'"), 0);
  EXPECT_EQ(query(conn, "SELECT count(*) FROM schema_migrations"),
            latest_version(all_migrations()));
}

TEST(Migrations, ADatabaseNewerThanTheBinaryIsRefusedAndLeftUntouched) {
  testing::scratch_directory dir;
  auto path = dir / "run.db";
  {
    auto conn = open_file(path);
    ASSERT_TRUE(migrate(conn, production_plus_one("CREATE TABLE future (x INTEGER);")));
  }
  const auto before = file_bytes(path);

  auto conn = open_file(path);
  auto result = migrate(conn, all_migrations());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, store_error_code::schema_too_new);

  auto db = database::open(path);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, store_error_code::schema_too_new);
  EXPECT_NE(db.error().message.find(path.string()), std::string::npos) << db.error().message;
  const auto newer_version = std::to_string(latest_version(all_migrations()) + 1);
  EXPECT_NE(db.error().message.find("version " + newer_version), std::string::npos)
      << db.error().message;

  auto reader = database::open_read_only(path);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, store_error_code::schema_too_new);
  EXPECT_EQ(file_bytes(path), before);
}

TEST(Migrations, AListNotNumberedFromOneWithoutGapsIsABug) {
  testing::scratch_directory dir;
  auto conn = open_file(dir / "run.db");
  std::vector<migration> gap{migration{1, "one", "CREATE TABLE a (x);"},
                             migration{3, "three", "CREATE TABLE c (x);"}};
  EXPECT_THROW((void)migrate(conn, gap), std::logic_error);
  EXPECT_EQ(*schema_version(conn), 0);
}

} // namespace
} // namespace warpforge::storage
