#pragma once
// Running statements on the run database in one call each: take the statement from the
// connection's cache, bind the values by position (?1, ?2, ... in order), step, read the rows,
// and reset it on the way out, so no statement keeps a lock or a read snapshot past its call.
// The storage/tables/ files are written with these; nothing here knows a table of our schema.
//
//   auto rows = select_rows(conn, jobs, "WHERE campaign_id = ? ORDER BY id", campaign_id);
//   auto id = select_value<row_id>(conn, "SELECT id FROM iterations WHERE job_id = ? AND number = ?",
//                                  job_id, number);       // expected<optional<row_id>>
//   auto changed = execute(conn, "UPDATE jobs SET reason = ? WHERE id = ?", reason, id);
//
// Errors are SQLite's, with the statement text; the caller puts its own name in front (named()).

#include "foundation/expected/expected.hpp"
#include "storage/rows.hpp"
#include "storage/sql_value.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"
#include "storage/table.hpp"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpforge::storage {

/// A statement of the connection's cache, lent for one call: reset (read snapshot and locks
/// released, a bind error forgotten) when the loan ends.
class borrowed_statement {
public:
  static expected<borrowed_statement, store_error> from(connection& conn, std::string_view sql) {
    auto stmt = conn.cached(sql);
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    return borrowed_statement{*stmt};
  }

