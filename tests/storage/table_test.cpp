// table.hpp and query.hpp on a table of their own (not the run schema), in a real SQLite file:
// the statements a description makes, and rows of every field kind going in and coming back.

#include "storage/query.hpp"
#include "storage/table.hpp"

#include "foundation/vocabulary/states.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace warpforge::storage {
namespace {

using vocabulary::job_state;

struct gadget {
  row_id id = 0;
  std::string name;
  job_state state = job_state::pending;
  bool shiny = false;
  std::optional<double> weight_kg;
  std::optional<job_state> previous;
};

constexpr table gadgets{"gadgets", key_source::database,
                        column{"id", &gadget::id},
                        column{"name", &gadget::name},
                        column{"state", &gadget::state},
                        column{"shiny", &gadget::shiny},
                        column{"weight_kg", &gadget::weight_kg},
                        column{"previous", &gadget::previous}};

template <class T>
T must(expected<T, store_error> result) {
  if (!result)
    throw std::runtime_error(to_string(result.error()));
  return std::move(*result);
}

class Table : public ::testing::Test {
protected:
  void SetUp() override {
    conn_ = must(connection::open(dir_ / "t.db", open_mode::read_write_create));
    auto made = conn_.exec("CREATE TABLE gadgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                           "state TEXT NOT NULL, shiny INTEGER NOT NULL, weight_kg REAL, previous TEXT)");
    ASSERT_TRUE(made) << to_string(made.error());
  }
  testing::scratch_directory dir_;
  connection conn_;
};

TEST(TableStatements, AreMadeFromTheColumnListOnce) {
  EXPECT_EQ(gadgets.select_sql("WHERE id = ?"),
            "SELECT id, name, state, shiny, weight_kg, previous FROM gadgets WHERE id = ?");
  EXPECT_EQ(gadgets.insert_sql(),
            "INSERT INTO gadgets (name, state, shiny, weight_kg, previous) VALUES (?1, ?2, ?3, ?4, ?5)");
  EXPECT_EQ(gadgets.upsert_sql({"name"}, on_conflict::replace),
            "INSERT INTO gadgets (name, state, shiny, weight_kg, previous) VALUES (?1, ?2, ?3, ?4, ?5) "
            "ON CONFLICT (name) DO UPDATE SET state = excluded.state, shiny = excluded.shiny, "
            "weight_kg = excluded.weight_kg, previous = excluded.previous RETURNING id");
  EXPECT_EQ(gadgets.upsert_sql({"name"}, on_conflict::keep),
            "INSERT INTO gadgets (name, state, shiny, weight_kg, previous) VALUES (?1, ?2, ?3, ?4, ?5) "
            "ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id");
  EXPECT_EQ(gadgets.update_sql({"shiny", "state"}), "UPDATE gadgets SET state = ?, shiny = ? WHERE id = ?")
      << "in the table's order, whatever the order asked";
  EXPECT_THROW((void)gadgets.update_sql({"colour"}), std::logic_error) << "a column it does not have is a bug";
}

TEST_F(Table, EveryKindOfFieldRoundTrips) {
  const gadget full{0, "lamp", job_state::running, true, 2.5, job_state::failed};
  const gadget empty{0, "box", job_state::pending, false, std::nullopt, std::nullopt};
  const auto full_id = must(insert_row(conn_, gadgets, full));
  must(insert_row(conn_, gadgets, empty));
  const auto rows = must(select_rows(conn_, gadgets, "ORDER BY id"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, full_id);
  EXPECT_EQ(rows[0].name, "lamp");
  EXPECT_EQ(rows[0].state, job_state::running);
  EXPECT_TRUE(rows[0].shiny);
  EXPECT_EQ(rows[0].weight_kg, std::optional<double>{2.5});
  EXPECT_EQ(rows[0].previous, std::optional{job_state::failed});
  EXPECT_FALSE(rows[1].shiny);
  EXPECT_FALSE(rows[1].weight_kg);
  EXPECT_FALSE(rows[1].previous);
  EXPECT_EQ(must(conn_.query_text("SELECT state FROM gadgets WHERE name = 'lamp'")), "running")
      << "an enum is stored as its word";
}

TEST_F(Table, AnUpsertReplacesOrKeepsTheRowAndReturnsItsKey) {
  const auto id = must(insert_row(conn_, gadgets, gadget{0, "lamp", job_state::running, true, 2.5, {}}));
  EXPECT_EQ(must(upsert_row(conn_, gadgets, gadget{0, "lamp", job_state::failed, false, {}, {}}, {"name"},
                            on_conflict::keep)),
            id);
  EXPECT_EQ(must(select_row(conn_, gadgets, "WHERE id = ?", "gadget", id)).state, job_state::running);
  EXPECT_EQ(must(upsert_row(conn_, gadgets, gadget{0, "lamp", job_state::failed, false, {}, {}}, {"name"},
                            on_conflict::replace)),
            id);
  EXPECT_EQ(must(select_row(conn_, gadgets, "WHERE id = ?", "gadget", id)).state, job_state::failed);
  EXPECT_EQ(must(conn_.query_int64("SELECT count(*) FROM gadgets")), 1);
}

TEST_F(Table, AnUpdateOfAMissingRowIsNotFoundNamingTableAndKey) {
  gadget g{41, "ghost", job_state::running, true, {}, {}};
  auto updated = update_row(conn_, gadgets, g, {"state"});
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().code, store_error_code::not_found);
  EXPECT_EQ(updated.error().message, "no row in gadgets with id 41");
  auto by_key = update_by_key(conn_, gadgets, 41, "shiny = ?", false);
  ASSERT_FALSE(by_key);
  EXPECT_EQ(by_key.error().code, store_error_code::not_found);
}

TEST_F(Table, AWordNoEnumValueHasIsCorruptNamingTheColumn) {
  ASSERT_TRUE(conn_.exec("INSERT INTO gadgets (name, state, shiny) VALUES ('odd', 'dancing', 0)"));
  auto rows = select_rows(conn_, gadgets, "");
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code, store_error_code::corrupt);
  EXPECT_NE(rows.error().message.find("gadgets.state holds 'dancing'"), std::string::npos) << rows.error().message;
}

