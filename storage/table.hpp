#pragma once
// A table of the run database, described once: its name, where its key comes from, and in order
// each column's name with the field of its row struct (rows.hpp). Every statement that reads or
// writes whole rows is made from that one list, and every row is read and bound through it, so
// a new column is a migration, a field and one line in storage/tables/<table>.cpp.
//
//   inline constexpr table jobs{"jobs", key_source::database,
//       column{"id", &job_row::id}, column{"campaign_id", &job_row::campaign_id}, ...};
//   jobs.select_sql("WHERE campaign_id = ?")  // "SELECT id, campaign_id, ... FROM jobs WHERE ..."
//   jobs.insert_sql()                         // "INSERT INTO jobs (campaign_id, ...) VALUES (?1, ...)"
//
// query.hpp runs these statements; the tables' own files (storage/tables/) say which rows.

#include "foundation/expected/expected.hpp"
#include "storage/sql_value.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace warpforge::storage {

/// Who gives a row its key (the first column).
enum class key_source {
  database, ///< an INTEGER PRIMARY KEY SQLite assigns on insert (`id`); inserts leave it out
  caller,   ///< the caller's value (events.seq), inserted like any other column
};

/// What an upsert does to the row already there.
enum class on_conflict {
  replace, ///< every written column but the conflict columns takes the new value; the key stays
  keep,    ///< the row stays as it is
};

/// One column: its SQL name and the field of Row that holds it.
template <class Row, class Field>
struct column {
  std::string_view name;
  Field Row::*field;
};

template <class Row, class Field>
column(std::string_view, Field Row::*) -> column<Row, Field>;

template <class Row, class... Fields>
class table {
public:
  using row_type = Row;

  constexpr table(std::string_view name, key_source key, column<Row, Fields>... columns)
      : name_(name), key_(key), columns_(columns...) {}

  std::string_view name() const { return name_; }
  std::string_view key_name() const { return std::get<0>(columns_).name; }
  const auto& key_of(const Row& row) const { return row.*(std::get<0>(columns_).field); }

  /// "SELECT <every column> FROM <table> <rest>"; read_row() reads its rows.
  std::string select_sql(std::string_view rest) const {
    std::string sql{"SELECT "};
    for_each_column([&](std::size_t i, const auto& c) {
      sql += i == 0 ? "" : ", ";
      sql += c.name;
    });
    return sql + " FROM " + std::string{name_} + " " + std::string{rest};
  }

  /// "INSERT INTO <table> (<written columns>) VALUES (?1, ..., ?n)"; bind_written() fills it.
  std::string insert_sql() const { return insert_head() + " VALUES (" + placeholders() + ")"; }

  /// "INSERT INTO <table> (<written columns>) SELECT ?1, ..., ?n WHERE <condition>": inserts
  /// only when the condition (which may name the parameters) holds.
  std::string insert_where_sql(std::string_view condition) const {
    return insert_head() + " SELECT " + placeholders() + " WHERE " + std::string{condition};
  }

  /// insert_sql() that, when a row with the same `conflict` columns exists, replaces or keeps
  /// it, and returns the key of the row written or kept.
  std::string upsert_sql(std::initializer_list<std::string_view> conflict, on_conflict action) const {
    std::string sql = insert_sql() + " ON CONFLICT (" + joined(conflict) + ") DO UPDATE SET ";
    if (action == on_conflict::keep) {
      // A no-op update rather than DO NOTHING, which would return no row.
      const std::string first{*conflict.begin()};
      sql += first + " = excluded." + first;
    } else {
      bool first = true;
      for_each_written([&](std::size_t, const auto& c) {
        for (auto name : conflict)
          if (name == c.name)
            return;
        sql += first ? "" : ", ";
        sql += std::string{c.name} + " = excluded." + std::string{c.name};
        first = false;
      });
    }
    return sql + " RETURNING " + std::string{key_name()};
  }

  /// "UPDATE <table> SET <c> = ?, ... WHERE <key> = ?" for the named columns, in table order;
  /// bind_update() fills it. Throws std::logic_error for a name that is not a column (a bug).
  std::string update_sql(std::initializer_list<std::string_view> names) const {
    check_columns(names);
    std::string sql = "UPDATE " + std::string{name_} + " SET ";
    bool first = true;
    for_each_column([&](std::size_t, const auto& c) {
      if (!contains(names, c.name))
        return;
      sql += first ? "" : ", ";
      sql += std::string{c.name} + " = ?";
      first = false;
    });
    return sql + " WHERE " + std::string{key_name()} + " = ?";
  }

  /// Binds the written columns of `row` to ?1..?n, in insert_sql()'s order.
  void bind_written(statement& stmt, const Row& row) const {
    int index = 1;
    for_each_written([&](std::size_t, const auto& c) { bind_value(stmt, index++, row.*(c.field)); });
  }

  /// Binds the named columns of `row` in update_sql()'s order, then its key.
  void bind_update(statement& stmt, const Row& row, std::initializer_list<std::string_view> names) const {
    int index = 1;
    for_each_column([&](std::size_t, const auto& c) {
      if (contains(names, c.name))
        bind_value(stmt, index++, row.*(c.field));
    });
    bind_value(stmt, index, key_of(row));
  }

  /// Reads the current row of a select_sql() statement.
  expected<Row, store_error> read_row(const statement& stmt) const {
    Row row;
    std::optional<store_error> failure;
    for_each_column([&](std::size_t i, const auto& c) {
      using field_type = std::remove_cvref_t<decltype(row.*(c.field))>;
      if (failure)
        return;
      auto value = read_value<field_type>(stmt, static_cast<int>(i), {name_, c.name});
      if (value)
        row.*(c.field) = std::move(*value);
      else
        failure = std::move(value).error();
    });
    if (failure)
      return unexpected{std::move(*failure)};
    return row;
  }

private:
  template <class F>
  void for_each_column(F&& f) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (f(I, std::get<I>(columns_)), ...);
    }(std::index_sequence_for<Fields...>{});
  }

  /// The columns an insert writes: all but a key the database assigns.
  template <class F>
  void for_each_written(F&& f) const {
    for_each_column([&](std::size_t i, const auto& c) {
      if (i > 0 || key_ == key_source::caller)
        f(i, c);
    });
  }

  std::string insert_head() const {
    std::string sql = "INSERT INTO " + std::string{name_} + " (";
    bool first = true;
    for_each_written([&](std::size_t, const auto& c) {
      sql += first ? "" : ", ";
      sql += c.name;
      first = false;
    });
    return sql + ")";
  }

  /// "?1, ?2, ..., ?n" for the written columns.
  std::string placeholders() const {
    std::string list;
    int index = 1;
    for_each_written([&](std::size_t, const auto&) {
      list += index == 1 ? "?" : ", ?";
      list += std::to_string(index++);
    });
    return list;
  }

  static bool contains(std::initializer_list<std::string_view> names, std::string_view name) {
    for (auto n : names)
      if (n == name)
        return true;
    return false;
  }

  static std::string joined(std::initializer_list<std::string_view> names) {
    std::string list;
    for (auto n : names)
      list += (list.empty() ? "" : ", ") + std::string{n};
    return list;
  }

  void check_columns(std::initializer_list<std::string_view> names) const {
    for (auto n : names) {
      bool found = false;
      for_each_column([&](std::size_t, const auto& c) { found = found || c.name == n; });
      if (!found)
        throw std::logic_error("no column '" + std::string{n} + "' in " + std::string{name_});
    }
  }

  std::string_view name_;
  key_source key_;
  std::tuple<column<Row, Fields>...> columns_;
};

} // namespace warpforge::storage