  borrowed_statement(const borrowed_statement&) = delete;
  borrowed_statement& operator=(const borrowed_statement&) = delete;
  borrowed_statement(borrowed_statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  borrowed_statement& operator=(borrowed_statement&&) = delete;
  ~borrowed_statement() {
    if (stmt_ != nullptr)
      stmt_->reset();
  }

  /// Binds `values` to ?1, ?2, ... in order (sql_value.hpp says how each type is stored).
  template <class... Values>
  borrowed_statement& bind(const Values&... values) {
    [[maybe_unused]] int index = 1;
    (bind_value(*stmt_, index++, values), ...);
    return *this;
  }

  statement& operator*() { return *stmt_; }
  statement* operator->() { return stmt_; }

private:
  explicit borrowed_statement(statement* stmt) : stmt_(stmt) {}
  statement* stmt_;
};

/// `result` with "<step>: " put in front of its error's message: the database method's name.
template <class T>
expected<T, store_error> named(std::string_view step, expected<T, store_error> result) {
  if (!result)
    return unexpected{with_context(std::move(result).error(), step)};
  return result;
}

/// The Value of a row reader, a callable `(const statement&) -> expected<Value, store_error>`.
template <class Read>
using read_result_t =
    std::remove_cvref_t<decltype(*std::declval<std::invoke_result_t<Read&, const statement&>&>())>;

/// Steps `stmt` to the end, turning each row into a value with `read`.
template <class Read>
expected<std::vector<read_result_t<Read>>, store_error> collect_rows(statement& stmt, Read&& read) {
  std::vector<read_result_t<Read>> rows;
  for (;;) {
    auto step = stmt.step();
    if (!step)
      return unexpected{std::move(step).error()};
    if (*step == step_result::done)
      return rows;
    auto row = read(std::as_const(stmt));
    if (!row)
      return unexpected{std::move(row).error()};
    rows.push_back(std::move(*row));
  }
}

/// Runs `sql` (INSERT / UPDATE / DELETE) with `values` bound in order; the rows it changed.
template <class... Values>
expected<std::int64_t, store_error> execute(connection& conn, std::string_view sql, const Values&... values) {
  auto stmt = borrowed_statement::from(conn, sql);
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  if (auto r = stmt->bind(values...)->run(); !r)
    return unexpected{std::move(r).error()};
  return conn.changes();
}

/// Every row `sql` selects, each read by `read` (see collect_rows).
template <class Read, class... Values>
expected<std::vector<read_result_t<Read>>, store_error> select_with(connection& conn, std::string_view sql,
                                                                    Read&& read, const Values&... values) {
  auto stmt = borrowed_statement::from(conn, sql);
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  stmt->bind(values...);
  return collect_rows(**stmt, read);
}

/// The rows of `t` that `rest` (WHERE ... ORDER BY ...) selects.
template <class Table, class... Values>
expected<std::vector<typename Table::row_type>, store_error> select_rows(connection& conn, const Table& t,
                                                                        std::string_view rest,
                                                                        const Values&... values) {
  return select_with(conn, t.select_sql(rest), [&t](const statement& s) { return t.read_row(s); }, values...);
}

/// The one row of `t` that `rest` selects; not_found, "no <what>", when there is none.
template <class Table, class... Values>
expected<typename Table::row_type, store_error> select_row(connection& conn, const Table& t,
                                                            std::string_view rest, const std::string& what,
                                                            const Values&... values) {
  auto rows = select_rows(conn, t, rest, values...);
  if (!rows)
    return unexpected{std::move(rows).error()};
  if (rows->empty())
    return unexpected{store_error{store_error_code::not_found, "no " + what}};
  return std::move(rows->front());
}

/// Column 0 of the first row `sql` selects, as a T; nullopt when it selects none.
template <class T, class... Values>
expected<std::optional<T>, store_error> select_value(connection& conn, std::string_view sql,
                                                     const Values&... values) {
  auto stmt = borrowed_statement::from(conn, sql);
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  auto step = stmt->bind(values...)->step();
  if (!step)
    return unexpected{std::move(step).error()};
  if (*step == step_result::done)
    return std::optional<T>{};
  auto value = read_value<T>(**stmt, 0, {"", ""});
  if (!value)
    return unexpected{std::move(value).error()};
  return std::optional<T>{std::move(*value)};
}

/// Inserts `row` into `t`; returns its key (for a database-assigned key, the one SQLite gave).
template <class Table>
expected<row_id, store_error> insert_row(connection& conn, const Table& t, const typename Table::row_type& row) {
  auto stmt = borrowed_statement::from(conn, t.insert_sql());
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  t.bind_written(**stmt, row);
  if (auto r = (*stmt)->run(); !r)
    return unexpected{std::move(r).error()};
  return conn.last_insert_rowid();
}

/// Inserts `row` into `t` only when `condition` holds (see table::insert_where_sql); whether it did.
template <class Table>
expected<bool, store_error> insert_row_where(connection& conn, const Table& t, const typename Table::row_type& row,
                                             std::string_view condition) {
  auto stmt = borrowed_statement::from(conn, t.insert_where_sql(condition));
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  t.bind_written(**stmt, row);
  if (auto r = (*stmt)->run(); !r)
    return unexpected{std::move(r).error()};
  return conn.changes() > 0;
}

/// Inserts `row`, or, when a row with the same `conflict` columns exists, replaces or keeps it
/// (table::upsert_sql); the key of the row written or kept.
template <class Table>
expected<row_id, store_error> upsert_row(connection& conn, const Table& t, const typename Table::row_type& row,
                                         std::initializer_list<std::string_view> conflict, on_conflict action) {
  auto stmt = borrowed_statement::from(conn, t.upsert_sql(conflict, action));
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  t.bind_written(**stmt, row);
  auto ids = collect_rows(**stmt, [](const statement& s) -> expected<row_id, store_error> {
    return s.column_int64(0);
  }); // steps past RETURNING's row too, so the statement completes
  if (!ids)
    return unexpected{std::move(ids).error()};
  if (ids->size() != 1)
    return unexpected{store_error{store_error_code::sql, "an upsert into " + std::string{t.name()} +
                                                             " returned " + std::to_string(ids->size()) + " rows"}};
  return ids->front();
}

/// not_found, "no row in <table> with <key> <value>", when `changed` is 0.
template <class Table>
expected<void, store_error> one_row_changed(const Table& t, std::int64_t changed, row_id key) {
  if (changed == 0)
    return unexpected{store_error{store_error_code::not_found, "no row in " + std::string{t.name()} + " with " +
                                                                   std::string{t.key_name()} + " " +
                                                                   std::to_string(key)}};
  return {};
}

/// Writes the `names` columns of `row` to the row of `t` with its key; not_found when none has it.
template <class Table>
expected<void, store_error> update_row(connection& conn, const Table& t, const typename Table::row_type& row,
                                       std::initializer_list<std::string_view> names) {
  auto stmt = borrowed_statement::from(conn, t.update_sql(names));
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  t.bind_update(**stmt, row, names);
  if (auto r = (*stmt)->run(); !r)
    return unexpected{std::move(r).error()};
  return one_row_changed(t, conn.changes(), t.key_of(row));
}

/// "UPDATE <t> SET <assignments> WHERE <key> = ?" with `values` bound in order, then `key`;
/// not_found when no row has that key.
template <class Table, class... Values>
expected<void, store_error> update_by_key(connection& conn, const Table& t, row_id key,
                                          std::string_view assignments, const Values&... values) {
  const std::string sql = "UPDATE " + std::string{t.name()} + " SET " + std::string{assignments} + " WHERE " +
                          std::string{t.key_name()} + " = ?";
  auto changed = execute(conn, sql, values..., key);
  if (!changed)
    return unexpected{std::move(changed).error()};
  return one_row_changed(t, *changed, key);
}

} // namespace warpforge::storage
