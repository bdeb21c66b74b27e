// database: opening the run database (pragmas, schema checks, migration), its batches and its
// integrity check. The reads and writes of each table are in storage/tables/<table>.cpp.

#include "storage/database.hpp"

#include "storage/migrations.hpp"
#include "storage/query.hpp"

#include <string>
#include <utility>

namespace warpforge::storage {
namespace {

/// Runs `body`, the steps of an open, and puts `step` in front of its error's message.
template <class Body>
expected<database, store_error> named_steps(std::string_view step, Body&& body) {
  return named(step, body());
}

std::string with_path(std::string_view step, const std::filesystem::path& path) {
  return std::string{step} + " " + path.string();
}

} // namespace

// --- opening -----------------------------------------------------------------------------------

expected<database, store_error> database::open(const std::filesystem::path& path,
                                               const open_options& options) {
  return named_steps(with_path("open", path), [&]() -> expected<database, store_error> {
    auto conn = connection::open(path, open_mode::read_write_create);
    if (!conn)
      return unexpected{std::move(conn).error()};
    conn->set_busy_timeout(options.busy_timeout);
    // Refuse a newer schema before the pragmas below write anything.
    if (auto version = check_schema_version(*conn, all_migrations()); !version)
      return unexpected{std::move(version).error()};
    auto journal = conn->query_text("PRAGMA journal_mode = WAL");
    if (!journal)
      return unexpected{std::move(journal).error()};
    if (*journal != "wal")
      return unexpected{store_error{store_error_code::cannot_open,
                                    "WAL is unavailable on this file system (journal_mode stays '" +
                                        *journal + "')"}};
    if (auto r = conn->exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"); !r)
      return unexpected{r.error()};
    if (auto r = migrate(*conn, all_migrations()); !r)
      return unexpected{std::move(r).error()};
    return database{std::move(*conn), false};
  });
}

expected<database, store_error> database::open_read_only(const std::filesystem::path& path,
                                                         const open_options& options) {
  return named_steps(with_path("open_read_only", path), [&]() -> expected<database, store_error> {
    auto conn = connection::open(path, open_mode::read_only);
    if (!conn)
      return unexpected{std::move(conn).error()};
    conn->set_busy_timeout(options.busy_timeout);
    auto version = check_schema_version(*conn, all_migrations());
    if (!version)
      return unexpected{std::move(version).error()};
    const int latest = latest_version(all_migrations());
    if (*version == 0) // no schema at all: an empty or foreign file, not an old run database
      return unexpected{store_error{store_error_code::not_a_run_directory,
                                    "it holds no warpforge schema (an empty or foreign file): not a "
                                    "run database; a run directory's database is made by `warpforge run`"}};
    if (*version < latest)
      return unexpected{store_error{store_error_code::schema_too_old,
                                    "the database is at schema version " +
                                        std::to_string(*version) + ", this binary reads " +
                                        std::to_string(latest) +
                                        " (`warpforge resume` on its run directory migrates it)"}};
    return database{std::move(*conn), true};
  });
}

expected<int, store_error> database::schema_version() {
  return storage::schema_version(conn_);
}

expected<std::string, store_error> database::integrity_check() {
  auto lines = select_with(conn_, "PRAGMA integrity_check",
                           [](const statement& s) -> expected<std::string, store_error> { return s.column_text(0); });
  if (!lines)
    return unexpected{with_context(std::move(lines).error(), "integrity_check")};
  std::string report;
  for (const auto& line : *lines)
    report += (report.empty() ? "" : "\n") + line;
  return report;
}

expected<transaction, store_error> database::begin_batch() {
  return named("begin_batch", transaction::begin(conn_, transaction_mode::immediate));
}

} // namespace warpforge::storage
