#include "storage/sqlite.hpp"

#include <sqlite3.h>

#include <cctype>
#include <cstdint>
#include <utility>

namespace warpforge::storage {
namespace {

/// Longest statement text quoted in an error message, in characters.
constexpr std::size_t max_statement_chars = 160;

/// SQLITE_TRANSIENT without its old-style cast: SQLite copies the bound text before returning.
const sqlite3_destructor_type copy_on_bind =
    reinterpret_cast<sqlite3_destructor_type>(static_cast<std::intptr_t>(-1));

store_error_code classify(int rc) {
  switch (rc & 0xff) { // the primary result code; the extended bits refine it
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return store_error_code::busy;
    case SQLITE_CONSTRAINT: return store_error_code::constraint;
    case SQLITE_IOERR:
    case SQLITE_FULL: return store_error_code::io;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return store_error_code::corrupt;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM: return store_error_code::cannot_open;
    case SQLITE_READONLY: return store_error_code::read_only;
    default: return store_error_code::sql;
  }
}

/// "<step>: <SQLite's message> [<statement>]".
store_error sqlite_failure(sqlite3* db, int rc, std::string_view step, std::string_view sql) {
  std::string message{step};
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (!sql.empty()) {
    message += " [";
    message += trim_statement(sql);
    message += "]";
  }
  return store_error{classify(rc), std::move(message)};
}

} // namespace

std::string trim_statement(std::string_view sql) {
  std::string out;
  bool pending_space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space)
      out.push_back(' ');
    pending_space = false;
    out.push_back(c);
    if (out.size() > max_statement_chars) {
      out.resize(max_statement_chars);
      out += "...";
      break;
    }
  }
  return out;
}

// --- statement ---------------------------------------------------------------------------------

statement::statement(statement&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      db_(std::exchange(other.db_, nullptr)),
      bind_error_(std::move(other.bind_error_)) {}

statement& statement::operator=(statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    db_ = std::exchange(other.db_, nullptr);
    bind_error_ = std::move(other.bind_error_);
  }
  return *this;
}

statement::~statement() {
  sqlite3_finalize(handle_);
}

void statement::remember_bind_failure(int rc, int index) {
  if (rc == SQLITE_OK || bind_error_)
    return;
  bind_error_ = sqlite_failure(db_, rc, "bind ?" + std::to_string(index), sql());
}

statement& statement::bind(int index, std::int64_t value) {
  remember_bind_failure(sqlite3_bind_int64(handle_, index, value), index);
  return *this;
}

statement& statement::bind(int index, double value) {
  remember_bind_failure(sqlite3_bind_double(handle_, index, value), index);
  return *this;
}

statement& statement::bind(int index, std::string_view text) {
  // A null data pointer would bind SQL NULL; an empty string_view means ''.
  const char* data = text.data() != nullptr ? text.data() : "";
  remember_bind_failure(
      sqlite3_bind_text64(handle_, index, data, text.size(), copy_on_bind, SQLITE_UTF8), index);
  return *this;
}

statement& statement::bind(int index, std::nullopt_t) {
  remember_bind_failure(sqlite3_bind_null(handle_, index), index);
  return *this;
}

expected<step_result, store_error> statement::step() {
  if (bind_error_)
    return unexpected{*std::exchange(bind_error_, std::nullopt)};
  int rc = sqlite3_step(handle_);
  if (rc == SQLITE_ROW)
    return step_result::row;
  if (rc == SQLITE_DONE)
    return step_result::done;
  auto error = sqlite_failure(db_, rc, "step", sql());
  sqlite3_reset(handle_); // leaves the statement ready to run again, releases its locks
  return unexpected{std::move(error)};
}

expected<void, store_error> statement::run() {
  for (;;) {
    auto r = step();
    if (!r)
      return unexpected{std::move(r).error()};
    if (*r == step_result::done)
      return {};
  }
}

void statement::reset() {
  sqlite3_reset(handle_);
  sqlite3_clear_bindings(handle_); // a later use that binds fewer values gets NULLs, not these
  bind_error_.reset();
}

bool statement::column_is_null(int index) const {
  return sqlite3_column_type(handle_, index) == SQLITE_NULL;
}

std::int64_t statement::column_int64(int index) const {
  return sqlite3_column_int64(handle_, index);
}

double statement::column_double(int index) const {
  return sqlite3_column_double(handle_, index);
}

std::string statement::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(handle_, index);
  if (text == nullptr)
    return {};
  auto bytes = static_cast<std::size_t>(sqlite3_column_bytes(handle_, index));
  return std::string{reinterpret_cast<const char*>(text), bytes};
}

std::optional<std::int64_t> statement::column_optional_int64(int index) const {
  if (column_is_null(index))
    return std::nullopt;
  return column_int64(index);
}

std::optional<double> statement::column_optional_double(int index) const {
  if (column_is_null(index))
    return std::nullopt;
  return column_double(index);
}

std::optional<std::string> statement::column_optional_text(int index) const {
  if (column_is_null(index))
    return std::nullopt;
  return column_text(index);
}

std::string_view statement::sql() const {
  const char* text = handle_ != nullptr ? sqlite3_sql(handle_) : nullptr;
  return text != nullptr ? std::string_view{text} : std::string_view{};
}