TEST_F(Table, AStatementIsPreparedOnceAndLeftResetSoItHoldsNoSnapshot) {
  const std::string sql = "SELECT count(*) FROM gadgets";
  EXPECT_EQ(must(conn_.cached(sql)), must(conn_.cached(sql))) << "the same prepared statement";
  // select_value reads only the first row: unless the statement is reset afterwards, this
  // connection would keep its read snapshot and never see the other connection's commit.
  ASSERT_TRUE(conn_.exec("PRAGMA journal_mode = WAL"));
  EXPECT_EQ(must(select_value<std::int64_t>(conn_, sql)), std::optional<std::int64_t>{0});
  auto writer = must(connection::open(dir_ / "t.db", open_mode::read_write));
  ASSERT_TRUE(writer.exec("INSERT INTO gadgets (name, state, shiny) VALUES ('new', 'pending', 0)"));
  EXPECT_EQ(must(select_value<std::int64_t>(conn_, sql)), std::optional<std::int64_t>{1});
}

TEST_F(Table, AFailedBindOrStepLeavesTheCachedStatementUsable) {
  must(insert_row(conn_, gadgets, gadget{0, "lamp", job_state::running, true, {}, {}}));
  auto twice = insert_row(conn_, gadgets, gadget{0, "lamp", job_state::running, true, {}, {}});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, store_error_code::constraint);
  EXPECT_TRUE(insert_row(conn_, gadgets, gadget{0, "other", job_state::running, true, {}, {}}));
}

} // namespace
} // namespace warpforge::storage
