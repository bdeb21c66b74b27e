#pragma once
// store_error: why a storage call failed, as a value (storage/ never throws for these).
// The code classifies the failure by what the caller can do about it; the message names the
// place: the database method or migration, the SQL statement (trimmed), and SQLite's own text.
//
//   auto id = db.insert_job(row);
//   if (!id) log.error("{}", to_string(id.error()));   // "constraint: insert_job: UNIQUE ..."

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::storage {

enum class store_error_code {
  cannot_open,         ///< the file or folder could not be opened or created (path, permissions)
  not_a_run_directory, ///< run_directory::open on a folder that lacks the layout
  schema_too_new,      ///< written by a newer warpforge; this binary must not touch it
  schema_too_old,      ///< a read-only open of a database that is not migrated to this binary
  migration_failed,    ///< a forward migration failed and was rolled back
  constraint,          ///< a UNIQUE / FOREIGN KEY / CHECK / NOT NULL constraint refused a write
  io,                  ///< the disk failed or is full; also unwritable folders (check_writable)
  not_found,           ///< the row to update or load does not exist
  busy,                ///< another connection holds the lock past busy_timeout; retrying may work
  read_only,           ///< a write through a read-only connection
  corrupt,             ///< the file is not a database, or a column holds a value we cannot read
  invalid_argument,    ///< the caller passed a value the store refuses (e.g. an absolute path)
  sql,                 ///< any other SQLite failure (a bug in a statement, misuse)
};

std::string_view to_string(store_error_code code);

template <class Enum>
std::optional<Enum> from_string(std::string_view text);

template <>
std::optional<store_error_code> from_string<store_error_code>(std::string_view text);

struct store_error {
  store_error_code code = store_error_code::sql;
  /// What failed, where: "insert_job: UNIQUE constraint failed: jobs.campaign_id, jobs.name
  /// [INSERT INTO jobs (campaign_id, name, ...) VALUES (?, ?, ...)]".
  std::string message;
};

/// "<code>: <message>", for logs.
std::string to_string(const store_error& error);

/// The same error with "<context>: " put in front of its message (the caller's step name).
store_error with_context(store_error error, std::string_view context);

} // namespace warpforge::storage
