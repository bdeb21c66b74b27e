#pragma once
// How one C++ value goes into an SQLite parameter and comes back out of a column: the one place
// that knows a vocabulary enum is stored as its word, a bool as 0 or 1, and an empty optional as
// NULL. table.hpp and query.hpp bind and read every field through these two functions.
//
//   bind_value(stmt, 4, vocabulary::job_state::running);                 // binds 'running'
//   auto state = read_value<vocabulary::job_state>(stmt, 4, {"jobs", "state"});
//   // a word this binary does not know: corrupt, "jobs.state holds 'runing', a value ..."

#include "foundation/expected/expected.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace warpforge::storage {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// Binds `value` to the 1-based parameter `index` (a failed bind surfaces at the next step).
template <class T>
void bind_value(statement& stmt, int index, const T& value) {
  if constexpr (is_optional<T>::value) {
    if (value)
      bind_value(stmt, index, *value);
    else
      stmt.bind(index, std::nullopt);
  } else if constexpr (std::is_enum_v<T>) {
    stmt.bind(index, to_string(value)); // the vocabulary word, found by ADL
  } else if constexpr (std::is_same_v<T, bool>) {
    stmt.bind(index, std::int64_t{value ? 1 : 0});
  } else if constexpr (std::is_integral_v<T>) {
    stmt.bind(index, static_cast<std::int64_t>(value));
  } else {
    stmt.bind(index, value); // double, std::string, std::string_view
  }
}

/// Where a value is read from, for the error of one that cannot be: "<table>.<column>".
struct column_place {
  std::string_view table;
  std::string_view column;
};

/// Reads the 0-based column `column` of the current row as a T; a word that no value of an enum
/// has is corrupt, naming `where`.
template <class T>
expected<T, store_error> read_value(const statement& stmt, int column, column_place where) {
  if constexpr (is_optional<T>::value) {
    if (stmt.column_is_null(column))
      return T{};
    auto value = read_value<typename T::value_type>(stmt, column, where);
    if (!value)
      return unexpected{std::move(value).error()};
    return T{std::move(*value)};
  } else if constexpr (std::is_enum_v<T>) {
    auto text = stmt.column_text(column);
    if (auto value = vocabulary::from_string<T>(text))
      return *value;
    return unexpected{store_error{store_error_code::corrupt,
                                  std::string{where.table} + "." + std::string{where.column} +
                                      " holds '" + text +
                                      "', a value this binary does not know"}};
  } else if constexpr (std::is_same_v<T, bool>) {
    return stmt.column_int64(column) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(stmt.column_int64(column));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(stmt.column_double(column));
  } else {
    static_assert(std::is_same_v<T, std::string>, "a column is read as a number, text, an enum or bool");
    return stmt.column_text(column);
  }
}

} // namespace warpforge::storage
