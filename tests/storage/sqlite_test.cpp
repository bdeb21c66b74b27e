#include "storage/sqlite.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

namespace warpforge::storage {
namespace {

class Sqlite : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = connection::open(dir_ / "test.db", open_mode::read_write_create);
    ASSERT_TRUE(opened) << to_string(opened.error());
    conn_ = std::move(*opened);
    ASSERT_TRUE(conn_.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, x REAL)"));
  }

  std::int64_t count_rows() {
    auto n = conn_.query_int64("SELECT count(*) FROM t");
    EXPECT_TRUE(n);
    return n ? *n : -1;
  }

  testing::scratch_directory dir_;
  connection conn_;
};

TEST(SqliteStatementText, IsFoldedToOneLineAndCut) {
  EXPECT_EQ(trim_statement("  SELECT *\n   FROM   t\n\tWHERE id = ?  "),
            "SELECT * FROM t WHERE id = ?");
  std::string long_sql = "SELECT " + std::string(500, 'x');
  auto trimmed = trim_statement(long_sql);
  EXPECT_LT(trimmed.size(), long_sql.size());
  EXPECT_TRUE(trimmed.ends_with("..."));
}

TEST_F(Sqlite, BoundValuesComeBackFromColumns) {
  auto insert = conn_.prepare("INSERT INTO t (name, x) VALUES (?, ?)");
  ASSERT_TRUE(insert);
  ASSERT_TRUE(insert->bind(1, "a").bind(2, 1.5).run());
  EXPECT_EQ(conn_.last_insert_rowid(), 1);
  insert->reset();
  ASSERT_TRUE(insert->bind(1, std::string_view{}).bind(2, std::optional<double>{}).run());

  auto select = conn_.prepare("SELECT name, x FROM t ORDER BY id");
  ASSERT_TRUE(select);
  ASSERT_EQ(*select->step(), step_result::row);
  EXPECT_EQ(select->column_text(0), "a");
  EXPECT_EQ(select->column_optional_double(1), 1.5);
  ASSERT_EQ(*select->step(), step_result::row);
  EXPECT_FALSE(select->column_is_null(0)) << "an empty string is '', not NULL";
  EXPECT_EQ(select->column_text(0), "");
  EXPECT_FALSE(select->column_optional_double(1));
  EXPECT_EQ(*select->step(), step_result::done);
}

TEST_F(Sqlite, AFailedStepCarriesTheStatementAndSqlitesMessage) {
  ASSERT_TRUE(conn_.exec("INSERT INTO t (name) VALUES ('dup')"));
  auto insert = conn_.prepare("INSERT INTO t (name)\n    VALUES ('dup')");
  ASSERT_TRUE(insert);
  auto r = insert->run();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, store_error_code::constraint);
  EXPECT_NE(r.error().message.find("UNIQUE constraint failed: t.name"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("[INSERT INTO t (name) VALUES ('dup')]"), std::string::npos)
      << r.error().message;
}

TEST_F(Sqlite, AFailedPrepareNamesTheStatement) {
  auto bad = conn_.prepare("SELEKT 1");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, store_error_code::sql);
  EXPECT_NE(bad.error().message.find("prepare: near \"SELEKT\""), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("[SELEKT 1]"), std::string::npos);
}

TEST_F(Sqlite, AScriptErrorNamesTheFailingStatement) {
  auto r = conn_.exec("INSERT INTO t (name) VALUES ('ok'); INSERT INTO missing VALUES (1);");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no such table: missing"), std::string::npos);
  EXPECT_NE(r.error().message.find("[INSERT INTO missing VALUES (1);]"), std::string::npos)
      << r.error().message;
}

TEST_F(Sqlite, ABindToAMissingParameterIsReportedByStep) {
  auto insert = conn_.prepare("INSERT INTO t (name) VALUES (?)");
  ASSERT_TRUE(insert);
  auto r = insert->bind(1, "a").bind(7, "nowhere").run();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("bind ?7"), std::string::npos) << r.error().message;
  EXPECT_EQ(count_rows(), 0);
}

TEST_F(Sqlite, ATransactionRollsBackWhenLeftUncommitted) {
  auto write_then_return_early = [&]() -> expected<void, store_error> {
    auto tx = transaction::begin(conn_);
    if (!tx)
      return unexpected{tx.error()};
    if (auto r = conn_.exec("INSERT INTO t (name) VALUES ('lost')"); !r)
      return r;
    return unexpected{store_error{store_error_code::sql, "an early return"}};
  };
  EXPECT_FALSE(write_then_return_early());
  EXPECT_FALSE(conn_.in_transaction());
  EXPECT_EQ(count_rows(), 0);
}

TEST_F(Sqlite, ACommittedTransactionKeepsItsWrites) {
  {
    auto tx = transaction::begin(conn_);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(conn_.exec("INSERT INTO t (name) VALUES ('a'); INSERT INTO t (name) VALUES ('b')"));
    ASSERT_TRUE(tx->commit());
    EXPECT_FALSE(tx->active());
    EXPECT_FALSE(tx->commit()) << "a second commit is an error, not a silent success";
  }
  EXPECT_EQ(count_rows(), 2);
}

TEST_F(Sqlite, AMovedTransactionRollsBackOnce) {
  {
    auto tx = transaction::begin(conn_);
    ASSERT_TRUE(tx);
    transaction moved = std::move(*tx);
    EXPECT_TRUE(moved.active());
    ASSERT_TRUE(conn_.exec("INSERT INTO t (name) VALUES ('a')"));
  }
  EXPECT_FALSE(conn_.in_transaction());
  EXPECT_EQ(count_rows(), 0);
}

TEST(SqliteOpen, AMissingFileIsCannotOpenNamingThePath) {
  testing::scratch_directory dir;
  auto missing = dir / "missing.db";
  auto r = connection::open(missing, open_mode::read_only);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, store_error_code::cannot_open);
  EXPECT_NE(r.error().message.find(missing.string()), std::string::npos) << r.error().message;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

} // namespace
} // namespace warpforge::storage