// --- connection --------------------------------------------------------------------------------

expected<connection, store_error> connection::open(const std::filesystem::path& path,
                                                   open_mode mode) {
  int flags = SQLITE_OPEN_NOMUTEX; // one thread per connection (see the header)
  switch (mode) {
    case open_mode::read_write_create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    case open_mode::read_write: flags |= SQLITE_OPEN_READWRITE; break;
    case open_mode::read_only: flags |= SQLITE_OPEN_READONLY; break;
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    auto error = sqlite_failure(db, rc, "open " + path.string(), {});
    error.code = store_error_code::cannot_open;
    sqlite3_close_v2(db); // a handle is returned even on failure and must be closed
    return unexpected{std::move(error)};
  }
  sqlite3_extended_result_codes(db, 1);
  return connection{db, path};
}

connection::connection(connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      cache_(std::move(other.cache_)) {}

connection& connection::operator=(connection&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    cache_ = std::move(other.cache_);
  }
  return *this;
}

connection::~connection() {
  close();
}

void connection::close() noexcept {
  cache_.clear(); // finalizes the cached statements
  // close_v2 defers the close until outstanding statements are finalized, so the order in
  // which a connection and its statements die does not matter.
  sqlite3_close_v2(std::exchange(db_, nullptr));
}

expected<statement, store_error> connection::prepare(std::string_view sql) {
  sqlite3_stmt* handle = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &handle, nullptr);
  if (rc != SQLITE_OK)
    return unexpected{sqlite_failure(db_, rc, "prepare", sql)};
  return statement{handle, db_};
}

expected<statement*, store_error> connection::cached(std::string_view sql) {
  if (auto found = cache_.find(sql); found != cache_.end())
    return &found->second;
  auto prepared = prepare(sql);
  if (!prepared)
    return unexpected{std::move(prepared).error()};
  return &cache_.emplace(std::string{sql}, std::move(*prepared)).first->second;
}

expected<void, store_error> connection::exec(std::string_view script) {
  const char* next = script.data();
  const char* end = script.data() + script.size();
  while (next < end) {
    sqlite3_stmt* handle = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db_, next, static_cast<int>(end - next), &handle, &tail);
    if (rc != SQLITE_OK) // the error quotes the rest of the script, from the failing statement
      return unexpected{
          sqlite_failure(db_, rc, "prepare", {next, static_cast<std::size_t>(end - next)})};
    next = tail;
    if (handle == nullptr) // only whitespace or a comment
      continue;
    statement stmt{handle, db_};
    if (auto r = stmt.run(); !r)
      return r;
  }
  return {};
}

namespace {

// Runs `sql` and reads column 0 of its first row with `read`; not_found when there is no row.
template <class T, class Read>
expected<T, store_error> query_one(connection& conn, std::string_view sql, Read read) {
  auto stmt = conn.prepare(sql);
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  auto r = stmt->step();
  if (!r)
    return unexpected{std::move(r).error()};
  if (*r != step_result::row)
    return unexpected{store_error{store_error_code::not_found,
                                  "query returned no row [" + trim_statement(sql) + "]"}};
  return read(*stmt);
}

} // namespace

expected<std::int64_t, store_error> connection::query_int64(std::string_view sql) {
  return query_one<std::int64_t>(*this, sql, [](statement& s) { return s.column_int64(0); });
}

expected<std::string, store_error> connection::query_text(std::string_view sql) {
  return query_one<std::string>(*this, sql, [](statement& s) { return s.column_text(0); });
}

void connection::set_busy_timeout(std::chrono::milliseconds timeout) {
  sqlite3_busy_timeout(db_, static_cast<int>(timeout.count()));
}

std::int64_t connection::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t connection::changes() const {
  return sqlite3_changes64(db_);
}

bool connection::in_transaction() const {
  return sqlite3_get_autocommit(db_) == 0;
}

// --- transaction -------------------------------------------------------------------------------

expected<transaction, store_error> transaction::begin(connection& conn, transaction_mode mode) {
  auto r = conn.exec(mode == transaction_mode::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  if (!r)
    return unexpected{std::move(r).error()};
  return transaction{&conn};
}

transaction::transaction(transaction&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)) {}

transaction& transaction::operator=(transaction&& other) noexcept {
  if (this != &other) {
    rollback();
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

transaction::~transaction() {
  rollback();
}

expected<void, store_error> transaction::commit() {
  if (conn_ == nullptr)
    return unexpected{store_error{store_error_code::sql, "commit: the transaction has ended"}};
  auto r = conn_->exec("COMMIT");
  if (!r) {
    rollback();
    return r;
  }
  conn_ = nullptr;
  return {};
}

void transaction::rollback() noexcept {
  connection* conn = std::exchange(conn_, nullptr);
  // After some errors (I/O, full disk) SQLite has already rolled back; ROLLBACK would then only
  // fail with "no transaction is active". A ROLLBACK that fails otherwise leaves nothing for a
  // destructor to do: SQLite rolls back the hot journal on the next open.
  if (conn != nullptr && conn->in_transaction())
    (void)conn->exec("ROLLBACK");
}

} // namespace warpforge::storage
