#pragma once
// Thin RAII wrappers over the SQLite C API: a connection, a prepared statement, a transaction
// guard. Nothing here knows warpforge's schema (database.hpp does). Every failure comes back as a
// store_error whose message carries SQLite's errmsg and the statement text, trimmed:
//   "step: UNIQUE constraint failed: jobs.name [INSERT INTO jobs (campaign_id, name) VALUES ...]"
//
//   auto stmt = conn.prepare("SELECT name FROM jobs WHERE id = ?");
//   stmt->bind(1, id);                         // bind errors are kept and reported by step()
//   for (auto r = stmt->step(); r && *r == step_result::row; r = stmt->step())
//     use(stmt->column_text(0));                // a failed step ends the loop: check r
//
// One connection is used by one thread at a time. Never carry an open connection across fork().

#include "foundation/expected/expected.hpp"
#include "storage/store_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace warpforge::storage {

/// The SQL text as it appears in error messages: whitespace runs folded to one space, cut to
/// max_chars with "..." appended when longer.
std::string trim_statement(std::string_view sql);

enum class open_mode {
  read_write_create, ///< create the file if missing
  read_write,        ///< the file must exist
  read_only,         ///< the file must exist; writes fail with read_only
};

enum class step_result {
  row,  ///< a result row is available through column_*()
  done, ///< the statement has finished
};

class statement {
public:
  statement() = default;
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  statement(statement&& other) noexcept;
  statement& operator=(statement&& other) noexcept;
  ~statement();

  // Parameters are 1-based, as in SQLite. A failed bind is remembered and returned by the next
  // step()/run(), so a chain of binds needs one check.
  statement& bind(int index, std::int64_t value);
  statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  statement& bind(int index, double value);
  statement& bind(int index, std::string_view text);
  statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view{text});
  }
  statement& bind(int index, const char* text) { return bind(index, std::string_view{text}); }
  statement& bind(int index, std::nullopt_t);
  template <class T>
  statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, std::nullopt);
  }

  /// Advances to the next row, or reports done.
  expected<step_result, store_error> step();
  /// Steps until done, ignoring rows: for INSERT/UPDATE/DDL.
  expected<void, store_error> run();
  /// Rewinds to run again; bindings are kept.
  void reset();

  // Columns are 0-based, as in SQLite; valid after step() returned row.
  bool column_is_null(int index) const;
  std::int64_t column_int64(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  std::optional<std::int64_t> column_optional_int64(int index) const;
  std::optional<double> column_optional_double(int index) const;
  std::optional<std::string> column_optional_text(int index) const;

  /// The SQL text this statement was prepared from.
  std::string_view sql() const;

private:
  friend class connection;
  statement(sqlite3_stmt* handle, sqlite3* db) : handle_(handle), db_(db) {}
  void remember_bind_failure(int rc, int index);

  sqlite3_stmt* handle_ = nullptr;
  sqlite3* db_ = nullptr;                 // not owned; the connection outlives its statements
  std::optional<store_error> bind_error_; // first failed bind since the last step
};

class connection {
public:
  /// Opens (or creates, per mode) the file; sets nothing else (database.hpp sets the pragmas).
  static expected<connection, store_error> open(const std::filesystem::path& path, open_mode mode);

  connection() = default;
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  connection(connection&& other) noexcept;
  connection& operator=(connection&& other) noexcept;
  ~connection();

  expected<statement, store_error> prepare(std::string_view sql);
  /// The statement for `sql` from this connection's cache: prepared on first use, kept until the
  /// connection closes (the store runs the same few dozen statements for a whole campaign). The
  /// caller resets it when done, so it holds no lock or read snapshot (query.hpp's `borrowed`
  /// does); one use at a time.
  expected<statement*, store_error> cached(std::string_view sql);
  /// Runs every statement of a script (e.g. a migration) in order; the error names the one that
  /// failed. Rows returned by a statement are discarded.
  expected<void, store_error> exec(std::string_view script);
  /// Runs a statement that returns one row of one column (e.g. "PRAGMA user_version").
  expected<std::int64_t, store_error> query_int64(std::string_view sql);
  expected<std::string, store_error> query_text(std::string_view sql);

  /// How long a locked database is retried before a call fails with busy.
  void set_busy_timeout(std::chrono::milliseconds timeout);

  std::int64_t last_insert_rowid() const;
  /// Rows changed by the most recent INSERT/UPDATE/DELETE.
  std::int64_t changes() const;
  /// True inside BEGIN ... COMMIT/ROLLBACK.
  bool in_transaction() const;
  const std::filesystem::path& path() const { return path_; }

private:
  connection(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
  void close() noexcept;

  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::map<std::string, statement, std::less<>> cache_; // by SQL text; see cached()
};

enum class transaction_mode {
  deferred,  ///< takes locks on first use: a consistent snapshot for a series of reads
  immediate, ///< takes the write lock at BEGIN: writers, so a conflict shows at BEGIN, not later
};

/// A transaction that rolls back when it goes out of scope uncommitted (early return, error).
class transaction {
public:
  static expected<transaction, store_error> begin(
      connection& conn, transaction_mode mode = transaction_mode::immediate);

  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  transaction(transaction&& other) noexcept;
  transaction& operator=(transaction&& other) noexcept;
  ~transaction();

  /// Makes every write since begin() durable against a process crash. After a failed commit the
  /// transaction is rolled back.
  expected<void, store_error> commit();
  /// Discards every write since begin(). Also what the destructor does.
  void rollback() noexcept;
  bool active() const { return conn_ != nullptr; }

private:
  explicit transaction(connection* conn) : conn_(conn) {}
  connection* conn_ = nullptr; // null once committed or rolled back
};

} // namespace warpforge::storage
